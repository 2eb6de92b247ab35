// SPDX-License-Identifier: MIT
#include "engine_host.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "numeric/fp4math.h"
#include "quant/fp8.h"
#include "quant/constopt.h"
#include "quant/mxfp4.h"
#include "quant/nvfp4.h"
#include "quant/progressive.h"
#include "quant/uniform.h"
#include "kernels.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

void fillLayout(QuantPlan &p, const GroupLayout &L)
{
    p.gran = static_cast<int>(L.granularity);
    p.axis = L.axis;
    p.rows = L.rows;
    p.cols = L.cols;
    p.group = std::max<std::int64_t>(L.group, 1);
    p.block = std::max<std::int64_t>(L.block, 1);
    p.gridRows = L.gridRows;
    p.gridCols = L.gridCols;
    p.groups = L.groupCount();
    const bool c8 = L.cols % kChunk == 0;
    switch (L.granularity) {
    case Granularity::Tensor:
        p.chunkUniform = true;
        break;
    case Granularity::Channel:
        p.chunkUniform = L.axis == 0 && c8;
        break;
    case Granularity::Group:
        p.chunkUniform = c8 && L.group % kChunk == 0;
        break;
    case Granularity::Block:
        p.chunkUniform = c8 && L.block % kChunk == 0;
        break;
    }
}

/// The fields the FP4 quantizers (E2M1 codes in groups along K) set alike, and the plan's kind.
void fp4Skeleton(QuantizedTensor &q, QuantPlan &p, const char *method, nlohmann::json spec, const Shape &shape,
                 std::int64_t group, bool strict, DType scaleDtype, int scheme, const std::string &tensorName)
{
    q.method = method;
    q.spec = std::move(spec);
    q.layout = makeLayout(shape, Granularity::Group, group, 0, 0, strict, tensorName);
    q.codeDtype = DType::F4;
    q.codeBits = 4;
    q.scaleDtype = scaleDtype;
    p.kind = kKindFp4;
    p.fp4 = scheme;
}

} // namespace

