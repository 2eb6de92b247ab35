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

std::vector<AwqPoint> awqGrid(const AwqSpec &spec)
{
    // As _get_grid_search_params.
    std::vector<AwqPoint> points;
    const int n = spec.grid;
    if (spec.duo == AwqSpec::Duo::On) {
        points.push_back({0.0, false, 0});
        for (int i = 0; i < n - 1; ++i)
            points.push_back({static_cast<double>(i) / (n - 2), true, 0});
    } else if (spec.duo == AwqSpec::Duo::Off) {
        for (int i = 0; i < n; ++i)
            points.push_back({static_cast<double>(i) / (n - 1), false, 0});
    } else {
        const int h = n / 2;
        for (int i = 0; i < h; ++i)
            for (bool duo : {false, true})
                points.push_back({static_cast<double>(i) / (h - 1), duo, 0});
    }
    return points;
}

std::vector<float> awqActivationMeans(const std::vector<float> &x, std::int64_t sampleRows, std::int64_t cols)
{
    // x̄: mean |x| per channel over the sample (FP32, as the hook's float sums / count); the sum in
    // FP64 in row order (the GPU's kernel adds in the same order).
    const std::int64_t K = cols, R = sampleRows;
    std::vector<double> sum(static_cast<std::size_t>(K), 0.0);
    for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t j = 0; j < K; ++j)
            sum[j] += std::fabs(static_cast<double>(x[r * K + j]));
    std::vector<float> xMean(static_cast<std::size_t>(K));
    for (std::int64_t j = 0; j < K; ++j)
        xMean[j] = static_cast<float>(static_cast<float>(sum[j]) / static_cast<float>(R));
    return xMean;
}

std::int64_t awqChunk(const IntSpec &quant, std::int64_t rows, std::int64_t cols)
{
    const std::int64_t chunk = quant.granularity == Granularity::Group     ? quant.group
                               : quant.granularity == Granularity::Channel ? cols
                                                                           : rows * cols;
    return std::min(chunk, cols);
}

std::vector<double> awqWeightMeans(const std::vector<float> &w, std::int64_t rows, std::int64_t cols,
                                   const IntSpec &quant)
{
    // w̄: |w| / (its chunk's max |w| + 1e-6) in FP32, summed in FP64 over segments of
    // kAwqSegmentRows rows (each in row order, from 0), the segments' sums added in order, then
    // divided by the row count (the GPU sums the segments in parallel: the same bits).
    const std::int64_t N = rows, K = cols, chunk = awqChunk(quant, rows, cols);
    std::vector<double> wMean(static_cast<std::size_t>(K), 0.0), part(static_cast<std::size_t>(K), 0.0);
    const bool tensor = quant.granularity == Granularity::Tensor;
    float tensorMax = 0;
    if (tensor)
        for (float v : w)
            tensorMax = std::max(tensorMax, std::fabs(v));
    for (std::int64_t r = 0; r < N; ++r) {
        for (std::int64_t c0 = 0; c0 < K; c0 += chunk) {
            const std::int64_t c1 = std::min(K, c0 + chunk);
            float m = tensorMax;
            if (!tensor) {
                m = 0;
                for (std::int64_t c = c0; c < c1; ++c)
                    m = std::max(m, std::fabs(w[r * K + c]));
            }
            const float den = m + 1e-6f;
            for (std::int64_t c = c0; c < c1; ++c)
                part[c] += static_cast<double>(std::fabs(w[r * K + c]) / den);
        }
        if ((r + 1) % kAwqSegmentRows == 0 || r + 1 == N)
            for (std::int64_t c = 0; c < K; ++c) {
                wMean[c] += part[c];
                part[c] = 0.0;
            }
    }
    for (auto &v : wMean)
        v /= static_cast<double>(N);
    return wMean;
}

