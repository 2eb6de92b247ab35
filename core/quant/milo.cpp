// SPDX-License-Identifier: MIT
#include "quant/milo.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "numeric/qmath.h"
#include "quant/milo_math.h"
#include "numeric/svd.h"
#include "quant/spec_json.h"
#include "tensor/convert.h"
#include "util/bus_guard.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

const std::vector<std::string> kMiloPresets{"code", "paper"};
const std::vector<std::string> kCompensators{"fp16", "int8", "int3", "milo-code-int3"};
const std::vector<std::string> kHqqPresets{"hqq-lib", "milo-code"};
const std::vector<std::string> kComputes{"fp32", "fp16"};
const std::vector<std::string> kZeroRoundings{"preset", "always", "never"};

} // namespace

std::string toString(MiloPreset v)
{
    return kMiloPresets[static_cast<int>(v)];
}
std::string toString(CompensatorFormat v)
{
    return kCompensators[static_cast<int>(v)];
}

// ---- spec ------------------------------------------------------------------------------------

std::vector<SpecField> MiloSpec::fields()
{
    std::vector<SpecField> f{
        {"preset", "enum", kMiloPresets, 0, 0,
         "code: 11 passes, no early stop (the released loop); paper: ≤ 20 passes, early stop; both return the best "
         "pass"},
        {"passes", "int", {}, 0, 1000, "number of passes (0: the preset's)"},
        {"rank", "int", {}, 0, 1 << 20, "compensator rank r (clamped to min(N, K); 0 = plain HQQ)"},
        {"compensator", "enum", kCompensators, 0, 0,
         "U, V stored as FP16, INT8 (symmetric, per group), INT3 (paper eq. 15) or milo-code-int3"},
        {"compensator_group", "int", {}, 1, 1 << 20, "group size of the integer compensators (flattened factor)"},
        {"seed", "int", {}, 0, 2147483647, "Philox seed of the randomized SVD"},
        {"power_iters", "int", {}, 0, 100, "power iterations of the randomized SVD (torch default 2)"},
        {"hqq_preset", "enum", kHqqPresets, 0, 0, "inner HQQ preset (default milo-code: 3-bit, g 64, axis 0)"},
        {"bits", "int", {}, 2, 8, "inner HQQ code width"},
        {"group", "int", {}, 1, 1 << 20, "inner HQQ group size"},
        {"axis", "int", {}, 0, 1, "inner HQQ grouping axis"},
        {"compute", "enum", kComputes, 0, 0, "inner HQQ arithmetic: fp32 or fp16 (per-op FP16 as on CUDA)"},
        {"zero_rounding", "enum", kZeroRoundings, 0, 0, "inner HQQ zero rounding: preset, always, never"},
        {"iters", "int", {}, 1, 1000, "inner HQQ maximum optimiser iterations"},
    };
    specjson::fieldNamed(f, "preset").presetForKeyValue = "code"; // --preset passes=N: code, N passes
    specjson::fieldNamed(f, "power_iters").flag = "--svd-power-iters";
    specjson::fieldNamed(f, "hqq_preset").flag = "--hqq-preset";
    return f;
}

void MiloSpec::validate() const
{
    if (passes < 0 || passes > 1000)
        throw UnsupportedError("passes must be 0..1000, got " + std::to_string(passes));
    if (rank < 0)
        throw UnsupportedError("rank must be ≥ 0, got " + std::to_string(rank));
    if (compensatorGroup < 1)
        throw UnsupportedError("compensator_group must be ≥ 1, got " + std::to_string(compensatorGroup));
    if (seed < 0)
        throw UnsupportedError("seed must be ≥ 0, got " + std::to_string(seed));
    if (powerIters < 0 || powerIters > 100)
        throw UnsupportedError("power_iters must be 0..100, got " + std::to_string(powerIters));
    hqq.validate();
}

