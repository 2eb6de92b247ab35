// SPDX-License-Identifier: MIT
// AWQ's per-channel scale search (quant/data_aware.h; docs/numerics.md "AWQ").
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

#include "quant/data_aware.h"
#include "quant/spec_json.h"
#include "quant/uniform.h"
#include "util/error.h"

namespace quantscope {

namespace {

const std::vector<std::string> kDuo{"on", "off", "both"};
const char *const kAwqKeys[] = {"n_grid", "duo_scaling"};
const char *const kIntOnly[] = {"block", "axis", "arith", "scale_apply"};

using RowMatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Round to nearest of `w` (rows × cols) in the spec's INT format: the int method on it.
QuantizedTensor roundToNearest(const std::vector<float> &w, std::int64_t rows, std::int64_t cols, const IntSpec &spec,
                               const QuantizeOptions &options, const CancelToken *cancel)
{
    const Tensor t = Tensor::fromFloats({rows, cols}, w);
    return IntQuantizer(spec).quantize(t, options, cancel);
}

} // namespace

// ---- spec ----------------------------------------------------------------------------------

std::vector<SpecField> AwqSpec::fields()
{
    std::vector<SpecField> f;
    for (SpecField &x : IntSpec::fields())
        if (std::find(std::begin(kIntOnly), std::end(kIntOnly), x.key) == std::end(kIntOnly))
            f.push_back(std::move(x));
    f.push_back({"n_grid", "int", {}, 2, 1000, "AWQ: grid points of the scale search (llm-compressor 20)"});
    f.push_back({"duo_scaling", "enum", kDuo, 0, 0,
                 "AWQ: scales from activations and weights (on), activations only (off), or half the grid each"});
    return f;
}

void AwqSpec::validate() const
{
    quant.validate();
    if (quant.granularity == Granularity::Block || (quant.granularity == Granularity::Channel && quant.axis != 0))
        throw UnsupportedError("awq quantizes per tensor, per output channel or per group along K");
    if (quant.arith != Arith::Fp32 || quant.scaleApply != ScaleApply::Divide)
        throw UnsupportedError("awq computes in FP32 with round(x/s) + z (compressed-tensors)");
    if (grid < 2 || grid > 1000 || (duo == Duo::On && grid < 3) || (duo == Duo::Both && grid < 4))
        throw UnsupportedError("awq n_grid must be 2..1000 (3 or more with duo_scaling on, 4 with both), got " +
                               std::to_string(grid));
}

nlohmann::json AwqSpec::toJson() const
{
    nlohmann::json j = quant.toJson();
    j["method"] = "awq";
    for (const char *k : kIntOnly)
        j.erase(k);
    j["n_grid"] = grid;
    j["duo_scaling"] = kDuo[static_cast<std::size_t>(duo)];
    return j;
}

AwqSpec AwqSpec::fromJson(const nlohmann::json &j)
{
    specjson::refuseUnknownKeys(j, fields(), "awq");
    AwqSpec s;
    nlohmann::json inner = j;
    inner["method"] = "int";
    for (const char *k : kAwqKeys)
        inner.erase(k);
    s.quant = IntSpec::fromJson(inner);
    if (j.contains("n_grid"))
        s.grid = specjson::parseInt32(j["n_grid"], "n_grid");
    if (j.contains("duo_scaling"))
        s.duo = static_cast<Duo>(specjson::parseChoice(j["duo_scaling"], "duo_scaling", kDuo));
    s.validate();
    return s;
}

// ---- the search ----------------------------------------------------------------------------

AwqSearch awqSearch(const std::vector<float> &w, std::int64_t rows, std::int64_t cols, const std::vector<float> &x,
                    std::int64_t sampleRows, const AwqSpec &spec, int threads, const CancelToken *cancel)
{
    const std::int64_t N = rows, K = cols, R = sampleRows;
    // x̄: mean |x| per channel over the sample (FP32, as the hook's float sums / count).
    std::vector<float> xMean(static_cast<std::size_t>(K));
    for (std::int64_t j = 0; j < K; ++j) {
        double sum = 0;
        for (std::int64_t r = 0; r < R; ++r)
            sum += std::fabs(static_cast<double>(x[r * K + j]));
        xMean[j] = static_cast<float>(static_cast<float>(sum) / static_cast<float>(R));
    }
    // w̄: |w| / (its group's max |w| + 1e-6) in FP32, averaged over the rows in FP64.
    std::vector<double> wMean(static_cast<std::size_t>(K), 0.0);
    const GroupLayout L = makeLayout({N, K}, spec.quant.granularity, spec.quant.group, spec.quant.block, 0, false, "");
    const std::int64_t chunk = spec.quant.granularity == Granularity::Group     ? spec.quant.group
                               : spec.quant.granularity == Granularity::Channel ? K
                                                                                : N * K;
    float tensorMax = 0;
    if (L.granularity == Granularity::Tensor)
        for (float v : w)
            tensorMax = std::max(tensorMax, std::fabs(v));
    for (std::int64_t r = 0; r < N; ++r)
        for (std::int64_t c0 = 0; c0 < K; c0 += std::min(chunk, K)) {
            const std::int64_t c1 = std::min(K, c0 + std::min(chunk, K));
            float m = tensorMax;
            if (L.granularity != Granularity::Tensor) {
                m = 0;
                for (std::int64_t c = c0; c < c1; ++c)
                    m = std::max(m, std::fabs(w[r * K + c]));
            }
            const float den = m + 1e-6f;
            for (std::int64_t c = c0; c < c1; ++c)
                wMean[c] += static_cast<double>(std::fabs(w[r * K + c]) / den);
        }
    for (auto &v : wMean)
        v /= static_cast<double>(N);

    // The grid, as _get_grid_search_params.
    AwqSearch out;
    const int n = spec.grid;
    if (spec.duo == AwqSpec::Duo::On) {
        out.points.push_back({0.0, false, 0});
        for (int i = 0; i < n - 1; ++i)
            out.points.push_back({static_cast<double>(i) / (n - 2), true, 0});
    } else if (spec.duo == AwqSpec::Duo::Off) {
        for (int i = 0; i < n; ++i)
            out.points.push_back({static_cast<double>(i) / (n - 1), false, 0});
    } else {
        const int h = n / 2;
        for (int i = 0; i < h; ++i)
            for (bool duo : {false, true})
                out.points.push_back({static_cast<double>(i) / (h - 1), duo, 0});
    }

    const Eigen::Map<const RowMatF> X(x.data(), R, K);
    const Eigen::Map<const RowMatF> W(w.data(), N, K);
    const RowMatD Xd = X.cast<double>();
    const RowMatD Y = Xd * W.cast<double>().transpose();
    QuantizeOptions qo;
    qo.threads = threads;
    qo.wantDequantized = true;
    double best = std::numeric_limits<double>::infinity();
    std::vector<double> s(static_cast<std::size_t>(K));
    std::vector<float> ws(static_cast<std::size_t>(N * K));
    for (auto &pt : out.points) {
        if (cancel)
            cancel->check();
        const double ratio = pt.ratio;
        for (std::int64_t j = 0; j < K; ++j) {
            // FP32 tensor ** Python float: torch's result is pow correctly rounded to FP32
            const auto xp = static_cast<float>(
                std::pow(static_cast<double>(xMean[j]), static_cast<double>(static_cast<float>(ratio))));
            double v;
            if (pt.duo)
                v = static_cast<double>(xp) / (std::pow(wMean[j], 1.0 - ratio) + 1e-4); // FP32 / FP64 → FP64
            else
                v = xp;
            v = std::max(v, 1e-4);
            s[j] = pt.duo ? v : static_cast<double>(static_cast<float>(v));
        }
        const double mx = *std::max_element(s.begin(), s.end()), mn = *std::min_element(s.begin(), s.end());
        const double norm = pt.duo ? std::sqrt(mx * mn) : static_cast<double>(std::sqrt(static_cast<float>(mx * mn)));
        for (auto &v : s) {
            v = pt.duo ? v / norm : static_cast<double>(static_cast<float>(v) / static_cast<float>(norm));
            if (!std::isfinite(v))
                v = 1;
        }
        for (std::int64_t r = 0; r < N; ++r)
            for (std::int64_t j = 0; j < K; ++j)
                ws[r * K + j] = static_cast<float>(static_cast<double>(w[r * K + j]) * s[j]);
        const QuantizedTensor q = roundToNearest(ws, N, K, spec.quant, qo, cancel);
        RowMatD wh(N, K);
        for (std::int64_t r = 0; r < N; ++r)
            for (std::int64_t j = 0; j < K; ++j)
                wh(r, j) = static_cast<float>(static_cast<double>(q.dequantized[r * K + j]) / s[j]);
        const RowMatD d = Y - Xd * wh.transpose();
        pt.loss = d.squaredNorm() / static_cast<double>(R * N);
        if (pt.loss < best) {
            best = pt.loss;
            out.best = static_cast<int>(&pt - out.points.data());
            out.scales.assign(s.begin(), s.end());
        }
    }
    if (out.best < 0)
        throw UnsupportedError("awq: no grid point gave a finite loss (NaN/Inf in the weight or the sample)");
    return out;
}

// ---- the quantizer -------------------------------------------------------------------------

AwqQuantizer::AwqQuantizer(AwqSpec spec) : m_spec(std::move(spec))
{
    m_spec.validate();
}

QuantizedTensor AwqQuantizer::quantize(const Tensor &w, const QuantizeOptions &options, const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    if (!options.calibration)
        throw UnsupportedError(needsCaptureMessage("awq", options.tensorName));
    const Calibration &cal = *options.calibration;
    const auto [rows, cols] = matrixView(w.shape());
    if (w.shape().size() != 2 || cols != cal.k)
        throw UnsupportedError("awq: " + options.tensorName + " has " + std::to_string(cols) +
                               " input features, the capture's " + cal.module + " " + std::to_string(cal.k));
    if (cal.sampleRows <= 0 || static_cast<std::int64_t>(cal.sample.size()) != cal.sampleRows * cal.k)
        throw UnsupportedError("awq: the capture " + cal.source + " holds no sample of " + cal.module +
                               "'s input rows, which AWQ's loss is measured on (capture again with rows > 0)");
    std::vector<float> wf(static_cast<std::size_t>(w.numel()));
    w.decodeRange(0, wf);
    for (std::size_t i = 0; i < wf.size(); ++i)
        if (!std::isfinite(wf[i]))
            throw UnsupportedError("awq: " + options.tensorName + " holds NaN/Inf (first at element " +
                                   std::to_string(i) + "); AWQ needs finite weights");
    const AwqSearch search = awqSearch(wf, rows, cols, cal.sample, cal.sampleRows, m_spec, options.threads, cancel);

    // The stored weight: W·diag(s*) rounded to FP32, quantized by the int method.
    std::vector<float> ws(wf.size());
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < cols; ++j)
            ws[r * cols + j] = static_cast<float>(static_cast<double>(wf[r * cols + j]) * search.scales[j]);
    QuantizeOptions qo = options;
    qo.calibration.reset();
    qo.wantDequantized = false;
    qo.wantCodes = true;
    QuantizedTensor q = IntQuantizer(m_spec.quant).quantize(Tensor::fromFloats({rows, cols}, ws), qo, cancel);
    q.method = "awq";
    q.spec = m_spec.toJson();
    q.tensorName = options.tensorName;
    q.shape = w.shape();
    q.sourceDtype = w.dtype();
    q.outerLayout = makeLayout({rows, cols}, Granularity::Channel, 0, 0, 1, false, options.tensorName);
    q.outerScales.assign(search.scales.begin(), search.scales.end());
    q.outerScaleDtype = DType::F32;
    if (options.wantDequantized) {
        q.dequantized.resize(wf.size());
        dequantize(q, q.dequantized);
    }
    nlohmann::json grid = nlohmann::json::array();
    for (const auto &p : search.points)
        grid.push_back({{"ratio", p.ratio}, {"duo", p.duo}, {"loss", p.loss}});
    q.report["grid"] = grid;
    q.report["best"] = search.best;
    q.report["best_ratio"] = search.points[static_cast<std::size_t>(search.best)].ratio;
    q.report["capture"] = cal.source;
    q.report["sample_rows"] = cal.sampleRows;
    return q;
}

void AwqQuantizer::dequantize(const QuantizedTensor &q, std::span<float> out) const
{
    IntQuantizer(m_spec.quant).dequantize(q, out);
    const std::int64_t cols = q.layout.cols;
    if (q.outerScales.size() != static_cast<std::size_t>(cols))
        throw UnsupportedError("awq: " + q.tensorName + " lacks its smoothing scales (one per input column)");
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<float>(static_cast<double>(out[i]) / q.outerScales[i % static_cast<std::size_t>(cols)]);
}

} // namespace quantscope
