// SPDX-License-Identifier: MIT
#include "quant/hqq.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#endif

#include "numeric/qmath.h"
#include "tensor/convert.h"
#include "util/bus_guard.h"
#include "quant/hqq_math.h"
#include "quant/spec_json.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

const std::vector<std::string> kPresets{"hqq-lib", "milo-code"};
const std::vector<std::string> kComputes{"fp32", "fp16"};
const std::vector<std::string> kZeroRoundings{"preset", "always", "never"};

} // namespace

std::string toString(HqqPreset v)
{
    return kPresets[static_cast<int>(v)];
}
std::string toString(HqqCompute v)
{
    return kComputes[static_cast<int>(v)];
}
std::string toString(HqqZeroRounding v)
{
    return kZeroRoundings[static_cast<int>(v)];
}

// ---- spec ------------------------------------------------------------------------------------

HqqSpec HqqSpec::forPreset(HqqPreset preset)
{
    HqqSpec s;
    s.preset = preset;
    if (preset == HqqPreset::MiloCode) {
        s.bits = 3;
        s.axis = 0;
    }
    return s;
}

bool HqqSpec::roundsZero() const
{
    switch (zeroRounding) {
    case HqqZeroRounding::Always:
        return true;
    case HqqZeroRounding::Never:
        return false;
    case HqqZeroRounding::Preset:
        break;
    }
    return preset == HqqPreset::HqqLib && bits == 4;
}

std::vector<SpecField> HqqSpec::fields()
{
    std::vector<SpecField> f{
        {"preset", "enum", kPresets, 0, 0,
         "hqq-lib: mobiusml/hqq's hqq_base_quant_config; milo-code: MiLo's released quantizer"},
        {"bits", "int", {}, 2, 8, "code width in bits (2..8; unsigned codes 0..2^b−1)"},
        {"group", "int", {}, 1, 1 << 20, "group size (hqq-lib: a multiple of 8); numel must be divisible by it"},
        {"axis", "int", {}, 0, 1, "HQQ grouping: 1 = g consecutive elements, 0 = g elements spaced numel/g apart"},
        {"compute", "enum", kComputes, 0, 0,
         "fp32 (the library on CPU) or fp16 (every op rounded to FP16, the library on CUDA)"},
        {"zero_rounding", "enum", kZeroRoundings, 0, 0,
         "round z at initialisation: as the preset (hqq-lib 4-bit only), always, never"},
        {"iters", "int", {}, 1, 1000, "maximum optimiser iterations (the library: 20)"},
    };
    specjson::fieldNamed(f, "preset").aliases = {"--hqq-preset"};
    return f;
}

void HqqSpec::validate() const
{
    if (bits < 2 || bits > 8)
        throw UnsupportedError("bits must be 2..8, got " + std::to_string(bits));
    if (group < 1)
        throw UnsupportedError("group size must be ≥ 1, got " + std::to_string(group));
    if (preset == HqqPreset::HqqLib && group % 8 != 0)
        throw UnsupportedError("hqq-lib needs a group size that is a multiple of 8 (the library asserts it), got " +
                               std::to_string(group));
    if (axis != 0 && axis != 1)
        throw UnsupportedError("HQQ axis must be 0 or 1, got " + std::to_string(axis));
    if (iters < 1 || iters > 1000)
        throw UnsupportedError("iters must be 1..1000, got " + std::to_string(iters));
}

nlohmann::json HqqSpec::toJson() const
{
    return {{"method", "hqq"},
            {"preset", toString(preset)},
            {"bits", bits},
            {"group", group},
            {"axis", axis},
            {"compute", toString(compute)},
            {"zero_rounding", toString(zeroRounding)},
            {"iters", iters}};
}

HqqSpec HqqSpec::fromJson(const nlohmann::json &j)
{
    using namespace specjson;
    refuseUnknownKeys(j, fields(), "hqq");
    HqqPreset preset = HqqPreset::HqqLib;
    if (j.contains("preset"))
        preset = static_cast<HqqPreset>(parseChoice(j["preset"], "preset", kPresets));
    HqqSpec s = forPreset(preset);
    if (j.contains("bits"))
        s.bits = parseInt32(j["bits"], "bits");
    if (j.contains("group"))
        s.group = parseInt(j["group"], "group");
    if (j.contains("axis"))
        s.axis = parseInt32(j["axis"], "axis");
    if (j.contains("compute"))
        s.compute = static_cast<HqqCompute>(parseChoice(j["compute"], "compute", kComputes));
    if (j.contains("zero_rounding"))
        s.zeroRounding = static_cast<HqqZeroRounding>(parseChoice(j["zero_rounding"], "zero_rounding", kZeroRoundings));
    if (j.contains("iters"))
        s.iters = parseInt32(j["iters"], "iters");
    s.validate();
    return s;
}