nlohmann::json MiloSpec::toJson() const
{
    return {{"method", "milo"},
            {"preset", toString(preset)},
            {"passes", passes},
            {"rank", rank},
            {"compensator", toString(compensator)},
            {"compensator_group", compensatorGroup},
            {"seed", seed},
            {"power_iters", powerIters},
            {"hqq_preset", toString(hqq.preset)},
            {"bits", hqq.bits},
            {"group", hqq.group},
            {"axis", hqq.axis},
            {"compute", toString(hqq.compute)},
            {"zero_rounding", toString(hqq.zeroRounding)},
            {"iters", hqq.iters}};
}

MiloSpec MiloSpec::fromJson(const nlohmann::json &j)
{
    using namespace specjson;
    refuseUnknownKeys(j, fields(), "milo");
    MiloSpec s;
    if (j.contains("preset"))
        s.preset = static_cast<MiloPreset>(parseChoice(j["preset"], "preset", kMiloPresets));
    if (j.contains("passes"))
        s.passes = parseInt32(j["passes"], "passes");
    if (j.contains("rank"))
        s.rank = parseInt32(j["rank"], "rank");
    if (j.contains("compensator"))
        s.compensator = static_cast<CompensatorFormat>(parseChoice(j["compensator"], "compensator", kCompensators));
    if (j.contains("compensator_group"))
        s.compensatorGroup = parseInt(j["compensator_group"], "compensator_group");
    if (j.contains("seed"))
        s.seed = parseInt(j["seed"], "seed");
    if (j.contains("power_iters"))
        s.powerIters = parseInt32(j["power_iters"], "power_iters");
    nlohmann::json h = nlohmann::json::object();
    if (j.contains("hqq_preset"))
        h["preset"] = j["hqq_preset"];
    else
        h["preset"] = "milo-code";
    for (const char *k : {"bits", "group", "axis", "compute", "zero_rounding", "iters"})
        if (j.contains(k))
            h[k] = j[k];
    s.hqq = HqqSpec::fromJson(h);
    s.validate();
    return s;
}

bool miloPaperShouldStop(std::span<const double> eps)
{
    return milomath::paperShouldStop(eps.data(), static_cast<int>(eps.size()));
}

// ---- compensators ----------------------------------------------------------------------------

CompensatorFactor quantizeCompensator(std::span<const float> x, std::int64_t rows, std::int64_t cols,
                                      CompensatorFormat format, std::int64_t group)
{
    using qmath::roundF16;
    CompensatorFactor c;
    c.rows = rows;
    c.cols = cols;
    c.format = toString(format);
    const auto n = static_cast<std::int64_t>(x.size());
    c.values.resize(static_cast<std::size_t>(n));
    if (format == CompensatorFormat::Fp16) {
        c.codeBits = 16;
        for (std::int64_t i = 0; i < n; ++i)
            c.values[i] = roundF16(x[i]);
        return c;
    }
    c.group = group;
    c.scaleDtype = DType::F32;
    c.codes.resize(static_cast<std::size_t>(n));
    const int kind = format == CompensatorFormat::Int8   ? milomath::kCompInt8
                     : format == CompensatorFormat::Int3 ? milomath::kCompInt3
                                                         : milomath::kCompMiloCodeInt3;
    c.codeBits = kind == milomath::kCompInt8 ? 8 : 3;
    for (std::int64_t g0 = 0; g0 < n; g0 += group) {
        const std::int64_t g1 = std::min(n, g0 + group);
        float absMax = 0.0f, signedMax = x[g0];
        for (std::int64_t i = g0; i < g1; ++i) {
            absMax = std::max(absMax, qmath::absf(x[i]));
            signedMax = x[i] > signedMax ? x[i] : signedMax;
        }
        const float s = milomath::compensatorScale(kind, absMax, signedMax);
        c.scales.push_back(s);
        for (std::int64_t i = g0; i < g1; ++i)
            milomath::compensatorElement(kind, x[i], s, c.codes[i], c.values[i]);
    }
    return c;
}

