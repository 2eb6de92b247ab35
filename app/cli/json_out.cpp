// SPDX-License-Identifier: MIT
#include "json_out.h"

#include <cmath>

namespace quantscope::cli {

nlohmann::ordered_json number(double v)
{
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    if (std::isnan(v))
        return nullptr;
    return v;
}

nlohmann::ordered_json statsJson(const TensorStats &s)
{
    nlohmann::ordered_json j;
    const bool any = s.finiteCount > 0;
    auto opt = [](const std::optional<double> &v) {
        return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    };
    j["min"] = any ? nlohmann::ordered_json(s.min) : nullptr;
    j["max"] = any ? nlohmann::ordered_json(s.max) : nullptr;
    j["mean"] = any ? nlohmann::ordered_json(s.mean) : nullptr;
    j["std"] = any ? nlohmann::ordered_json(s.std) : nullptr;
    j["skewness"] = opt(s.skewness);
    j["excess_kurtosis"] = opt(s.excessKurtosis);
    j["nan_count"] = s.nanCount;
    j["inf_count"] = s.infCount;
    return j;
}

} // namespace quantscope::cli
