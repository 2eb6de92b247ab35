// SPDX-License-Identifier: MIT
#pragma once
/// The INT4-weight GEMM tests' operands (test_gpu_w4a16.cpp, test_gpu_w4a16_stream.cpp,
/// test_gpu_w4a16_cutlass.cpp, test_gpu_w4a8.cpp, test_gpu_w4a8_stream.cpp): seeded INT4 codes in [−8, 7] packed as the engine stores them (low nibble
/// first), FP32 scales, INT8 zero points with the extremes at the first and last group, BF16 X with
/// a few 8× outliers; and E experts of them on the device, back to back, as a W4a16Problem. Helpers
/// only: the tests that use them assert.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "device_buffer.h"
#include "kernels/gemm/kernels_w4a16.h"
#include "tensor/convert.h"

/// One expert's operands on the host: codes, packed bytes, scales, zeros, X (BF16 bits).
/// Whether the current device has compute capability 9.0 or newer (thread-block clusters: the
/// streaming kernels' cluster sum of K slices).
inline bool sm90()
{
    int device = 0, major = 0;
    return cudaGetDevice(&device) == cudaSuccess &&
           cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 9;
}

struct W4Operands {
    std::int64_t m = 0, n = 0, k = 0, group = 0;
    std::vector<std::int8_t> q, z;
    std::vector<std::uint8_t> packed;
    std::vector<float> s;
    std::vector<std::uint16_t> x;
};

/// zLo / zHi: the zero points of the first and the last group; the others drawn from [zDrawLo,
/// zDrawHi] (symmetric: every zero point 0).
inline W4Operands makeW4Operands(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t group, std::uint64_t seed,
                                 bool symmetric, int zLo, int zHi, int zDrawLo = -8, int zDrawHi = 7)
{
    W4Operands o;
    o.m = m, o.n = n, o.k = k, o.group = group;
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> code(-8, 7), zero(zDrawLo, zDrawHi);
    std::uniform_real_distribution<float> scale(0.5e-3f, 2e-3f);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    o.q.resize(static_cast<std::size_t>(n * k));
    for (auto &v : o.q)
        v = static_cast<std::int8_t>(code(rng));
    o.packed.resize(o.q.size() / 2);
    for (std::size_t i = 0; i < o.packed.size(); ++i)
        o.packed[i] = static_cast<std::uint8_t>((o.q[2 * i] & 0xF) | ((o.q[2 * i + 1] & 0xF) << 4));
    const std::size_t groups = static_cast<std::size_t>(n * (k / group));
    o.s.resize(groups);
    o.z.resize(groups);
    for (std::size_t i = 0; i < groups; ++i) {
        o.s[i] = scale(rng);
        o.z[i] = static_cast<std::int8_t>(zero(rng));
    }
    o.z[0] = static_cast<std::int8_t>(zLo);
    o.z[groups - 1] = static_cast<std::int8_t>(zHi);
    if (symmetric)
        std::fill(o.z.begin(), o.z.end(), std::int8_t(0));
    o.x.resize(static_cast<std::size_t>(m * k));
    for (auto &v : o.x)
        v = quantscope::floatToBf16(normal(rng) * (rng() % 17 == 0 ? 8.0f : 1.0f));
    return o;
}

/// E experts' operands on the device, back to back, and Y; p points at them.
struct W4DeviceOperands {
    DevBuf w, s, z, x, y;
    quantscope::gpu::launch::W4a16Problem p;
    explicit W4DeviceOperands(const std::vector<W4Operands> &ex)
        : w(ex[0].packed.size() * ex.size()), s(4 * ex[0].s.size() * ex.size()), z(ex[0].z.size() * ex.size()),
          x(2 * ex[0].x.size() * ex.size()), y(2 * static_cast<std::size_t>(ex[0].m * ex[0].n) * ex.size())
    {
        const W4Operands &o = ex[0];
        p.m = o.m, p.n = o.n, p.k = o.k, p.group = o.group;
        p.experts = static_cast<int>(ex.size());
        p.wStride = static_cast<long long>(o.packed.size());
        p.sStride = static_cast<long long>(o.s.size());
        p.xStride = static_cast<long long>(o.x.size());
        p.yStride = o.m * o.n;
        for (std::size_t e = 0; e < ex.size(); ++e) {
            w.putAt(e, ex[e].packed);
            s.putAt(e, ex[e].s);
            z.putAt(e, ex[e].z);
            x.putAt(e, ex[e].x);
        }
        p.packed = static_cast<const std::uint8_t *>(w.p);
        p.scales = static_cast<const float *>(s.p);
        p.zeros = static_cast<const std::int8_t *>(z.p);
        p.x = x.p;
        p.y = y.p;
    }
    /// Expert e's Y (BF16 bits, [M, N]).
    std::vector<std::uint16_t> output(int e) const
    {
        std::vector<std::uint16_t> out(static_cast<std::size_t>(p.m * p.n));
        cudaMemcpy(out.data(), static_cast<const std::uint16_t *>(y.p) + e * p.yStride, 2 * out.size(),
                   cudaMemcpyDeviceToHost);
        return out;
    }
};