// ---- the quantizer ---------------------------------------------------------------------------

MiloQuantizer::MiloQuantizer(MiloSpec spec) : m_spec(std::move(spec))
{
    m_spec.validate();
}

namespace {

/// out = f(ŵ + U·V) with U [N, r], V [r, K] (the product in FP64). `out` may be `wHat` itself.
/// Rows are split over `threads` workers; each element's sum over c keeps its order (c = 0, 1, …
/// from +0), so the bits do not depend on the thread count. Per row, the sums run over the row's
/// K elements at once (acc[k] += u·v[c, k] for c in order: the same sequence per element).
void addLowRank(std::span<const float> wHat, const std::vector<float> &u, const std::vector<float> &v, std::int64_t N,
                std::int64_t K, std::int64_t r, std::span<float> out, int threads, const CancelToken *cancel = nullptr)
{
    std::vector<double> vd(v.begin(), v.end()); // V in FP64 once (exact)
    parallelSlices(N, threads, cancel, [&](int, std::int64_t i0, std::int64_t i1) {
        std::vector<double> acc(static_cast<std::size_t>(K));
        for (std::int64_t i = i0; i < i1; ++i) {
            if (cancel && (i & 31) == 0)
                cancel->check();
            std::fill(acc.begin(), acc.end(), 0.0);
            for (std::int64_t c = 0; c < r; ++c) {
                const double f = static_cast<double>(u[i * r + c]);
                const double *vc = vd.data() + c * K;
                for (std::int64_t k = 0; k < K; ++k)
                    acc[k] += f * vc[k];
            }
            for (std::int64_t k = 0; k < K; ++k)
                out[i * K + k] = static_cast<float>(static_cast<double>(wHat[i * K + k]) + acc[k]);
        }
    });
}

} // namespace

void canonicalFactorSigns(std::span<float> u, std::span<float> v, std::int64_t N, std::int64_t K, std::int64_t r)
{
    for (std::int64_t c = 0; c < r; ++c) {
        std::int64_t at = 0;
        float best = -1.0f;
        for (std::int64_t i = 0; i < N; ++i) {
            const float a = qmath::absf(u[i * r + c]);
            if (a > best) {
                best = a;
                at = i;
            }
        }
        if (!(u[at * r + c] < 0.0f))
            continue;
        for (std::int64_t i = 0; i < N; ++i)
            u[i * r + c] = -u[i * r + c];
        for (std::int64_t j = 0; j < K; ++j)
            v[c * K + j] = -v[c * K + j];
    }
}

