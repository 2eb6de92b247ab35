// SPDX-License-Identifier: MIT
// The W4A8-INT8 GEMM's CUTLASS route (gpu/kernels/gemm/kernels_w4a8_cutlass.h; issue 43) against
// the lab's fold route BIT FOR BIT on every output element: the fold route is rebuilt on the
// device from its own kernels — labW4FoldInt8 (q − z as INT8), an exact INT32 GEMM on CUDA cores
// (labGemmInt8Ref, standing in for cuBLASLt's, which gives the same integers) and labPostScale
// (bf16((float(v)·s_tok)·s_ch)) — and that reference is itself pinned to a host computation on a
// small shape. Random codes, zero points over the fold's whole range (its extremes included),
// random scales and activations; M ∈ {1, 5, 16, 32, 257, 1024} (5, 257: partial token tiles),
// N ∈ {256, 4096}, K ∈ {1024, 14336}, every tile (stream-K and persistent; 3 and 4 on the
// reordered copy, which pins the reorder). Also Σx̂ (labRowSumInt8's vector path) against the host, and the refusals.
// Skipped, with the reason, without a device, on a GPU other than Hopper, or in a build without
// the route.
#include "gpu_compare.h"

#include "device_buffer.h"

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/gemm/kernels_gemmlab.h"
#include "kernels/gemm/kernels_w4a8_cutlass.h"
#include "kernels/gemm/w4a8_math.h"

