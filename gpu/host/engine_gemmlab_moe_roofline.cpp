// SPDX-License-Identifier: MIT
// The GEMM timing lab II on the device (issue 22; CUDA builds only: cuBLASLt): the quantized-
// weight paths on the engine quantizer's codes, MoE expert launches (a loop of per-expert GEMMs
// vs one strided-batched call) and the roofline's ceilings. Same conventions as part I
// (engine_gemmlab.cpp): Y[M,N] = X[M,K]·W[N,K]ᵀ as the column-major D[N,M] = Wᵀ·X ("TN"),
// per-channel scales on cuBLASLt's A side, per-token ones on its B side; device events around
// every repeat, median reported, each (format, M) output checked once against an FP64 host
// reference built from the engine's Ŵ and the activations as quantized.
#include "gemmlab_lt.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include "device_pool.h"
#include "gemm/kernels_gemmlab.h"
#include "gemm/kernels_gemmlab_check.h"
#include "tensor/convert.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace lab2 {

void checkLt(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        throw GpuError(std::string("cuBLASLt ") + what + " failed (status " + std::to_string(static_cast<int>(s)) +
                       ")");
}

Lt &lt()
{
    static Lt l;
    static std::once_flag once;
    std::call_once(once, [] {
        checkLt(cublasLtCreate(&l.h), "create");
        QS_GPU_CHECK(cudaMalloc(&l.ws, kWs));
    });
    return l;
}

bool haveOuterVec()
{
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120900
    return cublasLtGetVersion() >= 120900;
#else
    return false;
#endif
}

/// nullptr with `why` when cuBLASLt has no algorithm (or refuses an attribute).
std::unique_ptr<Gemm> makeGemm(cudaDataType_t in, cudaDataType_t out, Scale scale, const float *aScale,
                               const float *bScale, std::int64_t m, std::int64_t n, std::int64_t k, int batch,
                               std::string &why, int candidates)
{
    auto g = std::make_unique<Gemm>();
    g->int32 = in == CUDA_R_8I;
    const cublasComputeType_t compute = g->int32 ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F;
    if (cublasLtMatmulDescCreate(&g->desc, compute, g->int32 ? CUDA_R_32I : CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) {
        why = "no matmul descriptor";
        return nullptr;
    }
    const cublasOperation_t tA = CUBLAS_OP_T, tB = CUBLAS_OP_N;
    checkLt(cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &tA, sizeof tA), "set transa");
    checkLt(cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tB, sizeof tB), "set transb");
    if (scale == Scale::Outer) {
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120900
        const std::int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
        if (cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode) !=
                CUBLAS_STATUS_SUCCESS ||
            cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode) !=
                CUBLAS_STATUS_SUCCESS) {
            why = "no outer-vector scale mode";
            return nullptr;
        }
#else
        why = "no outer-vector scale mode in this cuBLASLt";
        return nullptr;
