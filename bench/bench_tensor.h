// SPDX-License-Identifier: MIT
#pragma once
/// \file bench_tensor.h
/// The GPU benchmarks' synthetic weight tensor: Student-t (ν = 5) · 0.02 in BF16, seeded,
/// generated in parallel slices (one RNG per slice), so every benchmark sees the same bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "tensor/convert.h"

namespace quantscope::bench {

inline std::vector<std::byte> studentTBf16(std::int64_t n, std::uint64_t seed)
{
    std::vector<std::byte> bytes(static_cast<std::size_t>(n) * 2);
    const int nt = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (int t = 0; t < nt; ++t)
        pool.emplace_back([&, t] {
            std::mt19937_64 rng(seed + static_cast<std::uint64_t>(t) * 7919);
            std::student_t_distribution<float> dist(5.0f);
            const std::int64_t a = n * t / nt, b = n * (t + 1) / nt;
            for (std::int64_t i = a; i < b; ++i) {
                const std::uint16_t h = floatToBf16(0.02f * dist(rng));
                std::memcpy(bytes.data() + 2 * i, &h, 2);
            }
        });
    for (auto &th : pool)
        th.join();
    return bytes;
}

} // namespace quantscope::bench