HostPlan buildPlan(const QuantSpec &spec, const Shape &shape, DType source, int warpSize, const std::string &tensorName)
{
    HostPlan hp;
    QuantPlan &p = hp.plan;
    QuantizedTensor &q = hp.skeleton;
    if (!isDecodable(source))
        throw UnsupportedError("cannot quantize " + std::string(nameOf(source)) + " data",
                               Location{{}, tensorName, {}});
    const std::string method = methodOf(spec);
    q.tensorName = tensorName;
    q.shape = shape;
    q.sourceDtype = source;
    if (const auto *is = std::get_if<IntSpec>(&spec)) {
        const IntSpec &s = *is;
        q.method = "int";
        q.spec = s.toJson();
        q.layout = makeLayout(shape, s.granularity, s.group, s.block, s.axis, s.strict, tensorName);
        q.codeDtype = DType::I8;
        q.codeBits = s.bits;
        q.scaleDtype = storedDType(s.scaleDtype);
        p.kind = kKindInt;
        p.ip = intParams(s, source);
        p.hasZero = !s.symmetric;
    } else if (const auto *fs = std::get_if<Fp8Spec>(&spec)) {
        const Fp8Spec &s = *fs;
        q.method = "fp8";
        q.spec = s.toJson();
        q.layout = makeLayout(shape, s.granularity, 0, s.block, 0, false, tensorName);
        q.codeDtype = s.format == Fp8Format::E4M3 ? DType::F8_E4M3 : DType::F8_E5M2;
        q.codeBits = 8;
        q.scaleDtype = DType::F32;
        p.kind = kKindFp8;
        p.fp.e4m3 = s.format == Fp8Format::E4M3;
        p.fp.maxValue = s.maxValue();
        p.fp.arith = arithCode(s.arith, source);
        p.fp.eps = epsilonFor(s.eps, ScaleDType::F32);
    } else if (const auto *ms = std::get_if<MxFp4Spec>(&spec)) {
        // quant/mxfp4.cpp MxFp4Quantizer::quantize: the same skeleton fields.
        const MxFp4Spec &s = *ms;
        fp4Skeleton(q, p, "mxfp4", s.toJson(), shape, s.group, s.strict, DType::F8_E8M0, kFp4Mx, tensorName);
        p.mxMode = static_cast<int>(s.mode);
    } else if (const auto *ns = std::get_if<NvFp4Spec>(&spec)) {
        // quant/nvfp4.cpp NvFp4Quantizer::quantize: the same skeleton; the global scale (outer
        // scale) comes from the device.
        const NvFp4Spec &s = *ns;
        fp4Skeleton(q, p, "nvfp4", s.toJson(), shape, s.group, s.strict, DType::F8_E4M3, kFp4Nv, tensorName);
        q.outerLayout = makeLayout(shape, Granularity::Tensor, 0, 0, 0, false, tensorName);
        q.outerScaleDtype = DType::F32;
    } else if (const auto *cs = std::get_if<ConstOptSpec>(&spec)) {
        // quant/constopt.cpp ConstOptQuantizer::quantize without rotation (the engine rotates
        // first and calls this with the rotated tensor when rotate > 0).
        const ConstOptSpec &s = *cs;
        fp4Skeleton(q, p, "constopt", s.toJson(), shape, s.group, s.strict,
                    s.encoder == ConstOptEncoder::Pow2 ? DType::F8_E8M0 : DType::F32, kFp4ConstOpt, tensorName);
        q.report["rotate"] = 0;
        p.coC = static_cast<float>(s.c);
        p.coUnrounded = s.encoder == ConstOptEncoder::Unrounded;
    } else if (const auto *ps = std::get_if<ProgressiveSpec>(&spec)) {
        // quant/progressive.cpp: stage 2's result (its layout, codes, scales, zero points) with
        // stage 1's per-tensor scale as the outer level. The device runs stage 1 FP8 per tensor and
        // stage 2 INT (progressiveOnDevice); the CPU runs every other combination.
        if (!progressiveOnDevice(*ps))
            throw UnsupportedError(
                "the GPU engine runs ProgressiveSpec with stage 1 FP8 per tensor and stage 2 INT only",
                Location{{}, tensorName, {}});
        const Fp8Spec &s1 = std::get<Fp8Spec>(ps->stage1);
        HostPlan inner = buildPlan(QuantSpec{std::get<IntSpec>(ps->stage2)}, shape, source, warpSize, tensorName);
        hp = std::move(inner);
        hp.plan.kind = kKindProg;
        hp.plan.fp.e4m3 = s1.format == Fp8Format::E4M3;
        hp.plan.fp.maxValue = s1.maxValue();
        hp.plan.fp.arith = arithCode(s1.arith, source);
        hp.plan.fp.eps = epsilonFor(s1.eps, ScaleDType::F32);
        QuantizedTensor &pq = hp.skeleton;
        pq.method = "progressive";
        pq.spec = ps->toJson();
        pq.outerLayout = makeLayout(shape, Granularity::Tensor, 0, 0, 0, false, tensorName);
        pq.outerScaleDtype = DType::F32;
        return hp;
    } else {
        throw UnsupportedError("the GPU engine has no method '" + method + "'", Location{{}, tensorName, {}});
    }
    fillLayout(p, q.layout);
    if (p.kind != kKindFp8 && q.layout.granularity == Granularity::Group && q.layout.cols % kChunk == 0 &&
        q.layout.group % kChunk == 0 && q.layout.cols % q.layout.group == 0) {
        const std::int64_t team = q.layout.group / kChunk;
        if ((team & (team - 1)) == 0 && team <= warpSize) {
            p.fastGroup = true;
            while ((std::int64_t{1} << p.teamLog2) < team)
                ++p.teamLog2;
        }
    }
    return hp;
}

bool fastPathFor(const QuantPlan &P, bool quantize, bool deviceMetrics, int debugFlags, int in, std::int64_t n)
{
    if (!quantize || !deviceMetrics || debugFlags != 0 || (in != kInBf16 && in != kInF16) || n <= 0 ||
        n >= (std::int64_t{1} << 31))
        return false;
    if (P.kind == kKindFp8)
        return P.gran == kGranTensor;
    if (P.kind == kKindFp4)
        return launch::fp4FastPlan(P); // constOpt unrounded, groups > 128: the generic kernels
    if (P.kind == kKindProg)
        return launch::progFastPlan(P); // stage 2 per channel along rows (fp8_quant.cu)
    if (P.kind != kKindInt)
        return false;
    return P.fastGroup && !P.ip.reciprocal && P.ip.arith == 0 && !P.ip.halfAway && P.ip.scaleDtype == 0 &&
           P.ip.qmax - P.ip.qmin <= 15 && P.group <= 128;
}