#endif
    }
    if (scale != Scale::None) {
        checkLt(cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &aScale, sizeof aScale),
                "set A scale");
        checkLt(cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bScale, sizeof bScale),
                "set B scale");
    }
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    checkLt(cublasLtMatrixLayoutCreate(&g->a, in, u(k), u(n), k), "layout A");
    checkLt(cublasLtMatrixLayoutCreate(&g->b, in, u(k), u(m), k), "layout B");
    checkLt(cublasLtMatrixLayoutCreate(&g->d, out, u(n), u(m), n), "layout D");
    if (batch > 1) {
        // Strided-batched: expert e's W, X and D follow expert e − 1's contiguously.
        const std::int32_t count = batch;
        const std::int64_t strides[3] = {n * k, m * k, m * n};
        const cublasLtMatrixLayout_t ls[3] = {g->a, g->b, g->d};
        for (int i = 0; i < 3; ++i)
            if (cublasLtMatrixLayoutSetAttribute(ls[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count) !=
                    CUBLAS_STATUS_SUCCESS ||
                cublasLtMatrixLayoutSetAttribute(ls[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
                                                 sizeof strides[i]) != CUBLAS_STATUS_SUCCESS) {
                why = "cuBLASLt refused the batch layout";
                return nullptr;
            }
    }
    cublasLtMatmulPreference_t pref = nullptr;
    checkLt(cublasLtMatmulPreferenceCreate(&pref), "preference");
    const std::uint64_t ws = kWs;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    std::vector<cublasLtMatmulHeuristicResult_t> res(static_cast<std::size_t>(std::max(1, candidates)));
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt().h, g->desc, g->a, g->b, g->d, g->d, pref,
                                                             static_cast<int>(res.size()), res.data(), &found);
    cublasLtMatmulPreferenceDestroy(pref);
    for (int i = 0; st == CUBLAS_STATUS_SUCCESS && i < found; ++i)
        if (res[i].state == CUBLAS_STATUS_SUCCESS)
            g->algos.push_back(res[i].algo);
    if (g->algos.empty()) {
        why = "no cuBLASLt algorithm";
        return nullptr;
    }
    g->algo = g->algos.front();
    g->key = std::to_string(static_cast<int>(in)) + "/" + std::to_string(static_cast<int>(out)) + "/" +
             std::to_string(static_cast<int>(scale)) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
             std::to_string(k) + " b" + std::to_string(batch) + " c" + std::to_string(g->algos.size());
    return g;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    return v.empty() ? 0.0 : v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/// A step queued on the stream: rep index in, marks (events) it records between its stages.

/// Times `step`: the cold call, warm-up, then `repeats` runs each between its own events; stage
/// s of run r spans marks [s, s + 1] of that run. Returns per stage the median µs (stage count =
/// marks − 1) and the cold time; nullopt when the step reports a refusal.
std::optional<std::pair<std::vector<double>, double>> timeStep(const Step &step, int stages, int warmup, int repeats,
                                                               cudaStream_t s, std::vector<double> *wholeUs)
{
    const std::size_t per = static_cast<std::size_t>(stages) + 1;
    Events cold(per);
    if (!step(0, cold.ev))
        return std::nullopt;
    QS_GPU_CHECK(cudaStreamSynchronize(s));
    const double coldUs = cold.us(0, per - 1);
    Events scratch(per);
    for (int i = 0; i < warmup; ++i)
        step(i + 1, scratch.ev);
    Events ev(per * static_cast<std::size_t>(repeats));
    for (int r = 0; r < repeats; ++r) {
        std::vector<cudaEvent_t> marks(ev.ev.begin() + static_cast<std::ptrdiff_t>(per * r),
                                       ev.ev.begin() + static_cast<std::ptrdiff_t>(per * (r + 1)));
        if (!step(r + warmup + 1, marks))
            return std::nullopt;
    }
    QS_GPU_CHECK(cudaStreamSynchronize(s));
    std::vector<double> out(per);
    std::vector<double> t(static_cast<std::size_t>(repeats));
    for (std::size_t st = 0; st < per; ++st) {
        for (int r = 0; r < repeats; ++r)
            t[r] = st + 1 < per ? ev.us(per * r + st, per * r + st + 1) : ev.us(per * r, per * r + per - 1);
        out[st] = median(t); // the last entry: the whole step
    }
    if (wholeUs)
        *wholeUs = t; // the loop's last stage is the whole step
    return std::make_pair(out, coldUs);
}

std::optional<double> timePaired(const Step &ours, const Step &peer, int warmup, int repeats, cudaStream_t s,
                                 std::vector<double> &oursUs, std::vector<double> &peerUs)
{
    Events cold(2);
    if (!ours(0, cold.ev))
        return std::nullopt;
    QS_GPU_CHECK(cudaStreamSynchronize(s));
    const double coldUs = cold.us(0, 1);
    Events scratch(2);
    for (int i = 0; i < warmup; ++i)
        if (!ours(i + 1, scratch.ev) || !peer(i + 1, scratch.ev))
            return std::nullopt;
    Events ev(4 * static_cast<std::size_t>(repeats));
    for (int r = 0; r < repeats; ++r) {
        const auto at = ev.ev.begin() + static_cast<std::ptrdiff_t>(4 * r);
        const std::vector<cudaEvent_t> o(at, at + 2), p(at + 2, at + 4);
        const int rep = r + warmup + 1;
        const bool ok = r % 2 == 0 ? ours(rep, o) && peer(rep, p) : peer(rep, p) && ours(rep, o);
        if (!ok)
            return std::nullopt;
    }
    QS_GPU_CHECK(cudaStreamSynchronize(s));
    oursUs.assign(static_cast<std::size_t>(repeats), 0.0);
    peerUs.assign(static_cast<std::size_t>(repeats), 0.0);
    for (int r = 0; r < repeats; ++r) {
        oursUs[static_cast<std::size_t>(r)] = ev.us(4 * r, 4 * r + 1);
        peerUs[static_cast<std::size_t>(r)] = ev.us(4 * r + 2, 4 * r + 3);
    }
    return coldUs;
}

namespace {
/// The waits of the candidates' tuning (fastestOf). Hundreds of back-to-back large GEMMs hold the
/// GPU at its power cap, and its SM clock then stays lowered (1390–1545 MHz against 1980 on the
/// H200, sampled by bench/probe/gemmlab_clocks.sh) into what runs next, which a peer timing its own
/// calls from an idle device never sees. settleAfterTuning: after a tuning round, the host waits as
/// long as the device has been busy tuning since the last wait (at most 1 s; none while that is
/// under 20 ms), so that later rounds rank the candidates near the first round's clocks.
/// settleBeforeTiming: after the last round, it waits as long as the whole tuning kept the device
/// busy (the same bounds), so that the timed repeats start from the state the peer's start from
/// (docs/perf.md "Run-to-run honesty (issue 43 item 4)"). QS_GEMMLAB_SETTLE_MS=N sets every wait
/// to N ms (0: none).
constexpr double kSettleFromMs = 20, kSettleMaxMs = 1000;
/// Busy time since the last wait, over rounds and tunings: short rounds add up (the lab's
/// M = 2048 BF16 rounds of 41 candidates take 49 ms each, and three of them lowered the clock).
thread_local double t_busyMs = 0;
/// The wait for `busyMs` of tuning: as long (at most kSettleMaxMs), none under kSettleFromMs;
/// QS_GEMMLAB_SETTLE_MS overrides.
double waitFor(double busyMs)
{
    double ms = busyMs < kSettleFromMs ? 0.0 : std::min(busyMs, kSettleMaxMs);
    if (const char *e = std::getenv("QS_GEMMLAB_SETTLE_MS"))
        ms = std::max(0, std::atoi(e));
    return ms;
}
void sleepMs(double ms)
{
    if (ms > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long long>(ms * 1000.0)));
}
void settleAfterTuning(double tuningMs)
{
    t_busyMs += tuningMs;
    if (const double ms = waitFor(t_busyMs); ms > 0) {
        sleepMs(ms);
        t_busyMs = 0;
    }
}

void settleBeforeTiming(double tuningMs)
{
    sleepMs(waitFor(tuningMs));
    t_busyMs = 0;
}
} // namespace

