// SPDX-License-Identifier: MIT
// Importance matrices for the GGUF export (gguf_export.h loadImatrix): llama.cpp's legacy
// imatrix.dat (tools/imatrix: int32 entry count; per entry the name's length and bytes, ncall,
// nval and nval FP32 values that are mean x² · ncall; then the last call and the dataset name),
// its GGUF imatrix (per tensor `NAME.in_sum2` [ne0, n_mat] Σx² and `NAME.counts` [1, n_mat]), and
// a Quantscope capture (each module's mean x²). Every read is checked against the file's size.
#include "export/gguf_export.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "ggml/ggml_names.h"
#include "io/capture.h"
#include "io/checkpoint.h"
#include "io/gguf.h"
#include "io/mapped_file.h"
#include "util/error.h"
#include "util/utf8.h"

namespace quantscope {

namespace {

[[noreturn]] void lie(const std::filesystem::path &file, const std::string &why, std::uint64_t offset,
                      const std::string &entry = {})
{
    throw FormatError("imatrix: " + why, Location{file.string(), entry, offset});
}

void checkFinite(const std::filesystem::path &file, const std::string &name, const std::vector<float> &v,
                 std::uint64_t offset)
{
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i]))
            lie(file, "weight " + std::to_string(i) + " of '" + utf8Safe(name) + "' is not finite", offset, name);
}

Imatrix loadLegacy(const std::filesystem::path &path)
{
    const auto map = MappedFile::open(path);
    const auto *p = reinterpret_cast<const unsigned char *>(map->data());
    const std::uint64_t size = map->size();
    std::uint64_t pos = 0;
    const auto i32 = [&](const char *what, const std::string &entry = {}) {
        if (size - pos < 4)
            lie(path, std::string("the file ends inside ") + what, pos, entry);
        std::int32_t v;
        std::memcpy(&v, p + pos, 4);
        pos += 4;
        return v;
    };
    Imatrix im;
    im.file = path.string();
    im.format = "imatrix.dat";
    const std::int32_t n = i32("the entry count");
    if (n < 1)
        lie(path, "the entry count is " + std::to_string(n) + " (at least 1)", 0);
    if (static_cast<std::uint64_t>(n) > size / 16)
        lie(path, "the entry count " + std::to_string(n) + " cannot fit in " + std::to_string(size) + " bytes", 0);
    for (std::int32_t e = 0; e < n; ++e) {
        const std::uint64_t at = pos;
        const std::int32_t len = i32("an entry's name length");
        if (len < 1 || static_cast<std::uint64_t>(len) > size - pos)
            lie(path, "entry " + std::to_string(e) + "'s name length " + std::to_string(len) + " is outside the file",
                at);
        const std::string name(reinterpret_cast<const char *>(p + pos), static_cast<std::size_t>(len));
        pos += static_cast<std::uint64_t>(len);
        if (!isValidUtf8(name))
            lie(path, "entry " + std::to_string(e) + "'s name is not UTF-8", at);
        const std::int32_t ncall = i32("an entry's call count", name);
        const std::int32_t nval = i32("an entry's value count", name);
        if (ncall < 0)
            lie(path, "'" + name + "' has a negative call count " + std::to_string(ncall), at, name);
        if (nval < 1 || static_cast<std::uint64_t>(nval) > (size - pos) / 4)
            lie(path,
                "'" + name + "' claims " + std::to_string(nval) + " values, " + std::to_string((size - pos) / 4) +
                    " fit in the rest of the file",
                at, name);
        std::vector<float> v(static_cast<std::size_t>(nval));
        std::memcpy(v.data(), p + pos, v.size() * 4);
        pos += v.size() * 4;
        if (ncall > 0)
            for (float &x : v)
                x /= static_cast<float>(ncall); // llama-quantize's load_legacy_imatrix
        checkFinite(path, name, v, at);
        if (!im.weights.emplace(name, std::move(v)).second)
            lie(path, "'" + name + "' appears twice", at, name);
    }
    // The optional trailer: the chunk count and the dataset's name.
    if (size - pos >= 4) {
        im.chunks = i32("the chunk count");
        if (size - pos >= 4) {
            const std::int32_t len = i32("the dataset name's length");
            if (len > 0 && static_cast<std::uint64_t>(len) <= size - pos) {
                const std::string ds(reinterpret_cast<const char *>(p + pos), static_cast<std::size_t>(len));
                im.datasets.push_back(utf8Safe(ds.c_str())); // llama.cpp reads it as a C string
            }
        }
    }
    return im;
}

