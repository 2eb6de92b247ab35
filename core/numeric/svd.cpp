// SPDX-License-Identifier: MIT
#include "numeric/svd.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Dense>
#include <Eigen/SVD>

#include "util/error.h"
#include "util/parallel.h"
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
            B, &diag[static_cast<std::size_t>(k)], &upper[static_cast<std::size_t>(k)], bs, X.topLeftCorner(brows, bs),
            Y.topLeftCorner(bcols, bs));
    }
    if (cancel)
        cancel->check();
    diag.resize(static_cast<std::size_t>(n));
    upper.resize(static_cast<std::size_t>(n > 0 ? n - 1 : 0));
    return bidiagonalSingularValues(diag, upper);
}

std::vector<double> singularValuesTop(std::span<const double> a, std::int64_t rows, std::int64_t cols, int k,
                                      int powerIters, int oversample, std::uint64_t seed, const CancelToken *cancel)
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

namespace {

/// The products with A in a fixed number of slices of the output's rows (each slice one Eigen
/// product, whatever thread runs it), so the bits do not depend on the thread count.
constexpr std::int64_t kProductSlices = 16;

/// fn(lo, hi) for each non-empty one of the kProductSlices fixed slices of [0, n), over `threads`.
template <typename Fn> void forEachSlice(std::int64_t n, int threads, Fn &&fn)
{
    parallelForEach(kProductSlices, threads, [&](std::int64_t s) {
        const std::int64_t lo = n * s / kProductSlices, hi = n * (s + 1) / kProductSlices;
        if (hi > lo)
            fn(lo, hi);
    });
}

/// C = E·M (E row-major [rows × cols], M [cols × q]) in fixed row slices.
Mat productE(const Eigen::Map<const RowMat> &E, const Mat &M, int threads)
{
    Mat C(E.rows(), M.cols());
    forEachSlice(E.rows(), threads, [&](std::int64_t r0, std::int64_t r1) {
        C.middleRows(r0, r1 - r0).noalias() = E.middleRows(r0, r1 - r0) * M;
    });
    return C;
}

/// C = Eᵀ·M (M [rows × q]) in fixed slices of E's columns.
Mat productEt(const Eigen::Map<const RowMat> &E, const Mat &M, int threads)
{
    Mat C(E.cols(), M.cols());
    forEachSlice(E.cols(), threads, [&](std::int64_t c0, std::int64_t c1) {
        C.middleRows(c0, c1 - c0).noalias() = E.middleCols(c0, c1 - c0).transpose() * M;
    });
    return C;
}

/// productE of a matrix given by its blocks: each slice is written to its own buffer, then the same
/// Eigen product on an operand of the same shape (the same kernel and blocking: the same bits).
Mat productE(const MatrixBlockFn &E, std::int64_t rows, std::int64_t cols, const Mat &M, int threads)
{
    Mat C(rows, M.cols());
    forEachSlice(rows, threads, [&](std::int64_t r0, std::int64_t r1) {
        RowMat slice(r1 - r0, cols);
        E(r0, r1, 0, cols, slice.data());
        C.middleRows(r0, r1 - r0).noalias() = slice * M;
    });
    return C;
}

/// productEt of a matrix given by its blocks.
Mat productEt(const MatrixBlockFn &E, std::int64_t rows, std::int64_t cols, const Mat &M, int threads)
{
    Mat C(cols, M.cols());
    forEachSlice(cols, threads, [&](std::int64_t c0, std::int64_t c1) {
        RowMat slice(rows, c1 - c0);
        E(0, rows, c0, c1, slice.data());
        C.middleRows(c0, c1 - c0).noalias() = slice.transpose() * M;
    });
    return C;
}

/// The sketch's steps, given the products with A and Aᵀ.
template <class MulA, class MulAt>
RangeSketchResult sketchWith(std::int64_t rows, std::int64_t cols, int q, int niter, std::uint64_t seed,
                             std::uint32_t stream, const CancelToken *cancel, MulA mulA, MulAt mulAt)
{
    if (q < 1)
        throw UnsupportedError("svd_lowrank needs q ≥ 1");
    const bool transposed = rows < cols;
    const Eigen::Index m = transposed ? cols : rows, n = transposed ? rows : cols;
    RowMat R(n, q);
    philox::fillNormal(seed, stream, R.data(), static_cast<std::uint64_t>(n * q));
    Mat Q = thinQ(mulA(Mat(R)));
    for (int i = 0; i < niter; ++i) {
        if (cancel)
            cancel->check();
        Q = thinQ(mulAt(Q));
        Q = thinQ(mulA(Q));
    }
    const Mat Bt = mulAt(Q); // n × k: Bᵀ = Aᵀ·Q
    RangeSketchResult r;
    r.rows = rows;
    r.cols = cols;
    r.m = m;
    r.n = n;
    r.q = Q.cols();
    r.transposed = transposed;
    r.Q.assign(Q.data(), Q.data() + Q.size());
    r.Bt.assign(Bt.data(), Bt.data() + Bt.size());
    return r;
}

} // namespace

