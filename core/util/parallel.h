// SPDX-License-Identifier: MIT
#pragma once
/// \file parallel.h
/// Static partitioning of a range over std::threads. The split depends only on (n, threads),
/// so per-thread partial sums merged in thread order are reproducible.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include "util/cancel.h"

namespace quantscope {

/// The process-wide thread count a request of 0 resolves to (0: every core); the CLI's
/// --threads sets it. Results do not depend on it (docs/numerics.md).
inline std::atomic<int> &defaultThreadsSetting()
{
    static std::atomic<int> threads{0};
    return threads;
}
inline void setDefaultThreads(int threads)
{
    defaultThreadsSetting().store(threads > 0 ? threads : 0);
}

inline int resolveThreads(int requested)
{
    if (requested > 0)
        return requested;
    if (const int d = defaultThreadsSetting().load(); d > 0)
        return d;
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

/// Calls fn(part, begin, end) for `parts` contiguous slices of [0, n) (part 0 on the calling
/// thread). Rethrows the first exception; checks `cancel` before each slice.
template <typename Fn> void parallelSlices(std::int64_t n, int parts, const CancelToken *cancel, Fn &&fn)
{
    parts = static_cast<int>(std::clamp<std::int64_t>(n, 1, std::max(parts, 1)));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
    auto run = [&](int p) {
        try {
            if (cancel)
                cancel->check();
            const std::int64_t b = n * p / parts, e = n * (p + 1) / parts;
            fn(p, b, e);
        } catch (...) {
            errors[static_cast<std::size_t>(p)] = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(parts - 1));
    for (int p = 1; p < parts; ++p)
        pool.emplace_back(run, p);
    run(0);
    for (auto &t : pool)
        t.join();
    for (auto &e : errors)
        if (e)
            std::rethrow_exception(e);
}

/// Calls fn(i) for every i in [0, n), handing out indices dynamically (for uneven work such as
/// tensors of different sizes). Results must not depend on which thread ran an index.
template <typename Fn> void parallelForEach(std::int64_t n, int threads, Fn &&fn)
{
    std::atomic<std::int64_t> next{0};
    parallelSlices(std::min<std::int64_t>(n, resolveThreads(threads)), resolveThreads(threads), nullptr,
                   [&](int, std::int64_t, std::int64_t) {
                       for (std::int64_t i; (i = next.fetch_add(1)) < n;)
                           fn(i);
                   });
}

} // namespace quantscope
