// SPDX-License-Identifier: MIT
// MiLo on the device (engine.h Engine::milo; CUDA builds: cuBLAS and cuSOLVER). The CPU's loop
// (quant/milo.h) with the linear algebra rearranged where only the product matters:
//   pass t: Ŵ_t = HQQ(W_t) (the device HQQ, bit for bit the CPU's on the same W_t, written over
//           W_t), E = W − Ŵ_t in FP64 (written by HQQ's codes pass), the sketch Q, Bᵀ of E
//           (linalg_sketch.h: torch.svd_lowrank's subspace iteration, the same Philox Ω; with
//           ≤ 2 power iterations without the intermediate QRs, guarded, rerun with them on a
//           failed guard), D = E − Q·B (Q·B is the rank-r truncated SVD's product: svd(B) only
//           rotates inside the sketched subspace; r ≤ 32: formed on the way, not stored),
//           ε_t = ‖D‖_F (FP64 sum in a fixed order) and, in the same
//           pass over D, W_{t+1} = W − f(E − D) as the CPU's W − f(U·V); the stop rule on the
//           device — the host reads one small status per pass and keeps the best pass (the
//           smallest ε, the first of equals; both presets, as the CPU).
//   the returned pass only: svd(B) from the FP64 eigen-decomposition of B·Bᵀ, U = Q·U_B·√S and
//           V = √S·V_Bᵀ, the sign rule, the compensators, Ŵ = f(Ŵ_hqq + Û·V̂) (FP64 product).
// Precision: FP64 for everything the CPU does in FP64 (E, the sketch's products and QR, D, ε).
// FP32 products were measured first (2026-11-25, H100): ε per pass then drifts from the CPU's by
// up to 0.8 % after 11 passes on a MiniLM matrix (the loop amplifies rounding differences through
// HQQ's discrete codes), beyond the 1e-3 bar; FP64 keeps the CPU's trajectory. Memory: W as stored,
// W_t / Ŵ (FP32), E (FP64), the codes (and the best pass's) and
// O((m + n)·r) FP64 for the sketch: ≤ 4.5–5 × W's FP32 bytes.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <latch>
#include <thread>

#include "device_pool.h"
#include "hqq_device.h"
#include "gemm/kernels_gemm.h"
#include "kernels_milo.h"
#include "linalg_common.h"
#include "linalg_sketch.h"
#include "qs_gpu_compat.h"
#include "quant/hqq.h"
#include "quant/milo.h"
#include "quant/milo_math.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

int compKind(CompensatorFormat f)
{
    switch (f) {
    case CompensatorFormat::Int8:
        return milomath::kCompInt8;
    case CompensatorFormat::Int3:
        return milomath::kCompInt3;
    case CompensatorFormat::MiloCodeInt3:
        return milomath::kCompMiloCodeInt3;
    default:
        return -1;
    }
}

} // namespace

