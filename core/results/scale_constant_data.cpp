// SPDX-License-Identifier: MIT
#include "results/scale_constant_data.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>

namespace quantscope {

ScaleConstantCurve curveOf(const CSweepResult &r, ConstOptEncoder encoder)
{
    ScaleConstantCurve c;
    c.encoder = encoder;
    c.c = r.c;
    c.mse = r.mse;
    c.cStar = r.cStar;
    c.cStarMse = r.cStarMse;
    c.intervalLo = r.intervalLo;
    c.intervalHi = r.intervalHi;
    c.mseAtDefault = r.mseAtDefault;
    return c;
}

ScaleConstantData computeScaleConstantData(const Tensor &w, const std::string &tensorName,
                                           const ScaleConstantOptions &options, const CancelToken *cancel,
                                           const std::function<void(double)> &progress)
{
    ScaleConstantData d;
    d.tensor = tensorName;
    d.group = options.group;
    d.defaultC = options.defaultC;
    d.lo = options.lo;
    d.hi = options.hi;
    d.step = options.step;
    const int sweeps = options.rotate > 0 ? 4 : 2;
    int done = 0;
    // Each sweep reports its own [0, 1]; the view shows the whole job's.
    auto sweep = [&](std::int64_t rotate, ConstOptEncoder encoder) {
        CSweepOptions o;
        o.group = options.group;
        o.rotate = rotate;
        o.encoder = encoder;
        o.lo = options.lo;
        o.hi = options.hi;
        o.step = options.step;
        o.defaultC = options.defaultC;
        o.threads = options.threads;
        o.device = options.device;
        o.tensorName = tensorName;
        const int k = done;
        if (cancel && progress)
            cancel->setStepProgress([&progress, k, sweeps](double f) { progress((k + f) / sweeps); });
        CSweepResult r = sweepC(w, o, cancel);
        if (cancel)
            cancel->setStepProgress({});
        ++done;
        if (progress)
            progress(static_cast<double>(done) / sweeps);
        return r;
    };
    auto setOf = [&](std::int64_t rotate) {
        ScaleConstantSet s;
        s.rotate = rotate;
        const CSweepResult p = sweep(rotate, ConstOptEncoder::Pow2);
        s.pow2 = curveOf(p, ConstOptEncoder::Pow2);
        s.unrounded = curveOf(sweep(rotate, ConstOptEncoder::Unrounded), ConstOptEncoder::Unrounded);
        s.int4Mse = p.int4Mse;
        s.mxfp4Mse = p.mxfp4Mse;
        s.lloydMaxMse = p.lloydMax.mse;
        s.rotatedKurtosis = p.rotatedKurtosis;
        return s;
    };
    d.plain = setOf(0);
    if (options.rotate > 0) {
        try {
            d.rotated = setOf(options.rotate);
        } catch (const UnsupportedError &e) {
            if (cancel)
                cancel->setStepProgress({});
            d.rotatedError = e.message();
            if (progress)
                progress(1.0);
        }
    }
    return d;
}

double snapToGrid(double c, double lo, double hi, double step)
{
    if (!(step > 0) || !std::isfinite(c))
        return std::clamp(c, lo, hi);
    const double n = std::floor((hi - lo) / step + 0.5);
    const double i = std::clamp(std::floor((c - lo) / step + 0.5), 0.0, n);
    return lo + i * step;
}

} // namespace quantscope
