// SPDX-License-Identifier: MIT
#pragma once
/// \file fuzz_common.h
/// What every fuzz target shares (docs/reliability.md): a private scratch folder for the files an
/// input becomes (the readers open paths, and the path is part of what they check), the oracle —
/// a reader may refuse with a quantscope::Error and nothing else — and a bounded read of a
/// tensor's elements, so that the sanitizers see every byte a reader hands out.
#include "tensor/tensor.h"
#include "util/error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>

namespace qsfuzz {

/// Tensors larger than this are not read by the harness (the fuzzer's memory limit is 2 GB, and a
/// declared size the reader accepts because the file holds it is not a finding).
inline constexpr std::uint64_t kMaxTensorBytes = 64ull << 20;

/// This process's scratch folder (created on first use under $TMPDIR, removed at exit).
const std::filesystem::path &scratch();
/// Writes `size` bytes to scratch()/name and returns the path.
std::filesystem::path writeFile(const std::string &name, const void *data, std::size_t size);
std::filesystem::path writeFile(const std::string &name, std::string_view text);
/// Removes everything in scratch() (between inputs).
void clearScratch();
/// Reads every element of `t` (decoded to float, in bounded slices) when it is small enough.
void touch(const quantscope::Tensor &t);

/// Runs `f`; a quantscope::Error is the expected refusal; any other exception is a finding.
template <typename F> void refusalsOnly(const char *target, F &&f)
{
    try {
        f();
    } catch (const quantscope::Error &) {
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: unexpected exception (not a quantscope::Error): %s\n", target, e.what());
        std::abort();
    }
}

} // namespace qsfuzz
