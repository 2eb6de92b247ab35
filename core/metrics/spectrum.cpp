// SPDX-License-Identifier: MIT
#include "metrics/spectrum.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "util/error.h"

namespace quantscope {

void fillSpectrumFields(Spectrum &s)
{
    const double fro2 = s.froNorm * s.froNorm;
    const double s1 = s.sigma.empty() ? 0.0 : s.sigma.front();
    const double thr = s.tau * s1;
    std::int64_t ge = 0;
    for (double v : s.sigma)
        if (v >= thr && s1 > 0.0)
            ++ge;
    const auto k = static_cast<std::int64_t>(s.sigma.size());
    s.nSigmaGeTau = ge;
    if (s.complete) {
        s.nSigmaGeTauExact = true;
        s.nSigmaLtTau = s.minDim - ge;
        s.derived = false;
    } else {
        s.nSigmaGeTauExact = ge < k;
        s.nSigmaLtTau = s.minDim - ge;
        s.derived = true;
    }
    s.energyTop.assign(s.sigma.size(), 0.0);
    s.errAfterRank.assign(s.sigma.size(), 0.0);
    double acc = 0.0;
    for (std::size_t i = 0; i < s.sigma.size(); ++i) {
        acc += s.sigma[i] * s.sigma[i];
        s.energyTop[i] = fro2 > 0.0 ? std::min(1.0, acc / fro2) : 0.0;
        s.errAfterRank[i] = std::sqrt(std::max(0.0, fro2 - acc));
    }
}

Spectrum computeSpectrum(std::span<const float> e, std::int64_t rows, std::int64_t cols, const SpectrumOptions &options,
                         const CancelToken *cancel)
{
    if (static_cast<std::int64_t>(e.size()) != rows * cols)
        throw UnsupportedError("spectrum: the matrix has " + std::to_string(e.size()) + " elements, not " +
                               std::to_string(rows) + "x" + std::to_string(cols));
    if (!(options.tau > 0.0 && options.tau <= 1.0))
        throw UnsupportedError("spectrum: tau must be in (0, 1]");
    std::vector<double> a(e.size());
    double fro2 = 0.0;
    for (std::size_t i = 0; i < e.size(); ++i) {
        const double v = e[i];
        if (!std::isfinite(v))
            throw UnsupportedError("spectrum: the matrix holds NaN/Inf at element " + std::to_string(i));
        a[i] = v;
        fro2 += v * v;
    }
    Spectrum s;
    s.minDim = std::min(rows, cols);
    s.tau = options.tau;
    s.froNorm = std::sqrt(fro2);
    const bool all = options.top <= 0 || options.top >= s.minDim;
    if (options.device && options.device->singularValues && s.minDim > 0) {
        std::string why, algorithm;
        std::optional<std::vector<double>> sv;
        try {
            SpectrumOptions o = options;
            o.top = all ? 0 : options.top;
            sv = options.device->singularValues(e, rows, cols, o, algorithm, why);
        } catch (const Error &err) {
            why = std::string("the device failed (") + err.what() + ")";
        }
        if (sv) {
            s.sigma = std::move(*sv);
            s.complete = all;
            s.algorithm = algorithm;
            s.device = options.device->id;
            fillSpectrumFields(s);
            return s;
        }
        s.deviceNote = why + ": computed on the CPU";
    } else if (options.device && !options.device->note.empty()) {
        s.deviceNote = options.device->note + ": computed on the CPU";
    }
    if (all) {
        s.sigma = singularValuesAll(a, rows, cols, cancel);
        s.complete = true;
        s.algorithm = "householder-bidiagonal+tridiagonal-qr";
    } else {
        s.sigma =
            singularValuesTop(a, rows, cols, options.top, options.powerIters, options.oversample, options.seed, cancel);
        s.complete = false;
        s.algorithm = "randomized-subspace";
    }
    fillSpectrumFields(s);
    return s;
}

} // namespace quantscope
