// SPDX-License-Identifier: MIT
// The fused W3A16 GEMM with MiLo's rank-r compensator (gpu/kernels/gemm/kernels_w3lr.h; issue 43)
// against the FP64 product of X (BF16 as stored) and the CPU's Ŵ (hqqDequantizeFlat of the HQQ
// quantizer's codes, scales and float zero points) plus Û·(V̂·Xᵀ) from the compensator's stored
// values (quantizeCompensator), on EVERY output element: M ∈ {1, 3, 8, 9, 16}, rank ∈ {0, 1, 32},
// K slices 1, 3 and the launcher's choice, programmatic dependent launch on and off, N not a
// multiple of the 64-row tile; groups 64 (the milo-code preset's), 128 and per channel; HQQ's
// compute fp16 and fp32. The bound: docs/numerics.md "Fused W3A16 + MiLo compensator"
// (w3lr_pack.h bound). The unfused route's weight (w3lrDequantBf16) against the same reference.
// Skipped, with the reason, without a device.
#include "gpu_compare.h"

#include "device_buffer.h"

#include <cuda_runtime.h>

#include "engine/gemm_bench_device.h"
#include "kernels/gemm/kernels_w3lr.h"
#include "kernels/gemm/w3lr_pack.h"
#include "quant/hqq.h"
#include "quant/milo.h"

