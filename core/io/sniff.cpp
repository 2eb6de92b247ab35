// SPDX-License-Identifier: MIT
// Recognising files that are not safetensors, npy or npz by their magic bytes (sniff.h).
#include "io/sniff.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string_view>
#include <vector>

namespace quantscope {

namespace {

std::int32_t le32(std::span<const unsigned char> b, std::size_t at)
{
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = (v << 8) | b[at + static_cast<std::size_t>(i)];
    std::int32_t s;
    std::memcpy(&s, &v, sizeof s);
    return s;
}

bool startsWith(std::span<const unsigned char> b, std::string_view magic)
{
    return b.size() >= magic.size() && std::memcmp(b.data(), magic.data(), magic.size()) == 0;
}

bool contains(std::span<const unsigned char> b, std::string_view what)
{
    const auto *first = reinterpret_cast<const char *>(b.data());
    return std::string_view(first, b.size()).find(what) != std::string_view::npos;
}

/// llama2.c's run.c format: seven int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads,
/// vocab_size — negative when the classifier is not shared —, seq_len), then the FP32 weights.
/// The header must be plausible and the file exactly as long as those weights.
std::optional<ForeignFile> llama2c(std::span<const unsigned char> head, std::uint64_t size)
{
    if (head.size() < 28)
        return std::nullopt;
    const std::int64_t dim = le32(head, 0), hidden = le32(head, 4), layers = le32(head, 8), heads = le32(head, 12),
                       kvHeads = le32(head, 16), vocabField = le32(head, 20), seq = le32(head, 24);
    const std::int64_t vocab = vocabField < 0 ? -vocabField : vocabField;
    const auto in = [](std::int64_t v, std::int64_t hi) { return v >= 1 && v <= hi; };
    if (!in(dim, 1 << 16) || !in(hidden, 1 << 18) || !in(layers, 1024) || !in(heads, 1024) || !in(kvHeads, heads) ||
        !in(vocab, 1 << 21) || !in(seq, 1 << 21) || dim % heads != 0 || heads % kvHeads != 0)
        return std::nullopt;
    const std::int64_t headSize = dim / heads, kvDim = kvHeads * headSize;
    std::int64_t floats = vocab * dim                 // token embedding
                          + layers * dim * 2          // rms_att, rms_ffn
                          + layers * dim * dim * 2    // wq, wo
                          + layers * dim * kvDim * 2  // wk, wv
                          + layers * dim * hidden * 3 // w1, w2, w3
                          + dim                       // rms_final
                          + seq * headSize;           // freq_cis real + imaginary halves
    if (vocabField < 0)
        floats += vocab * dim; // the classifier
    if (static_cast<std::uint64_t>(28 + floats * 4) != size)
        return std::nullopt;
    return ForeignFile{ForeignFormat::Llama2c,
                       "a llama2.c checkpoint: dim " + std::to_string(dim) + ", " + std::to_string(layers) +
                           " layers, " + std::to_string(heads) + " heads, vocabulary " + std::to_string(vocab),
                       "convert it to a Hugging Face safetensors checkpoint (llama2.c's export.py --version -1 "
                       "writes one; or load it in Python and save it with safetensors.torch.save_file)"};
}

} // namespace

std::optional<ForeignFile> sniffForeignFormat(std::span<const unsigned char> head, std::span<const unsigned char> tail,
                                              std::uint64_t size) noexcept
{
    try {
        if (startsWith(head, "GGUF"))
            return ForeignFile{
                ForeignFormat::Gguf, "a GGUF file (llama.cpp)",
                "Quantscope reads GGUF v2 and v3 itself: `quantscope-cli doctor FILE` says where this one breaks"};
        if (startsWith(head, "ak42"))
            return ForeignFile{ForeignFormat::Llama2c, "a llama2.c checkpoint (export.py version 1 or 2)",
                               "convert it to a Hugging Face safetensors checkpoint (llama2.c's export.py "
                               "--version -1 writes one)"};
        if (startsWith(head, std::string_view("PK\x03\x04", 4)) ||
            startsWith(head, std::string_view("PK\x05\x06", 4))) {
            // torch.save's ZIP holds "<name>/data.pkl"; a NumPy savez holds ".npy" members. The
            // names are in the local headers (head) and the central directory (tail).
            if (contains(head, "data.pkl") || contains(tail, "data.pkl"))
                return ForeignFile{ForeignFormat::PytorchZip, "a PyTorch checkpoint (torch.save, ZIP format)",
                                   "convert it to safetensors: safetensors.torch.save_file(torch.load(path), "
                                   "\"model.safetensors\")"};
            if (contains(head, ".npy") || contains(tail, ".npy"))
                return ForeignFile{ForeignFormat::NumpyZip, "a ZIP of .npy arrays (a NumPy .npz archive)",
                                   "rename it to .npz and open it again"};
            return ForeignFile{ForeignFormat::Zip, "a ZIP archive",
                               "unpack it and open the .safetensors file or checkpoint folder inside"};
        }
        // A pickle: PROTO opcode 0x80 and a protocol 2..5 (torch.save's legacy format, 2 and up).
        if (head.size() >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5)
            return ForeignFile{ForeignFormat::PytorchPickle,
                               "a Python pickle (PyTorch's legacy torch.save format, pickle protocol " +
                                   std::to_string(head[1]) + ")",
                               "convert it to safetensors: safetensors.torch.save_file(torch.load(path), "
                               "\"model.safetensors\")"};
        return llama2c(head, size);
    } catch (...) {
        return std::nullopt;
    }
}

std::optional<ForeignFile> sniffForeignFile(const std::filesystem::path &path) noexcept
{
    try {
        constexpr std::uint64_t kWindow = 64 * 1024;
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return std::nullopt;
        const std::uint64_t size = std::filesystem::file_size(path);
        std::vector<unsigned char> head(static_cast<std::size_t>(std::min(size, kWindow)));
        in.read(reinterpret_cast<char *>(head.data()), static_cast<std::streamsize>(head.size()));
        std::vector<unsigned char> tail(static_cast<std::size_t>(std::min(size, kWindow)));
        in.seekg(static_cast<std::streamoff>(size - tail.size()));
        in.read(reinterpret_cast<char *>(tail.data()), static_cast<std::streamsize>(tail.size()));
        if (!in)
            return std::nullopt;
        return sniffForeignFormat(head, tail, size);
    } catch (...) {
        return std::nullopt;
    }
}

std::string foreignFileMessage(const ForeignFile &f)
{
    return "not a safetensors / npy / npz file (this looks like " + f.looksLike + "): " + f.whatToDo;
}

} // namespace quantscope