Fastest fastestOf(std::size_t count, const std::function<bool(std::size_t c, int i)> &launch, cudaStream_t s)
{
    std::vector<std::vector<double>> times(count);
    std::vector<bool> ok(count, true);
    Events ev(2 * kFastestRuns * count);
    std::vector<bool> dropped(count, false);
    double busyMs = 0;
    int i = 0;
    for (int round = 0; round < kFastestRounds; ++round) {
        const auto r0 = std::chrono::steady_clock::now();
        for (std::size_t c = 0; c < count; ++c) {
            if (!ok[c] || dropped[c])
                continue;
            ok[c] = launch(c, i++);
            for (int r = 0; r < kFastestRuns && ok[c]; ++r) {
                QS_GPU_CHECK(cudaEventRecord(ev.ev[2 * (kFastestRuns * c + r)], s));
                ok[c] = launch(c, i++);
                QS_GPU_CHECK(cudaEventRecord(ev.ev[2 * (kFastestRuns * c + r) + 1], s));
            }
        }
        QS_GPU_CHECK(cudaStreamSynchronize(s));
        for (std::size_t c = 0; c < count; ++c)
            for (int r = 0; r < kFastestRuns && ok[c] && !dropped[c]; ++r)
                times[c].push_back(ev.us(2 * (kFastestRuns * c + r), 2 * (kFastestRuns * c + r) + 1));
        if (round == 0) { // candidates far behind after the first round cannot win: not run again
            double best = 1e300;
            for (std::size_t c = 0; c < count; ++c)
                if (ok[c] && !times[c].empty())
                    best = std::min(best, median(times[c]));
            for (std::size_t c = 0; c < count; ++c)
                dropped[c] = ok[c] && !times[c].empty() && median(times[c]) > kFastestDropAbove * best;
        }
        // Each later round from the clocks the first began at; the timed repeats after the last
        // from rest as long as the whole tuning (run 3 of docs/perf.md's ninth session measured that).
        const double roundMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r0).count();
        busyMs += roundMs;
        if (round + 1 < kFastestRounds)
            settleAfterTuning(roundMs);
        else
            settleBeforeTiming(busyMs);
    }
    Fastest f;
    f.medianUs.assign(count, 0.0);
    double best = 1e300;
    for (std::size_t c = 0; c < count; ++c) {
        if (!ok[c] || times[c].empty())
            continue;
        ++f.tried;
        f.medianUs[c] = median(times[c]);
        if (f.medianUs[c] < best)
            best = f.medianUs[c], f.index = static_cast<int>(c);
    }
    return f;
}