RangeSketchResult rangeSketch(std::span<const double> a, std::int64_t rows, std::int64_t cols, int q, int niter,
                              std::uint64_t seed, std::uint32_t stream, int threads, const CancelToken *cancel)
{
    // A = E (rows ≥ cols) or Eᵀ, read in place.
    const Eigen::Map<const RowMat> E(a.data(), rows, cols);
    const bool transposed = rows < cols;
    return sketchWith(
        rows, cols, q, niter, seed, stream, cancel,
        [&](const Mat &M) { return transposed ? productEt(E, M, threads) : productE(E, M, threads); },
        [&](const Mat &M) { return transposed ? productE(E, M, threads) : productEt(E, M, threads); });
}

RangeSketchResult rangeSketch(const MatrixBlockFn &block, std::int64_t rows, std::int64_t cols, int q, int niter,
                              std::uint64_t seed, std::uint32_t stream, int threads, const CancelToken *cancel)
{
    const bool transposed = rows < cols;
    auto prodE = [&](const Mat &M) { return productE(block, rows, cols, M, threads); };
    auto prodEt = [&](const Mat &M) { return productEt(block, rows, cols, M, threads); };
    return sketchWith(
        rows, cols, q, niter, seed, stream, cancel, [&](const Mat &M) { return transposed ? prodEt(M) : prodE(M); },
        [&](const Mat &M) { return transposed ? prodE(M) : prodEt(M); });
}

LowRankSvd lowRankFromSketch(const RangeSketchResult &sk)
{
    const Eigen::Map<const Mat> Q(sk.Q.data(), sk.m, sk.q), Bt(sk.Bt.data(), sk.n, sk.q);
    const Mat B = Bt.transpose(); // k × n
    Eigen::BDCSVD<Mat> svd(B, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Mat U = Q * svd.matrixU(); // m × k
    const Mat &V = svd.matrixV();    // n × k
    const Eigen::Index k = svd.singularValues().size();
    LowRankSvd r;
    r.rows = sk.rows;
    r.cols = sk.cols;
    r.rank = k;
    r.s.assign(svd.singularValues().data(), svd.singularValues().data() + k);
    const Mat &Ur = sk.transposed ? V : U; // rows × k
    const Mat &Vr = sk.transposed ? U : V; // cols × k
    r.u.resize(static_cast<std::size_t>(sk.rows * k));
    r.v.resize(static_cast<std::size_t>(sk.cols * k));
    for (std::int64_t i = 0; i < sk.rows; ++i)
        for (Eigen::Index c = 0; c < k; ++c)
            r.u[static_cast<std::size_t>(i * k + c)] = Ur(i, c);
    for (std::int64_t i = 0; i < sk.cols; ++i)
        for (Eigen::Index c = 0; c < k; ++c)
            r.v[static_cast<std::size_t>(i * k + c)] = Vr(i, c);
    return r;
}

LowRankSvd svdLowrank(std::span<const double> a, std::int64_t rows, std::int64_t cols, int q, int niter,
                      std::uint64_t seed, std::uint32_t stream, const CancelToken *cancel)
{
    return lowRankFromSketch(rangeSketch(a, rows, cols, q, niter, seed, stream, 1, cancel));
}

} // namespace quantscope
