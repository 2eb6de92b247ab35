// SPDX-License-Identifier: MIT
#include "fuzz_common.h"

#include <algorithm>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace qsfuzz {

namespace fs = std::filesystem;

namespace {
struct Scratch {
    fs::path dir;
    Scratch()
    {
        const char *tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/qsfuzz-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) {
            std::perror("qsfuzz: mkdtemp");
            std::abort();
        }
        dir = pattern;
    }
    ~Scratch()
    {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};
} // namespace

const fs::path &scratch()
{
    static Scratch s;
    return s.dir;
}

fs::path writeFile(const std::string &name, const void *data, std::size_t size)
{
    const fs::path p = scratch() / name;
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char *>(data), static_cast<std::streamsize>(size));
    if (!out) {
        std::fprintf(stderr, "qsfuzz: cannot write %s\n", p.c_str());
        std::abort();
    }
    return p;
}

fs::path writeFile(const std::string &name, std::string_view text)
{
    return writeFile(name, text.data(), text.size());
}

void clearScratch()
{
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(scratch(), ec))
        fs::remove_all(e.path(), ec);
}

void touch(const quantscope::Tensor &t)
{
    if (!t.valid() || t.empty() || t.nbytes() > kMaxTensorBytes)
        return;
    std::vector<float> buf(static_cast<std::size_t>(std::min<std::int64_t>(t.numel(), 4096)));
    volatile float sink = 0;
    for (std::int64_t i = 0; i < t.numel(); i += static_cast<std::int64_t>(buf.size())) {
        const auto n =
            static_cast<std::size_t>(std::min<std::int64_t>(t.numel() - i, static_cast<std::int64_t>(buf.size())));
        t.decodeRange(i, std::span<float>(buf.data(), n));
        for (std::size_t j = 0; j < n; ++j)
            sink = sink + buf[j];
    }
    (void)sink;
}

} // namespace qsfuzz
