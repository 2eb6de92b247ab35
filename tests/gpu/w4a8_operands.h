// SPDX-License-Identifier: MIT
#pragma once
// What the fused W4A8 GPU tests share (test_gpu_w4a8.cpp, test_gpu_w4a8_stream.cpp): the operands
// (w4_operands.h with each path's zero-point range), X's quantization on the host by the scalar
// functions of w4a8_math.h, every output against the FP64 product within the bound of
// docs/numerics.md "Fused W4A8 GEMM", and the operands on the device. A helper only: the tests
// assert.
#include "device_buffer.h"
#include "w4_operands.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/gemm/kernels_w4a8.h"
#include "kernels/gemm/w4a8_math.h"
#include "tensor/convert.h"

namespace w4a8test {

namespace L = quantscope::gpu::launch;
namespace gm = quantscope::gpumath;
using quantscope::bf16ToFloat;
using quantscope::e4m3ToFloat;

struct Operands : W4Operands {
    bool fp8 = false;
};

inline Operands makeOperands(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t group, bool fp8,
                             bool symmetric, std::uint64_t seed)
{
    // The extremes each path keeps exact: INT8 any zero point (the INT32 sums), E4M3 [−9, 8].
    const int lo = fp8 ? gm::kW4a8Fp8ZeroMin : -128, hi = fp8 ? gm::kW4a8Fp8ZeroMax : 127;
    Operands o;
    static_cast<W4Operands &>(o) = makeW4Operands(m, n, k, group, seed, symmetric, lo, hi,
                                                  fp8 ? gm::kW4a8Fp8ZeroMin : -8, fp8 ? gm::kW4a8Fp8ZeroMax : 7);
    o.fp8 = fp8;
    return o;
}

/// X's quantization on the host (the scalar functions of w4a8_math.h): codes and token scales.
struct HostX {
    std::vector<std::uint8_t> codes;
    std::vector<float> scale;
};

inline HostX quantizeOnHost(const Operands &o)
{
    HostX h;
    h.codes.resize(o.x.size());
    h.scale.resize(static_cast<std::size_t>(o.m));
    for (std::int64_t r = 0; r < o.m; ++r) {
        float amax = 0;
        for (std::int64_t i = 0; i < o.k; ++i)
            amax = std::max(amax, std::fabs(bf16ToFloat(o.x[static_cast<std::size_t>(r * o.k + i)])));
        const float s = gm::w4a8TokenScale(amax, o.fp8);
        h.scale[static_cast<std::size_t>(r)] = s;
        for (std::int64_t i = 0; i < o.k; ++i) {
            const std::size_t at = static_cast<std::size_t>(r * o.k + i);
            const float v = bf16ToFloat(o.x[at]);
            h.codes[at] = o.fp8 ? gm::w4a8E4m3Code(v, s) : static_cast<std::uint8_t>(gm::w4a8Int8Code(v, s));
        }
    }
    return h;
}

/// Every output of y (BF16 [M, N]) against the FP64 product of the quantized operands; the worst
/// |y − ref| / bound.
inline double worstOfBound(const Operands &o, const HostX &hx, const std::vector<std::uint16_t> &y, std::string &where)
{
    const std::int64_t groups = o.k / o.group;
    const double c = gm::w4a8BoundCoefficient(o.fp8, o.k);
    std::vector<double> wRow(static_cast<std::size_t>(o.k));
    double worst = 0;
    for (std::int64_t n = 0; n < o.n; ++n) {
        for (std::int64_t i = 0; i < o.k; ++i) {
            const std::size_t g = static_cast<std::size_t>(n * groups + i / o.group);
            wRow[static_cast<std::size_t>(i)] =
                static_cast<double>(o.s[g]) * (o.q[static_cast<std::size_t>(n * o.k + i)] - o.z[g]);
        }
        for (std::int64_t m = 0; m < o.m; ++m) {
            double ref = 0, mag = 0;
            for (std::int64_t i = 0; i < o.k; ++i) {
                const std::uint8_t code = hx.codes[static_cast<std::size_t>(m * o.k + i)];
                const double xv = o.fp8 ? static_cast<double>(e4m3ToFloat(code))
                                        : static_cast<double>(static_cast<std::int8_t>(code));
                const double p = xv * wRow[static_cast<std::size_t>(i)];
                ref += p;
                mag += std::fabs(p);
            }
            const double st = hx.scale[static_cast<std::size_t>(m)];
            ref *= st;
            mag *= st;
            const double bound = std::ldexp(std::fabs(ref), -8) + (1 + std::ldexp(1.0, -8)) * c * mag + 1e-30;
            keepWorst(bf16ToFloat(y[static_cast<std::size_t>(m * o.n + n)]), ref, bound, m, n, worst, where);
        }
    }
    return worst;
}

/// The operands on the device, X quantized there (INT8 with K a multiple of 128 and M ≤ 16: with
/// its chunk sums, which p.xSums points at), Y and the workspace (zeroed once).
struct Device {
    DevBuf w, s, z, x, xq, xs, y, ws, cnt, sums;
    L::W4a8Problem p;
    explicit Device(const Operands &o)
        : w(o.packed.size()), s(4 * o.s.size()), z(o.z.size()), x(2 * o.x.size()), xq(o.x.size()),
          xs(4 * static_cast<std::size_t>(o.m)), y(2 * static_cast<std::size_t>(o.m * o.n)),
          ws(4 * static_cast<std::size_t>(o.m * o.n)), cnt(4 * static_cast<std::size_t>((o.n + 63) / 64 + 1)),
          sums(L::w4a8XSumsBytes(o.k))
    {
        cudaMemcpy(w.p, o.packed.data(), o.packed.size(), cudaMemcpyHostToDevice);
        cudaMemcpy(s.p, o.s.data(), 4 * o.s.size(), cudaMemcpyHostToDevice);
        cudaMemcpy(z.p, o.z.data(), o.z.size(), cudaMemcpyHostToDevice);
        cudaMemcpy(x.p, o.x.data(), 2 * o.x.size(), cudaMemcpyHostToDevice);
        p.packed = static_cast<const std::uint8_t *>(w.p);
        p.scales = static_cast<const float *>(s.p);
        p.zeros = static_cast<const std::int8_t *>(z.p);
        p.xq = xq.p;
        p.xScale = static_cast<const float *>(xs.p);
        p.y = y.p;
        p.m = o.m, p.n = o.n, p.k = o.k, p.group = o.group;
        p.fp8 = o.fp8;
        cudaMemset(ws.p, 0, L::w4a8WorkspaceBytes(p));
        cudaMemset(cnt.p, 0, L::w4a8CounterBytes(p));
        const bool withSums = !o.fp8 && o.k % 128 == 0 && o.m <= L::kW4a8FusedMaxM;
        L::w4a8QuantizeX(x.p, o.m, o.k, o.fp8, xq.p, static_cast<float *>(xs.p),
                         withSums ? static_cast<int *>(sums.p) : nullptr, nullptr);
        p.xSums = withSums ? static_cast<const int *>(sums.p) : nullptr;
    }
    template <typename T> std::vector<T> read(const DevBuf &b, std::size_t count) const
    {
        std::vector<T> out(count);
        cudaMemcpy(out.data(), b.p, sizeof(T) * count, cudaMemcpyDeviceToHost);
        return out;
    }
    bool workspaceClean() const
    {
        const auto f = read<float>(ws, L::w4a8WorkspaceBytes(p) / 4);
        const auto c = read<unsigned>(cnt, L::w4a8CounterBytes(p) / 4);
        return std::all_of(f.begin(), f.end(), [](float v) { return v == 0.0f; }) &&
               std::all_of(c.begin(), c.end(), [](unsigned v) { return v == 0u; });
    }
};

} // namespace w4a8test