/// Keeps the worst |got − ref| / bound of output (m, n) and where it was (a non-finite output counts
/// as 1e30).
inline void keepWorst(double got, double ref, double bound, std::int64_t m, std::int64_t n, double &worst,
                      std::string &where)
{
    const double r = std::isfinite(got) ? std::fabs(got - ref) / bound : 1e30;
    if (r > worst) {
        worst = r;
        where = "m=" + std::to_string(m) + " n=" + std::to_string(n) + " got " + std::to_string(got) + " ref " +
                std::to_string(ref);
    }
}

/// Every output of `y` (BF16 [M, N]) against the FP64 product of X and Ŵ = s·(q − z) within the hand
/// kernels' bound (docs/numerics.md "Fused W4A16 GEMM"; scaleInB: Ŵ rounded to BF16 twice, g32 /
/// g64); returns the worst err / bound.
inline double w4a16WorstOfBound(const W4Operands &o, const std::vector<std::uint16_t> &y, bool scaleInB,
                                std::string &where)
{
    const std::int64_t groups = o.k / o.group;
    std::vector<double> wRow(static_cast<std::size_t>(o.k));
    double worst = 0;
    for (std::int64_t n = 0; n < o.n; ++n) {
        for (std::int64_t i = 0; i < o.k; ++i) {
            const std::size_t g = static_cast<std::size_t>(n * groups + i / o.group);
            wRow[i] = static_cast<double>(o.s[g]) * (o.q[static_cast<std::size_t>(n * o.k + i)] - o.z[g]);
        }
        for (std::int64_t m = 0; m < o.m; ++m) {
            double ref = 0, mag = 0;
            for (std::int64_t i = 0; i < o.k; ++i) {
                const double p =
                    static_cast<double>(quantscope::bf16ToFloat(o.x[static_cast<std::size_t>(m * o.k + i)])) * wRow[i];
                ref += p;
                mag += std::fabs(p);
            }
            const double w = scaleInB ? std::ldexp(1.0, -7) + std::ldexp(1.0, -15) : 0.0;
            const double bound =
                std::ldexp(std::fabs(ref), -8) +
                (1 + std::ldexp(1.0, -8)) * (static_cast<double>(o.k) * std::ldexp(1.0, -23) + w) * mag + 1e-30;
            keepWorst(quantscope::bf16ToFloat(y[static_cast<std::size_t>(m * o.n + n)]), ref, bound, m, n, worst,
                      where);
        }
    }
    return worst;
}

/// The operands of E experts on the device, Y and the workspace (zeroed once).
struct W4Device : W4DeviceOperands {
    DevBuf ws, cnt;
    explicit W4Device(const std::vector<W4Operands> &ex)
        : W4DeviceOperands(ex), ws(quantscope::gpu::launch::w4a16WorkspaceBytes(p)),
          cnt(quantscope::gpu::launch::w4a16CounterBytes(p))
    {
        cudaMemset(ws.p, 0, quantscope::gpu::launch::w4a16WorkspaceBytes(p));
        cudaMemset(cnt.p, 0, quantscope::gpu::launch::w4a16CounterBytes(p));
    }
    /// Whether the workspace and the counters are all zero again.
    bool workspaceClean() const
    {
        std::vector<float> f(quantscope::gpu::launch::w4a16WorkspaceBytes(p) / 4);
        std::vector<unsigned> c(quantscope::gpu::launch::w4a16CounterBytes(p) / 4);
        cudaMemcpy(f.data(), ws.p, 4 * f.size(), cudaMemcpyDeviceToHost);
        cudaMemcpy(c.data(), cnt.p, 4 * c.size(), cudaMemcpyDeviceToHost);
        return std::all_of(f.begin(), f.end(), [](float v) { return v == 0.0f; }) &&
               std::all_of(c.begin(), c.end(), [](unsigned v) { return v == 0u; });
    }
};
