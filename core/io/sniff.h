// SPDX-License-Identifier: MIT
#pragma once
/// \file sniff.h
/// What a file that no reader opens looks like, from its first bytes: a llama2.c checkpoint, a
/// GGUF file, a PyTorch pickle or ZIP checkpoint, a plain ZIP. Checkpoint::open turns a reader's
/// refusal of such a file into "not a safetensors / npy / npz file (this looks like …)" with what
/// to do instead, so that the CLI and the window say the same (issue 42).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace quantscope {

/// The kinds sniffForeignFormat() recognises.
enum class ForeignFormat { Llama2c, Gguf, PytorchZip, PytorchPickle, NumpyZip, Zip };

struct ForeignFile {
    ForeignFormat format;
    /// "a llama2.c checkpoint (dim 64, 5 layers, …)": what the bytes look like.
    std::string looksLike;
    /// What to do instead ("convert it with …").
    std::string whatToDo;
};

/// Recognises `head` (the file's first bytes, 64 KiB are plenty) and `tail` (its last bytes, for
/// a ZIP's central directory; may overlap head) of a file of `size` bytes; nullopt when it looks
/// like none of the kinds. Never throws.
std::optional<ForeignFile> sniffForeignFormat(std::span<const unsigned char> head, std::span<const unsigned char> tail,
                                              std::uint64_t size) noexcept;
/// The same for a file on disk (nullopt when unreadable).
std::optional<ForeignFile> sniffForeignFile(const std::filesystem::path &path) noexcept;
/// "not a safetensors / npy / npz file (this looks like …): …" for the error message.
std::string foreignFileMessage(const ForeignFile &f);

} // namespace quantscope
