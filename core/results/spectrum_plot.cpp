// SPDX-License-Identifier: MIT
#include "results/spectrum_plot.h"

#include <algorithm>

namespace quantscope {

double compensatorBits(std::int64_t rows, std::int64_t cols, int rank)
{
    return static_cast<double>(rows + cols) * static_cast<double>(rank) * 16.0;
}

SpectrumPlotData prepareSpectrumPlot(const Spectrum &s, std::int64_t rows, std::int64_t cols, double bitsPerElement,
                                     std::uint64_t storedBytes, double relFrobenius)
{
    SpectrumPlotData d;
    d.rows = rows;
    d.cols = cols;
    d.numel = rows * cols;
    d.sigma = s.sigma;
    d.froNorm = s.froNorm;
    d.relFrobenius = relFrobenius;
    d.complete = s.complete;
    d.minDim = s.minDim;
    d.bitsPerElementBase = bitsPerElement;
    d.storedBytesBase = storedBytes;
    const std::size_t k = s.sigma.size();
    d.index.resize(k);
    for (std::size_t i = 0; i < k; ++i)
        d.index[i] = static_cast<double>(i + 1);
    // ‖W‖_F = ‖E‖_F / relFrobenius; relative errors only when both are known.
    const double wNorm = relFrobenius > 0 && s.froNorm > 0 ? s.froNorm / relFrobenius : 0.0;
    const double numel = d.numel > 0 ? static_cast<double>(d.numel) : 1.0;
    for (std::size_t r = 0; r <= k; ++r) {
        const double err = r == 0 ? s.froNorm : (r - 1 < s.errAfterRank.size() ? s.errAfterRank[r - 1] : 0.0);
        const double energy = r == 0 ? 0.0 : (r - 1 < s.energyTop.size() ? s.energyTop[r - 1] : 0.0);
        const int ri = static_cast<int>(r);
        d.rank.push_back(static_cast<double>(r));
        d.errAfterRank.push_back(err);
        d.relErrAfterRank.push_back(wNorm > 0 ? err / wNorm : 0.0);
        d.energy.push_back(energy);
        d.bitsPerElement.push_back(bitsPerElement + compensatorBits(rows, cols, ri) / numel);
        d.megabytes.push_back((static_cast<double>(storedBytes) + compensatorBits(rows, cols, ri) / 8.0) / 1e6);
    }
    return d;
}

TauCounts tauCounts(const Spectrum &s, double tau)
{
    Spectrum copy;
    copy.sigma = s.sigma;
    copy.complete = s.complete;
    copy.minDim = s.minDim;
    copy.froNorm = s.froNorm;
    copy.tau = tau;
    fillSpectrumFields(copy); // the one rule of metrics/spectrum.h
    return {copy.nSigmaGeTau, copy.nSigmaGeTauExact, copy.nSigmaLtTau, copy.derived};
}

nlohmann::json miloSpecAtRank(const nlohmann::json &from, int rank)
{
    const std::string method = from.is_object() ? from.value("method", "") : "";
    if (method == "milo") {
        nlohmann::json j = from;
        j["rank"] = rank;
        return j;
    }
    nlohmann::json j = {{"method", "milo"}, {"rank", rank}, {"compensator", "fp16"}};
    auto keep = [&](const char *key) {
        if (from.contains(key) && from[key].is_number_integer())
            j[key] = from[key];
    };
    if (method == "hqq" || method == "int")
        keep("bits");
    // An INT group size only means a group when the INT spec quantizes by groups.
    if (method == "hqq" || (method == "int" && from.value("granularity", "") == "group"))
        keep("group");
    return j;
}

} // namespace quantscope
