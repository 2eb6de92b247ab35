// SPDX-License-Identifier: MIT
#include "quant/data_aware.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

#include "numeric/fp4math.h"
#include "quant/quant_spec.h"
#include "quant/spec_json.h"
#include "quant/uniform.h"
#include "tensor/convert.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

const std::vector<std::string> kActOrders{"none", "static", "weight"};
const std::vector<std::string> kTargets{"int", "fp8", "nvfp4", "mxfp4"};
const char *const kGptqKeys[] = {"block_size", "dampening", "actorder", "target"};

using RowMatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr std::int64_t kRowTile = 64; // rows per task: fixed, so the bits do not depend on the threads

} // namespace

std::string toString(ActOrder v)
{
    return kActOrders[static_cast<std::size_t>(v)];
}

std::string toString(GptqTarget v)
{
    return kTargets[static_cast<std::size_t>(v)];
}

std::string needsCaptureMessage(const std::string &method, const std::string &tensorName)
{
    return method + " needs the module's inputs and none were paired with " +
           (tensorName.empty() ? std::string("this tensor") : tensorName) +
           ": capture them first (quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors) and pass "
           "--capture CAP.safetensors";
}

// ---- spec ----------------------------------------------------------------------------------

std::vector<SpecField> GptqSpec::fields()
{
    std::vector<SpecField> f;
    for (SpecField &x : IntSpec::fields())
        if (x.key != "block" && x.key != "axis" && x.key != "arith" && x.key != "scale_apply")
            f.push_back(std::move(x));
    f.push_back({"block_size", "int", {}, 1, 1 << 20, "GPTQ: columns per lazy-batch block (llm-compressor 128)"});
    f.push_back({"dampening", "number", {}, 0, 0, "GPTQ: fraction of mean diag(H) added to diag(H)", 0.0, 1e6});
    f.push_back({"actorder", "enum", kActOrders, 0, 0,
                 "GPTQ: column order: none, or by diag(H) descending (static = weight: each column keeps its "
                 "group's scale)"});
    f.push_back({"target", "enum", kTargets, 0, 0,
                 "GPTQ: the codes' format: int (the INT options above), fp8 (E4M3, per tensor or channel), nvfp4 "
                 "(E2M1, E4M3 scales of 16 and an FP32 global scale), mxfp4 (E2M1, E8M0 scales of 32)"});
    return f;
}

void GptqSpec::validate() const
{
    quant.validate();
    if (target != GptqTarget::Int) {
        // What compressed-tensors 0.20 does not do, or the product's FP formats do not hold.
        const std::string t = "gptq target " + toString(target);
        const bool fp8 = target == GptqTarget::Fp8;
        if (!quant.symmetric)
            throw UnsupportedError(t + (fp8 ? " is symmetric: the fp8 format has no zero point"
                                            : " is symmetric: compressed-tensors refuses asymmetric FP4"));
        if (quant.bits != (fp8 ? 8 : 4))
            throw UnsupportedError(t + " has " + (fp8 ? "8" : "4") + "-bit codes, not bits " +
                                   std::to_string(quant.bits));
        if (quant.scaleRule != ScaleRule::Toolkit || quant.rounding != Rounding::HalfEven ||
            quant.scaleDtype != ScaleDType::F32 || quant.eps != EpsPreset::Toolkit)
            throw UnsupportedError(t + " takes its scales and rounding from the format (compressed-tensors'); "
                                       "scale_rule, rounding, scale_dtype and eps are the int target's");
        if (fp8 && quant.granularity == Granularity::Group)
            throw UnsupportedError(t + " quantizes per tensor or per output channel (the fp8 format has no groups)");
        if (!fp8 && quant.granularity != Granularity::Group)
            throw UnsupportedError(t + " quantizes per group along K, not " + toString(quant.granularity));
        if (target == GptqTarget::MxFp4 && quant.group != 32)
            throw UnsupportedError(t +
                                   " has groups of 32 (compressed-tensors makes E8M0 scales only for group 32), "
                                   "not " +
                                   std::to_string(quant.group));
    }
    if (quant.granularity == Granularity::Block || (quant.granularity == Granularity::Channel && quant.axis != 0))
        throw UnsupportedError("gptq quantizes per tensor, per output channel or per group along K, not " +
                               toString(quant.granularity) +
                               (quant.granularity == Granularity::Channel ? " axis 1" : ""));
    if (quant.arith != Arith::Fp32 || quant.scaleApply != ScaleApply::Divide)
        throw UnsupportedError("gptq computes in FP32 with round(x/s) + z (compressed-tensors)");
    if (blockSize < 1 || blockSize > (1 << 20))
        throw UnsupportedError("gptq block_size must be 1..1048576, got " + std::to_string(blockSize));
    if (!(dampening >= 0) || !std::isfinite(dampening))
        throw UnsupportedError("gptq dampening must be a finite fraction ≥ 0");
}