namespace {

namespace L = quantscope::gpu::launch;
namespace gm = quantscope::gpumath;

#define REQUIRE_W4A8_CUTLASS_ROUTE()                                                                                   \
    do {                                                                                                               \
        REQUIRE_GPU();                                                                                                 \
        if (!L::w4a8CutlassBuilt())                                                                                    \
            GTEST_SKIP() << "this build has no W4A8 CUTLASS route (scripts/fetch-cutlass.sh, then reconfigure)";       \
        if (const std::string why = L::w4a8CutlassRefusal(1, 64, 128); !why.empty())                                   \
            GTEST_SKIP() << why;                                                                                       \
    } while (0)

std::uint64_t splitmix(std::uint64_t &s)
{
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// The operands on the host: random packed codes (every byte value), zero points over the fold's
/// range (rows 0 and 1 its extremes), positive scales spanning a few octaves, X̂ in [−127, 127].
struct Operands {
    std::int64_t m = 0, n = 0, k = 0;
    std::vector<std::uint8_t> packed;
    std::vector<std::int8_t> z, x;
    std::vector<float> sCh, sTok;
};

Operands makeOperands(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed)
{
    Operands o;
    o.m = m, o.n = n, o.k = k;
    std::uint64_t s = seed;
    o.packed.resize(static_cast<std::size_t>(n * k / 2));
    for (std::size_t i = 0; i < o.packed.size(); i += 8) {
        const std::uint64_t r = splitmix(s);
        for (std::size_t j = 0; j < 8 && i + j < o.packed.size(); ++j)
            o.packed[i + j] = static_cast<std::uint8_t>(r >> (8 * j));
    }
    const int zSpan = gm::kW4a8FoldZeroMax - gm::kW4a8FoldZeroMin + 1;
    for (std::int64_t i = 0; i < n; ++i) {
        const int z = i == 0   ? gm::kW4a8FoldZeroMin
                      : i == 1 ? gm::kW4a8FoldZeroMax
                               : gm::kW4a8FoldZeroMin + static_cast<int>(splitmix(s) % zSpan);
        o.z.push_back(static_cast<std::int8_t>(z));
        o.sCh.push_back(std::ldexp(1.0f + static_cast<float>(splitmix(s) % 4096) / 4096.0f,
                                   -10 + static_cast<int>(splitmix(s) % 6)));
    }
    o.x.resize(static_cast<std::size_t>(m * k));
    for (auto &v : o.x)
        v = static_cast<std::int8_t>(static_cast<int>(splitmix(s) % 255) - 127);
    for (std::int64_t i = 0; i < m; ++i)
        o.sTok.push_back(std::ldexp(1.0f + static_cast<float>(splitmix(s) % 4096) / 4096.0f,
                                    -9 + static_cast<int>(splitmix(s) % 5)));
    return o;
}

struct Device {
    const Operands &o;
    DevBuf packed, reordered, z, sCh, x, sTok, xSum, folded, acc, yRef, y;
    explicit Device(const Operands &ops)
        : o(ops), packed(ops.packed.size()), reordered(ops.packed.size()), z(ops.z.size()), sCh(4 * ops.sCh.size()),
          x(ops.x.size()), sTok(4 * ops.sTok.size()), xSum(4 * static_cast<std::size_t>(ops.m)),
          folded(static_cast<std::size_t>(ops.n * ops.k)), acc(4 * static_cast<std::size_t>(ops.m * ops.n)),
          yRef(2 * static_cast<std::size_t>(ops.m * ops.n)), y(2 * static_cast<std::size_t>(ops.m * ops.n))
    {
        packed.put(o.packed), z.put(o.z), sCh.put(o.sCh), x.put(o.x), sTok.put(o.sTok);
    }
    template <class T> std::vector<T> read(const DevBuf &b, std::size_t count) const
    {
        std::vector<T> v(count);
        cudaMemcpy(v.data(), b.p, count * sizeof(T), cudaMemcpyDeviceToHost);
        return v;
    }
    /// The fold route: q − z, the exact INT32 GEMM, the post-scale; into yRef.
    bool foldRoute()
    {
        const auto *x8 = static_cast<const std::int8_t *>(x.p);
        auto *f8 = static_cast<std::int8_t *>(folded.p);
        return L::labW4FoldInt8(static_cast<const std::uint8_t *>(packed.p), static_cast<const std::int8_t *>(z.p), o.n,
                                o.k, f8, nullptr) &&
               L::labGemmInt8Ref(x8, f8, o.m, o.n, o.k, static_cast<std::int32_t *>(acc.p), nullptr) &&
               (L::labPostScale(acc.p, true, static_cast<const float *>(sTok.p), static_cast<const float *>(sCh.p), o.m,
                                o.n, yRef.p, nullptr),
                true);
    }
    L::W4a8CutlassProblem problem() const
    {
        L::W4a8CutlassProblem p;
        p.packed = packed.p, p.reordered = reordered.p;
        p.zeros = static_cast<const std::int8_t *>(z.p);
        p.scales = static_cast<const float *>(sCh.p);
        p.x = static_cast<const std::int8_t *>(x.p);
        p.xScale = static_cast<const float *>(sTok.p);
        p.xSum = static_cast<const std::int32_t *>(xSum.p);
        p.y = y.p;
        p.m = o.m, p.n = o.n, p.k = o.k;
        return p;
    }
};

/// Mismatching outputs of y against yRef, the first of them described in `where`.
std::size_t mismatches(const std::vector<std::uint16_t> &y, const std::vector<std::uint16_t> &ref, std::int64_t n,
                       std::string &where)
{
    std::size_t bad = 0;
    for (std::size_t i = 0; i < y.size(); ++i)
        if (y[i] != ref[i] && bad++ == 0)
            where = "m " + std::to_string(static_cast<std::int64_t>(i) / n) + " n " +
                    std::to_string(static_cast<std::int64_t>(i) % n) + ": " + std::to_string(y[i]) + " vs " +
                    std::to_string(ref[i]);
    return bad;
}

std::int8_t code(const Operands &o, std::int64_t n, std::int64_t k)
{
    const std::uint8_t b = o.packed[static_cast<std::size_t>((n * o.k + k) / 2)];
    const int v = k % 2 ? b >> 4 : b & 0xF;
    return static_cast<std::int8_t>(v >= 8 ? v - 16 : v);
}

} // namespace

TEST(GpuW4a8Cutlass, TheFoldReferenceAndTheRowSumsEqualTheHost)
{
    REQUIRE_GPU();
    const Operands o = makeOperands(32, 256, 1024, 0xC0FFEEull);
    Device d(o);
    ASSERT_TRUE(d.foldRoute());
    L::labRowSumInt8(static_cast<const std::int8_t *>(d.x.p), o.m, o.k, static_cast<std::int32_t *>(d.xSum.p), nullptr);
    CU(cudaDeviceSynchronize());
    const auto sums = d.read<std::int32_t>(d.xSum, static_cast<std::size_t>(o.m));
    const auto yRef = d.read<std::uint16_t>(d.yRef, static_cast<std::size_t>(o.m * o.n));
    std::size_t bad = 0;
    for (std::int64_t m = 0; m < o.m; ++m) {
        std::int64_t sx = 0;
        for (std::int64_t k = 0; k < o.k; ++k)
            sx += o.x[static_cast<std::size_t>(m * o.k + k)];
        EXPECT_EQ(sums[static_cast<std::size_t>(m)], sx) << "Σx̂ of row " << m;
        for (std::int64_t n = 0; n < o.n; ++n) {
            std::int64_t v = 0;
            for (std::int64_t k = 0; k < o.k; ++k)
                v += static_cast<std::int64_t>(o.x[static_cast<std::size_t>(m * o.k + k)]) *
                     (code(o, n, k) - o.z[static_cast<std::size_t>(n)]);
            const float f = static_cast<float>(static_cast<std::int32_t>(v)) * o.sTok[static_cast<std::size_t>(m)] *
                            o.sCh[static_cast<std::size_t>(n)];
            bad += quantscope::floatToBf16(f) != yRef[static_cast<std::size_t>(m * o.n + n)];
        }
    }
    EXPECT_EQ(bad, 0u) << "the fold reference differs from the host's bf16((float(v)·s_tok)·s_ch)";
}

TEST(GpuW4a8Cutlass, EveryOutputEqualsTheFoldRouteBitForBitOverShapesAndTiles)
{
    REQUIRE_W4A8_CUTLASS_ROUTE();
    int run = 0;
    for (const std::int64_t k : {std::int64_t(1024), std::int64_t(14336)})
        for (const std::int64_t n : {std::int64_t(256), std::int64_t(4096)})
            for (const std::int64_t m : {std::int64_t(1), std::int64_t(5), std::int64_t(16), std::int64_t(32),
                                         std::int64_t(257), std::int64_t(1024)}) {
                const Operands o = makeOperands(m, n, k, 0xA8C0ull + static_cast<std::uint64_t>(run++));
                Device d(o);
                ASSERT_TRUE(d.foldRoute());
                L::labRowSumInt8(static_cast<const std::int8_t *>(d.x.p), m, k, static_cast<std::int32_t *>(d.xSum.p),
                                 nullptr);
                L::w4a8CutlassReorder(d.packed.p, n, k, d.reordered.p, nullptr);
                CU(cudaDeviceSynchronize());
                const auto yRef = d.read<std::uint16_t>(d.yRef, static_cast<std::size_t>(m * n));
                const L::W4a8CutlassProblem p = d.problem();
                for (int tile = 1; tile <= L::kW4a8CutlassTiles; ++tile) {
                    const std::string what = "M=" + std::to_string(m) + " N=" + std::to_string(n) +
                                             " K=" + std::to_string(k) + " tile " + L::w4a8CutlassTileName(tile);
                    CU(cudaMemset(d.y.p, 0xFF, 2 * static_cast<std::size_t>(m * n)));
                    DevBuf ws(L::w4a8CutlassWorkspaceBytes(p, tile));
                    L::w4a8Cutlass(p, tile, ws.p, nullptr);
                    CU(cudaDeviceSynchronize());
                    std::string where;
                    EXPECT_EQ(mismatches(d.read<std::uint16_t>(d.y, static_cast<std::size_t>(m * n)), yRef, n, where),
                              0u)
                        << what << ": first at " << where;
                }
            }
}

TEST(GpuW4a8Cutlass, RefusesWhatItCannotRunWithTheReason)
{
    // The shape refusals come before any device question: they hold in every build.
    for (const auto &[m, n, k] : {std::array<long long, 3>{0, 256, 1024}, std::array<long long, 3>{16, 256, 1000},
                                  std::array<long long, 3>{16, 100, 1024}, std::array<long long, 3>{16, 256, 0},
                                  std::array<long long, 3>{16, 256, 64}}) {
        const std::string why = L::w4a8CutlassRefusal(m, n, k);
        EXPECT_FALSE(why.empty()) << "M=" << m << " N=" << n << " K=" << k;
        L::W4a8CutlassProblem p;
        p.m = m, p.n = n, p.k = k;
        EXPECT_THROW(L::w4a8Cutlass(p, 1, nullptr, nullptr), quantscope::GpuError);
        EXPECT_EQ(L::w4a8CutlassWorkspaceBytes(p, 1), 0u);
    }
    REQUIRE_W4A8_CUTLASS_ROUTE();
    const Operands o = makeOperands(16, 256, 1024, 7);
    Device d(o);
    L::W4a8CutlassProblem p = d.problem();
    EXPECT_THROW(L::w4a8Cutlass(p, 0, nullptr, nullptr), quantscope::GpuError) << "no tile 0";
    EXPECT_THROW(L::w4a8Cutlass(p, L::kW4a8CutlassTiles + 1, nullptr, nullptr), quantscope::GpuError);
    p.reordered = nullptr;
    EXPECT_THROW(L::w4a8Cutlass(p, 3, nullptr, nullptr), quantscope::GpuError) << "tile 3 needs the reordered copy";
    p = d.problem();
    p.xSum = nullptr;
    EXPECT_THROW(L::w4a8Cutlass(p, 2, nullptr, nullptr), quantscope::GpuError) << "Σx̂ missing";
    EXPECT_THROW(L::w4a8CutlassReorder(d.packed.p, 100, 1024, d.reordered.p, nullptr), quantscope::GpuError);
    CU(cudaDeviceSynchronize());
}