// ---- the solver ------------------------------------------------------------------------------

namespace {

using hqqmath::clampf;
using hqqmath::rne;
using qmath::roundF16;

/// FP16 bit pattern of a non-negative float that is exactly an FP16 value (or +inf).
inline std::uint32_t halfIndex(float a)
{
    const std::uint32_t u = qmath::bitsOf(a);
    if (u >= 0x7F800000u)
        return 0x7C00u;
    if (u >= 0x38800000u) // ≥ 2^-14: normal
        return ((((u >> 23) & 0xFFu) - 112u) << 10) | ((u >> 13) & 0x3FFu);
    return static_cast<std::uint32_t>(a * 16777216.0f); // subnormal: a·2^24 ∈ [0, 1023]
}

} // namespace

float hqqPowExponent(bool fp16)
{
    const auto e = static_cast<float>(0.7 - 1.0);
    return fp16 ? roundF16(e) : e; // fp16: torch converts the scalar exponent to the tensor dtype
}

const std::vector<float> &hqqFp16PowTable()
{
    static const std::vector<float> table = [] {
        const float e = hqqPowExponent(true);
        std::vector<float> t(0x7C01u);
        for (std::uint32_t b = 0; b <= 0x7C00u; ++b) {
            float a;
            if (b == 0x7C00u)
                a = std::numeric_limits<float>::infinity();
            else if (b >= 0x400u)
                a = qmath::fromBits(((b >> 10) + 112u) << 23 | (b & 0x3FFu) << 13);
            else
                a = static_cast<float>(b) / 16777216.0f;
            t[b] = roundF16(hqqmath::hqqPow(a, e));
        }
        return t;
    }();
    return table;
}

namespace {

/// Groups per block of the solver's passes: about 16 Ki values (64 KiB of FP32, cache-resident).
constexpr std::int64_t kBlockValues = 16384;

/// W as the solver reads it: blocks of consecutive groups [j0, j1) in group-major FP32, read
/// either from a flat FP32 span or straight from a tensor of any dtype. Nothing holds a whole
/// FP32 copy of W: a block is decoded (and, with axis 0, gathered) again in every pass, so the
/// solver's memory is its codes, Ŵ and per-group values (docs/perf.md "Peak memory of HQQ and
/// MiLo"). A block's values are W's, bit for bit, whichever the source.
class GroupSource {
public:
    GroupSource(std::span<const float> flat, const Tensor *tensor, std::int64_t g, std::int64_t G, bool axis1)
        : m_flat(flat), m_tensor(tensor), m_g(g), m_G(G), m_axis1(axis1)
    {
        // The flat span and a contiguous F32 / BF16 / F16 tensor are converted straight from their
        // bytes (under the bus guard, once per block, when they are a mapping); any other tensor
        // goes through decodeRange.
        if (!tensor) { // the flat span: FP32 values, not a mapping
            m_raw = Raw::F32;
            m_bytes = reinterpret_cast<const std::byte *>(flat.data());
        } else if (tensor->isContiguous()) {
            m_raw = tensor->dtype() == DType::F32    ? Raw::F32
                    : tensor->dtype() == DType::BF16 ? Raw::BF16
                    : tensor->dtype() == DType::F16  ? Raw::F16
                                                     : Raw::None;
            m_bytes = tensor->data();
            m_mapped = m_raw != Raw::None && busguard::isMapped(m_bytes);
        }
    }

    struct Scratch {
        std::vector<float> block, rows, rounded;
    };

    /// Groups [j0, j1), group-major: a view into the span when it already is (axis 1), else
    /// `sc.block`.
    const float *load(std::int64_t j0, std::int64_t j1, Scratch &sc) const
    {
        const std::int64_t n = j1 - j0, g = m_g;
        if (m_axis1 && !m_tensor)
            return m_flat.data() + j0 * g;
        sc.block.resize(static_cast<std::size_t>(n * g));
        float *dst = sc.block.data();
        if (m_raw != Raw::None) {
            // Axis 1: the block is n·g consecutive values; axis 0: value t of group j is W[t·G + j],
            // so for each t the block's groups are n consecutive values of W.
            auto body = [&] {
                if (m_axis1)
                    convert(j0 * g, n * g, dst, 1);
                else
                    gatherAxis0(j0, n, dst);
            };
            if (m_mapped)
                busguard::guarded(body);
            else
                body();
            return dst;
        }
        if (m_axis1) {
            m_tensor->decodeRange(j0 * g, sc.block);
            return dst;
        }
        sc.rows.resize(static_cast<std::size_t>(n));
        for (std::int64_t t = 0; t < g; ++t) {
            m_tensor->decodeRange(t * m_G + j0, sc.rows);
            for (std::int64_t j = 0; j < n; ++j)
                dst[j * g + t] = sc.rows[static_cast<std::size_t>(j)];
        }
        return dst;
    }