MiloDeviceResult Engine::milo(const GpuTensor &w, const MiloSpec &spec, const MiloDeviceOptions &o,
                              const CancelToken *cancel)
{
    spec.validate();
    const auto [N, K] = matrixView(w.shape());
    const long long numel = N * K, g = spec.hqq.group;
    if (numel == 0 || numel % g != 0)
        throw UnsupportedError("HQQ needs numel divisible by the group size: numel = " + std::to_string(numel) +
                                   ", group = " + std::to_string(g),
                               Location{{}, w.name(), {}});
    const int r = static_cast<int>(std::min<std::int64_t>(spec.rank, std::min(N, K)));
    const auto tCall = std::chrono::steady_clock::now();
    const int passes = spec.passCount();
    const bool paper = spec.preset == MiloPreset::Paper;
    const long long G = numel / g;
    MiloDeviceResult res;
    std::shared_ptr<GpuTensor> wHatTensor;
    {
        std::lock_guard lock(m_impl->mutex);
        Impl &I = *m_impl;
        QS_GPU_CHECK(qsSetDevice(I.device));
        I.markNames.clear();
        const std::string what = "MiLo of tensor '" + w.name() + "'";
        auto pool = [&](std::size_t bytes, const std::string &name) {
            res.deviceBytes += std::max<std::size_t>(bytes, 64);
            return poolGet(I.pool, std::max<std::size_t>(bytes, 64), name + " (" + what + ")");
        };
        const auto n = static_cast<std::size_t>(numel);
        auto stb = pool(sizeof(launch::MiloState) + sizeof(launch::MiloStatus), "the loop state");
        auto *st = static_cast<launch::MiloState *>(stb.get());
        auto *stDev =
            reinterpret_cast<launch::MiloStatus *>(static_cast<char *>(stb.get()) + sizeof(launch::MiloState));
        QS_GPU_CHECK(qsMemsetAsync(stb.get(), 0, sizeof(launch::MiloState) + sizeof(launch::MiloStatus), I.stream));
        // W's non-finite count (W itself is read as stored by every pass).
        const int in = inTypeOf(w.storage());
        launch::decodeF32(in, w.data(), numel, nullptr, st, I.S());
        // W_t (HQQ's input, overwritten by its Ŵ in place; at the end the final Ŵ) and E in FP64
        // (after the sketch E − U·V; at the end the compensator product).
        auto wtb = pool(n * 4, "W_t");
        auto *Wt = static_cast<float *>(wtb.get());
        auto eb = pool(n * 8, "the residual in FP64");
        auto *E = static_cast<double *>(eb.get());
        auto codes = pool(n, "the codes");
        const HqqBlockLayout L(spec.hqq, G);
        auto block = pool(L.bytes, "the HQQ state");
        auto parts = pool(launch::kMiloSumBlocks * 8, "the error partials");
        auto *P = static_cast<double *>(parts.get());
        std::unique_ptr<RangeSketch> sketch;
        // The best pass's codes, HQQ state and sketch (both presets return the best pass).
        std::shared_ptr<void> bestCodes = pool(n, "the best pass's codes"),
                              bestBlock = pool(L.kept, "the best pass's HQQ state"), bestQ, bestBt;
        if (r > 0) {
            sketch = std::make_unique<RangeSketch>(I, E, N, K, N < K, r, true, what);
            res.deviceBytes += sketch->bytes();
            bestQ = pool(static_cast<std::size_t>(sketch->m()) * r * 8, "the best pass's Q");
            bestBt = pool(static_cast<std::size_t>(sketch->n()) * r * 8, "the best pass's Bᵀ");
        }
        int bestPass = 0; // the host's choice: the smallest ε, the first of equals (the CPU's rule)
        double bestEps = 0.0;
        LinalgHandles *H = r > 0 ? &linalgHandles(I.stream) : nullptr;
        const bool thin = r > 0 && r <= launch::kThinUpdateCols; // updateAndMeasure's fused pass
        // D = E − Q·B in X-space (column-major [K × N]): A = X gives X ≈ Q·Btᵀ, A = Xᵀ gives
        // X ≈ Bt·Qᵀ; ε = ‖D‖ and, in the same pass over D, W_{t+1} = W − f(E − D) in place of Ŵ
        // (unless the sketch failed: the rerun needs Ŵ) — before the host reads ε, so the device
        // has the next pass's input without a gap; after the last pass (or a stop) it goes unused.
        auto updateAndMeasure = [&](int t, const int *failed) {
            const bool aIsX = N < K;
            const auto *P1 = static_cast<const double *>(aIsX ? sketch->q() : sketch->bt());
            const auto *P2 = static_cast<const double *>(aIsX ? sketch->bt() : sketch->q());
            if (thin) {
                // Thin sketches: D formed on the way, not stored (E is read once, not read,
                // written and read again).
                launch::thinUpdate(in, w.data(), Wt, E, P1, P2, K, N, r, failed, P, I.S());
                launch::passEnd(P, st, t, paper, failed, stDev, I.S());
                return;
            }
            const double minus = -1.0, one = 1.0;
            checkBlas(cublasDgemm(H->blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(K), static_cast<int>(N), r,
                                  &minus, P1, static_cast<int>(K), P2, static_cast<int>(N), &one, E,
                                  static_cast<int>(K)),
                      "E − Q·B");
            launch::nextWSumSquares(in, w.data(), Wt, E, numel, failed, P, I.S());
            launch::passEnd(P, st, t, paper, failed, stDev, I.S());
        };
        auto readStatus = [&] {
            launch::MiloStatus s{};
            QS_GPU_CHECK(qsMemcpyAsync(&s, stDev, sizeof s, qsMemcpyDeviceToHost, I.stream));
            QS_GPU_CHECK(qsStreamSynchronize(I.stream));
            return s;
        };
        // The result's host vectors (up to 5 bytes an element: codes and the FP32 Ŵ) are sized, and
        // their pages touched, on a host thread of their own while this one keeps the device fed.
        // Sized here, between pass 1's launches, they idled the device for ≈ 30–40 ms (the
        // profile's "sketch Ω" of pass 1). Joined before the downloads (and, by jthread, on a throw).
        // The compensators' vectors too (r·(N + K) values, codes and scales: ≈ 40 MB at r 512, whose
        // zero-filled pageable allocations and copies after the last pass held the device idle).
        const int kind = compKind(spec.compensator);
        const long long cg = spec.compensatorGroup;
        const std::size_t nu = static_cast<std::size_t>(N) * r, nv = static_cast<std::size_t>(r) * K;
        const std::size_t gu = (nu + cg - 1) / cg, gv = (nv + cg - 1) / cg;
        const std::int64_t rowsN = N, colsK = K; // (named for the capture)
        QuantizedTensor sized;                   // only its vectors, moved into the result after the join
        std::latch sizedLatch(1);                // counted down when the sizing ends (the early downloads wait on it)
        std::jthread sizer([&sized, &sizedLatch, &o, G, n, r, kind, nu, nv, gu, gv, rowsN, colsK, cg, &spec] {
            struct Done {
                std::latch &l;
                ~Done() { l.count_down(); }
            } done{sizedLatch};
            sized.scales.resize(static_cast<std::size_t>(G));
            sized.zeroPoints.resize(static_cast<std::size_t>(G));
            if (o.wantCodes)
                sized.codes.resize(n);
            if (o.wantDequantized)
                sized.dequantized.resize(n);
            if (r == 0)
                return;
            auto size = [&](CompensatorFactor &c, std::size_t count, std::size_t groups, std::int64_t rows,
                            std::int64_t cols) {
                c.rows = rows;
                c.cols = cols;
                c.format = toString(spec.compensator);
                c.values.resize(count);
                if (kind < 0) {
                    c.codeBits = 16;
                    return;
                }
                c.group = cg;
                c.scaleDtype = DType::F32;
                c.codeBits = kind == milomath::kCompInt8 ? 8 : 3;
                c.codes.resize(count);
                c.scales.resize(groups);
            };
            size(sized.compU.emplace(), nu, gu, rowsN, r);
            size(sized.compV.emplace(), nv, gv, r, colsK);
        });
        // The last scheduled pass's codes, scales and zero points go down to the host as soon as its
        // HQQ is done, on the side stream and a host thread of their own, while the device runs that
        // pass's sketch and update (and, when it is the best pass, the compensators and Ŵ). When the
        // last pass is the one returned — MiLo's ε usually falls to the end — those downloads are not
        // repeated after the loop; otherwise the best pass's are made there as before.
        std::jthread early;
        std::exception_ptr earlyError;
        int earlyPass = 0;
        QS_GPU_CHECK(qsEventRecord(I.evStart, I.stream));
        const auto msSince = [](std::chrono::steady_clock::time_point a) {
            return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
        };
        res.hostSetupMs = msSince(tCall);
        for (int t = 1; t <= passes; ++t) {
            if (cancel) {
                cancel->check();
                cancel->stepProgress(static_cast<double>(t - 1) / passes);
            }
            const auto t0 = std::chrono::steady_clock::now();
            // Pass 1 reads W as stored; later passes W_t, with Ŵ written over it.
            // Ŵ over W_t only where the wide update reads it (E − D from W − Ŵ) or a rerun needs it
            // to rebuild E (DGEMM in place); the thin update reads E, which it leaves as it was.
            launch::HqqArgs a =
                hqqArgs(spec.hqq, t == 1 ? w.data() : Wt, t == 1 ? in : kInF32, numel, static_cast<char *>(block.get()),
                        L, static_cast<unsigned char *>(codes.get()), thin ? nullptr : Wt);
            // E = W − Ŵ in FP64 written by HQQ's codes pass itself (residual64's bits, one pass
            // over the tensor fewer).
            a.w0 = w.data();
            a.in0 = in;
            a.e64 = E;
            queueHqq(I, spec.hqq, a, static_cast<char *>(block.get()), L);
            if (t == passes && r > 0) {
                earlyPass = t;
                const qsStream_t side = I.early();
                early = std::jthread([&I, &sized, &sizedLatch, &o, &earlyError, side, n, c = codes.get(),
                                      b = static_cast<const char *>(block.get()), &L] {
                    try {
                        sizedLatch.wait(); // the vectors exist (usually long since: sized during pass 1)
                        I.copyToHost(sized.scales.data(), b + L.scales, sized.scales.size() * 4, side);
                        I.copyToHost(sized.zeroPoints.data(), b + L.zeros, sized.zeroPoints.size() * 4, side);
                        if (o.wantCodes)
                            I.copyToHost(sized.codes.data(), c, n, side);
                    } catch (...) {
                        earlyError = std::current_exception();
                    }
                });
            }
            launch::MiloStatus s;
            if (r == 0) {
                launch::sumSquares(E, numel, P, I.S());
                launch::passEnd(P, st, t, paper, nullptr, stDev, I.S());
                s = readStatus();
            } else {
                // The sketch without intermediate QRs where the power iterations allow it
                // (RangeSketch::run's plainPower); a sketch whose guard or Cholesky fails is rerun
                // on E again with a CholeskyQR after every product, and if that fails too with
                // Householder QR (always succeeds).
                const bool plain = spec.powerIters > 0 && spec.powerIters <= RangeSketch::kPlainPowerMaxIters;
                int mode = plain ? 0 : 1; // 0: plain power, 1: CholeskyQR each step, 2: Householder
                sketch->run(static_cast<std::uint64_t>(spec.seed), static_cast<std::uint32_t>(t - 1), spec.powerIters,
                            false, false, plain);
                I.mark("MiLo sketch");
                updateAndMeasure(t, sketch->failed());
                I.mark("MiLo E − Q·B, ε");
                s = readStatus();
                while (s.retry && mode < 2) {
                    ++mode;
                    if (!thin) // E − Q·B was subtracted in place
                        launch::residual64(in, w.data(), Wt, numel, E, I.S());
                    sketch->run(static_cast<std::uint64_t>(spec.seed), static_cast<std::uint32_t>(t - 1),
                                spec.powerIters, mode == 2, false, false);
                    updateAndMeasure(t, sketch->failed());
                    s = readStatus();
                    ++(mode == 2 ? res.householderPasses : res.sketchReruns);
                }
            }
            if (s.nonFinite)
                throw UnsupportedError("MiLo needs a finite tensor (the SVD of the residual is undefined with NaN/Inf)",
                                       Location{{}, w.name(), {}});
            const bool isBest = bestPass == 0 || s.eps < bestEps;
            if (isBest) {
                bestPass = t;
                bestEps = s.eps;
                std::swap(codes, bestCodes); // the next pass writes its codes over the former best's
                QS_GPU_CHECK(qsMemcpyAsync(bestBlock.get(), block.get(), L.kept, qsMemcpyDeviceToDevice, I.stream));
                if (r > 0) {
                    QS_GPU_CHECK(qsMemcpyAsync(bestQ.get(), sketch->q(), static_cast<std::size_t>(sketch->m()) * r * 8,
                                               qsMemcpyDeviceToDevice, I.stream));
                    QS_GPU_CHECK(qsMemcpyAsync(bestBt.get(), sketch->bt(),
                                               static_cast<std::size_t>(sketch->n()) * r * 8, qsMemcpyDeviceToDevice,
                                               I.stream));
                }
            }
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            res.quantized.history.push_back({t, s.eps, ms});
            if (r == 0 || s.stop)
                break;
            I.mark("MiLo best-pass copies (with the host's gap)");
        }
        const int chosenPass = bestPass; // the device's bestPass: the same with paper, the last with code
        const void *cCodes = bestCodes.get();
        const char *cBlock = static_cast<const char *>(bestBlock.get());

        QuantizedTensor &q = res.quantized;
        q.method = "milo";
        q.spec = spec.toJson();
        q.tensorName = w.name();
        q.shape = w.shape();
        q.sourceDtype = w.dtype();
        q.layout = hqqLayout(w.shape(), spec.hqq.group, spec.hqq.axis);
        q.codeDtype = DType::U8;
        q.codeBits = spec.hqq.bits;
        const DType stored = spec.hqq.compute == HqqCompute::Fp16 ? DType::F16 : DType::F32;
        q.scaleDtype = stored;
        q.zeroPointDtype = stored;
        q.chosenPass = chosenPass;
        q.rank = r;
        q.requestedRank = spec.rank;
        const double *prod = nullptr;
        std::shared_ptr<void> keepU, keepV, factorBufs, keepWork;
        const float *dU = nullptr, *dV = nullptr, *dScU = nullptr;
        const signed char *dCodes = nullptr;
        const int *dInfo = nullptr;
        if (r > 0) {
            // svd(B) of the returned pass from B·Bᵀ's FP64 eigen-decomposition.
            const int m = sketch->m(), nn = sketch->n(), l = r;
            const auto *q64 = static_cast<const double *>(bestQ.get());
            const auto *bt64 = static_cast<const double *>(bestBt.get());
            const std::size_t ml = static_cast<std::size_t>(m) * l, nl = static_cast<std::size_t>(nn) * l,
                              ll = static_cast<std::size_t>(l) * l;
            factorBufs = pool((ml + nl + ll + l) * 8, "the factors' FP64 block");
            auto *ua = static_cast<double *>(factorBufs.get());
            double *vb = ua + ml, *Gm = vb + nl, *lam = Gm + ll;
            const double one = 1.0, zero = 0.0;
            checkBlas(cublasDsyrk(H->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, l, nn, &one, bt64, nn, &zero, Gm, l),
                      "B·Bᵀ");
            int lwork = 0;
            checkSolver(cusolverDnDsyevd_bufferSize(H->solver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, l, Gm,
                                                    l, lam, &lwork),
                        "syevd workspace");
            auto work = pool(static_cast<std::size_t>(std::max(lwork, 1)) * 8 + 8, "the eigensolver workspace");
            auto *info = reinterpret_cast<int *>(static_cast<double *>(work.get()) + std::max(lwork, 1));
            keepWork = work;
            dInfo = info;
            checkSolver(cusolverDnDsyevd(H->solver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, l, Gm, l, lam,
                                         static_cast<double *>(work.get()), lwork, info),
                        "syevd");
            checkBlas(cublasDgemm(H->blas, CUBLAS_OP_N, CUBLAS_OP_N, m, l, l, &one, q64, m, Gm, l, &zero, ua, m),
                      "Q·U_B");
            checkBlas(cublasDgemm(H->blas, CUBLAS_OP_N, CUBLAS_OP_N, nn, l, l, &one, bt64, nn, Gm, l, &zero, vb, nn),
                      "Bᵀ·U_B");
            auto fb = pool((nu + nv) * 4 * 2 + (nu + nv) + r * 4 + 64, "the compensator");
            auto *U = static_cast<float *>(fb.get());
            float *V = U + nu, *Uq = V + nv, *Vq = Uq + nu;
            auto *codesUV = reinterpret_cast<signed char *>(Vq + nv);
            auto *flips = reinterpret_cast<int *>(codesUV + ((nu + nv + 3) / 4) * 4);
            launch::miloFactors(ua, vb, lam, m, nn, l, N < K, N, K, U, V, I.S());
            launch::miloSigns(U, V, N, K, r, flips, I.S());
            auto sb = pool((gu + gv) * 4, "the compensator scales");
            auto *scU = static_cast<float *>(sb.get());
            launch::compensator(U, static_cast<long long>(nu), cg, kind, scU, codesUV, Uq, I.S());
            launch::compensator(V, static_cast<long long>(nv), cg, kind, scU + gu, codesUV + nu, Vq, I.S());
            I.mark("MiLo factors, compensators");
            // Û·V̂ in FP64 into E's block: column-major [K × N] = V̂ [K × r] · Û [r × N].
            auto uv64 = pool((nu + nv) * 8, "the compensator in FP64");
            auto *u64 = static_cast<double *>(uv64.get());
            double *v64 = u64 + nu;
            launch::toDouble(Uq, static_cast<long long>(nu), u64, I.S());
            launch::toDouble(Vq, static_cast<long long>(nv), v64, I.S());
            auto *p64 = E;
            checkBlas(cublasDgemm(H->blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(K), static_cast<int>(N), r, &one,
                                  v64, static_cast<int>(K), u64, r, &zero, p64, static_cast<int>(K)),
                      "Û·V̂");
            prod = p64;
            // Their downloads follow Ŵ's kernel (below), through the pinned staging.
            keepU = fb;
            keepV = sb;
            dU = Uq;
            dV = Vq;
            dScU = scU;
            dCodes = codesUV;
        }
        // Ŵ = f(Ŵ_hqq + Û·V̂) of the returned pass, in W_t's block.
        auto out = wtb;
        launch::hqqPlusProduct(static_cast<const unsigned char *>(cCodes),
                               reinterpret_cast<const float *>(cBlock + L.zero),
                               reinterpret_cast<const float *>(cBlock + L.scales),
                               reinterpret_cast<const unsigned char *>(cBlock + L.bad), numel, G, g, spec.hqq.axis == 1,
                               spec.hqq.compute == HqqCompute::Fp16, prod, static_cast<float *>(out.get()), I.S());
        I.mark("MiLo Ŵ");
        QS_GPU_CHECK(qsEventRecord(I.evStop, I.stream));
        const auto tStop = std::chrono::steady_clock::now();
        // The downloads through the pinned staging (the host vectors were sized during the passes).
        // Page-locking the vectors instead (cudaHostRegister on the sizing thread, then DMA into
        // them) was measured slower: the registration held the device idle ≈ 13 ms between passes
        // (docs/perf.md, MiLo's whole call, 2026-11-30 run 4).
        sizer.join();
        if (early.joinable())
            early.join();
        if (earlyError)
            std::rethrow_exception(earlyError);
        const bool earlyHit = earlyPass > 0 && chosenPass == earlyPass; // its downloads are the result's
        res.earlyDownload = earlyHit;
        q.scales = std::move(sized.scales);
        q.zeroPoints = std::move(sized.zeroPoints);
        q.codes = std::move(sized.codes);
        q.dequantized = std::move(sized.dequantized);
        if (r > 0) {
            q.compU = std::move(sized.compU);
            q.compV = std::move(sized.compV);
            auto down = [&](CompensatorFactor &c, const float *vals, const signed char *cds, const float *scs) {
                I.copyToHost(c.values.data(), vals, c.values.size() * 4);
                I.copyToHost(c.codes.data(), cds, c.codes.size());
                I.copyToHost(c.scales.data(), scs, c.scales.size() * 4);
            };
            down(*q.compU, dU, dCodes, dScU);
            down(*q.compV, dV, dCodes + nu, dScU + gu);
            int inf = 0;
            QS_GPU_CHECK(qsMemcpyAsync(&inf, dInfo, sizeof inf, qsMemcpyDeviceToHost, I.stream));
            QS_GPU_CHECK(qsStreamSynchronize(I.stream));
            if (inf != 0)
                throw GpuError("cuSOLVER's eigensolver did not converge on MiLo's B·Bᵀ (info " + std::to_string(inf) +
                               ")");
        }
        if (!earlyHit) {
            I.copyToHost(q.scales.data(), cBlock + L.scales, q.scales.size() * 4);
            I.copyToHost(q.zeroPoints.data(), cBlock + L.zeros, q.zeroPoints.size() * 4);
            if (o.wantCodes)
                I.copyToHost(q.codes.data(), cCodes, n);
        }
        if (o.wantDequantized)
            I.copyToHost(q.dequantized.data(), out.get(), n * 4);
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        QS_GPU_CHECK(qsEventElapsedTime(&res.deviceMs, I.evStart, I.evStop));
        res.hostDownloadMs = msSince(tStop);
        wHatTensor = std::make_shared<GpuTensor>(w.shape(), DType::F32, DType::F32, out.get(), w.name() + " (Ŵ)", out);
    }
    if (o.metrics)
        res.metrics = metricsOf(w, *wHatTensor, o.metricsOptions, o.inputStats);
    return res;
}

} // namespace quantscope::gpu
