// SPDX-License-Identifier: MIT
#include "results/kurtosis_data.h"

#include "results/config_label.h"
#include "numeric/moments.h"
#include "numeric/hadamard.h"
#include "quant/quantizer.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace quantscope {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

KurtosisChannels channelsOf(const Tensor &t, int topK, const CancelToken *cancel)
{
    KurtosisChannels k;
    k.channels = computeChannelKurtosis(t, cancel);
    const TensorStats s = computeStats(t, {}, cancel);
    k.kurtosis = s.excessKurtosis.value_or(kNaN);
    k.topColumns = topChannels(k.channels.columns, topK);
    k.topRows = topChannels(k.channels.rows, topK);
    return k;
}

int colorIndexOf(const std::string &config)
{
    return config.size() == 1 && config[0] >= 'A' && config[0] <= 'Z' ? config[0] - 'A' : 0;
}

} // namespace

std::vector<std::int64_t> topChannels(const std::vector<double> &v, int k)
{
    std::vector<std::int64_t> order(v.size());
    std::iota(order.begin(), order.end(), std::int64_t{0});
    const auto n = std::min<std::size_t>(static_cast<std::size_t>(std::max(k, 0)), order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::int64_t a, std::int64_t b) {
                          const double x = v[static_cast<std::size_t>(a)];
                          const double y = v[static_cast<std::size_t>(b)];
                          if (std::isnan(x) != std::isnan(y))
                              return std::isnan(y);
                          return x != y && !std::isnan(x) ? x > y : a < b;
                      });
    order.resize(n);
    return order;
}

KurtosisData computeKurtosisData(const std::function<Tensor(const std::string &)> &weight,
                                 const std::vector<std::string> &tensors, const QuantizeJobResult *results,
                                 std::int64_t rotate, int topK, const CancelToken *cancel,
                                 const std::function<void(double)> &progress)
{
    KurtosisData d;
    d.rotate = rotate;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (cancel)
            cancel->check();
        KurtosisTensor kt;
        kt.tensor = tensors[i];
        try {
            const Tensor w = weight(tensors[i]);
            const auto [rows, cols] = matrixView(w.shape());
            kt.rows = rows;
            kt.cols = cols;
            kt.plain = channelsOf(w, topK, cancel);
            if (rotate > 0) {
                try {
                    checkRotation(rotate, cols, tensors[i]);
                    std::vector<float> x(static_cast<std::size_t>(rows * cols));
                    w.decodeRange(0, x);
                    hadamardRows(x, rows, cols, rotate);
                    kt.rotated = channelsOf(Tensor::fromFloats({rows, cols}, x), topK, cancel);
                } catch (const UnsupportedError &e) {
                    kt.rotatedError = e.message();
                }
            }
        } catch (const Cancelled &) {
            throw;
        } catch (const std::exception &e) {
            kt.error = e.what();
        }
        d.tensors.push_back(std::move(kt));
        if (progress)
            progress(static_cast<double>(i + 1) / static_cast<double>(tensors.size()));
    }
    if (results)
        for (const auto &o : results->outcomes) {
            if (!o.ok())
                continue;
            const auto t = std::find_if(d.tensors.begin(), d.tensors.end(),
                                        [&](const KurtosisTensor &k) { return k.tensor == o.tensor; });
            if (t == d.tensors.end() || !t->error.empty())
                continue;
            KurtosisPoint p;
            p.tensor = o.tensor;
            p.label = configLabel(o.config, o.spec);
            p.config = o.config;
            p.spec = o.spec;
            p.colorIndex = colorIndexOf(o.config);
            p.kurtosis = t->plain.kurtosis;
            p.rotatedKurtosis = t->rotated ? t->rotated->kurtosis : kNaN;
            p.relError = o.metrics.relFrobenius;
            d.points.push_back(std::move(p));
        }
    return d;
}

} // namespace quantscope