namespace {

/// W is read from the tensor in chunks of this many values where a pass needs it whole (its
/// finite check, Σ (W − Ŵ)² at rank 0): no FP32 copy of W is held (docs/perf.md).
constexpr std::int64_t kRowChunk = std::int64_t{1} << 16;

/// Values [first, min(first + kRowChunk, numel)) of w, decoded into `buf`.
std::span<float> decodeChunk(const Tensor &w, std::int64_t first, std::int64_t numel, std::vector<float> &buf)
{
    buf.resize(static_cast<std::size_t>(std::min(kRowChunk, numel - first)));
    w.decodeRange(first, buf);
    return buf;
}

/// Rows [r0, r1) × columns [c0, c1) of W (row-major, K columns) as FP32 into dst (c1 − c0 values
/// a row): decodeRange's values. A contiguous F32 / BF16 / F16 tensor is converted straight from
/// its bytes, in one bus-guarded region for the whole block when it is a mapping (decodeRange
/// guards each call: a sigsetjmp, with its signal-mask system call, per row); any other through
/// decodeRange row by row.
void decodeBlock(const Tensor &w, std::int64_t K, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1,
                 float *dst)
{
    const std::int64_t width = c1 - c0;
    const DType dt = w.dtype();
    if (!w.isContiguous() || (dt != DType::F32 && dt != DType::BF16 && dt != DType::F16) || r1 > w.numel() / K) {
        for (std::int64_t i = r0; i < r1; ++i)
            w.decodeRange(i * K + c0, std::span<float>(dst + (i - r0) * width, static_cast<std::size_t>(width)));
        return;
    }
    const std::byte *base = w.data();
    auto body = [&] { // no object with a destructor (bus_guard.h)
        const std::int64_t n = width;
        for (std::int64_t i = r0; i < r1; ++i) {
            const std::int64_t first = i * K + c0;
            float *o = dst + (i - r0) * n;
            if (dt == DType::F32) {
                std::memcpy(o, base + 4 * first, static_cast<std::size_t>(n) * 4);
                continue;
            }
            const std::byte *src = base + 2 * first;
            std::int64_t j = 0;
            if (dt == DType::BF16) {
#if defined(__AVX2__)
                for (; j + 8 <= n; j += 8) { // a BF16 is the top half of its FP32
                    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + 2 * j));
                    _mm256_storeu_si256(reinterpret_cast<__m256i *>(o + j),
                                        _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
                }
#endif
                for (; j < n; ++j) {
                    std::uint16_t h;
                    std::memcpy(&h, src + 2 * j, 2);
                    const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
                    std::memcpy(o + j, &u, 4);
                }
                continue;
            }
            for (; j < n; ++j) {
                std::uint16_t h;
                std::memcpy(&h, src + 2 * j, 2);
                o[j] = f16ToFloat(h);
            }
        }
    };
    if (busguard::isMapped(base))
        busguard::guarded(body);
    else
        body();
}

} // namespace

