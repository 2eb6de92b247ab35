// SPDX-License-Identifier: MIT
#pragma once
/// \file hash.h
/// FNV-1a 64: the one stable, platform-independent digest of bytes the project uses (recipe
/// hashes, the demo's per-name seeds, the doctor's duplicate-tensor check, the export's re-read).
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace quantscope {

/// The basis the project has always seeded with (recipe hashes — resume keys —, the demo's
/// per-name seeds): 1469598103934665603, one digit short of FNV's published offset basis.
/// Kept, since changing it changes every recipe hash and the demo's weights.
inline constexpr std::uint64_t kFnv1aBasis = 1469598103934665603ull;
/// FNV's published 64-bit offset basis (what Python scripts compute, e.g.
/// scripts/interop/check_exports.py).
inline constexpr std::uint64_t kFnv1aStandardBasis = 0xcbf29ce484222325ull;

/// FNV-1a 64 of `n` bytes at `data`, continuing from `h` (the basis for a fresh digest).
inline std::uint64_t fnv1a64(const void *data, std::size_t n, std::uint64_t h = kFnv1aBasis) noexcept
{
    const auto *p = static_cast<const unsigned char *>(data);
    for (std::size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

inline std::uint64_t fnv1a64(std::string_view s, std::uint64_t h = kFnv1aBasis) noexcept
{
    return fnv1a64(s.data(), s.size(), h);
}

} // namespace quantscope
