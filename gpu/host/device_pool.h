// SPDX-License-Identifier: MIT
#pragma once
/// \file device_pool.h
/// The GPU engine's device memory: a caching pool of plain device allocations that every tensor,
/// run buffer and output of the engine comes from. Internal to gpu/; include it only from
/// sources that are compiled against the GPU runtime (qs_gpu_compat.h).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "qs_gpu_compat.h"

namespace quantscope::gpu {

/// Caching pool of plain device allocations (no managed memory). Blocks are kept by rounded
/// size and reused; all work is ordered on the engine's one stream, so a block returned while
/// kernels still use it is only handed out to work queued after them.
struct PoolState {
    std::mutex mutex;
    std::multimap<std::size_t, void *> free;
    std::uint64_t held = 0;

    static std::size_t round(std::size_t b)
    {
        const std::size_t q = b < (1u << 20) ? 512 : (2u << 20);
        return std::max<std::size_t>((b + q - 1) / q * q, q);
    }
    void releaseCached()
    {
        for (auto &[size, p] : free) {
            (void)qsFree(p);
            held -= size;
        }
        free.clear();
    }
    ~PoolState()
    {
        for (auto &[size, p] : free)
            (void)qsFree(p); // errors at process exit are ignored
    }
};

/// A block of at least `bytes` from the pool (a cached block of the rounded size, else a new
/// allocation; when the device is full, the cached blocks are released and the allocation is
/// tried once more). It goes back to the pool when the last holder lets go. GpuError naming `what`
/// and the free memory when it does not fit.
std::shared_ptr<void> poolGet(const std::shared_ptr<PoolState> &pool, std::size_t bytes, const std::string &what);

} // namespace quantscope::gpu
