// SPDX-License-Identifier: MIT
#pragma once
/// \file bench_common.h
/// What the GPU benchmarks share: the synthetic weight tensor (Student-t (ν = 5) · 0.02 in BF16,
/// seeded, generated in parallel slices with one RNG each, so every benchmark sees the same
/// bytes), the timing summary, and the common options.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
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

/// The current UTC time as 2026-11-22T11:17:40Z.
inline std::string utcNow()
{
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return date;
}

struct Summary {
    double median = 0, p10 = 0, p90 = 0, min = 0;
};

inline Summary summarize(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    Summary s;
    s.min = v.front();
    s.median = v[v.size() / 2];
    s.p10 = v[v.size() / 10];
    s.p90 = v[v.size() * 9 / 10];
    return s;
}

/// --out DIR, --rows R, --cols C, --repeats N (≥ 1), --warmup N.
struct CommonOptions {
    std::string out;
    std::int64_t rows = 14336, cols = 4096;
    int repeats = 60, warmup = 10;

    /// Takes argv[i] (and its value, advancing i) when it is a common option.
    bool take(int argc, char **argv, int &i)
    {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (a == "--out")
            out = next();
        else if (a == "--rows")
            rows = std::stoll(next());
        else if (a == "--cols")
            cols = std::stoll(next());
        else if (a == "--repeats")
            repeats = std::max(1, std::stoi(next()));
        else if (a == "--warmup")
            warmup = std::stoi(next());
        else
            return false;
        return true;
    }
};

} // namespace quantscope::bench
