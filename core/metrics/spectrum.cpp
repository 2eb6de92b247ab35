// SPDX-License-Identifier: MIT
#include "metrics/spectrum.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>
#include <Eigen/SVD>

#include "util/error.h"
#include "util/philox.h"

namespace quantscope {

namespace {

using Mat = Eigen::MatrixXd;
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Column-major copy of a row-major matrix, transposed when it is wide (so rows ≥ cols).
Mat tallCopy(std::span<const double> a, std::int64_t rows, std::int64_t cols)
{
    Eigen::Map<const RowMat> m(a.data(), rows, cols);
    if (rows >= cols)
        return m;
    return m.transpose();
}

/// Thin Q of a Householder QR (torch.linalg.qr(X).Q, mode 'reduced').
Mat thinQ(const Mat &x)
{
    const Eigen::Index k = std::min(x.rows(), x.cols());
    Eigen::HouseholderQR<Mat> qr(x);
    return qr.householderQ() * Mat::Identity(x.rows(), k);
}

/// Singular values of an upper bidiagonal matrix (diagonal d, superdiagonal e) via the
/// eigenvalues of its Golub–Kahan tridiagonal form.
std::vector<double> bidiagonalSingularValues(const std::vector<double> &d, const std::vector<double> &e)
{
    const Eigen::Index n = static_cast<Eigen::Index>(d.size());
    if (n == 0)
        return {};
    Eigen::VectorXd diag = Eigen::VectorXd::Zero(2 * n);
    Eigen::VectorXd sub(2 * n - 1);
    for (Eigen::Index i = 0; i < n; ++i) {
        sub(2 * i) = d[static_cast<std::size_t>(i)];
        if (i + 1 < n)
            sub(2 * i + 1) = e[static_cast<std::size_t>(i)];
    }
    Eigen::SelfAdjointEigenSolver<Mat> es;
    es.computeFromTridiagonal(diag, sub, Eigen::EigenvaluesOnly);
    if (es.info() != Eigen::Success)
        throw UnsupportedError("the bidiagonal singular value iteration did not converge");
    std::vector<double> s(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i)
        s[static_cast<std::size_t>(i)] = std::max(0.0, es.eigenvalues()(2 * n - 1 - i));
    return s;
}

} // namespace

std::vector<double> singularValuesAll(std::span<const double> a, std::int64_t rows, std::int64_t cols,
                                      const CancelToken *cancel)
{
    const std::int64_t minDim = std::min(rows, cols);
    if (minDim > kFullSpectrumMaxDim)
        throw UnsupportedError("all singular values are computed for min(N, K) ≤ " +
                               std::to_string(kFullSpectrumMaxDim) + " only (here " + std::to_string(minDim) +
                               "); ask for the top k instead");
    if (minDim == 0)
        return {};
    if (cancel)
        cancel->check();
    Mat A = tallCopy(a, rows, cols);
    const Eigen::Index m = A.rows(), n = A.cols();
    // Eigen's blocked Golub–Kahan bidiagonalization, driven panel by panel so that the cancel
    // token is polled between panels (the same loop as internal::upperbidiagonalization_inplace_blocked).
    const Eigen::Index maxBlock = 16;
    Mat X(m, maxBlock), Y(n, maxBlock);
    std::vector<double> diag(static_cast<std::size_t>(n) + 1, 0.0), upper(static_cast<std::size_t>(n) + 1, 0.0);
    using BlockType = Eigen::Block<Mat, Eigen::Dynamic, Eigen::Dynamic>;
    for (Eigen::Index k = 0; k < n; k += maxBlock) {
        if (cancel)
            cancel->check();
        const Eigen::Index bs = std::min(n - k, maxBlock);
        const Eigen::Index brows = m - k, bcols = n - k;
        BlockType B = A.block(k, k, brows, bcols);
        if (k + bs == n || bcols < 48) {
            Eigen::internal::upperbidiagonalization_inplace_unblocked(B, &diag[static_cast<std::size_t>(k)],
                                                                      &upper[static_cast<std::size_t>(k)], X.data());
            break;
        }
        Eigen::internal::upperbidiagonalization_blocked_helper<BlockType>(
            B, &diag[static_cast<std::size_t>(k)], &upper[static_cast<std::size_t>(k)], bs,
            X.topLeftCorner(brows, bs), Y.topLeftCorner(bcols, bs));
    }
    if (cancel)
        cancel->check();
    diag.resize(static_cast<std::size_t>(n));
    upper.resize(static_cast<std::size_t>(n > 0 ? n - 1 : 0));
    return bidiagonalSingularValues(diag, upper);
}

std::vector<double> singularValuesTop(std::span<const double> a, std::int64_t rows, std::int64_t cols, int k,
                                      int powerIters, int oversample, std::uint64_t seed,
                                      const CancelToken *cancel)
{
    const std::int64_t minDim = std::min(rows, cols);
    if (k < 1)
        throw UnsupportedError("top-k spectrum needs k ≥ 1");
    if (powerIters < 0 || oversample < 0)
        throw UnsupportedError("power iterations and oversampling must be ≥ 0");
    k = static_cast<int>(std::min<std::int64_t>(k, minDim));
    if (k == 0)
        return {};
    Eigen::Map<const RowMat> A(a.data(), rows, cols);
    const Eigen::Index l = std::min<Eigen::Index>(k + oversample, minDim);
    RowMat omega(cols, l);
    philox::fillNormal(seed, 0x5EC7u, omega.data(), static_cast<std::uint64_t>(cols * l));
    if (cancel)
        cancel->check();
    Mat Q = thinQ(A * omega);
    for (int i = 0; i < powerIters; ++i) {
        if (cancel)
            cancel->stepProgress(static_cast<double>(i + 1) / (powerIters + 2));
        const Mat Z = thinQ(A.transpose() * Q);
        if (cancel)
            cancel->check();
        Q = thinQ(A * Z);
    }
    if (cancel)
        cancel->check();
    const Mat B = Q.transpose() * A; // l × cols
    Eigen::BDCSVD<Mat> svd(B.transpose());
    const auto &sv = svd.singularValues();
    std::vector<double> s(static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i)
        s[static_cast<std::size_t>(i)] = sv(i);
    return s;
}

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

Spectrum computeSpectrum(std::span<const float> e, std::int64_t rows, std::int64_t cols,
                         const SpectrumOptions &options, const CancelToken *cancel)
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
    if (options.top <= 0 || options.top >= s.minDim) {
        s.sigma = singularValuesAll(a, rows, cols, cancel);
        s.complete = true;
        s.algorithm = "householder-bidiagonal+tridiagonal-qr";
    } else {
        s.sigma = singularValuesTop(a, rows, cols, options.top, options.powerIters, options.oversample,
                                    options.seed, cancel);
        s.complete = false;
        s.algorithm = "randomized-subspace";
    }
    fillSpectrumFields(s);
    return s;
}