std::string candidatesNote(const Fastest &f, const std::vector<std::string> &names)
{
    std::string note = "; chosen by timing " + std::to_string(names.size()) + " candidates (median µs:";
    for (std::size_t c = 0; c < names.size(); ++c) {
        char us[32];
        std::snprintf(us, sizeof us, " %.1f", c < f.medianUs.size() ? f.medianUs[c] : 0.0);
        note += (c ? "; " : " ") + names[c] + us;
    }
    return note + ")";
}

std::vector<std::shared_ptr<void>> derivedCopies(Engine::Impl &I, const std::vector<std::shared_ptr<void>> &weights,
                                                 std::size_t bytes,
                                                 const std::function<void(const void *src, void *dst)> &derive,
                                                 double *firstUs, const std::string &what)
{
    const auto s = static_cast<cudaStream_t>(I.stream);
    std::vector<std::shared_ptr<void>> out;
    for (std::size_t c = 0; c < weights.size(); ++c) {
        out.push_back(poolGet(I.pool, bytes, what));
        if (c > 0) {
            derive(weights[c].get(), out.back().get());
            continue;
        }
        Events ev(2);
        QS_GPU_CHECK(cudaEventRecord(ev.ev[0], s));
        derive(weights[c].get(), out.back().get());
        QS_GPU_CHECK(cudaEventRecord(ev.ev[1], s));
        QS_GPU_CHECK(cudaEventSynchronize(ev.ev[1]));
        *firstUs = ev.us(0, 1);
    }
    return out;
}

/// The fastest of the heuristic's candidates for `run` (gemmlab_lt.h): fastestOf, cached per key.
void tune(Gemm &g, const std::function<cublasStatus_t()> &run, cudaStream_t s)
{
    if (g.algos.size() < 2) {
        g.algoIndex = 0;
        g.algosTried = static_cast<int>(g.algos.size());
        return;
    }
    if (const auto it = lt().chosen.find(g.key);
        !g.key.empty() && it != lt().chosen.end() && it->second.first < static_cast<int>(g.algos.size())) {
        g.algoIndex = it->second.first;
        g.algosTried = it->second.second;
        g.algo = g.algos[static_cast<std::size_t>(g.algoIndex)];
        return;
    }
    const Fastest f = fastestOf(
        g.algos.size(),
        [&](std::size_t c, int) {
            g.algo = g.algos[c];
            return run() == CUBLAS_STATUS_SUCCESS;
        },
        s);
    g.algoIndex = std::max(f.index, 0);
    g.algosTried = f.tried;
    g.algo = g.algos[static_cast<std::size_t>(g.algoIndex)];
    if (!g.key.empty())
        lt().chosen[g.key] = {g.algoIndex, g.algosTried};
}

int algoIndexOf(const Gemm &g)
{
    for (std::size_t i = 0; i < g.algos.size(); ++i)
        if (std::memcmp(&g.algos[i], &g.algo, sizeof g.algo) == 0)
            return static_cast<int>(i);
    return -1;
}

std::vector<std::int64_t> mTries(std::int64_t m)
{
    std::vector<std::int64_t> t{m};
    if ((m + 15) / 16 * 16 != m)
        t.push_back((m + 15) / 16 * 16);
    return t;
}

std::shared_ptr<void> upload(Engine::Impl &I, const void *host, std::size_t bytes, const std::string &what)
{
    auto d = poolGet(I.pool, std::max<std::size_t>(bytes, 16), what);
    QS_GPU_CHECK(cudaMemcpy(d.get(), host, bytes, cudaMemcpyHostToDevice));
    return d;
}