QuantizedTensor MiloQuantizer::quantize(const Tensor &w, const QuantizeOptions &options,
                                        const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::int64_t N = matrixView(w.shape()).first, K = matrixView(w.shape()).second;
    const std::int64_t numel = N * K;
    // W is read from the tensor in chunks wherever a pass needs it; no FP32 copy of W and no FP64
    // residual E are held whole (peak memory: docs/perf.md).
    std::vector<float> rows;
    for (std::int64_t first = 0; first < numel; first += kRowChunk) {
        const std::span<float> part = decodeChunk(w, first, numel, rows);
        for (float v : part)
            if (!qmath::isFinite(v))
                throw UnsupportedError("MiLo needs a finite tensor (the SVD of the residual is undefined with NaN/Inf)",
                                       Location{{}, options.tensorName, {}});
    }

    const int r = static_cast<int>(std::min<std::int64_t>(m_spec.rank, std::min(N, K)));
    const int passes = m_spec.passCount();
    const bool paper = m_spec.preset == MiloPreset::Paper;

    std::vector<float> wt; // W − f(U·V) of the previous pass (passes ≥ 2)
    HqqResult chosen;
    RangeSketchResult chosenSketch;
    std::vector<IterationRecord> history;
    std::vector<double> epsList;
    int chosenPass = 0;
    double bestEps = 0.0;
    const int threads = resolveThreads(options.threads);

    for (int t = 1; t <= passes; ++t) {
        if (cancel)
            cancel->stepProgress(static_cast<double>(t - 1) / passes);
        const auto t0 = std::chrono::steady_clock::now();
        // The best pass so far keeps its codes, scales, zero points and sketch; its Ŵ goes (it is
        // dequantized again from its codes at the end when it is not the last pass).
        std::vector<float>().swap(chosen.dequantized);
        // Pass 1 quantizes W itself, read from the tensor; later passes W − f(U·V).
        HqqResult h = t == 1 ? hqqQuantizeTensor(w, m_spec.hqq, true, options.threads, options.tensorName, cancel)
                             : hqqQuantizeFlat(wt, m_spec.hqq, true, options.threads, options.tensorName, cancel);
        const std::vector<float> &wHat = h.dequantized;
        double eps2 = 0.0;
        RangeSketchResult sk;
        if (r == 0) {
            for (std::int64_t first = 0; first < numel; first += kRowChunk) {
                const std::span<float> part = decodeChunk(w, first, numel, rows);
                for (std::size_t i = 0; i < part.size(); ++i) {
                    const double d = static_cast<double>(part[i]) - wHat[static_cast<std::size_t>(first) + i];
                    eps2 += d * d;
                }
            }
        } else {
            // E = W − Ŵ (FP64), produced slice by slice for the sketch's products.
            // W's rows are decoded a block of about kRowChunk / 4 values at a time (cache-resident).
            const MatrixBlockFn residual = [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1,
                                               double *dst) {
                const std::int64_t width = c1 - c0;
                const std::int64_t step = std::max<std::int64_t>(1, kRowChunk / 4 / width);
                std::vector<float> rowsW(static_cast<std::size_t>(std::min(step, r1 - r0) * width));
                for (std::int64_t b0 = r0; b0 < r1; b0 += step) {
                    const std::int64_t b1 = std::min(r1, b0 + step);
                    if (cancel)
                        cancel->check();
                    decodeBlock(w, K, b0, b1, c0, c1, rowsW.data());
                    for (std::int64_t i = b0; i < b1; ++i) {
                        const float *wi = rowsW.data() + (i - b0) * width;
                        const float *hi = wHat.data() + i * K + c0;
                        double *di = dst + (i - r0) * width;
                        for (std::int64_t j = 0; j < width; ++j)
                            di[j] = static_cast<double>(wi[j]) - static_cast<double>(hi[j]);
                    }
                }
            };
            // U·V = Q·B, the truncated SVD's product (its factors are only needed for the
            // returned pass).
            sk = rangeSketch(residual, N, K, r, m_spec.powerIters, static_cast<std::uint64_t>(m_spec.seed),
                             static_cast<std::uint32_t>(t - 1), threads, cancel);
            // Per row (rows are independent; each element's sum over c keeps its order, so the
            // split over the worker threads keeps the bits): the row of U·V, its Σ (E − U·V)² and
            // the next pass's input W − f(U·V), written over this pass's input. A = E: uv[i, j] =
            // Σ Q(i, c)·B(c, j); A = Eᵀ: uv[i, j] = Σ B(c, i)·Q(j, c).
            const std::int64_t k = sk.q;
            if (t < passes)
                wt.resize(static_cast<std::size_t>(numel));
            std::vector<double> rowSq(static_cast<std::size_t>(N), 0.0);
            parallelSlices(N, threads, cancel, [&](int, std::int64_t i0, std::int64_t i1) {
                std::vector<double> row(static_cast<std::size_t>(K));
                std::vector<float> w0i(static_cast<std::size_t>(K));
                for (std::int64_t i = i0; i < i1; ++i) {
                    if (cancel && (i & 31) == 0)
                        cancel->check();
                    std::fill(row.begin(), row.end(), 0.0);
                    for (std::int64_t c = 0; c < k; ++c) {
                        const double *qc = sk.Q.data() + c * sk.m, *bc = sk.Bt.data() + c * sk.n;
                        const double f = sk.transposed ? bc[i] : qc[i];
                        const double *g = sk.transposed ? qc : bc;
                        if (f == 0.0)
                            continue;
                        for (std::int64_t j = 0; j < K; ++j)
                            row[j] += f * g[j];
                    }
                    decodeBlock(w, K, i, i + 1, 0, K, w0i.data());
                    double sq = 0.0;
                    const float *hi = wHat.data() + i * K;
                    for (std::int64_t j = 0; j < K; ++j) {
                        const double d = (static_cast<double>(w0i[j]) - static_cast<double>(hi[j])) - row[j];
                        sq += d * d;
                    }
                    if (t < passes) {
                        float *wi = wt.data() + i * K;
                        for (std::int64_t j = 0; j < K; ++j)
                            wi[j] = w0i[j] - static_cast<float>(row[j]); // the next pass's W − f(U·V)
                    }
                    rowSq[static_cast<std::size_t>(i)] = sq;
                }
            });
            for (double v : rowSq) // rows in order
                eps2 += v;
        }
        const double eps = std::sqrt(eps2);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        history.push_back({t, eps, ms});
        epsList.push_back(eps);
        // Both presets return the best pass (the smallest ε, the first of equals): ε may rise over
        // the passes, as it does in the released loop (docs/numerics.md "MiLo").
        const bool take = chosenPass == 0 || eps < bestEps;
        if (take) {
            chosen = std::move(h);
            chosenSketch = std::move(sk);
            chosenPass = t;
            bestEps = eps;
        }
        if (r == 0)
            break; // rank 0 is plain HQQ: one pass
        if (paper && miloPaperShouldStop(epsList))
            break;
    }
    std::vector<float>().swap(wt);
    // The returned pass's factors: U = f(U_s·√S) [N, r], V = f(√S·V_sᵀ) [r, K].
    std::vector<float> chosenU, chosenV;
    if (r > 0) {
        const LowRankSvd L = lowRankFromSketch(chosenSketch);
        const std::int64_t k = L.rank;
        chosenU.assign(static_cast<std::size_t>(N * r), 0.0f);
        chosenV.assign(static_cast<std::size_t>(r * K), 0.0f);
        for (std::int64_t c = 0; c < k; ++c) {
            const double sq = std::sqrt(L.s[c]);
            for (std::int64_t i = 0; i < N; ++i)
                chosenU[i * r + c] = static_cast<float>(L.u[i * k + c] * sq);
            for (std::int64_t j = 0; j < K; ++j)
                chosenV[c * K + j] = static_cast<float>(sq * L.v[j * k + c]);
        }
    }

    QuantizedTensor q = startQuantized(w, "milo", m_spec.toJson(), options.tensorName);
    q.layout = hqqLayout(w.shape(), m_spec.hqq.group, m_spec.hqq.axis);
    q.codes = std::move(chosen.codes);
    q.codeDtype = DType::U8;
    q.codeBits = m_spec.hqq.bits;
    q.scales = std::move(chosen.scales);
    q.zeroPoints = std::move(chosen.zeros);
    const DType stored = m_spec.hqq.compute == HqqCompute::Fp16 ? DType::F16 : DType::F32;
    q.scaleDtype = stored;
    q.zeroPointDtype = stored;
    q.history = std::move(history);
    q.chosenPass = chosenPass;
    q.rank = r;
    q.requestedRank = m_spec.rank;
    if (r > 0) {
        canonicalFactorSigns(chosenU, chosenV, N, K, r);
        q.compU = quantizeCompensator(chosenU, N, r, m_spec.compensator, m_spec.compensatorGroup);
        q.compV = quantizeCompensator(chosenV, r, K, m_spec.compensator, m_spec.compensatorGroup);
    }
    if (options.wantDequantized) {
        // f(Ŵ + U·V) written over the chosen pass's Ŵ (addLowRank reads each element before it
        // writes it): no second N×K buffer.
        q.dequantized = std::move(chosen.dequantized);
        if (q.dequantized.empty()) { // the best pass was not the last: Ŵ from its codes (the same values)
            q.dequantized.resize(static_cast<std::size_t>(numel));
            hqqDequantizeFlat(m_spec.hqq, q.codes, q.scales, q.zeroPoints, q.dequantized);
        }
        if (r > 0)
            addLowRank(q.dequantized, q.compU->values, q.compV->values, N, K, r, q.dequantized, threads, cancel);
    }
    return q;
}

void MiloQuantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    std::vector<float> base(q.codes.size());
    hqqDequantizeFlat(m_spec.hqq, q.codes, q.scales, q.zeroPoints, base);
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::int64_t N = matrixView(q.shape).first, K = matrixView(q.shape).second;
    if (q.compU && q.compV && q.rank > 0)
        addLowRank(base, q.compU->values, q.compV->values, N, K, q.rank, out, 1);
    else
        std::copy(base.begin(), base.end(), out.begin());
}

} // namespace quantscope