float progStage1Scale(const QuantPlan &plan, const TensorStats &stats)
{
    QuantPlan p1 = plan;
    p1.kind = kKindFp8;
    float s1 = 0.0f;
    int z1 = 0;
    bool bad1 = false;
    tensorParamsFromStats(p1, stats, s1, z1, bad1);
    return s1;
}

int fastRowTeamLog2(std::int64_t cols)
{
    int t = 0;
    while ((std::int64_t{kChunk} << t) < cols)
        ++t;
    return t;
}

bool progressiveOnDevice(const ProgressiveSpec &spec)
{
    const auto *s1 = std::get_if<Fp8Spec>(&spec.stage1);
    return s1 && s1->granularity == Granularity::Tensor && std::holds_alternative<IntSpec>(spec.stage2);
}

void tensorParamsFromStats(const QuantPlan &plan, const TensorStats &st, float &scale, int &zero, bool &bad)
{
    if (plan.kind == kKindProg) {
        // Stage 2 per tensor: its range is stage 1's values of W's extremes (stage 1 is monotone;
        // a tensor holding NaN/Inf has domain values 0), as the kernels' groupParams does.
        QuantPlan p1 = plan;
        p1.kind = kKindFp8;
        float s1;
        int z1;
        bool bad1;
        tensorParamsFromStats(p1, st, s1, z1, bad1);
        auto stage1 = [&](double x) {
            const std::uint32_t c = gpumath::fp8Code(plan.fp, static_cast<float>(x), s1);
            return plan.fp.e4m3 ? gpumath::decodeE4m3(c) : gpumath::decodeE5m2(c);
        };
        const bool any = !bad1 && st.finiteCount > 0;
        bad = false;
        intGroupParams(plan.ip, any ? stage1(st.min) : 0.0f, any ? stage1(st.max) : 0.0f, scale, zero);
        return;
    }
    bad = st.nanCount + st.infCount > 0;
    zero = 0;
    if (bad) {
        scale = plan.kind == kKindInt ? plan.ip.eps : (plan.kind == kKindFp4 ? fp4::mxBadScale() : plan.fp.eps);
        return;
    }
    // The CPU's group min/max are FP32 values; the stats hold them exactly as doubles.
    const float mn = st.finiteCount ? static_cast<float>(st.min) : 0.0f;
    const float mx = st.finiteCount ? static_cast<float>(st.max) : 0.0f;
    if (plan.kind == kKindFp4) // per tensor: MXFP4 only (the other FP4 schemes are per group)
        scale = fp4::mxGroupScale(mn, mx, plan.mxMode);
    else if (plan.kind == kKindInt)
        intGroupParams(plan.ip, mn, mx, scale, zero);
    else
        scale = gpumath::fp8Scale(plan.fp, mn, mx);
}

bool deviceMetricsSupported(const ErrorMetricsOptions &o)
{
    return !o.symlog && o.bins >= 1 && o.bins <= 4096;
}

namespace {

TensorStats statsFrom(std::int64_t numel, std::int64_t finite, std::int64_t nan, std::int64_t inf, double mn, double mx,
                      double s1, double s2, double s3, double s4, bool miloStd)
{
    // core/numeric/moments.cpp computeStats, from the reduced sums.
    TensorStats st;
    st.numel = numel;
    if (numel == 0)
        return st;
    st.finiteCount = finite;
    st.nanCount = nan;
    st.infCount = inf;
    if (finite == 0)
        return st;
    st.min = mn;
    st.max = mx;
    st.absmax = std::max(std::abs(mn), std::abs(mx));
    const double n = static_cast<double>(finite);
    st.mean = s1 / n;
    const double m2 = s2 / n, m3 = s3 / n, m4 = s4 / n;
    st.std = miloStd ? (finite > 1 ? std::sqrt(s2 / (n - 1)) : 0.0) : std::sqrt(m2);
    if (m2 > 0) {
        st.skewness = m3 / std::pow(m2, 1.5);
        st.excessKurtosis = m4 / (m2 * m2) - 3.0;
    }
    return st;
}

} // namespace