/// Token scales like part I's: 1.5e-2 · (1 + (m mod 5)/4).
std::vector<float> tokenScales(std::int64_t m)
{
    std::vector<float> t(static_cast<std::size_t>(m));
    for (std::int64_t i = 0; i < m; ++i)
        t[i] = 1.5e-2f * (1.0f + 0.25f * static_cast<float>(i % 5));
    return t;
}

/// The sampled output rows of an M-row result (real rows only) and columns of N.
std::vector<std::int64_t> sampleRows(std::int64_t m)
{
    std::vector<std::int64_t> r{0, m / 2, m - 1, std::min<std::int64_t>(1, m - 1)};
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
}
std::vector<std::int64_t> sampleCols(std::int64_t n)
{
    std::vector<std::int64_t> c;
    for (std::int64_t j = 0; j < 16 && j < n; ++j)
        c.push_back(n <= 16 ? j : (j * 7919) % n);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
}

} // namespace lab2

using namespace lab2;

std::string Engine::gemmDeviceKey()
{
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    return std::string(m_impl->props.name) + " | driver " + std::to_string(driver) + " | CUDA runtime " +
           std::to_string(runtime) + " | cuBLASLt " + std::to_string(cublasLtGetVersion());
}

GemmPeaks Engine::measureGemmPeaks(const CancelToken *cancel)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(cudaSetDevice(I.device));
    std::lock_guard ltLock(lt().mutex);
    const auto s = static_cast<cudaStream_t>(I.stream);
    GemmPeaks p;
    p.deviceKey = gemmDeviceKey();
    p.source = "measured";
    std::size_t freeB = 0, totalB = 0;
    QS_GPU_CHECK(cudaMemGetInfo(&freeB, &totalB));
    // The copy: 1 GiB (or a quarter of the free memory) device to device, best of 10.
    const std::size_t bytes = std::min<std::size_t>(std::size_t(1) << 30, freeB / 4) & ~std::size_t(255);
    {
        auto a = poolGet(I.pool, bytes, "the roofline's copy"), b = poolGet(I.pool, bytes, "the roofline's copy");
        QS_GPU_CHECK(cudaMemsetAsync(a.get(), 1, bytes, s));
        const Step copy = [&](int, const std::vector<cudaEvent_t> &mk) {
            QS_GPU_CHECK(cudaEventRecord(mk[0], s));
            QS_GPU_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, s));
            QS_GPU_CHECK(cudaEventRecord(mk[1], s));
            return true;
        };
        Events ev(20);
        copy(0, ev.ev);
        double best = 1e300;
        for (int r = 0; r < 10; ++r)
            copy(r, {ev.ev[2 * r], ev.ev[2 * r + 1]});
        QS_GPU_CHECK(cudaStreamSynchronize(s));
        for (int r = 0; r < 10; ++r)
            best = std::min(best, ev.us(2 * r, 2 * r + 1));
        p.copyGbps = 2.0 * static_cast<double>(bytes) / (best * 1e-6) / 1e9;
    }
    // Per dtype the best of a fixed set of large GEMMs (median of 10 each, fastest candidate).
    const std::int64_t shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 8192, 16384}};
    // The A and B scales 16 bytes apart: cuBLASLt refuses FP8 launches whose scale pointers are
    // only 4-byte aligned (seen on the H100 and the H200: every FP8 plan refused at launch).
    const float one[8] = {1.0f, 0, 0, 0, 1.0f, 0, 0, 0};
    auto ones = lab2::upload(I, one, sizeof one, "the roofline's scales");
    const float *sc = static_cast<const float *>(ones.get());
    std::string refused;
    struct D {
        const char *name;
        cudaDataType_t in, out;
        int kind;
    };
    for (const D &d : {D{"bf16", CUDA_R_16BF, CUDA_R_16BF, launch::kLabBf16},
                       D{"fp8", CUDA_R_8F_E4M3, CUDA_R_16BF, launch::kLabE4m3},
                       D{"int8", CUDA_R_8I, CUDA_R_32I, launch::kLabInt8}}) {
        double best = 0;
        for (const auto &sh : shapes) {
            if (cancel)
                cancel->check();
            const std::int64_t m = sh[0], n = sh[1], k = sh[2];
            const std::size_t eIn = d.in == CUDA_R_16BF ? 2 : 1, eOut = d.out == CUDA_R_16BF ? 2 : 4;
            if ((eIn * (m + n) * k + eOut * m * n) > freeB / 2)
                continue;
            std::string why;
            // The ceiling is the best the library can do: every one of its first 16 candidates.
            auto g = makeGemm(d.in, d.out, d.kind == launch::kLabE4m3 ? Scale::Tensor : Scale::None, sc, sc + 4, m, n,
                              k, 1, why, 16);
            if (!g) {
                refused += std::string("; ") + d.name + " " + std::to_string(m) + "×" + std::to_string(n) + "×" +
                           std::to_string(k) + ": " + why;
                continue;
            }
            auto W = poolGet(I.pool, eIn * n * k, "the roofline's GEMM"),
                 X = poolGet(I.pool, eIn * m * k, "the roofline's GEMM"),
                 Y = poolGet(I.pool, eOut * m * n, "the roofline's GEMM");
            launch::labFill(d.kind, W.get(), n * k, 11, d.kind == launch::kLabBf16 ? 0.02f : 32.0f, s);
            launch::labFill(d.kind, X.get(), m * k, 12, d.kind == launch::kLabBf16 ? 1.0f : 32.0f, s);
            tune(
                *g, [&] { return g->run(W.get(), X.get(), Y.get(), s); }, s);
            cublasStatus_t last = CUBLAS_STATUS_SUCCESS;
            const Step step = [&](int, const std::vector<cudaEvent_t> &mk) {
                QS_GPU_CHECK(cudaEventRecord(mk[0], s));
                last = g->run(W.get(), X.get(), Y.get(), s);
                QS_GPU_CHECK(cudaEventRecord(mk[1], s));
                return last == CUBLAS_STATUS_SUCCESS;
            };
            if (auto t = timeStep(step, 1, 3, 10, s))
                best = std::max(best, 2.0 * m * n * k / (t->first.back() * 1e-6) / 1e12);
            else
                refused += std::string("; ") + d.name + " " + std::to_string(m) + "×" + std::to_string(n) + "×" +
                           std::to_string(k) + ": refused at launch (cuBLASLt status " +
                           std::to_string(static_cast<int>(last)) + ")";
        }
        if (best > 0)
            p.tflops[d.name] = best;
    }
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "device copy of %.0f MiB (best of 10, read + write bytes); per dtype the best of 4096³, 8192³, "
                  "8192×8192×16384 cuBLASLt GEMMs (median of 10)",
                  static_cast<double>(bytes) / (1 << 20));
    p.note = buf + refused;
    return p;
}