nlohmann::json GptqSpec::toJson() const
{
    nlohmann::json j = quant.toJson();
    j["method"] = "gptq";
    for (const char *k : {"block", "axis", "arith", "scale_apply"})
        j.erase(k);
    j["block_size"] = blockSize;
    j["dampening"] = dampening;
    j["actorder"] = toString(actorder);
    j["target"] = toString(target); // a spec without it (written before the FP targets) reads as int
    return j;
}

GptqSpec GptqSpec::fromJson(const nlohmann::json &j)
{
    specjson::refuseUnknownKeys(j, fields(), "gptq");
    GptqSpec s;
    nlohmann::json inner = j;
    inner["method"] = "int";
    for (const char *k : kGptqKeys)
        inner.erase(k);
    if (j.contains("target"))
        s.target = static_cast<GptqTarget>(specjson::parseChoice(j["target"], "target", kTargets));
    // An FP target's own defaults where the spec leaves the INT fields out.
    if (s.target != GptqTarget::Int && !inner.contains("bits"))
        inner["bits"] = s.target == GptqTarget::Fp8 ? 8 : 4;
    if (s.target == GptqTarget::Fp8 && !inner.contains("granularity"))
        inner["granularity"] = "channel";
    if ((s.target == GptqTarget::NvFp4 || s.target == GptqTarget::MxFp4) && !inner.contains("group"))
        inner["group"] = s.target == GptqTarget::NvFp4 ? 16 : 32;
    s.quant = IntSpec::fromJson(inner);
    if (j.contains("block_size"))
        s.blockSize = specjson::parseInt(j["block_size"], "block_size");
    if (j.contains("dampening"))
        s.dampening = specjson::parseNumber(j["dampening"], "dampening");
    if (j.contains("actorder"))
        s.actorder = static_cast<ActOrder>(specjson::parseChoice(j["actorder"], "actorder", kActOrders));
    s.validate();
    return s;
}

// ---- the Hessian ---------------------------------------------------------------------------

std::vector<double> gptqHessian(const Calibration &c, std::string &source)
{
    const std::int64_t k = c.k;
    std::vector<double> h(static_cast<std::size_t>(k * k), 0.0);
    if (static_cast<std::int64_t>(c.gram.size()) == k * k) {
        for (std::size_t i = 0; i < h.size(); ++i)
            h[i] = 2.0 * c.gram[i];
        source = "gram";
        return h;
    }
    if (c.sampleRows > 0 && static_cast<std::int64_t>(c.sample.size()) == c.sampleRows * k) {
        // Only diag(G) is there: a diagonal H makes GPTQ round to nearest (U is diagonal, no error
        // moves), so the Hessian comes from the capture's row sample, 2·XsᵀXs / R.
        const Eigen::Map<const RowMatF> x(c.sample.data(), c.sampleRows, k);
        const RowMatD xd = x.cast<double>();
        Eigen::Map<RowMatD> hm(h.data(), k, k);
        hm.noalias() = (2.0 / static_cast<double>(c.sampleRows)) * (xd.transpose() * xd);
        source = "sample";
        return h;
    }
    throw UnsupportedError("the capture " + c.source + " holds only the diagonal of " + c.module +
                           "'s input Gram and no row sample: GPTQ needs XᵀX (capture again with a larger "
                           "gram bound, or with a row sample)");
}

// ---- the solver ----------------------------------------------------------------------------

