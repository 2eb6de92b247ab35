// SPDX-License-Identifier: MIT
#pragma once
/// \file doctor.h
/// The checkpoint doctor (docs/cli.md "`doctor`"): every problem of a checkpoint in one explained
/// report. Unlike the readers (io/), which refuse a file at its first lie, the doctor parses
/// leniently, keeps going and lists all findings: completeness of config.json ↔ index ↔ shard
/// headers ↔ file sizes and data offsets (missing or unreferenced shards, tensors absent or present
/// twice, truncated files, git-LFS pointer files, header sizes, metadata.total_size), quantized
/// modules (the strict reader's verdict per module, companions, scale grids), scale health (NaN,
/// Inf, zero and subnormal scales, values lost in the declared scale dtype), dtype traps (FP8
/// e4m3fn vs e4m3fnuz hints, BF16/F16 mislabels), KV-cache and activation scales (placeholders,
/// outliers), tied or duplicated tensors (info), and what config.json's quantization_config
/// declares against the tensors (static input and KV scales, dense modules it quantizes, bits per
/// weight, collapsed scale casts, the MoE grid, fused groups, tied lm_head, loader group rules).
/// Every input is bounded (header sizes, element counts, JSON depth) so the doctor never crashes
/// or hangs, and every string of the JSON report is valid UTF-8 (util/utf8.h).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/cancel.h"

namespace quantscope {

enum class Severity : std::uint8_t { Info, Warning, Error };
std::string toString(Severity s);

struct Finding {
    Severity severity = Severity::Info;
    std::string check;  ///< docs/cli.md "`doctor`" lists them: "completeness", "quantized", "fused", …
    std::string module; ///< the module (tensor name without its last component) or ""
    std::string tensor; ///< the tensor name or ""
    std::string file;   ///< the file at fault (path as found) or ""
    std::optional<std::uint64_t> offset; ///< absolute byte offset in `file` when one applies
    std::string message;                 ///< one line: what is wrong and what it means
};

struct DoctorOptions {
    /// Element-value checks (scale health, dtype traps, KV scales, duplicates) read at most this
    /// many bytes per tensor (larger tensors: their first bytes, said in a finding).
    std::uint64_t maxValueBytes = 256ull << 20;
};

struct DoctorReport {
    std::string path;
    std::vector<Finding> findings;
    int tensors = 0, files = 0;
    /// docs/cli.md: 0 healthy (info only), 3 warnings, 4 errors.
    int exitCode() const;
    std::size_t count(Severity s) const;
    nlohmann::json toJson() const;
};

/// Examines the checkpoint at `path` (a .safetensors file, a sharded folder or its index, a
/// folder with one .safetensors). Throws IoError only when `path` does not exist (the doctor could
/// not run); everything else is a finding.
DoctorReport runDoctor(const std::filesystem::path &path, const DoctorOptions &options = {},
                       const CancelToken *cancel = nullptr);

namespace doctor {

/// One tensor as a shard header declares it (the lenient parse).
struct HeaderTensor {
    std::string name;
    std::string dtype; ///< as written
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0, end = 0;
    std::uint64_t fileOffset = 0; ///< absolute offset of the first byte
    bool valid = false;           ///< dtype known, shape and offsets consistent and inside the file
};

struct Shard {
    std::filesystem::path file;
    std::uint64_t size = 0;
    std::uint64_t headerBytes = 0;
    bool readable = false; ///< header parsed
    std::vector<HeaderTensor> tensors;
    std::map<std::string, std::string> metadata; ///< `__metadata__`'s string values
};

/// The structural pass (doctor_structure.cpp): resolves the path, parses index, config and every
/// shard header leniently, reports completeness findings, returns the shards.
std::vector<Shard> checkStructure(const std::filesystem::path &path, DoctorReport &report, nlohmann::json &config);
/// The value passes (doctor_values.cpp) over the valid tensors of the shards.
void checkValues(const std::vector<Shard> &shards, const nlohmann::json &config, const DoctorOptions &options,
                 DoctorReport &report, const CancelToken *cancel);
/// The quantized modules (doctor_values.cpp): companions, and the strict reader's verdict.
void checkQuantized(const std::filesystem::path &path, const std::vector<Shard> &shards, const nlohmann::json &config,
                    DoctorReport &report);

/// The config and cross-tensor checks (doctor_config.cpp) over the valid tensors: static input
/// and KV scales, modules the config quantizes but stores dense, bits per weight, scales a cast
/// collapsed, the MoE layer × expert grid, fused NVFP4 global scales, a quantized tied lm_head,
/// group and block sizes the loaders refuse.
void checkConfig(const std::vector<Shard> &shards, const nlohmann::json &config, const DoctorOptions &options,
                 DoctorReport &report, const CancelToken *cancel);

std::string moduleOf(const std::string &tensor);

} // namespace doctor

} // namespace quantscope