std::vector<GemmPoint> Engine::timeMoeGemms(const GemmBenchRequest &request, const CancelToken *cancel,
                                            std::vector<GemmLabCheck> &checks)
{
    request.validate();
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(cudaSetDevice(I.device));
    std::lock_guard ltLock(lt().mutex);
    const auto s = static_cast<cudaStream_t>(I.stream);
    const std::int64_t n = request.n, k = request.k, E = request.experts;
    const std::string id = "cuda:" + std::to_string(I.device);
    const std::int64_t maxM = *std::max_element(request.m.begin(), request.m.end());
    const std::int64_t maxMp = (maxM + 15) / 16 * 16;
    double total = 0, done = 0;
    for (auto m : request.m)
        total += static_cast<double>(request.formats.size()) * (E * gemmFlops(m, n, k) + 1e9);
    std::vector<GemmPoint> points;
    for (const GemmFormat f : request.formats) {
        const bool bf16 = f == GemmFormat::Bf16;
        if (!bf16 && k % 16 != 0)
            throw GpuError("cuBLASLt's FP8 GEMM needs K a multiple of 16 (K = " + std::to_string(k) + ")");
        const std::string name = toString(f), what = "the GEMM lab's MoE " + name + " operands";
        const std::size_t eIn = bf16 ? 2 : 1;
        const cudaDataType_t in = bf16 ? CUDA_R_16BF : CUDA_R_8F_E4M3;
        const int kind = bf16 ? launch::kLabBf16 : launch::kLabE4m3;
        // E experts' W [E, N, K], X [E, M, K] and two outputs [E, M, N] (loop, batched), BF16 out.
        auto W = poolGet(I.pool, eIn * static_cast<std::size_t>(E * n * k), what);
        auto X = poolGet(I.pool, eIn * static_cast<std::size_t>(E * maxMp * k), what);
        auto Dl = poolGet(I.pool, 2u * static_cast<std::size_t>(E * maxMp * n), what);
        auto Db = poolGet(I.pool, 2u * static_cast<std::size_t>(E * maxMp * n), what);
        launch::labFill(kind, W.get(), E * n * k, 0xE0ull + static_cast<int>(f), bf16 ? 0.02f : 64.0f, s);
        launch::labFill(kind, X.get(), E * maxMp * k, 0xE1ull + static_cast<int>(f), bf16 ? 1.0f : 64.0f, s);
        // W's and X's scales 16 bytes apart (cuBLASLt refuses 4-byte aligned FP8 scale pointers).
        const float scHost[8] = {2.5e-4f, 0, 0, 0, 1.5e-2f, 0, 0, 0};
        auto sc = lab2::upload(I, scHost, sizeof scHost, what);
        const float *sW = static_cast<const float *>(sc.get());
        const Scale scale = bf16 ? Scale::None : Scale::Tensor;
        for (const std::int64_t m : request.m) {
            if (cancel)
                cancel->stepProgress(done / total);
            if (cancel)
                cancel->check();
            std::unique_ptr<Gemm> loop, batched;
            std::string why, whyBatched;
            std::int64_t mp = m;
            // The smallest M (padded) whose plan cuBLASLt both offers and runs: a heuristic's
            // algorithm may still be refused at launch for a tiny M (FP8 at M = 1 on the H200).
            for (const std::int64_t t : mTries(m)) {
                mp = t;
                loop = makeGemm(in, CUDA_R_16BF, scale, sW, sW + 4, t, n, k, 1, why);
                if (!loop)
                    continue;
                const cublasStatus_t st = loop->run(W.get(), X.get(), Dl.get(), s);
                if (st == CUBLAS_STATUS_SUCCESS)
                    break;
                why = "the plan of M = " + std::to_string(t) + " was refused at launch (cuBLASLt status " +
                      std::to_string(static_cast<int>(st)) + ")";
                loop.reset();
            }
            if (!loop)
                throw GpuError("cuBLASLt runs no " + name + " GEMM of M = " + std::to_string(m) + " (" + why + ")");
            batched = makeGemm(in, CUDA_R_16BF, scale, sW, sW + 4, mp, n, k, static_cast<int>(E), whyBatched);
            const auto w = [&](std::int64_t e) { return static_cast<const char *>(W.get()) + eIn * e * n * k; };
            const auto x = [&](std::int64_t e) { return static_cast<const char *>(X.get()) + eIn * e * mp * k; };
            const auto dl = [&](std::int64_t e) { return static_cast<char *>(Dl.get()) + 2 * e * mp * n; };
            auto loopOnce = [&] {
                cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
                for (std::int64_t e = 0; e < E && st == CUBLAS_STATUS_SUCCESS; ++e)
                    st = loop->run(w(e), x(e), dl(e), s);
                return st;
            };
            tune(
                *loop, [&] { return loop->run(w(0), x(0), dl(0), s); }, s);
            // The batched call runs the loop's algorithm where the heuristic offers it (same
            // algorithm: the outputs must agree bit for bit), else its own fastest.
            if (batched) {
                tune(
                    *batched, [&] { return batched->run(W.get(), X.get(), Db.get(), s); }, s);
                const auto same = std::find_if(batched->algos.begin(), batched->algos.end(), [&](const auto &a) {
                    return std::memcmp(&a, &loop->algo, sizeof a) == 0;
                });
                if (same != batched->algos.end())
                    batched->algo = *same;
            }
            struct Mode {
                const char *label;
                int launches;
                std::function<cublasStatus_t()> run;
            };
            std::vector<Mode> modes{{"loop", static_cast<int>(E), loopOnce}};
            if (batched)
                modes.push_back({"strided-batched", 1, [&] { return batched->run(W.get(), X.get(), Db.get(), s); }});
            std::vector<GemmPoint> pair;
            for (const Mode &mode : modes) {
                const Step step = [&](int, const std::vector<cudaEvent_t> &mk) {
                    QS_GPU_CHECK(cudaEventRecord(mk[0], s));
                    const bool ok = mode.run() == CUBLAS_STATUS_SUCCESS;
                    QS_GPU_CHECK(cudaEventRecord(mk[1], s));
                    return ok;
                };
                std::vector<double> runs;
                const auto t = timeStep(step, 1, request.warmup, request.repeats, s, &runs);
                if (!t)
                    throw GpuError("cuBLASLt refused the MoE " + name + " " + mode.label +
                                   " at M = " + std::to_string(mp));
                GemmPoint p;
                p.format = name;
                p.m = m, p.n = n, p.k = k;
                p.experts = static_cast<int>(E);
                p.launches = mode.launches;
                setTimeSpread(p, runs);
                p.coldUs = t->second;
                p.padded = mp != m;
                p.paddedM = mp;
                p.repeats = request.repeats;
                p.device = id;
                setGemmRates(p);
                const Gemm &g = mode.launches > 1 ? *loop : *batched;
                p.algoIndex = algoIndexOf(g);
                p.algosTried = g.algosTried;
                p.note = std::string("MoE ") + mode.label + ": " + std::to_string(mode.launches) + " cuBLASLt launch" +
                         (mode.launches > 1 ? "es" : "") + " per step; algorithm " + std::to_string(p.algoIndex) +
                         " of " + std::to_string(g.algos.size()) + " (" + std::to_string(g.algosTried) + " timed)";
                pair.push_back(std::move(p));
            }
            // The check on the device: every output of every expert, the loop's and the batched
            // call's, against FP64 (kernels_gemmlab_check.h), and the two outputs compared bit
            // for bit on every element.
            launch::LabCheckProblem cp;
            cp.x.data = X.get(), cp.x.kind = kind, cp.x.batchStride = mp * k;
            cp.w.data = W.get(), cp.w.kind = kind, cp.w.batchStride = n * k;
            if (!bf16) { // tensor-wise scales: one each
                cp.x.scale = sW + 4, cp.x.perRow = false;
                cp.w.scale = sW, cp.w.perRow = false;
            }
            cp.m = mp, cp.n = n, cp.k = k, cp.batch = static_cast<int>(E);
            cp.relRef = std::ldexp(1.001, -8); // BF16 output rounding
            cp.relMag = std::ldexp(1.0, -12);  // FP32 accumulation's share of Σ|x·w|
            auto scratch = poolGet(I.pool, 64, what);
            cp.y = Dl.get();
            cp.yOther = batched ? Db.get() : nullptr;
            const launch::LabCheckResult cl = launch::labCheckFp64(cp, scratch.get(), s);
            const auto passed = [](const launch::LabCheckResult &c) {
                return c.checked > 0 && c.failed == 0 && c.worst <= 1.0;
            };
            const auto worstOf = [](const launch::LabCheckResult &c) {
                return c.failed > 0 ? std::max(c.worst, 1.0 + 1e-9) : c.worst;
            };
            const auto count = [](const launch::LabCheckResult &c) {
                return static_cast<int>(std::min<unsigned long long>(c.checked, 1u << 30));
            };
            char buf[320];
            std::snprintf(buf, sizeof buf,
                          "; output %s against FP64 on every element (%llu: %lld experts × %lld × %lld), worst %.3g "
                          "of the bound",
                          passed(cl) ? "checked" : "CHECK FAILED", cl.checked, static_cast<long long>(E),
                          static_cast<long long>(mp), static_cast<long long>(n), cl.worst);
            pair[0].note += buf;
            checks.push_back({name + " loop", m, count(cl), worstOf(cl)});
            if (batched) {
                cp.y = Db.get();
                cp.yOther = nullptr;
                const launch::LabCheckResult cb = launch::labCheckFp64(cp, scratch.get(), s);
                if (cl.differ == 0)
                    std::snprintf(buf, sizeof buf, "; bit-identical to the loop (%llu values compared)", cl.checked);
                else
                    std::snprintf(buf, sizeof buf,
                                  "; %llu of %llu values differ from the loop's bits (another algorithm or split)",
                                  cl.differ, cl.checked);
                pair[1].note += buf;
                // Either way the batched output passes the FP64 check on every element.
                std::snprintf(buf, sizeof buf,
                              "; output %s against FP64 on every element (%llu), worst %.3g of the bound",
                              passed(cb) ? "checked" : "CHECK FAILED", cb.checked, cb.worst);
                pair[1].note += buf;
                checks.push_back({name + " strided-batched", m, count(cb), worstOf(cb)});
            } else {
                pair[0].note += "; strided-batched " + name + ": " + whyBatched;
            }
            for (auto &p : pair)
                points.push_back(std::move(p));
            done += E * gemmFlops(m, n, k) + 1e9;
        }
    }
    if (cancel)
        cancel->stepProgress(1.0);
    return points;
}

} // namespace quantscope::gpu