GptqOrder gptqOrder(const std::vector<double> &h, std::int64_t K, const GptqSpec &spec)
{
    GptqOrder o;
    // 2. activation order: diag(H) descending (as FP32, llm-compressor's), ties in column order.
    o.perm.resize(static_cast<std::size_t>(K));
    std::iota(o.perm.begin(), o.perm.end(), 0);
    if (spec.actorder != ActOrder::None)
        std::stable_sort(o.perm.begin(), o.perm.end(), [&](std::int64_t a, std::int64_t b) {
            return static_cast<float>(h[a * K + a]) > static_cast<float>(h[b * K + b]);
        });
    // 3. dead columns; 4. the dampening: a fraction of the mean diagonal (after the dead columns' 1).
    o.dead.assign(static_cast<std::size_t>(K), 0);
    double sum = 0;
    for (std::int64_t i = 0; i < K; ++i) {
        double d = h[o.perm[i] * K + o.perm[i]];
        if (d == 0.0) {
            d = 1.0;
            o.dead[i] = 1;
            ++o.deadColumns;
        }
        sum += d;
    }
    o.damp = spec.dampening * (sum / static_cast<double>(K));
    return o;
}

std::vector<float> gptqFactor(const std::vector<double> &hIn, std::int64_t K, const GptqOrder &o, int threads,
                              bool &fallback)
{
    // The reversed, permuted, dampened H: R(i, j) = H'(K−1−i, K−1−j).
    RowMatD R(K, K);
    for (std::int64_t i = 0; i < K; ++i) {
        const std::int64_t a = K - 1 - i;
        for (std::int64_t j = 0; j < K; ++j) {
            const std::int64_t b = K - 1 - j;
            double v = hIn[o.perm[a] * K + o.perm[b]];
            if (a == b)
                v = (o.dead[a] ? 1.0 : v) + o.damp;
            R(i, j) = v;
        }
    }
    // U without forming H⁻¹: with J the order reversal and JHJ = L'L'ᵀ (Cholesky),
    // H⁻¹ = (J L'⁻¹ J)ᵀ (J L'⁻¹ J) and J L'⁻¹ J is upper triangular with a positive diagonal, so it is
    // H⁻¹'s upper Cholesky factor: one factorisation and one triangular inverse (⅔K³ flops instead of
    // llm-compressor's cholesky, cholesky_inverse, cholesky: the same U up to rounding).
    std::vector<float> u(static_cast<std::size_t>(K * K), 0.0f);
    Eigen::LLT<RowMatD> llt(R);
    fallback = llt.info() != Eigen::Success;
    if (fallback) {
        for (std::int64_t i = 0; i < K; ++i)
            u[i * K + i] = 1.0f;
        return u;
    }
    using ColMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
    const ColMatD L = llt.matrixL();
    // L'⁻¹ (lower) by column blocks: block [j0, j1) solves L'[j0:, j0:]·X = I[j0:, j0:j1], the zeros
    // above the diagonal never touched (K³/3 flops); blocks split over threads. U(i, j) = L'⁻¹(K−1−i, K−1−j).
    constexpr std::int64_t kCols = 128;
    parallelForEach((K + kCols - 1) / kCols, resolveThreads(threads), [&](std::int64_t b) {
        const std::int64_t j0 = b * kCols, w = std::min(kCols, K - j0);
        ColMatD x = ColMatD::Zero(K - j0, w);
        x.topRows(w).setIdentity();
        L.bottomRightCorner(K - j0, K - j0).triangularView<Eigen::Lower>().solveInPlace(x);
        for (std::int64_t c = 0; c < w; ++c)
            for (std::int64_t r = c; r < K - j0; ++r)
                u[(K - 1 - (j0 + r)) * K + (K - 1 - (j0 + c))] = static_cast<float>(x(r, c));
    });
    return u;
}

namespace {

/// W[:, i2:] of n rows (row stride K) ← for k in [0, bw): fma(−E(r, k), U(i1 + k, j), W(r, j)):
/// one chain per element, k in order; columns in chunks that stay in L1 with their U rows in L2.
void lazyUpdate(float *W, std::int64_t n, std::int64_t K, const float *E, std::int64_t eStride, const float *U,
                std::int64_t i1, std::int64_t bw, std::int64_t i2)
{
    constexpr std::int64_t kChunk = 512, kRows = 4;
    for (std::int64_t j0 = i2; j0 < K; j0 += kChunk) {
        const std::int64_t jn = std::min(kChunk, K - j0);
        for (std::int64_t r0 = 0; r0 < n; r0 += kRows) {
            const std::int64_t rn = std::min(kRows, n - r0);
            for (std::int64_t k = 0; k < bw; ++k) {
                const float *u = U + (i1 + k) * K + j0;
                for (std::int64_t m = 0; m < rn; ++m) {
                    const float e = -E[(r0 + m) * eStride + k];
                    float *w = W + (r0 + m) * K + j0;
                    for (std::int64_t j = 0; j < jn; ++j)
                        w[j] = std::fma(e, u[j], w[j]);
                }
            }
        }
    }
}

/// Step 5's q and ŵ of one element of group g: the target's cast at the observer's scale.
struct GptqElement {
    GptqTarget target = GptqTarget::Int;
    IntParams p{};
    const float *scales = nullptr;      ///< per group: the INT scale, or the FP targets' effective scale
    const std::int8_t *zeros = nullptr; ///< INT asymmetric only
    std::vector<float> eff;             ///< nvfp4: b / global per group

