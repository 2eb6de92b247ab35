// SPDX-License-Identifier: MIT
#include "metrics/output_error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr std::int64_t kBlockRows = 32;

/// Each row's term Δ_r G Δ_rᵀ into `terms[r]`, rows [begin, end).
void rowTerms(std::span<const float> rows, std::span<const float> minus, std::int64_t begin, std::int64_t end,
              const GramMatrix &g, std::span<double> terms, const CancelToken *cancel)
{
    const std::int64_t k = g.k;
    RowMat d(kBlockRows, k);
    const Eigen::Map<const RowMat> gm(g.value.data(), g.diagonal ? 1 : k, g.diagonal ? k : k);
    for (std::int64_t r0 = begin; r0 < end; r0 += kBlockRows) {
        if (cancel)
            cancel->check();
        const std::int64_t b = std::min(kBlockRows, end - r0);
        for (std::int64_t i = 0; i < b; ++i) {
            const float *x = rows.data() + (r0 + i) * k;
            const float *y = minus.empty() ? nullptr : minus.data() + (r0 + i) * k;
            for (std::int64_t j = 0; j < k; ++j)
                d(i, j) = static_cast<double>(x[j]) - (y ? static_cast<double>(y[j]) : 0.0);
        }
        if (g.diagonal) {
            for (std::int64_t i = 0; i < b; ++i) {
                double s = 0;
                for (std::int64_t j = 0; j < k; ++j)
                    s += d(i, j) * d(i, j) * g.value[static_cast<std::size_t>(j)];
                terms[static_cast<std::size_t>(r0 + i)] = s;
            }
        } else {
            const RowMat y = d.topRows(b) * gm;
            for (std::int64_t i = 0; i < b; ++i)
                terms[static_cast<std::size_t>(r0 + i)] = d.row(i).dot(y.row(i));
        }
    }
}

} // namespace

double gramEnergy(std::span<const float> rows, std::span<const float> minus, std::int64_t n, const GramMatrix &g,
                  int threads, const CancelToken *cancel)
{
    if (g.k <= 0 || static_cast<std::int64_t>(rows.size()) != n * g.k ||
        (!minus.empty() && minus.size() != rows.size()))
        throw UnsupportedError("output-aware error: " + std::to_string(rows.size()) + " values are not " +
                               std::to_string(n) + " rows of K = " + std::to_string(g.k));
    std::vector<double> terms(static_cast<std::size_t>(n));
    const std::int64_t blocks = (n + kBlockRows - 1) / kBlockRows;
    parallelSlices(blocks, resolveThreads(threads), cancel, [&](int, std::int64_t b0, std::int64_t b1) {
        rowTerms(rows, minus, b0 * kBlockRows, std::min(n, b1 * kBlockRows), g, terms, cancel);
    });
    double sum = 0; // row order: independent of the thread count
    for (double t : terms)
        sum += t;
    return sum;
}

double gramReference(const Tensor &w, const GramMatrix &g, int threads, const CancelToken *cancel)
{
    const Shape m = matrixShape(w.shape());
    if (m[1] != g.k)
        throw UnsupportedError("output-aware error: the weight is " + shapeToString(w.shape()) +
                               " but the Gram is for K = " + std::to_string(g.k));
    std::vector<float> f(static_cast<std::size_t>(w.numel()));
    w.decodeTo(f);
    return gramEnergy(f, {}, m[0], g, threads, cancel);
}

OutputError outputError(const Tensor &w, std::span<const float> wHat, const GramMatrix &g, double reference,
                        int threads, const CancelToken *cancel)
{
    const Shape m = matrixShape(w.shape());
    if (m[1] != g.k || static_cast<std::int64_t>(wHat.size()) != w.numel())
        throw UnsupportedError("output-aware error: the weight is " + shapeToString(w.shape()) +
                               " but the Gram is for K = " + std::to_string(g.k));
    std::vector<float> f(static_cast<std::size_t>(w.numel()));
    w.decodeTo(f);
    return makeOutputError(gramEnergy(f, wHat, m[0], g, threads, cancel), reference, g);
}

OutputError makeOutputError(double error, double reference, const GramMatrix &g)
{
    OutputError e;
    e.error = error;
    e.reference = reference;
    e.relative = reference > 0 ? e.error / reference : (e.error == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    e.diagonal = g.diagonal;
    e.tokens = g.tokens;
    return e;
}

} // namespace quantscope