    /// The block in the optimiser's dtype: FP32 as loaded, or every value rounded to FP16.
    const float *loadRounded(std::int64_t j0, std::int64_t j1, bool fp16, Scratch &sc) const
    {
        const float *x = load(j0, j1, sc);
        if (!fp16)
            return x;
        const std::int64_t n = (j1 - j0) * m_g;
        sc.rounded.resize(static_cast<std::size_t>(n));
        float *r = sc.rounded.data();
        std::int64_t i = 0;
#if defined(__AVX2__) && defined(__F16C__)
        for (; i + 8 <= n; i += 8) // F16C rounds to nearest even, as roundF16
            _mm256_storeu_ps(r + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(x + i),
                                                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
#endif
        for (; i < n; ++i)
            r[i] = roundF16(x[i]);
        return r;
    }

    /// Flat element i of W.
    float at(std::int64_t i) const
    {
        if (!m_tensor)
            return m_flat[static_cast<std::size_t>(i)];
        float v = 0.0f;
        m_tensor->decodeRange(i, std::span<float>(&v, 1));
        return v;
    }

    /// Groups per block.
    std::int64_t blockGroups() const
    {
        return std::max<std::int64_t>(1, kBlockValues / m_g);
    }

    /// fn(j, the g values of group j) for the groups [j0, j1), read block by block; `fp16`: the
    /// values rounded to FP16 (the optimiser's dtype with compute fp16), else W's FP32. Polls
    /// `cancel` every 1024 groups.
    template <typename Fn>
    void forEachGroup(std::int64_t j0, std::int64_t j1, bool fp16, const CancelToken *cancel, Fn &&fn) const
    {
        forEachBlock(j0, j1, fp16, [&](std::int64_t jb, std::int64_t je, const float *blk) {
            for (std::int64_t j = jb; j < je; ++j) {
                if (cancel && (j & 1023) == 0)
                    cancel->check();
                fn(j, blk + (j - jb) * m_g);
            }
        });
    }
    /// fn(jb, je, the block's group-major values) for each block of the groups [j0, j1).
    template <typename Fn> void forEachBlock(std::int64_t j0, std::int64_t j1, bool fp16, Fn &&fn) const
    {
        Scratch sc;
        for (std::int64_t jb = j0, B = blockGroups(); jb < j1; jb += B)
            fn(jb, std::min(j1, jb + B), loadRounded(jb, std::min(j1, jb + B), fp16, sc));
    }

private:
    enum class Raw { None, F32, BF16, F16 };

    /// Values [first, first + n) of the raw tensor to dst[0], dst[step], … (exact conversions).
    void convert(std::int64_t first, std::int64_t n, float *dst, std::int64_t step) const
    {
        if (m_raw == Raw::F32) {
            const std::byte *src = m_bytes + 4 * first;
            for (std::int64_t i = 0; i < n; ++i)
                std::memcpy(dst + i * step, src + 4 * i, 4);
            return;
        }
        const std::byte *src = m_bytes + 2 * first;
        if (m_raw == Raw::BF16) {
            for (std::int64_t i = 0; i < n; ++i) {
                std::uint16_t h;
                std::memcpy(&h, src + 2 * i, 2);
                const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
                std::memcpy(dst + i * step, &u, 4);
            }
            return;
        }
        for (std::int64_t i = 0; i < n; ++i) {
            std::uint16_t h;
            std::memcpy(&h, src + 2 * i, 2);
            dst[i * step] = f16ToFloat(h);
        }
    }

#if defined(__AVX2__) && defined(__F16C__)
    /// 8 consecutive values of the raw tensor from element `first`, as FP32.
    __m256 load8(std::int64_t first) const
    {
        if (m_raw == Raw::F32)
            return _mm256_loadu_ps(reinterpret_cast<const float *>(m_bytes + 4 * first));
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(m_bytes + 2 * first));
        if (m_raw == Raw::F16)
            return _mm256_cvtph_ps(h);
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    }
#endif

