// SPDX-License-Identifier: MIT
#pragma once
/// \file reader.h
/// The ways a path opens (docs/formats.md "What a path opens"), one reader per way. Each reader says
/// whether it takes a path and reads it into what a Checkpoint holds; Checkpoint::open asks
/// them in the order of readerFormats() and uses the first that accepts. The list is fixed in
/// reader.cpp: adding a format means adding an entry there, nothing is registered at run time.
#include "io/safetensors.h"
#include "io/tensor_entry.h"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace quantscope {

class NpyFile;
class NpzFile;
class GgufFile;

/// What a reader found at a path: the tensors, the files holding them and what goes with them.
struct ReadContent {
    /// safetensors readers: the files opened, in the order first referenced.
    std::vector<SafetensorsFile> files;
    /// Every tensor, in the checkpoint's order (index weight_map, header or archive order).
    std::vector<TensorEntry> entries;
    /// safetensors readers: entry index → `files` index.
    std::vector<std::size_t> fileOf;
    /// Lenient acceptances, an unreadable config.json, tensors an index leaves out, …
    std::vector<std::string> warnings;
    /// config.json of the checkpoint's folder (null when absent, unreadable or not looked for).
    nlohmann::json config;
    bool sharded = false;                 ///< read through a model.safetensors.index.json
    std::shared_ptr<const NpyFile> npy;   ///< the .npy file, when that is what the path was
    std::shared_ptr<const NpzFile> npz;   ///< the .npz file, likewise
    std::shared_ptr<const GgufFile> gguf; ///< the .gguf file, likewise (io/gguf.h)
};

/// One way a path opens.
struct ReaderFormat {
    /// "npy", "npz", "gguf", "sharded index", "safetensors folder", "safetensors file".
    std::string_view name;
    /// Whether this reader takes `path`, which exists and has the status `status`.
    bool (*accepts)(const std::filesystem::path &path, const std::filesystem::file_status &status);
    /// Reads `path` (status as given to `accepts`). Throws IoError / FormatError naming the file
    /// (and tensor) at fault.
    ReadContent (*read)(const std::filesystem::path &path, const std::filesystem::file_status &status,
                        const ReadOptions &options);
};

/// The readers in the order they are asked: a `.npy` file, a `.npz` file (extensions in any
/// case; never a folder), a GGUF file (`.gguf` in any case, or any file starting with the magic
/// "GGUF"), a sharded index (a folder holding model.safetensors.index.json, or a
/// file named so or `*.index.json`), any other folder (which must hold exactly one
/// .safetensors), and last any other file, read as one safetensors file (its reader then says
/// what is wrong with it). Every existing path is taken by one of them.
const std::vector<ReaderFormat> &readerFormats();

/// The first reader of readerFormats() that accepts `path` (of status `status`); nullptr when
/// none does.
const ReaderFormat *readerFor(const std::filesystem::path &path, const std::filesystem::file_status &status);

} // namespace quantscope