void awqPointScales(const std::vector<float> &xMean, const std::vector<double> &wMean, const AwqPoint &pt,
                    std::vector<double> &s)
{
    const std::size_t K = xMean.size();
    s.resize(K);
    const double ratio = pt.ratio;
    for (std::size_t j = 0; j < K; ++j) {
        // FP32 tensor ** Python float: torch's result is pow correctly rounded to FP32
        const auto xp =
            static_cast<float>(std::pow(static_cast<double>(xMean[j]), static_cast<double>(static_cast<float>(ratio))));
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
}

AwqSearch awqSearch(const std::vector<float> &w, std::int64_t rows, std::int64_t cols, const std::vector<float> &x,
                    std::int64_t sampleRows, const AwqSpec &spec, int threads, const CancelToken *cancel)
{
    const std::int64_t N = rows, K = cols, R = sampleRows;
    const std::vector<float> xMean = awqActivationMeans(x, R, K);
    const std::vector<double> wMean = awqWeightMeans(w, N, K, spec.quant);
    AwqSearch out;
    out.points = awqGrid(spec);

    const Eigen::Map<const RowMatF> X(x.data(), R, K);
    const RowMatD Xd = X.cast<double>();
    QuantizeOptions qo;
    qo.threads = threads;
    qo.wantDequantized = true;
    double best = std::numeric_limits<double>::infinity();
    std::vector<double> s(static_cast<std::size_t>(K));
    std::vector<float> ws(static_cast<std::size_t>(N * K));
    RowMatD d(N, K);
    for (auto &pt : out.points) {
        if (cancel)
            cancel->check();
        awqPointScales(xMean, wMean, pt, s);
        for (std::int64_t r = 0; r < N; ++r)
            for (std::int64_t j = 0; j < K; ++j)
                ws[r * K + j] = static_cast<float>(static_cast<double>(w[r * K + j]) * s[j]);
        const QuantizedTensor q = roundToNearest(ws, N, K, spec.quant, qo, cancel);
        // D = W − Ŵ(s) in FP64 (exact: both FP32), Ŵ = FP32(Q(W·s) / s); X·Wᵀ − X·Ŵᵀ = X·Dᵀ.
        for (std::int64_t r = 0; r < N; ++r)
            for (std::int64_t j = 0; j < K; ++j) {
                const auto wh = static_cast<float>(static_cast<double>(q.dequantized[r * K + j]) / s[j]);
                d(r, j) = static_cast<double>(w[r * K + j]) - static_cast<double>(wh);
            }
        pt.loss = (Xd * d.transpose()).squaredNorm() / static_cast<double>(R * N);
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

const Calibration &awqCalibration(const QuantizeOptions &options, const Shape &shape)
{
    if (!options.calibration)
        throw UnsupportedError(needsCaptureMessage("awq", options.tensorName));
    const Calibration &cal = *options.calibration;
    const std::int64_t cols = matrixView(shape).second;
    if (shape.size() != 2 || cols != cal.k)
        throw UnsupportedError("awq: " + options.tensorName + " has " + std::to_string(cols) +
                               " input features, the capture's " + cal.module + " " + std::to_string(cal.k));
    if (cal.sampleRows <= 0 || static_cast<std::int64_t>(cal.sample.size()) != cal.sampleRows * cal.k)
        throw UnsupportedError("awq: the capture " + cal.source + " holds no sample of " + cal.module +
                               "'s input rows, which AWQ's loss is measured on (capture again with rows > 0)");
    return cal;
}

std::string awqNonFiniteMessage(const std::string &tensorName, std::int64_t first)
{
    return "awq: " + tensorName + " holds NaN/Inf (first at element " + std::to_string(first) +
           "); AWQ needs finite weights";
}

void awqFinish(QuantizedTensor &q, const AwqSpec &spec, const AwqSearch &search, const Calibration &cal,
               const std::string &tensorName, const Shape &shape, DType sourceDtype)
{
    const auto [rows, cols] = matrixView(shape);
    q.method = "awq";
    q.spec = spec.toJson();
    q.tensorName = tensorName;
    q.shape = shape;
    q.sourceDtype = sourceDtype;
    q.outerLayout = makeLayout({rows, cols}, Granularity::Channel, 0, 0, 1, false, tensorName);
    q.outerScales.assign(search.scales.begin(), search.scales.end());
    q.outerScaleDtype = DType::F32;
    nlohmann::json grid = nlohmann::json::array();
    for (const auto &p : search.points)
        grid.push_back({{"ratio", p.ratio}, {"duo", p.duo}, {"loss", p.loss}});
    q.report["grid"] = grid;
    q.report["best"] = search.best;
    q.report["best_ratio"] = search.points[static_cast<std::size_t>(search.best)].ratio;
    q.report["capture"] = cal.source;
    q.report["sample_rows"] = cal.sampleRows;
}

QuantizedTensor AwqQuantizer::quantize(const Tensor &w, const QuantizeOptions &options, const CancelToken *cancel) const
{
    requireDecodable(w, options.tensorName);
    const Calibration &cal = awqCalibration(options, w.shape());
    const auto [rows, cols] = matrixView(w.shape());
    std::vector<float> wf(static_cast<std::size_t>(w.numel()));
    w.decodeRange(0, wf);
    for (std::size_t i = 0; i < wf.size(); ++i)
        if (!std::isfinite(wf[i]))
            throw UnsupportedError(awqNonFiniteMessage(options.tensorName, static_cast<std::int64_t>(i)));
    const AwqSearch search = awqSearch(wf, rows, cols, cal.sample, cal.sampleRows, m_spec, options.threads, cancel);

    // The stored weight: W·diag(s*) rounded to FP32 (s* as stored, FP32), quantized by the int method.
    std::vector<float> ws(wf.size());
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < cols; ++j)
            ws[r * cols + j] = static_cast<float>(static_cast<double>(wf[r * cols + j]) * search.scales[j]);
    QuantizeOptions qo = options;
    qo.calibration.reset();
    qo.wantDequantized = false;
    qo.wantCodes = true;
    QuantizedTensor q = IntQuantizer(m_spec.quant).quantize(Tensor::fromFloats({rows, cols}, ws), qo, cancel);
    awqFinish(q, m_spec, search, cal, options.tensorName, w.shape(), w.dtype());
    if (options.wantDequantized) {
        q.dequantized.resize(wf.size());
        dequantize(q, q.dequantized);
    }
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