    /// Axis 0: dst[j·g + t] = W[t·G + j0 + j] for the block's n groups. With AVX2, 8 × 8 tiles are
    /// transposed in registers (W's rows are read and the groups written 8 values at a time); the
    /// edges value by value.
    void gatherAxis0(std::int64_t j0, std::int64_t n, float *dst) const
    {
        const std::int64_t g = m_g;
        std::int64_t t8 = 0, n8 = 0;
#if defined(__AVX2__) && defined(__F16C__)
        t8 = g / 8 * 8;
        n8 = n / 8 * 8;
        for (std::int64_t t = 0; t < t8; t += 8)
            for (std::int64_t j = 0; j < n8; j += 8) {
                __m256 r[8];
                for (int k = 0; k < 8; ++k)
                    r[k] = load8((t + k) * m_G + j0 + j);
                const __m256 a0 = _mm256_unpacklo_ps(r[0], r[1]), a1 = _mm256_unpackhi_ps(r[0], r[1]);
                const __m256 a2 = _mm256_unpacklo_ps(r[2], r[3]), a3 = _mm256_unpackhi_ps(r[2], r[3]);
                const __m256 a4 = _mm256_unpacklo_ps(r[4], r[5]), a5 = _mm256_unpackhi_ps(r[4], r[5]);
                const __m256 a6 = _mm256_unpacklo_ps(r[6], r[7]), a7 = _mm256_unpackhi_ps(r[6], r[7]);
                const __m256 b0 = _mm256_shuffle_ps(a0, a2, 0x44), b1 = _mm256_shuffle_ps(a0, a2, 0xEE);
                const __m256 b2 = _mm256_shuffle_ps(a1, a3, 0x44), b3 = _mm256_shuffle_ps(a1, a3, 0xEE);
                const __m256 b4 = _mm256_shuffle_ps(a4, a6, 0x44), b5 = _mm256_shuffle_ps(a4, a6, 0xEE);
                const __m256 b6 = _mm256_shuffle_ps(a5, a7, 0x44), b7 = _mm256_shuffle_ps(a5, a7, 0xEE);
                const __m256 c[8] = {_mm256_permute2f128_ps(b0, b4, 0x20), _mm256_permute2f128_ps(b1, b5, 0x20),
                                     _mm256_permute2f128_ps(b2, b6, 0x20), _mm256_permute2f128_ps(b3, b7, 0x20),
                                     _mm256_permute2f128_ps(b0, b4, 0x31), _mm256_permute2f128_ps(b1, b5, 0x31),
                                     _mm256_permute2f128_ps(b2, b6, 0x31), _mm256_permute2f128_ps(b3, b7, 0x31)};
                for (int k = 0; k < 8; ++k) // c[k] holds group j + k's values t … t + 7
                    _mm256_storeu_ps(dst + (j + k) * g + t, c[k]);
            }
#endif
        for (std::int64_t t = 0; t < g; ++t) {
            if (t < t8) { // the tiles' rows: only the groups past the last full tile
                if (n8 < n)
                    convert(t * m_G + j0 + n8, n - n8, dst + n8 * g + t, g);
                continue;
            }
            convert(t * m_G + j0, n, dst + t, g);
        }
    }