    std::uint8_t code(float x, std::int64_t g, float &xh) const
    {
        const float s = scales[g];
        switch (target) {
        case GptqTarget::Int: {
            const int z = zeros ? zeros[g] : 0;
            const int c = intCode(p, x, s, z);
            xh = intDequant(p, c, s, z);
            return static_cast<std::uint8_t>(static_cast<std::int8_t>(c));
        }
        case GptqTarget::Fp8: { // compressed-tensors: clamp(x / s, ±448), RNE to E4M3, · s
            const std::uint8_t c = floatToE4m3(x / s);
            xh = e4m3ToFloat(c) * s;
            return c;
        }
        default: { // nvfp4 (s = b / global), mxfp4 (s = 2^(byte − 127)): clamp(x / s, ±6), RNE to E2M1, · s
            const std::uint8_t c = fp4::e2m1Code(x / s);
            xh = fp4::fp4Dequant(c, s);
            return c;
        }
        }
    }
};

GptqElement gptqElement(const GptqSpec &spec, const QuantizedTensor &q)
{
    GptqElement e;
    e.target = spec.target;
    e.scales = q.scales.data();
    if (spec.target == GptqTarget::Int) {
        e.p = intParams(spec.quant, DType::F32);
        if (!spec.quant.symmetric)
            e.zeros = q.zeros.data();
    } else if (spec.target == GptqTarget::NvFp4) {
        // llm-compressor's column_scale_window: eff = scale / global_scale (FP32), once per group.
        e.eff.resize(q.scales.size());
        for (std::size_t g = 0; g < q.scales.size(); ++g)
            e.eff[g] = fp4::nvEffective(q.scales[g], q.outerScales.at(0));
        e.scales = e.eff.data();
    }
    return e;
}

} // namespace

GptqInfo gptqColumns(const std::vector<float> &w, std::int64_t rows, std::int64_t cols, const GptqOrder &o,
                     const std::vector<float> &u, const GptqSpec &spec, QuantizedTensor &q, bool wantDequantized,
                     int threads, const CancelToken *cancel)
{
    GptqInfo info;
    info.deadColumns = o.deadColumns;
    const std::int64_t K = cols, N = rows;
    const GptqElement elem = gptqElement(spec, q);
    const GroupLayout &L = q.layout;
    const std::vector<std::int64_t> &perm = o.perm;
    auto groupOf = [&](std::int64_t r, std::int64_t j) { return L.groupOf(r, perm[j]); };
    q.codes.assign(static_cast<std::size_t>(N * K), 0);
    if (wantDequantized)
        q.dequantized.assign(static_cast<std::size_t>(N * K), 0.0f);
    const std::int64_t B = spec.blockSize;
    const std::int64_t tiles = (N + kRowTile - 1) / kRowTile;
    std::vector<double> losses(static_cast<std::size_t>(tiles), 0.0);
    const float *U = u.data();

    parallelForEach(tiles, resolveThreads(threads), [&](std::int64_t t) {
        if (cancel)
            cancel->check();
        const std::int64_t r0 = t * kRowTile, r1 = std::min(N, r0 + kRowTile), n = r1 - r0;
        std::vector<float> W(static_cast<std::size_t>(n * K));
        for (std::int64_t r = 0; r < n; ++r)
            for (std::int64_t j = 0; j < K; ++j)
                W[r * K + j] = o.dead[j] ? 0.0f : w[(r0 + r) * K + perm[j]];
        const std::int64_t eStride = std::min(B, K);
        std::vector<float> Err(static_cast<std::size_t>(n * eStride));
        std::vector<std::uint8_t> codes(static_cast<std::size_t>(n * K));
        double loss = 0;
        for (std::int64_t i1 = 0; i1 < K; i1 += B) {
            const std::int64_t i2 = std::min(K, i1 + B), bw = i2 - i1;
            for (std::int64_t i = i1; i < i2; ++i) {
                const float d = U[i * K + i];
                for (std::int64_t r = 0; r < n; ++r) {
                    const std::int64_t g = groupOf(r0 + r, i);
                    float *wr = &W[r * K];
                    const float x = wr[i];
                    float xh = 0;
                    codes[r * K + i] = elem.code(x, g, xh);
                    wr[i] = xh;
                    const float e = (x - xh) / d;
                    Err[r * eStride + (i - i1)] = e;
                    loss += 0.5 * static_cast<double>(e) * e;
                    const float *ui = U + i * K;
                    for (std::int64_t j = i + 1; j < i2; ++j)
                        wr[j] -= e * ui[j];
                }
            }
            if (i2 < K)
                lazyUpdate(W.data(), n, K, Err.data(), eStride, U, i1, bw, i2);
        }
        for (std::int64_t r = 0; r < n; ++r)
            for (std::int64_t j = 0; j < K; ++j) {
                const std::int64_t c = perm[j];
                q.codes[(r0 + r) * K + c] = codes[r * K + j];
                if (wantDequantized)
                    q.dequantized[(r0 + r) * K + c] = W[r * K + j];
            }
        losses[t] = loss;
    });
    for (double l : losses)
        info.loss += l;
    return info;
}