Imatrix loadGgufImatrix(const GgufFile &f)
{
    Imatrix im;
    im.file = f.path().string();
    im.format = "imatrix.gguf";
    // llama-quantize refuses an imatrix GGUF without its metadata.
    const GgufKeyValue *ds = f.find("imatrix.datasets"), *cc = f.find("imatrix.chunk_count"),
                       *cs = f.find("imatrix.chunk_size");
    if (ds == nullptr || cc == nullptr || cs == nullptr)
        lie(f.path(), "an imatrix GGUF needs imatrix.datasets, imatrix.chunk_count and imatrix.chunk_size", 0);
    if (ds->value.is_array())
        for (const auto &d : ds->value)
            if (d.is_string())
                im.datasets.push_back(d.get<std::string>());
    if (cc->value.is_number_integer())
        im.chunks = cc->value.get<std::int64_t>();
    const std::string suffix = ".in_sum2";
    for (const GgufTensorInfo &t : f.tensors()) {
        if (t.name.size() <= suffix.size() || t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string name = t.name.substr(0, t.name.size() - suffix.size());
        const GgufTensorInfo *c = f.tensorInfo(name + ".counts");
        if (c == nullptr)
            lie(f.path(), "'" + t.name + "' has no '" + name + ".counts'", t.infoOffset, t.name);
        if (t.type != ggml::Type::F32 || c->type != ggml::Type::F32)
            lie(f.path(), "'" + name + "': in_sum2 and counts must be F32", t.infoOffset, t.name);
        const std::uint64_t ne0 = t.ne.empty() ? 0 : t.ne[0];
        const std::uint64_t nmat = t.ne.size() > 1 ? t.ne[1] : 1;
        const std::uint64_t ncounts = c->ne.size() > 1 ? c->ne[1] : 1;
        if (ne0 == 0 || ncounts != nmat || (c->ne.empty() ? 0 : c->ne[0]) != 1)
            lie(f.path(),
                "'" + name + "': counts [1, " + std::to_string(ncounts) + "] do not fit in_sum2 [" +
                    std::to_string(ne0) + ", " + std::to_string(nmat) + "]",
                t.infoOffset, t.name);
        const Tensor sums = f.tensor(t.name), counts = f.tensor(name + ".counts");
        std::vector<float> s(static_cast<std::size_t>(sums.numel())), n(static_cast<std::size_t>(counts.numel()));
        sums.decodeTo(s);
        counts.decodeTo(n);
        std::vector<float> v(s.size());
        for (std::uint64_t j = 0; j < nmat; ++j)
            for (std::uint64_t i = 0; i < ne0; ++i)
                // Counts are rounded to integers; a matrix that saw no input gets weights 1, as
                // llama-quantize does.
                v[j * ne0 + i] = std::lround(n[j]) > 0 ? s[j * ne0 + i] / static_cast<float>(std::lround(n[j])) : 1.0f;
        checkFinite(f.path(), name, v, t.infoOffset);
        im.weights.emplace(name, std::move(v));
    }
    if (im.weights.empty())
        lie(f.path(), "a GGUF imatrix holds NAME.in_sum2 / NAME.counts tensors; this file has none", 0);
    return im;
}

Imatrix loadCapture(const std::filesystem::path &path, const GgufFile &model)
{
    const Capture cap = Capture::open(path);
    Imatrix im;
    im.file = path.string();
    im.format = "capture";
    for (const GgufTensorInfo &t : model.tensors()) {
        const std::string hf = model.hfName(t.name);
        const std::string module = hf.empty() ? std::string() : moduleOfWeight(hf);
        if (module.empty() || cap.module(module) == nullptr)
            continue;
        const InputStats st = cap.inputStats(module);
        if (static_cast<std::uint64_t>(st.k) != t.ne[0])
            throw FormatError("imatrix: the capture's '" + module + "' has " + std::to_string(st.k) +
                                  " input channels, tensor '" + t.name + "' has " + std::to_string(t.ne[0]),
                              Location{path.string(), module, {}});
        std::vector<float> v(static_cast<std::size_t>(st.k));
        st.gramDiag.decodeTo(v);
        checkFinite(path, module, v, 0);
        im.weights.emplace(t.name, std::move(v));
    }
    if (im.weights.empty())
        throw FormatError("imatrix: no module of the capture pairs with a tensor of '" + model.path().string() +
                              "' (paired by HF name; architecture '" + model.architecture() + "')",
                          Location{path.string(), {}, {}});
    return im;
}

} // namespace

Imatrix loadImatrix(const std::filesystem::path &path)
{
    if (GgufFile::hasMagic(path))
        return loadGgufImatrix(GgufFile::open(path));
    if (isCaptureFile(path))
        throw UnsupportedError("'" + path.string() +
                               "' is a Quantscope capture, not llama.cpp's imatrix: pair it with --capture (and "
                               "imatrix=true in the gguf spec)");
    return loadLegacy(path);
}

std::vector<float> importanceOf(const Imatrix &im, const Checkpoint &ck, const std::string &tensor, std::int64_t k)
{
    std::vector<std::string> names{tensor};
    const GgufFile *g = ck.gguf();
    const std::string gguf = ggml::ggufName(g ? g->architecture() : std::string("llama"), tensor);
    if (!gguf.empty() && gguf != tensor)
        names.push_back(gguf);
    for (const std::string &n : names) {
        const auto it = im.weights.find(n);
        if (it == im.weights.end())
            continue;
        if (static_cast<std::int64_t>(it->second.size()) != k)
            throw UnsupportedError("the importance matrix holds " + std::to_string(it->second.size()) +
                                       " weights for '" + n + "', the tensor's rows have " + std::to_string(k) +
                                       " columns",
                                   Location{im.file, tensor, {}});
        return it->second;
    }
    std::string tried;
    for (const std::string &n : names)
        tried += (tried.empty() ? "'" : ", '") + n + "'";
    throw UnsupportedError("the importance matrix has no entry for this tensor (looked up as " + tried + " among its " +
                               std::to_string(im.weights.size()) + " entries)",
                           Location{im.file, tensor, {}});
}

Imatrix loadImatrix(const std::filesystem::path &path, const GgufFile &model)
{
    if (GgufFile::hasMagic(path))
        return loadGgufImatrix(GgufFile::open(path));
    if (isCaptureFile(path))
        return loadCapture(path, model);
    return loadLegacy(path);
}

} // namespace quantscope