    std::span<const float> m_flat;
    const Tensor *m_tensor;
    std::int64_t m_g, m_G;
    bool m_axis1;
    Raw m_raw = Raw::None;
    const std::byte *m_bytes = nullptr;
    bool m_mapped = false;
};

struct Solver {
    Solver(const HqqSpec &s, const GroupSource &source) : spec(s), src(source) {}
    const HqqSpec &spec;
    const GroupSource &src;
    std::int64_t g = 0, G = 0, numel = 0;
    hqqmath::HqqIterParams P;
    bool fp16 = false;
    std::vector<float> sigma, z; ///< per group, in the optimiser dtype
    std::vector<std::uint8_t> bad;
    std::vector<double> errPart;
    std::int64_t goodCount = 0;
    int unit = 0; ///< the fixed-point unit of the global error (hqqFixedUnit)

#if defined(__AVX2__) && defined(__F16C__)
    static __m256 h16(__m256 v) // each lane rounded to FP16 (F16C: nearest even, exactly like roundF16)
    {
        return _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    struct Lanes { ///< one group's running sums: element t into FP64 lane t mod 4, in order
        const float *xs;
        __m256 vs, vz, wrT; ///< σ, z, and W_r of the codes 0 … 7 (qmax ≤ 7) as step8 computes it
        __m256d accE = _mm256_setzero_pd(), accZ = _mm256_setzero_pd();
    };

    /// Elements t … t + 7 of one group (hqqmath::hqqElement lane by lane: h16 as roundF16, no FMA,
    /// the scalar shrink for a lane with |e| ≥ kHqqShrinkFrom, below which it is 0 in both).
    void step8(Lanes &L, std::int64_t t, const std::vector<float> &powTable) const
    {
        const __m256 vq = _mm256_set1_ps(P.qmax), zero = _mm256_setzero_ps(), signMask = _mm256_set1_ps(-0.0f),
                     thr = _mm256_set1_ps(hqqmath::kHqqShrinkFrom);
        auto R = [this](__m256 v) { return fp16 ? h16(v) : v; }; // the optimiser dtype's rounding
        const __m256 x = _mm256_loadu_ps(L.xs + t);
        __m256 q = _mm256_round_ps(R(_mm256_add_ps(R(_mm256_mul_ps(x, L.vs)), L.vz)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        q = _mm256_max_ps(_mm256_min_ps(q, vq), zero); // an integer in [0, qmax] (min_ps takes vq for NaN)
        const __m256 e = R(_mm256_sub_ps(x, P.qmax <= 7.0f ? _mm256_permutevar8x32_ps(L.wrT, _mm256_cvttps_epi32(q))
                                                           : R(_mm256_div_ps(R(_mm256_sub_ps(q, L.vz)), L.vs))));
        const __m256 a = _mm256_andnot_ps(signMask, e);
        L.accE = _mm256_add_pd(L.accE, _mm256_cvtps_pd(_mm256_castps256_ps128(a)));
        L.accE = _mm256_add_pd(L.accE, _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)));
        __m256 we = zero;
        if (_mm256_movemask_ps(_mm256_cmp_ps(a, thr, _CMP_GE_OQ))) {
            alignas(32) float ea[8], wa[8];
            _mm256_store_ps(ea, e);
            for (int k = 0; k < 8; ++k) {
                const float ak = qmath::absf(ea[k]);
                wa[k] = fp16 && ak >= hqqmath::kHqqShrinkFrom
                            ? hqqmath::hqqShrinkWith(ea[k], ak, powTable[halfIndex(ak)], true)
                            : hqqmath::hqqShrink(ea[k], P);
            }
            we = _mm256_load_ps(wa);
        }
        const __m256 v = R(_mm256_sub_ps(q, R(_mm256_mul_ps(R(_mm256_sub_ps(x, we)), L.vs))));
        L.accZ = _mm256_add_pd(L.accZ, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        L.accZ = _mm256_add_pd(L.accZ, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }

    /// The lanes combined as (l0 + l1) + (l2 + l3), then the tail past the last multiple of 8.
    void finish(const Lanes &L, float s, float zz, double &esOut, double &zsOut) const
    {
        alignas(32) double le[4], lz[4];
        _mm256_store_pd(le, L.accE);
        _mm256_store_pd(lz, L.accZ);
        esOut = (le[0] + le[1]) + (le[2] + le[3]);
        zsOut = (lz[0] + lz[1]) + (lz[2] + lz[3]);
        for (std::int64_t t = g / 8 * 8; t < g; ++t) {
            float a, v;
            hqqmath::hqqElement(L.xs[t], s, zz, P, a, v);
            esOut += a;
            zsOut += v;
        }
    }
#endif

    /// hqqmath::hqqGroupSums (Σ|e|, Σ z-update term) of groups j, j + n − 1 (n ≤ 2) at x, in order.
    void groupSums(const float *x, std::int64_t j, int n, double *es, double *zs) const
    {
#if defined(__AVX2__) && defined(__F16C__)
        const std::vector<float> &powTable = hqqFp16PowTable();
        const std::int64_t b = j + n - 1;                            // the second group (n = 2), else the first again
        const __m256 codes = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7); // W_r per code once, not per element
        auto lanes = [&](std::int64_t k) {
            const __m256 vs = _mm256_set1_ps(sigma[k]), vz = _mm256_set1_ps(z[k]), d = _mm256_sub_ps(codes, vz);
            return Lanes{x + (k - j) * g, vs, vz, fp16 ? h16(_mm256_div_ps(h16(d), vs)) : _mm256_div_ps(d, vs)};
        };
        Lanes A = lanes(j), B = lanes(b); // two locals (registers), the chains interleaved
        for (std::int64_t t = 0; t + 8 <= g; t += 8) {
            step8(A, t, powTable);
            if (n == 2)
                step8(B, t, powTable);
        }
        finish(A, sigma[j], z[j], es[0], zs[0]);
        if (n == 2)
            finish(B, sigma[b], z[b], es[1], zs[1]);
#else
        for (int k = 0; k < n; ++k)
            hqqmath::hqqGroupSums(hqqmath::hqqElems([xs = x + k * g](std::int64_t t) { return xs[t]; }), g,
                                  sigma[j + k], z[j + k], P, es[k], zs[k]);
#endif
    }

    /// One proximal iteration over groups [j0, j1): updates z, writes Σ|e| per group; W read block
    /// by block in the optimiser's dtype (never held whole).
    void iterate(std::int64_t j0, std::int64_t j1, const CancelToken *cancel)
    {
        const float zfactor = static_cast<float>(G) / static_cast<float>(numel);
        src.forEachBlock(j0, j1, fp16, [&](std::int64_t jb, std::int64_t je, const float *blk) {
            for (std::int64_t j = jb; j < je;) {
                if (cancel && ((j & 1023) == 0 || ((j + 1) & 1023) == 0))
                    cancel->check();
                if (bad[j]) {
                    errPart[j++] = 0.0;
                    continue;
                }
                const int n = j + 1 < je && !bad[j + 1] ? 2 : 1;
                double es[2], zs[2];
                groupSums(blk + (j - jb) * g, j, n, es, zs);
                for (int k = 0; k < n; ++k, ++j) {
                    z[j] = hqqmath::hqqNewZero(zs[k], zfactor, g, fp16);
                    errPart[j] = es[k];
                }
            }
        });
    }

    /// The global error of an iteration: the groups' sums added exactly (hqq_math.h), rounded as
    /// the library rounds it.
    float globalError() const
    {
        hqqmath::U128 total;
        unsigned status = 0;
        for (double e : errPart) {
            hqqmath::U128 k;
            status |= hqqmath::hqqToFixed(e, unit, k);
            total = hqqmath::add(total, k);
        }
        return hqqmath::hqqGlobalError(total, unit, status, goodCount, fp16);
    }
};

} // namespace

namespace {

/// HQQ over W as `src` reads it (numel elements, flat row-major).
HqqResult hqqQuantizeImpl(std::span<const float> flat, const Tensor *tensor, std::int64_t numel, const HqqSpec &spec,
                          bool wantDequantized, int threads, const std::string &tensorName, const CancelToken *cancel)
{
    spec.validate();
    const std::int64_t g = spec.group;
    if (numel == 0 || numel % g != 0)
        throw UnsupportedError("HQQ needs numel divisible by the group size: numel = " + std::to_string(numel) +
                                   ", group = " + std::to_string(g),
                               Location{{}, tensorName, {}});
    const std::int64_t G = numel / g;
    const bool axis1 = spec.axis == 1;
    auto flatIndex = [&](std::int64_t j, std::int64_t t) { return axis1 ? j * g + t : t * G + j; };
    const GroupSource src(flat, tensor, g, G, axis1);

    Solver S(spec, src);
    S.g = g;
    S.G = G;
    S.numel = numel;
    S.P.qmax = static_cast<float>((1 << spec.bits) - 1);
    S.fp16 = spec.compute == HqqCompute::Fp16;
    S.P.fp16 = S.fp16;
    S.P.powExp = hqqPowExponent(S.fp16);
    S.sigma.resize(static_cast<std::size_t>(G));
    S.z.resize(static_cast<std::size_t>(G));
    S.bad.assign(static_cast<std::size_t>(G), 0);
    S.errPart.assign(static_cast<std::size_t>(G), 0.0);
    const int parts = static_cast<int>(std::clamp<std::int64_t>(G, 1, resolveThreads(threads)));

    HqqResult res;
    // Min/max of each group (FP32 W), σ and z.
    const bool libRange = spec.preset == HqqPreset::HqqLib;
    const bool roundZero = spec.roundsZero();
    std::vector<float> groupAmax(static_cast<std::size_t>(G), 0.0f); // max |W| of each finite group
    parallelSlices(G, parts, cancel, [&](int, std::int64_t j0, std::int64_t j1) {
        src.forEachGroup(j0, j1, false, cancel, [&](std::int64_t j, const float *xs) {
            float mn = std::numeric_limits<float>::infinity(), mx = -mn;
            bool nonFinite = false;
            for (std::int64_t t = 0; t < g; ++t) {
                const float v = xs[t];
                nonFinite |= !qmath::isFinite(v);
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
            if (nonFinite) {
                S.bad[j] = 1;
                S.sigma[j] = 1.0f;
                S.z[j] = 0.0f;
                return;
            }
            groupAmax[j] = std::max(qmath::absf(mn), qmath::absf(mx));
            const float d = mx - mn;
            float s = S.P.qmax / d;
            if (libRange && qmath::absf(d) <= 1e-4f)
                s = 1.0f;
            s = s > 2e4f ? 2e4f : s; // clamp(max=2e4) (qmax/0 = inf → 2e4 for milo-code)
            float zz = -mn * s;
            if (roundZero)
                zz = rne(zz);
            S.sigma[j] = s;
            S.z[j] = zz;
        });
    });
    for (std::int64_t j = 0; j < G; ++j)
        if (S.bad[j]) {
            ++res.nonFiniteGroups;
            for (std::int64_t t = 0; t < g; ++t) {
                const std::int64_t i = flatIndex(j, t);
                if (!qmath::isFinite(src.at(i)) && (res.firstNonFinite < 0 || i < res.firstNonFinite))
                    res.firstNonFinite = i;
            }
        }
    S.goodCount = (G - res.nonFiniteGroups) * g;
    float amax = 0.0f;
    for (float a : groupAmax)
        amax = std::max(amax, a);
    S.unit = hqqmath::hqqFixedUnit(amax, S.P.qmax, S.goodCount);

    // Optimiser dtype of σ and z (W's values are rounded block by block as they are read).
    if (S.fp16)
        for (std::int64_t j = 0; j < G; ++j) {
            S.sigma[j] = roundF16(S.sigma[j]);
            S.z[j] = roundF16(S.z[j]);
        }

    if (S.goodCount > 0) {
        float best = std::numeric_limits<float>::infinity();
        for (int it = 1; it <= spec.iters; ++it) {
            const auto t0 = std::chrono::steady_clock::now();
            parallelSlices(G, parts, cancel, [&](int, std::int64_t j0, std::int64_t j1) { S.iterate(j0, j1, cancel); });
            const float err = S.globalError();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            res.history.push_back({it, static_cast<double>(err), ms});
            if (err < best)
                best = err;
            else
                break; // the z of this iteration is kept (the library updates z before the test)
        }
    }

    // Final codes from FP32 W, stored scale and zero, Ŵ.
    res.codes.assign(static_cast<std::size_t>(numel), 0);
    res.scales.resize(static_cast<std::size_t>(G));
    res.zeros.resize(static_cast<std::size_t>(G));
    if (wantDequantized)
        res.dequantized.assign(static_cast<std::size_t>(numel), 0.0f);
    parallelSlices(G, parts, cancel, [&](int, std::int64_t j0, std::int64_t j1) {
        src.forEachGroup(j0, j1, false, cancel, [&](std::int64_t j, const float *xs) {
            if (S.bad[j]) {
                res.scales[j] = 1.0f;
                res.zeros[j] = 0.0f;
                return; // codes 0, Ŵ 0
            }
            const float s = S.sigma[j], zz = S.z[j];
            const float scale = S.fp16 ? roundF16(1.0f / s) : 1.0f / s;
            res.scales[j] = scale;
            res.zeros[j] = zz;
            std::int64_t t = 0;
#if defined(__AVX2__) && defined(__F16C__)
            // 8 lanes: the scalar code's operations lane by lane (rne, clampf as written; h16; no FMA).
            const __m256 vs = _mm256_set1_ps(s), vz = _mm256_set1_ps(zz), vsc = _mm256_set1_ps(scale),
                         vq = _mm256_set1_ps(S.P.qmax), zero = _mm256_setzero_ps(), sign = _mm256_set1_ps(-0.0f),
                         two23 = _mm256_set1_ps(8388608.0f);
            alignas(32) float qa[8], da[8];
            std::uint8_t *const codesOut = res.codes.data();
            float *const deqOut = wantDequantized ? res.dequantized.data() : nullptr; // held: no reloads
            const std::int64_t step = axis1 ? 1 : G, at0 = axis1 ? j * g : j;
            for (; t + 8 <= g; t += 8) {
                const __m256 x = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(xs + t), vs), vz);
                const __m256 ax = _mm256_andnot_ps(sign, x);
                __m256 r = _mm256_sub_ps(_mm256_add_ps(ax, two23), two23);
                r = _mm256_blendv_ps(r, _mm256_xor_ps(r, sign), _mm256_cmp_ps(x, zero, _CMP_LT_OQ));
                r = _mm256_blendv_ps(r, x, _mm256_cmp_ps(ax, two23, _CMP_NLT_UQ)); // !(|x| < 2^23)
                __m256 q = _mm256_blendv_ps(r, vq, _mm256_cmp_ps(r, vq, _CMP_GT_OQ));
                q = _mm256_blendv_ps(q, zero, _mm256_cmp_ps(r, zero, _CMP_LT_OQ));
                const __m256 d = _mm256_sub_ps(q, vz);
                _mm256_store_ps(qa, q);
                _mm256_store_ps(da, S.fp16 ? Solver::h16(_mm256_mul_ps(Solver::h16(d), vsc)) : _mm256_mul_ps(d, vsc));
                for (std::int64_t k = 0, i = at0 + t * step; k < 8; ++k, i += step) { // i = flatIndex(j, t + k)
                    codesOut[i] = static_cast<std::uint8_t>(qa[k]);
                    if (deqOut)
                        deqOut[i] = da[k];
                }
            }
#endif
            for (; t < g; ++t) {
                const float q = clampf(rne(xs[t] * s + zz), 0.0f, S.P.qmax);
                const std::int64_t i = flatIndex(j, t);
                res.codes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(q);
                if (wantDequantized)
                    res.dequantized[static_cast<std::size_t>(i)] =
                        S.fp16 ? roundF16(roundF16(q - zz) * scale) : (q - zz) * scale;
            }
        });
    });
    return res;
}

} // namespace

HqqResult hqqQuantizeFlat(std::span<const float> w, const HqqSpec &spec, bool wantDequantized, int threads,
                          const std::string &tensorName, const CancelToken *cancel)
{
    return hqqQuantizeImpl(w, nullptr, static_cast<std::int64_t>(w.size()), spec, wantDequantized, threads, tensorName,
                           cancel);
}

HqqResult hqqQuantizeTensor(const Tensor &w, const HqqSpec &spec, bool wantDequantized, int threads,
                            const std::string &tensorName, const CancelToken *cancel)
{
    return hqqQuantizeImpl({}, &w, w.numel(), spec, wantDequantized, threads, tensorName, cancel);
}

void hqqDequantizeFlat(const HqqSpec &spec, std::span<const std::uint8_t> codes, std::span<const float> scales,
                       std::span<const float> zeros, std::span<float> out)
{
    const auto numel = static_cast<std::int64_t>(codes.size());
    const std::int64_t g = spec.group;
    if (g < 1 || numel % g != 0 || scales.size() * static_cast<std::size_t>(g) != codes.size() ||
        zeros.size() != scales.size() || out.size() != codes.size())
        throw UnsupportedError("HQQ dequantize: codes, scales and zero points do not match the group size");
    const std::int64_t G = numel / g;
    const bool fp16 = spec.compute == HqqCompute::Fp16;
    for (std::int64_t i = 0; i < numel; ++i) {
        const std::int64_t j = spec.axis == 1 ? i / g : i % G;
        const float q = static_cast<float>(codes[static_cast<std::size_t>(i)]);
        const float zz = zeros[static_cast<std::size_t>(j)], s = scales[static_cast<std::size_t>(j)];
        out[static_cast<std::size_t>(i)] = fp16 ? roundF16(roundF16(q - zz) * s) : (q - zz) * s;
    }
}

GroupLayout hqqLayout(const Shape &shape, std::int64_t group, int axis)
{
    GroupLayout L;
    L.granularity = Granularity::Group;
    std::tie(L.rows, L.cols) = matrixView(shape);
    L.group = group;
    const std::int64_t G = L.rows * L.cols / group;
    if (axis == 1 && L.cols % group == 0) {
        L.gridRows = L.rows;
        L.gridCols = L.cols / group;
    } else if (axis == 1) {
        L.gridRows = G;
        L.gridCols = 1;
    } else {
        L.gridRows = 1;
        L.gridCols = G;
    }
    return L;
}

// ---- the quantizer ---------------------------------------------------------------------------

HqqQuantizer::HqqQuantizer(HqqSpec spec) : m_spec(spec)
{
    m_spec.validate();
}

QuantizedTensor HqqQuantizer::quantize(const Tensor &w, const QuantizeOptions &options, const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    // W read block by block from the tensor itself: no FP32 copy of W (peak memory, docs/perf.md).
    HqqResult r = hqqQuantizeTensor(w, m_spec, options.wantDequantized, options.threads, options.tensorName, cancel);

    QuantizedTensor q = startQuantized(w, "hqq", m_spec.toJson(), options.tensorName);
    q.layout = hqqLayout(w.shape(), m_spec.group, m_spec.axis);
    q.codes = std::move(r.codes);
    q.codeDtype = DType::U8;
    q.codeBits = m_spec.bits;
    q.scales = std::move(r.scales);
    q.zeroPoints = std::move(r.zeros);
    const DType stored = m_spec.compute == HqqCompute::Fp16 ? DType::F16 : DType::F32;
    q.scaleDtype = stored;
    q.zeroPointDtype = stored;
    q.nonFiniteGroups = r.nonFiniteGroups;
    q.firstNonFinite = r.firstNonFinite;
    q.dequantized = std::move(r.dequantized);
    q.history = std::move(r.history);
    q.chosenPass = static_cast<int>(q.history.size());
    return q;
}

void HqqQuantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    hqqDequantizeFlat(m_spec, q.codes, q.scales, q.zeroPoints, out);
}

} // namespace quantscope
