// SPDX-License-Identifier: MIT
#pragma once
/// \file buffers.h
/// Large result buffers (codes, Ŵ) of tens of MB: zero-filling them page by page costs more than
/// quantizing on small VMs (≈ 35 ms for 80 MB here, 4 KiB page faults). Asking for transparent
/// huge pages before the first touch cuts that to ≈ 6 ms; the values are the same.
#include <cstddef>
#include <cstdint>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace quantscope {

/// v = n value-initialised elements, backed by huge pages where the kernel allows it.
template <typename T> void assignZeroedLarge(std::vector<T> &v, std::size_t n)
{
    v.clear();
    v.shrink_to_fit();
    v.reserve(n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
    if (n * sizeof(T) >= 4 * kHuge) {
        const auto p = reinterpret_cast<std::uintptr_t>(v.data());
        const std::uintptr_t a = (p + kHuge - 1) & ~(kHuge - 1);
        const std::uintptr_t e = (p + n * sizeof(T)) & ~(kHuge - 1);
        if (e > a)
            madvise(reinterpret_cast<void *>(a), e - a, MADV_HUGEPAGE); // advice only: errors ignored
    }
#endif
    v.resize(n);
}

} // namespace quantscope