namespace {

namespace L = quantscope::gpu::launch;
namespace W = quantscope::gpu::w3lr;

/// The weights of one shape: the engine's HQQ on a seeded tensor (axis 1: groups along K), the
/// codes packed, and a rank-r compensator (int8, the factors' stored values) of seeded factors.
struct Weights {
    std::int64_t n = 0, k = 0, group = 0;
    int rank = 0;
    HqqResult h;
    std::vector<std::uint32_t> packed;
    std::vector<float> u, v;
};

Weights makeWeights(std::int64_t n, std::int64_t k, std::int64_t group, int rank, bool fp16, std::uint64_t seed)
{
    Weights w;
    w.n = n, w.k = k, w.group = group, w.rank = rank;
    // Student-t weights with an outlier column (no constant group: milo-code keeps σ = qmax / range).
    std::mt19937_64 gen(seed);
    std::student_t_distribution<float> student(3.0f);
    std::vector<float> t(static_cast<std::size_t>(n * k));
    for (std::size_t i = 0; i < t.size(); ++i)
        t[i] = 0.02f * student(gen) * (i % static_cast<std::size_t>(k) == 7 ? 30.0f : 1.0f);
    HqqSpec spec = HqqSpec::forPreset(HqqPreset::MiloCode);
    spec.axis = 1;
    spec.group = group;
    spec.compute = fp16 ? HqqCompute::Fp16 : HqqCompute::Fp32;
    spec.iters = 4;
    w.h = hqqQuantizeFlat(t, spec, true, 2, "w3lr", nullptr);
    EXPECT_TRUE(W::packCodes(w.h.codes.data(), n, k, w.packed));
    std::mt19937_64 rng(seed ^ 0x3C);
    std::normal_distribution<float> normal(0.0f, 0.01f);
    std::vector<float> uf(static_cast<std::size_t>(n * rank)), vf(static_cast<std::size_t>(rank * k));
    for (auto &e : uf)
        e = normal(rng);
    for (auto &e : vf)
        e = normal(rng);
    if (rank > 0) {
        w.u = quantizeCompensator(uf, n, rank, CompensatorFormat::Int8, 64).values;
        w.v = quantizeCompensator(vf, rank, k, CompensatorFormat::Int8, 64).values;
    }
    return w;
}

std::vector<std::uint16_t> makeX(std::int64_t m, std::int64_t k, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<std::uint16_t> x(static_cast<std::size_t>(m * k));
    for (auto &e : x)
        e = floatToBf16(normal(rng) * (rng() % 17 == 0 ? 8.0f : 1.0f));
    return x;
}

/// Runs the fused GEMM over the tilings and checks every output; returns the runs checked.
int checkShape(const Weights &w, std::int64_t m, std::uint64_t seed)
{
    const std::vector<std::uint16_t> x = makeX(m, w.k, seed);
    W::HostOperands o;
    o.m = m, o.n = w.n, o.k = w.k, o.group = w.group, o.rank = w.rank;
    o.codes = w.h.codes.data(), o.scales = w.h.scales.data(), o.zeros = w.h.zeros.data();
    o.wHat = w.h.dequantized.data(), o.u = w.u.data(), o.v = w.v.data(), o.x = x.data();
    const W::Reference R = W::reference(o);
    DevBuf dw(4 * w.packed.size()), ds(4 * w.h.scales.size()), dz(4 * w.h.zeros.size()), dx(2 * x.size()),
        dy(2 * static_cast<std::size_t>(m * w.n)), du(4 * w.u.size()), dv(4 * w.v.size());
    dw.put(w.packed), ds.put(w.h.scales), dz.put(w.h.zeros), dx.put(x), du.put(w.u), dv.put(w.v);
    L::W3lrProblem p;
    p.packed = static_cast<const std::uint32_t *>(dw.p);
    p.scales = static_cast<const float *>(ds.p), p.zeros = static_cast<const float *>(dz.p);
    p.x = dx.p, p.y = dy.p;
    p.m = m, p.n = w.n, p.k = w.k, p.group = w.group, p.rank = w.rank;
    p.u = static_cast<const float *>(du.p), p.v = static_cast<const float *>(dv.p);
    DevBuf ws(L::w3lrWorkspaceBytes(p)), cnt(L::w3lrCounterBytes(p));
    cudaMemset(ws.p, 0, L::w3lrWorkspaceBytes(p));
    cudaMemset(cnt.p, 0, L::w3lrCounterBytes(p));
    int runs = 0;
    for (const int split : {1, 3, 0})
        for (const int pdl : {0, -1}) {
            L::W3lrTiling t;
            t.splitK = split;
            t.pdl = pdl;
            cudaMemset(dy.p, 0xFF, 2 * static_cast<std::size_t>(m * w.n)); // NaN: a missed output fails
            const L::W3lrLaunch l = L::w3lrFused(p, t, ws.p, cnt.p, nullptr);
            EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            std::vector<std::uint16_t> y(static_cast<std::size_t>(m * w.n));
            cudaMemcpy(y.data(), dy.p, 2 * y.size(), cudaMemcpyDeviceToHost);
            long long at = -1;
            const double worst = W::worstOfBound(o, R, y.data(), false, &at);
            const std::string what = "M=" + std::to_string(m) + " N=" + std::to_string(w.n) +
                                     " K=" + std::to_string(w.k) + " group " + std::to_string(w.group) + " rank " +
                                     std::to_string(w.rank) + " split " + std::to_string(l.splitK) +
                                     (l.pdl ? " pdl" : " stream order");
            EXPECT_LE(worst, 1.0) << what << ": worst |y − ref| / bound at output " << at << " (got "
                                  << W::bf16Value(y[static_cast<std::size_t>(std::max(at, 0LL))]) << ", ref "
                                  << R.ref[static_cast<std::size_t>(std::max(at, 0LL))] << ")";
            EXPECT_EQ(l.preKernel, w.rank > 0) << what;
            if (split > 0) { // whole 256-k blocks a slice, no empty slice
                const std::int64_t blocks = w.k / 256, per = (blocks + split - 1) / split;
                EXPECT_EQ(l.splitK, (blocks + per - 1) / per) << what;
            }
            // The last block re-zeroes the partial sums and the counters.
            std::vector<float> f(static_cast<std::size_t>(m * w.n));
            std::vector<unsigned> c(L::w3lrCounterBytes(p) / 4);
            cudaMemcpy(f.data(), ws.p, 4 * f.size(), cudaMemcpyDeviceToHost);
            cudaMemcpy(c.data(), cnt.p, 4 * c.size(), cudaMemcpyDeviceToHost);
            EXPECT_TRUE(std::all_of(f.begin(), f.end(), [](float e) { return e == 0.0f; })) << what;
            EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](unsigned e) { return e == 0u; })) << what;
            ++runs;
        }
    // The unfused route's weight: bf16(Ŵ + Û·V̂), multiplied here in FP64 (the BF16 GEMM's exact
    // product), within the unfused bound.
    DevBuf dq(2 * static_cast<std::size_t>(w.n * w.k));
    L::w3lrDequantBf16(p, dq.p, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<std::uint16_t> q(static_cast<std::size_t>(w.n * w.k)), y(static_cast<std::size_t>(m * w.n));
    cudaMemcpy(q.data(), dq.p, 2 * q.size(), cudaMemcpyDeviceToHost);
    for (std::int64_t mm = 0; mm < m; ++mm)
        for (std::int64_t n = 0; n < w.n; ++n) {
            double s = 0;
            for (std::int64_t i = 0; i < w.k; ++i)
                s += W::bf16Value(x[static_cast<std::size_t>(mm * w.k + i)]) *
                     W::bf16Value(q[static_cast<std::size_t>(n * w.k + i)]);
            y[static_cast<std::size_t>(mm * w.n + n)] = floatToBf16(static_cast<float>(s));
        }
    EXPECT_LE(W::worstOfBound(o, R, y.data(), true), 1.0) << "unfused, M=" << m << " rank " << w.rank;
    return runs;
}

} // namespace

