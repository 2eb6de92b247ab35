// SPDX-License-Identifier: MIT
#pragma once
// Test helpers shared by the safetensors and checkpoint tests: a per-test temporary folder and
// a builder that writes a file from a literal header and data bytes, lies included.
#include "util/error.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <unistd.h>

namespace quantscope::test {

namespace fs = std::filesystem;

/// A fresh folder under ::testing::TempDir(), named after the running test, removed afterwards.
class ScratchDir {
public:
    ScratchDir()
    {
        const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string("qs_") + (info ? info->test_suite_name() : "suite") + "_" +
                           (info ? info->name() : "test") + "_" + std::to_string(::getpid());
        for (char &c : name)
            if (c == '/')
                c = '_';
        m_path = fs::path(::testing::TempDir()) / name;
        fs::remove_all(m_path);
        fs::create_directories(m_path);
    }
    ~ScratchDir()
    {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    ScratchDir(const ScratchDir &) = delete;
    ScratchDir &operator=(const ScratchDir &) = delete;

    const fs::path &path() const { return m_path; }
    fs::path operator/(const std::string &name) const { return m_path / name; }

private:
    fs::path m_path;
};

inline std::string le64(std::uint64_t n)
{
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i)
        s[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
    return s;
}

inline void writeBytes(const fs::path &p, const std::string &bytes)
{
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << "cannot write fixture " << p;
}

inline std::string readBytes(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Bytes of a safetensors file: the 8-byte length of `header` (as given, no padding), the header,
/// then `data`.
inline std::string stBytes(const std::string &header, const std::string &data = {})
{
    return le64(header.size()) + header + data;
}

/// Writes stBytes(header, data) to `p` and returns `p`.
inline fs::path writeSt(const fs::path &p, const std::string &header, const std::string &data = {})
{
    writeBytes(p, stBytes(header, data));
    return p;
}

/// `count` bytes 0, 1, 2, … (mod 256), as data for fixtures.
inline std::string ramp(std::size_t count, unsigned start = 0)
{
    std::string s(count, '\0');
    for (std::size_t i = 0; i < count; ++i)
        s[i] = static_cast<char>((start + i) & 0xFF);
    return s;
}

/// Checks where an error points and that what() says it: the file, the tensor (empty: none) and
/// the absolute byte offset (nullopt: none); `rule` must appear in the message.
inline void expectWhere(const Error &e, const fs::path &file, const std::string &tensor,
                        std::optional<std::uint64_t> offset, const std::string &rule)
{
    const std::string what = e.what();
    EXPECT_EQ(e.where().file, file.string()) << what;
    EXPECT_NE(what.find(file.string()), std::string::npos) << what;
    EXPECT_EQ(e.where().tensor, tensor) << what;
    if (!tensor.empty()) {
        EXPECT_NE(what.find("tensor '" + tensor + "'"), std::string::npos) << what;
    }
    EXPECT_EQ(e.where().offset, offset) << what;
    if (offset) {
        EXPECT_NE(what.find("byte " + std::to_string(*offset) + ":"), std::string::npos) << what;
    }
    EXPECT_NE(e.message().find(rule), std::string::npos)
        << "message does not state the rule '" << rule << "': " << what;
}

} // namespace quantscope::test