LowRankSvd svdLowrank(std::span<const double> a, std::int64_t rows, std::int64_t cols, int q, int niter,
                      std::uint64_t seed, std::uint32_t stream, const CancelToken *cancel)
{
    if (q < 1)
        throw UnsupportedError("svd_lowrank needs q ≥ 1");
    const bool transposed = rows < cols;
    const Mat A = tallCopy(a, rows, cols); // m ≥ n
    const Eigen::Index m = A.rows(), n = A.cols();
    RowMat R(n, q);
    philox::fillNormal(seed, stream, R.data(), static_cast<std::uint64_t>(n * q));
    Mat Q = thinQ(A * R);
    for (int i = 0; i < niter; ++i) {
        if (cancel)
            cancel->check();
        Q = thinQ(A.transpose() * Q);
        Q = thinQ(A * Q);
    }
    const Mat B = Q.transpose() * A; // k × n
    Eigen::BDCSVD<Mat> svd(B, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Mat U = Q * svd.matrixU();   // m × k
    const Mat &V = svd.matrixV();      // n × k
    const Eigen::Index k = svd.singularValues().size();
    LowRankSvd r;
    r.rows = rows;
    r.cols = cols;
    r.rank = k;
    r.s.assign(svd.singularValues().data(), svd.singularValues().data() + k);
    const Mat &Ur = transposed ? V : U; // rows × k
    const Mat &Vr = transposed ? U : V; // cols × k
    r.u.resize(static_cast<std::size_t>(rows * k));
    r.v.resize(static_cast<std::size_t>(cols * k));
    for (std::int64_t i = 0; i < rows; ++i)
        for (Eigen::Index c = 0; c < k; ++c)
            r.u[static_cast<std::size_t>(i * k + c)] = Ur(i, c);
    for (std::int64_t i = 0; i < cols; ++i)
        for (Eigen::Index c = 0; c < k; ++c)
            r.v[static_cast<std::size_t>(i * k + c)] = Vr(i, c);
    (void)m;
    return r;
}

} // namespace quantscope