TEST(GpuW3lrFused, EveryOutputWithinTheBoundOverTokensRanksAndSplits)
{
    REQUIRE_GPU();
    ASSERT_TRUE(L::w3lrFusedBuilt());
    int runs = 0, shape = 0;
    for (const int rank : {0, 1, 32}) {
        const Weights w = makeWeights(200, 1024, 64, rank, true, 0x3E0ull + rank);
        for (const std::int64_t m : {1, 3, 8, 9, 16})
            runs += checkShape(w, m, 0x43ull + shape++);
    }
    EXPECT_EQ(runs, 3 * 5 * 6);
}

TEST(GpuW3lrFused, GroupsAndComputeDtypes)
{
    REQUIRE_GPU();
    int shape = 0;
    struct Case {
        std::int64_t n, k, group;
        bool fp16;
    };
    for (const Case c : {Case{72, 768, 128, false}, Case{136, 512, 512, true}, Case{64, 2048, 64, false}})
        for (const std::int64_t m : {1, 16}) {
            const Weights w = makeWeights(c.n, c.k, c.group, 16, c.fp16, 0x77ull + shape);
            checkShape(w, m, 0x99ull + shape++);
        }
}

TEST(GpuW3lrFused, RefusedShapes)
{
    EXPECT_EQ(L::w3lrRefusal(1, 14336, 64, 32), "");
    EXPECT_NE(L::w3lrRefusal(17, 1024, 64, 0), "");
    EXPECT_NE(L::w3lrRefusal(0, 1024, 64, 0), "");
    EXPECT_NE(L::w3lrRefusal(1, 1000, 8, 0), "");
    EXPECT_NE(L::w3lrRefusal(1, 1024, 32, 0), "");
    EXPECT_NE(L::w3lrRefusal(1, 1024, 192, 0), "");
    EXPECT_NE(L::w3lrRefusal(1, 1024, 64, 300), "");
    EXPECT_EQ(L::w3lrRefusal(1, 1024, 1024, 0), ""); // per channel
}

TEST(GpuW3lrFused, GemmLabFormatTimesAndChecksEveryOutput)
{
    REQUIRE_GPU();
    GemmBenchRequest req;
    req.formats = {GemmFormat::W3a16Milo};
    req.m = {1, 16, 32};
    req.n = 136, req.k = 512;
    req.roofline = false;
    for (const int rank : {0, 32}) {
        req.w3Rank = rank;
        const GemmBenchResult r = runGemmBench(req, DeviceChoice::Gpu);
        ASSERT_EQ(r.points.size(), 2u) << "M ≤ 16 only";
        for (const auto &p : r.points) {
            EXPECT_EQ(p.format, "w3a16-milo");
            EXPECT_GT(p.timeUs, 0.0);
            EXPECT_NE(p.note.find("output checked"), std::string::npos) << p.note;
            // The bytes: codes + FP32 scale and zero point per 64 + factors + X + Y.
            const double want = 136.0 * 512 * 3 / 8 + 8.0 * 136 * 512 / 64 + 4.0 * rank * (136 + 512) +
                                2.0 * static_cast<double>(p.m) * (512 + 136);
            EXPECT_DOUBLE_EQ(p.bytes, want);
        }
        EXPECT_NE(r.points.front().note.find("M > 16 not run"), std::string::npos);
    }
}
