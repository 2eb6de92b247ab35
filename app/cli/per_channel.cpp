// SPDX-License-Identifier: MIT
// `--per-channel` of info and quantize: per-channel excess kurtosis, absmax and (quantize) the
// relative error of every output row, under the key "per_channel".
#include "cli.h"
#include "results/channel_profile.h"
#include "tensor/tensor.h"

#include "json/report_json.h"

namespace quantscope::cli {

namespace {

nlohmann::ordered_json numbers(const std::vector<double> &v)
{
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (double x : v)
        a.push_back(reportNumber(x)); // NaN (undefined kurtosis) → null
    return a;
}

nlohmann::ordered_json axisJson(const ChannelProfile &p, const std::vector<double> &kurtosis)
{
    nlohmann::ordered_json j;
    j["count"] = p.absmax.size();
    j["absmax"] = p.absmax;
    j["excess_kurtosis"] = numbers(kurtosis);
    j["absmax_median"] = p.median;
    nlohmann::ordered_json top = nlohmann::ordered_json::array();
    for (const auto &o : p.top)
        top.push_back({{"index", o.index}, {"absmax", o.absmax}, {"ratio", o.ratio}});
    j["outliers"] = std::move(top);
    return j;
}

} // namespace

nlohmann::ordered_json perChannelJson(const Tensor &w, const std::vector<float> *wHat)
{
    const ChannelProfiles p = computeChannelProfiles(w, 8);
    const ChannelKurtosis k = computeChannelKurtosis(w);
    nlohmann::ordered_json j;
    j["input_channels"] = axisJson(p.columns, k.columns);
    j["output_channels"] = axisJson(p.rows, k.rows);
    if (wHat)
        j["output_channels"]["rel_error"] = numbers(rowRelativeErrors(w, *wHat));
    return j;
}

} // namespace quantscope::cli
