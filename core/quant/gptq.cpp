// SPDX-License-Identifier: MIT
#include "quant/data_aware.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

#include "quant/spec_json.h"
#include "quant/uniform.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

const std::vector<std::string> kActOrders{"none", "static", "weight"};
const char *const kGptqKeys[] = {"block_size", "dampening", "actorder"};

using RowMatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr std::int64_t kRowTile = 64; // rows per task: fixed, so the bits do not depend on the threads

} // namespace

std::string toString(ActOrder v)
{
    return kActOrders[static_cast<std::size_t>(v)];
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
    return f;
}

void GptqSpec::validate() const
{
    quant.validate();
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

GptqInfo gptqSolve(const std::vector<float> &w, std::int64_t rows, std::int64_t cols, const std::vector<double> &hIn,
                   const GptqSpec &spec, QuantizedTensor &q, bool wantDequantized, int threads,
                   const CancelToken *cancel)
{
    GptqInfo info;
    const std::int64_t K = cols, N = rows;
    const IntParams p = intParams(spec.quant, DType::F32);
    const GroupLayout &L = q.layout;

    // 2. activation order: diag(H) descending, ties in column order.
    std::vector<std::int64_t> perm(static_cast<std::size_t>(K));
    std::iota(perm.begin(), perm.end(), 0);
    if (spec.actorder != ActOrder::None)
        std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t a, std::int64_t b) {
            return static_cast<float>(hIn[a * K + a]) > static_cast<float>(hIn[b * K + b]);
        });
    RowMatD H(K, K);
    for (std::int64_t i = 0; i < K; ++i)
        for (std::int64_t j = 0; j < K; ++j)
            H(i, j) = hIn[perm[i] * K + perm[j]];

    // 3. dead columns; 4. dampening, H⁻¹ and its upper Cholesky factor.
    std::vector<std::uint8_t> dead(static_cast<std::size_t>(K), 0);
    for (std::int64_t i = 0; i < K; ++i)
        if (H(i, i) == 0.0) {
            H(i, i) = 1.0;
            dead[i] = 1;
            ++info.deadColumns;
        }
    const double damp = spec.dampening * H.diagonal().mean();
    H.diagonal().array() += damp;
    // U without forming H⁻¹: with J the order reversal and JHJ = L'L'ᵀ (Cholesky),
    // H⁻¹ = (J L'⁻¹ J)ᵀ (J L'⁻¹ J) and J L'⁻¹ J is upper triangular with a positive diagonal, so it is
    // H⁻¹'s upper Cholesky factor: one factorisation and one triangular inverse (⅔K³ flops instead of
    // llm-compressor's cholesky, cholesky_inverse, cholesky: the same U up to rounding).
    RowMatF U(K, K);
    const RowMatD reversed = H.reverse();
    Eigen::LLT<RowMatD> llt(reversed);
    if (llt.info() != Eigen::Success) {
        U.setIdentity();
        info.fallback = true;
    } else {
        using ColMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
        const ColMatD L = llt.matrixL();
        // L'⁻¹ (lower) by column blocks: block [j0, j1) solves L'[j0:, j0:]·X = I[j0:, j0:j1], the
        // zeros above the diagonal never touched (K³/3 flops); blocks split over threads.
        constexpr std::int64_t kCols = 128;
        ColMatD Linv = ColMatD::Zero(K, K);
        parallelForEach((K + kCols - 1) / kCols, resolveThreads(threads), [&](std::int64_t b) {
            const std::int64_t j0 = b * kCols, w = std::min(kCols, K - j0);
            ColMatD x = ColMatD::Zero(K - j0, w);
            x.topRows(w).setIdentity();
            L.bottomRightCorner(K - j0, K - j0).triangularView<Eigen::Lower>().solveInPlace(x);
            Linv.block(j0, j0, K - j0, w) = x;
        });
        U = Linv.reverse().cast<float>();
    }
    if (cancel)
        cancel->check();

    // Per element of the permuted order: its group (the column's own, at every act order).
    const std::int64_t gridCols = L.gridCols;
    auto groupOf = [&](std::int64_t r, std::int64_t j) { return L.groupOf(r, perm[j]); };
    (void)gridCols;
    const bool asym = !spec.quant.symmetric;
    q.codes.assign(static_cast<std::size_t>(N * K), 0);
    if (wantDequantized)
        q.dequantized.assign(static_cast<std::size_t>(N * K), 0.0f);
    const std::int64_t B = spec.blockSize;
    const std::int64_t tiles = (N + kRowTile - 1) / kRowTile;
    std::vector<double> losses(static_cast<std::size_t>(tiles), 0.0);

    parallelForEach(tiles, resolveThreads(threads), [&](std::int64_t t) {
        if (cancel)
            cancel->check();
        const std::int64_t r0 = t * kRowTile, r1 = std::min(N, r0 + kRowTile), n = r1 - r0;
        RowMatF W(n, K);
        for (std::int64_t r = 0; r < n; ++r)
            for (std::int64_t j = 0; j < K; ++j)
                W(r, j) = dead[j] ? 0.0f : w[(r0 + r) * K + perm[j]];
        RowMatF Err(n, std::min(B, K));
        std::vector<std::int8_t> codes(static_cast<std::size_t>(n * K));
        double loss = 0;
        for (std::int64_t i1 = 0; i1 < K; i1 += B) {
            const std::int64_t i2 = std::min(K, i1 + B), bw = i2 - i1;
            for (std::int64_t i = i1; i < i2; ++i) {
                const float d = U(i, i);
                for (std::int64_t r = 0; r < n; ++r) {
                    const std::int64_t g = groupOf(r0 + r, i);
                    const float s = q.scales[static_cast<std::size_t>(g)];
                    const int z = asym ? q.zeros[static_cast<std::size_t>(g)] : 0;
                    const float x = W(r, i);
                    const int c = intCode(p, x, s, z);
                    const float xh = intDequant(p, c, s, z);
                    codes[r * K + i] = static_cast<std::int8_t>(c);
                    W(r, i) = xh;
                    const float e = (x - xh) / d;
                    Err(r, i - i1) = e;
                    loss += 0.5 * static_cast<double>(e) * e;
                    for (std::int64_t j = i + 1; j < i2; ++j)
                        W(r, j) -= e * U(i, j);
                }
            }
            if (i2 < K)
                W.rightCols(K - i2).noalias() -= Err.leftCols(bw) * U.block(i1, i2, bw, K - i2);
        }
        for (std::int64_t r = 0; r < n; ++r)
            for (std::int64_t j = 0; j < K; ++j) {
                const std::int64_t c = perm[j];
                q.codes[(r0 + r) * K + c] = static_cast<std::uint8_t>(codes[r * K + j]);
                if (wantDequantized)
                    q.dequantized[(r0 + r) * K + c] = W(r, j);
            }
        losses[t] = loss;
    });
    for (double l : losses)
        info.loss += l;
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

    // The observer: the `int` method's scales and zero points of the original weight.
    QuantizeOptions rtnOptions = options;
    rtnOptions.wantDequantized = false;
    rtnOptions.wantCodes = true;
    rtnOptions.calibration.reset();
    QuantizedTensor q = IntQuantizer(m_spec.quant).quantize(w, rtnOptions, cancel);
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
    IntQuantizer(m_spec.quant).dequantize(q, out);
}

} // namespace quantscope
