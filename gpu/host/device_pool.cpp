// SPDX-License-Identifier: MIT
// The GPU engine's caching pool of device allocations (device_pool.h). Runtime calls go through
// qs_gpu_compat.h (CUDA or HIP).
#include "device_pool.h"

#include <cstdio>

namespace quantscope::gpu {

namespace {

std::string mib(std::uint64_t b)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
    return buf;
}

} // namespace

std::shared_ptr<void> poolGet(const std::shared_ptr<PoolState> &pool, std::size_t bytes, const std::string &what)
{
    const std::size_t size = PoolState::round(bytes);
    void *p = nullptr;
    {
        std::lock_guard lock(pool->mutex);
        if (auto it = pool->free.find(size); it != pool->free.end()) {
            p = it->second;
            pool->free.erase(it);
        }
    }
    if (!p) {
        qsError_t e = qsMalloc(&p, size);
        if (e == qsErrorMemoryAllocation) {
            (void)qsGetLastError();
            {
                std::lock_guard lock(pool->mutex);
                pool->releaseCached();
            }
            e = qsMalloc(&p, size);
        }
        if (e != qsSuccess) {
            (void)qsGetLastError();
            size_t freeB = 0, totalB = 0;
            qsMemGetInfo(&freeB, &totalB);
            throw GpuError("out of GPU memory for " + what + ": needs " + mib(size) + ", " + mib(freeB) + " free of " +
                           mib(totalB) + " (" + qsGetErrorString(e) + ")");
        }
        std::lock_guard lock(pool->mutex);
        pool->held += size;
    }
    std::weak_ptr<PoolState> weak = pool;
    return std::shared_ptr<void>(p, [weak, size](void *q) {
        if (auto s = weak.lock()) {
            std::lock_guard lock(s->mutex);
            s->free.emplace(size, q);
        }
    });
}

} // namespace quantscope::gpu