ErrorMetrics assembleMetrics(std::int64_t numel, const Stats1 &s1, const Stats2 &s2, const HostHist &h,
                             const HistConfig &hc, const ErrorMetricsOptions &o,
                             const std::optional<TensorStats> &inputStats)
{
    ErrorMetrics m;
    m.numel = numel;
    m.statsIn = inputStats ? *inputStats
                           : statsFrom(numel, s1.i[iNF], s1.i[iNan], s1.i[iInf], s1.d[dMinW], s1.d[dMaxW], s1.d[dSumW],
                                       s2.d[dS2W], s2.d[dS3W], s2.d[dS4W], o.miloStd);
    m.statsOut = statsFrom(numel, s1.i[iNFY], s1.i[iNanY], s1.i[iInfY], s1.d[dMinY], s1.d[dMaxY], s1.d[dSumY],
                           s2.d[dS2Y], s2.d[dS3Y], s2.d[dS4Y], o.miloStd);

    // core/metrics/error_metrics.cpp computeErrorMetrics, from the reduced sums.
    const std::int64_t counted = s1.i[iNF];
    const double se = s1.d[dSe], sx = s1.d[dSx], sy = s1.d[dSy], sxy = s1.d[dSxy];
    m.counted = counted;
    if (counted > 0) {
        m.mse = se / static_cast<double>(counted);
        m.rmse = std::sqrt(m.mse);
        m.sqnrDb = se == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(sx / se);
        m.relFrobenius = sx == 0 ? (se == 0 ? 0.0 : std::numeric_limits<double>::infinity()) : std::sqrt(se / sx);
        m.maxAbsErr = s1.maxAbs;
        if (sx > 0 && sy > 0)
            m.cosine = sxy / (std::sqrt(sx) * std::sqrt(sy));
    }
    const double amax = m.statsIn.absmax;
    const int B = hc.bins;
    auto setup = [&](Histogram &hh, double lo, double hi) {
        hh.symlog = false;
        hh.t = 1e-3 * amax;
        hh.lo = lo;
        hh.hi = hi;
        hh.counts.assign(static_cast<std::size_t>(B), 0);
    };
    setup(m.w, s1.lo, s1.hi);
    setup(m.wHat, s1.lo, s1.hi);
    setup(m.err, s1.emin, s1.emax);
    const auto *r = h.raw.data();
    for (int b = 0; b < B; ++b) {
        m.w.counts[static_cast<std::size_t>(b)] = static_cast<std::int64_t>(r[b]);
        m.wHat.counts[static_cast<std::size_t>(b)] = static_cast<std::int64_t>(r[B + b]);
        m.err.counts[static_cast<std::size_t>(b)] = static_cast<std::int64_t>(r[2 * B + b]);
    }
    m.absErrBins.assign(kPercentileBins, 0);
    for (int b = 0; b < kPercentileBins; ++b)
        m.absErrBins[static_cast<std::size_t>(b)] = static_cast<std::int64_t>(r[3 * B + b]);
    const auto *ext = r + 3 * B + kPercentileBins;
    m.w.below = static_cast<std::int64_t>(ext[0]);
    m.w.above = static_cast<std::int64_t>(ext[1]);
    m.wHat.below = static_cast<std::int64_t>(ext[2]);
    m.wHat.above = static_cast<std::int64_t>(ext[3]);
    m.err.below = static_cast<std::int64_t>(ext[4]);
    m.err.above = static_cast<std::int64_t>(ext[5]);
    m.errP50 = percentileFromBins(m.absErrBins, s1.maxAbs, 0.50, counted);
    m.errP90 = percentileFromBins(m.absErrBins, s1.maxAbs, 0.90, counted);
    m.errP99 = percentileFromBins(m.absErrBins, s1.maxAbs, 0.99, counted);
    m.errP999 = percentileFromBins(m.absErrBins, s1.maxAbs, 0.999, counted);
    if (counted > 0) {
        double ov = 0;
        for (std::size_t i = 0; i < m.w.counts.size(); ++i)
            ov += static_cast<double>(std::min(m.w.counts[i], m.wHat.counts[i]));
        m.overlap = ov / static_cast<double>(counted);
    }
    return m;
}

} // namespace quantscope::gpu
