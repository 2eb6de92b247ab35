// SPDX-License-Identifier: MIT
#include "results/weight_preview.h"

#include "metrics/error_metrics.h"
#include "tensor/dtype.h"

#include <vector>

namespace quantscope {

WeightPreview previewWeight(const std::string &name, const Tensor &w, int bins, bool symlog, const CancelToken *cancel)
{
    WeightPreview p;
    p.tensor = name;
    p.dtype = std::string(nameOf(w.dtype()));
    p.shape = w.shape();
    std::vector<float> values(static_cast<std::size_t>(w.numel()));
    w.decodeTo(values);
    if (cancel)
        cancel->check();
    // The same binning a run gives W (Ŵ = W here: its histogram is W's, its error zero), so the
    // preview and the run's W series agree bin for bin.
    ErrorMetricsOptions o;
    o.bins = bins;
    o.symlog = symlog;
    const ErrorMetrics m = computeErrorMetrics(w, values, o, cancel);
    p.stats = m.statsIn;
    p.histogram = histogramSeries(m.w);
    p.symlog = m.w.symlog;
    p.t = m.w.t;
    return p;
}

} // namespace quantscope