GptqInfo gptqSolve(const std::vector<float> &w, std::int64_t rows, std::int64_t cols, const std::vector<double> &hIn,
                   const GptqSpec &spec, QuantizedTensor &q, bool wantDequantized, int threads,
                   const CancelToken *cancel)
{
    const GptqOrder order = gptqOrder(hIn, cols, spec);
    bool fallback = false;
    const std::vector<float> u = gptqFactor(hIn, cols, order, threads, fallback);
    if (cancel)
        cancel->check();
    GptqInfo info = gptqColumns(w, rows, cols, order, u, spec, q, wantDequantized, threads, cancel);
    info.fallback = fallback;
    return info;
}

// ---- the quantizer -------------------------------------------------------------------------

GptqQuantizer::GptqQuantizer(GptqSpec spec) : m_spec(std::move(spec))
{
    m_spec.validate();
}

QuantizedTensor GptqQuantizer::quantize(const Tensor &w, const QuantizeOptions &options,
                                        const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    if (!options.calibration)
        throw UnsupportedError(needsCaptureMessage("gptq", options.tensorName));
    const Calibration &cal = *options.calibration;
    const auto [rows, cols] = matrixView(w.shape());
    if (w.shape().size() != 2 || cols != cal.k)
        throw UnsupportedError("gptq: " + options.tensorName + " has " + std::to_string(cols) +
                               " input features, the capture's " + cal.module + " " + std::to_string(cal.k));
    std::string source;
    const std::vector<double> h = gptqHessian(cal, source);

    // The observer: the target method's scales (zero points, global scale) of the original weight.
    QuantizeOptions rtnOptions = options;
    rtnOptions.wantDequantized = false;
    rtnOptions.wantCodes = true;
    rtnOptions.calibration.reset();
    QuantizedTensor q = gptqTargetQuantizer(m_spec)->quantize(w, rtnOptions, cancel);
    if (q.nonFiniteGroups > 0)
        throw UnsupportedError("gptq: " + options.tensorName + " holds NaN/Inf (first at element " +
                               std::to_string(q.firstNonFinite) + "); GPTQ needs finite weights");
    q.method = "gptq";
    q.spec = m_spec.toJson();

    std::vector<float> wf(static_cast<std::size_t>(w.numel()));
    w.decodeRange(0, wf);
    const GptqInfo info = gptqSolve(wf, rows, cols, h, m_spec, q, options.wantDequantized, options.threads, cancel);
    q.report["hessian"] = source;
    q.report["capture"] = cal.source;
    q.report["dead_columns"] = info.deadColumns;
    q.report["rtn_fallback"] = info.fallback;
    q.report["loss"] = info.loss;
    return q;
}

void GptqQuantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    gptqTargetQuantizer(m_spec)->dequantize(q, out);
}

std::unique_ptr<Quantizer> gptqTargetQuantizer(const GptqSpec &spec)
{
    return makeQuantizer(gptqTargetSpec(spec));
}

} // namespace quantscope
