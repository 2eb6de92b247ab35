// SPDX-License-Identifier: MIT
// The GEMM timing lab's output check on the device (gpu/kernels/gemm/kernels_gemmlab_check.h; issue
// 43): over every element of Y, its worst |y − ref| / bound equals the host's FP64 reference built
// here independently (core's decoders, a plain loop), for BF16, E4M3 (tensor-wise scales), INT8
// (per-row scales), INT4 with group scales and zero points and per channel, and a batch of
// experts; one corrupted element is found and counted, and the bit comparison with a second
// output counts exactly the values that differ. Shapes not multiples of the 64 × 64 tile.
// Skipped, with the reason, without a device.
#include "gpu_compare.h"

#include "device_buffer.h"

#include <cuda_runtime.h>

#include "kernels/gemm/kernels_gemmlab.h"
#include "kernels/gemm/kernels_gemmlab_check.h"
#include "tensor/convert.h"

namespace {

namespace L = quantscope::gpu::launch;

template <typename T> std::unique_ptr<DevBuf> upload(const std::vector<T> &v)
{
    auto d = std::make_unique<DevBuf>(v.size() * sizeof(T));
    cudaMemcpy(d->p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}

/// One operand on the host: codes (one byte or BF16 bits each; INT4 one signed code a byte,
/// packed for the device), scales, zeros.
struct HostOperand {
    int kind = L::kLabBf16;
    std::vector<std::uint16_t> bf16;
    std::vector<std::uint8_t> bytes; ///< E4M3 bits, INT8, or INT4 codes (signed, one a byte)
    std::vector<float> scale;        ///< empty: none; 1: tensor-wise; rows (·E): per row; groups: per group
    std::vector<std::int8_t> zeros;
    std::int64_t group = 0;
};

HostOperand make(int kind, std::int64_t rows, std::int64_t k, int scaleMode, std::int64_t group, std::mt19937_64 &rng)
{
    HostOperand o;
    o.kind = kind;
    o.group = group;
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> i8(-127, 127), i4(-8, 7);
    const std::size_t count = static_cast<std::size_t>(rows * k);
    if (kind == L::kLabBf16) {
        for (std::size_t i = 0; i < count; ++i)
            o.bf16.push_back(floatToBf16(normal(rng)));
    } else {
        for (std::size_t i = 0; i < count; ++i)
            o.bytes.push_back(kind == L::kLabE4m3   ? floatToE4m3(normal(rng) * 64)
                              : kind == L::kLabInt8 ? static_cast<std::uint8_t>(i8(rng))
                                                    : static_cast<std::uint8_t>(i4(rng)));
    }
    std::uniform_real_distribution<float> sc(0.5e-3f, 4e-3f);
    const std::size_t scales = scaleMode == 0   ? 0
                               : scaleMode == 1 ? 1
                               : group > 0      ? static_cast<std::size_t>(rows * (k / group))
                                                : static_cast<std::size_t>(rows);
    for (std::size_t i = 0; i < scales; ++i)
        o.scale.push_back(sc(rng));
    if (kind == L::kLabCheckInt4)
        for (std::size_t i = 0; i < std::max<std::size_t>(scales, static_cast<std::size_t>(rows)); ++i)
            o.zeros.push_back(static_cast<std::int8_t>(i4(rng)));
    return o;
}

/// Element (row r of all experts' rows, k) as the FP64 value the reference multiplies.
double value(const HostOperand &o, std::int64_t r, std::int64_t k, std::int64_t K)
{
    const std::size_t i = static_cast<std::size_t>(r * K + k);
    switch (o.kind) {
    case L::kLabBf16:
        return bf16ToFloat(o.bf16[i]);
    case L::kLabE4m3:
        return e4m3ToFloat(o.bytes[i]);
    case L::kLabInt8:
        return static_cast<std::int8_t>(o.bytes[i]);
    default: {
        const std::int64_t group = o.group > 0 ? o.group : K;
        const std::size_t g = static_cast<std::size_t>(r * (K / group) + k / group);
        const double q = static_cast<std::int8_t>(o.bytes[i]) - o.zeros[g];
        return o.group > 0 && !o.scale.empty() ? static_cast<double>(o.scale[g]) * q : q;
    }
    }
}

double rowScale(const HostOperand &o, std::int64_t r)
{
    if (o.scale.empty() || (o.kind == L::kLabCheckInt4 && o.group > 0))
        return 1.0;
    return o.scale.size() == 1 ? o.scale[0] : o.scale[static_cast<std::size_t>(r)];
}

struct Case {
    const char *name;
    int xKind, wKind, xScale, wScale; ///< scale modes: 0 none, 1 tensor-wise, 2 per row (or group)
    std::int64_t group;               ///< W's INT4 group (0: per channel)
    int batch;
};

} // namespace

TEST(GpuGemmLabCheck, EveryElementAgainstTheHostsFp64)
{
    REQUIRE_GPU();
    const std::int64_t M = 70, N = 45, K = 96;
    const Case cases[] = {
        {"bf16", L::kLabBf16, L::kLabBf16, 0, 0, 0, 1},
        {"fp8 tensor-wise", L::kLabE4m3, L::kLabE4m3, 1, 1, 0, 1},
        {"int8 row-wise", L::kLabInt8, L::kLabInt8, 2, 2, 0, 1},
        {"w4a16 g32", L::kLabBf16, L::kLabCheckInt4, 0, 2, 32, 1},
        {"w4a8 per channel", L::kLabInt8, L::kLabCheckInt4, 2, 2, 0, 1},
        {"fp8 MoE batch of 3", L::kLabE4m3, L::kLabE4m3, 1, 1, 0, 3},
    };
    std::mt19937_64 rng(0x43);
    for (const Case &c : cases) {
        SCOPED_TRACE(c.name);
        const int E = c.batch;
        const HostOperand x = make(c.xKind, E * M, K, c.xScale, 0, rng);
        const HostOperand w = make(c.wKind, E * N, K, c.wScale, c.group, rng);
        // Y = bf16 of the exact product: within the bound by construction.
        std::vector<double> ref(static_cast<std::size_t>(E * M * N)), mag(ref.size());
        std::vector<std::uint16_t> y(ref.size());
        for (int e = 0; e < E; ++e)
            for (std::int64_t m = 0; m < M; ++m)
                for (std::int64_t n = 0; n < N; ++n) {
                    double r = 0, g = 0;
                    for (std::int64_t k = 0; k < K; ++k) {
                        const double p = value(x, e * M + m, k, K) * value(w, e * N + n, k, K);
                        r += p;
                        g += std::fabs(p);
                    }
                    const double s = (E > 1 ? rowScale(x, 0) * rowScale(w, 0)
                                            : rowScale(x, m) * rowScale(w, n)); // the batch case: tensor-wise
                    const std::size_t at = static_cast<std::size_t>((e * M + m) * N + n);
                    ref[at] = s * r, mag[at] = std::fabs(s) * g;
                    y[at] = floatToBf16(static_cast<float>(ref[at]));
                }
        const double relRef = std::ldexp(1.001, -8), relMag = std::ldexp(1.0, -12);
        const auto hostWorst = [&](const std::vector<std::uint16_t> &yy) {
            double worst = 0;
            for (std::size_t i = 0; i < yy.size(); ++i)
                worst = std::max(worst, std::fabs(bf16ToFloat(yy[i]) - ref[i]) /
                                            (relRef * std::fabs(ref[i]) + relMag * mag[i] + 1e-30));
            return worst;
        };
        // Device copies (INT4 packed two a byte).
        std::unique_ptr<DevBuf> xd, wd, xs, ws, wz;
        const auto operand = [](const HostOperand &o, std::unique_ptr<DevBuf> &data, std::unique_ptr<DevBuf> &sc,
                                std::unique_ptr<DevBuf> &zs) {
            L::LabCheckOperand d;
            d.kind = o.kind;
            if (o.kind == L::kLabBf16) {
                data = upload(o.bf16);
            } else if (o.kind == L::kLabCheckInt4) {
                std::vector<std::uint8_t> packed(o.bytes.size() / 2);
                for (std::size_t i = 0; i < packed.size(); ++i)
                    packed[i] = static_cast<std::uint8_t>((o.bytes[2 * i] & 0xF) | ((o.bytes[2 * i + 1] & 0xF) << 4));
                data = upload(packed);
                zs = upload(o.zeros);
                d.zeros = static_cast<const std::int8_t *>(zs->p);
                d.group = o.group;
            } else {
                data = upload(o.bytes);
            }
            d.data = data->p;
            if (!o.scale.empty()) {
                sc = upload(o.scale);
                d.scale = static_cast<const float *>(sc->p);
                d.perRow = o.scale.size() > 1;
            }
            return d;
        };
        L::LabCheckProblem p;
        std::unique_ptr<DevBuf> xz; // X is never INT4 here
        p.x = operand(x, xd, xs, xz);
        p.w = operand(w, wd, ws, wz);
        p.x.batchStride = M * K, p.w.batchStride = N * K;
        p.m = M, p.n = N, p.k = K, p.batch = E;
        p.relRef = relRef, p.relMag = relMag;
        auto yd = upload(y);
        p.y = yd->p;
        DevBuf scratch(64);
        const L::LabCheckResult ok = L::labCheckFp64(p, scratch.p, nullptr);
        EXPECT_EQ(ok.checked, static_cast<unsigned long long>(E * M * N));
        EXPECT_EQ(ok.failed, 0u);
        const double want = hostWorst(y);
        EXPECT_LE(ok.worst, 1.0);
        EXPECT_GT(ok.worst, 0.0);
        EXPECT_NEAR(ok.worst, want, 1e-6 * want) << "device and host FP64 disagree";
        // One value off by 4 × its bound: found, counted once.
        std::vector<std::uint16_t> bad = y;
        const std::size_t at = bad.size() / 2 + 7;
        const double off = 4 * (relRef * std::fabs(ref[at]) + relMag * mag[at]);
        bad[at] = floatToBf16(static_cast<float>(ref[at] + (ref[at] >= 0 ? off : -off)));
        auto badD = upload(bad);
        p.y = badD->p;
        p.yOther = yd->p; // and the bits compared with the good output: one value differs
        const L::LabCheckResult one = L::labCheckFp64(p, scratch.p, nullptr);
        EXPECT_EQ(one.failed, 1u);
        EXPECT_GT(one.worst, 1.0);
        EXPECT_NEAR(one.worst, hostWorst(bad), 1e-6 * hostWorst(bad));
        EXPECT_EQ(one.differ, 1u);
    }
}
