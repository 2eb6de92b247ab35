// SPDX-License-Identifier: MIT
// The GPU engine: device, stream, pinned uploads, and the pipeline of engine.h (device memory
// comes from the caching pool of device_pool.h).
// Runtime calls go through qs_gpu_compat.h (CUDA or HIP); kernels are launched via kernels.h.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <tuple>
#include <vector>

#include "device_pool.h"
#include "engine_host.h"
#include "kernels.h"
#include "qs_gpu_compat.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

using i64 = long long;
using u64 = unsigned long long;

std::size_t align256(std::size_t b)
{
    return (b + 255) / 256 * 256;
}

/// Carves typed arrays out of one pool block.
struct Arena {
    std::size_t bytes = 0;
    template <typename T> std::size_t reserve(std::size_t count)
    {
        const std::size_t off = bytes;
        bytes += align256(std::max<std::size_t>(count, 1) * sizeof(T));
        return off;
    }
};

} // namespace

struct RunImpl final : PipelineRun {
    HostPlan hp;
    bool quantize = true;
    PipelineOptions opts;
    const GpuTensor *w = nullptr, *wHat = nullptr;
    i64 n = 0;
    bool deviceMetrics = false;
    HistConfig hc;
    std::shared_ptr<void> block, codes, wHatOut;
    std::size_t offScales = 0, offZeros = 0, offBad = 0, offCtr = 0, offSt1 = 0, offSt2 = 0;
    int histLen = 0;
    bool fast = false;             ///< a value-table path (fp8_quant.cu, int_quant.cu) ran
    std::size_t offFlags = 0;      ///< its flags word (launch::kFastNonFinite)
    std::optional<QuantSpec> spec; ///< kept to rerun the generic path (empty: metrics of a given Ŵ)
    std::size_t offGlobal = 0;     ///< NVFP4's global scale (one float)
    std::size_t offPd2Host = 0;    ///< rows of pass 2's moments the host adds (instead of Stats2)
    int rowsPd2Host = 0;
    char *base() const { return static_cast<char *>(block.get()); }
};

namespace {

/// The pool-block buffers both enqueue paths carve, reserved in the same order: the head (scales,
/// zero points, bad-group flags) first; the caller's own buffers (counters first) next; then the
/// tables (pass-1 rows, Stats1, bin thresholds, pass-2 rows).
struct SharedBuffers {
    std::size_t offPd1 = 0, offPi1 = 0, offTw = 0, offTe = 0, offTa = 0, offPd2 = 0;
    float *scales = nullptr;
    signed char *zeros = nullptr;
    unsigned char *bad = nullptr;
    u64 *ctr = nullptr;
    double *pd1 = nullptr, *Te = nullptr, *Ta = nullptr, *pd2 = nullptr;
    i64 *pi1 = nullptr;
    Stats1 *st1 = nullptr;
    float *Tw = nullptr;

    static void reserveHead(Arena &A, RunImpl &R, i64 groups)
    {
        R.offScales = A.reserve<float>(static_cast<std::size_t>(groups));
        R.offZeros = A.reserve<signed char>(static_cast<std::size_t>(groups));
        R.offBad = A.reserve<unsigned char>(static_cast<std::size_t>(groups));
    }
    void reserveTables(Arena &A, RunImpl &R, int rows1, int bins, int rows2)
    {
        offPd1 = A.reserve<double>(static_cast<std::size_t>(rows1) * kP1D);
        offPi1 = A.reserve<i64>(static_cast<std::size_t>(rows1) * kP1I);
        R.offSt1 = A.reserve<Stats1>(1);
        offTw = A.reserve<float>(static_cast<std::size_t>(bins) + 1);
        offTe = A.reserve<double>(static_cast<std::size_t>(bins) + 1);
        offTa = A.reserve<double>(kAbsBins + 1);
        offPd2 = A.reserve<double>(static_cast<std::size_t>(rows2) * kP2D);
    }
    /// The pointers, once R.block holds the pool block.
    void resolve(const RunImpl &R)
    {
        char *b = R.base();
        scales = reinterpret_cast<float *>(b + R.offScales);
        zeros = reinterpret_cast<signed char *>(b + R.offZeros);
        bad = reinterpret_cast<unsigned char *>(b + R.offBad);
        ctr = reinterpret_cast<u64 *>(b + R.offCtr);
        pd1 = reinterpret_cast<double *>(b + offPd1);
        pi1 = reinterpret_cast<i64 *>(b + offPi1);
        st1 = reinterpret_cast<Stats1 *>(b + R.offSt1);
        Tw = reinterpret_cast<float *>(b + offTw);
        Te = reinterpret_cast<double *>(b + offTe);
        Ta = reinterpret_cast<double *>(b + offTa);
        pd2 = reinterpret_cast<double *>(b + offPd2);
    }
};

} // namespace

void Engine::Impl::enqueueFast(RunImpl &R, int in, int sms)
{
    const QuantPlan &P = R.hp.plan;
    const i64 n = R.n;
    // INT, FP4 and ProgressiveSpec share everything after pass 1 (≤ 16 levels per group).
    const bool prog = P.kind == kKindProg;
    const bool perGroup = P.kind == kKindInt || P.kind == kKindFp4 || prog;
    const bool isFp4 = P.kind == kKindFp4;
    const bool nv = isFp4 && P.fp4 == kFp4Nv;
    // The FP8 range pass: FP8's scale, or NVFP4's global scale from W's amax (unless given).
    const bool ranged = perGroup ? nv && !R.opts.tensorAmax && !R.opts.inputStats : !R.opts.inputStats;
    HistConfig &hc = R.hc;
    if (hc.wSource == 1)
        hc.wSource = 0; // W's fields come with the value table's rows
    hc.thresholds = perGroup ? 2 : 1;
    const i64 G = P.groups;
    const int rowsT = perGroup ? launch::valueWRows() : 0;
    const int rows1 = prog       ? launch::blocksProgFast1(in, P, sms)
                      : isFp4    ? launch::blocksFp4Fast1(in, P, n, sms)
                      : perGroup ? launch::blocksIntFast1(in, P, n, sms)
                                 : launch::fp8TableRows();
    // NVFP4 and ProgressiveSpec: Ŵ from level counts (rowsLv Ŵ rows; NVFP4 also a pass-1 row of
    // Ŵ's sums after pass 1's, rowsLv1; ProgressiveSpec's pass 1 adds those sums itself).
    const int rowsLv = nv ? 1 : prog ? launch::progLevelBlocks(P) : 0;
    const int rowsLv1 = nv ? 1 : 0;
    const int rowsG = rowsLv ? rowsLv : perGroup ? launch::blocksGroupsY(G, sms) : 0;
    const int rows2 = perGroup ? rowsG + rowsT : launch::fp8TableRows();
    R.fast = true;
    R.histLen = 3 * hc.bins + kAbsBins + 6;
    Arena A;
    SharedBuffers sb;
    SharedBuffers::reserveHead(A, R, G);
    // Zeroed before use (INT: one memset; FP8: by the code-table kernel): counters and histograms,
    // value counts, barrier, flags.
    R.offCtr = A.reserve<u64>(2 + static_cast<std::size_t>(R.histLen));
    const std::size_t offGvh = A.reserve<unsigned>(65536);
    const std::size_t offLevels = nv ? A.reserve<u64>(launch::kNvLevels) : 0;
    const std::size_t offBar = A.reserve<unsigned>(2); // the grid barrier of the cooperative kernels
    R.offFlags = A.reserve<unsigned>(1);
    sb.reserveTables(A, R, rows1 + rowsLv1, hc.bins, rows2);
    const std::size_t offPv = A.reserve<double>(2 * static_cast<std::size_t>(rowsT));
    const std::size_t offLut = perGroup && !prog ? 0 : A.reserve<unsigned char>(65536);
    const int rangeBlocks = prog                  ? launch::progRangeBlocks(P.rows, sms)
                            : ranged || !perGroup ? launch::fp8RangeBlocks(in, n, sms)
                                                  : 0;
    const std::size_t offParts = rangeBlocks ? A.reserve<unsigned>(3 * static_cast<std::size_t>(rangeBlocks)) : 0;
    // NVFP4's global scale / stage 1's scale (collect downloads it); stage 1's zero point, bad flag.
    R.offGlobal = nv || prog ? A.reserve<float>(1) : 0;
    const std::size_t offOuterZB = prog ? A.reserve<unsigned char>(2) : 0;
    const std::size_t offRowMm = prog ? A.reserve<float>(2 * static_cast<std::size_t>(P.rows)) : 0;
    const std::size_t offRowLv = prog ? A.reserve<u64>(16 * static_cast<std::size_t>(P.rows)) : 0;
    const std::size_t offCounts = perGroup && !rowsLv ? A.reserve<std::uint32_t>(4 * static_cast<std::size_t>(G)) : 0;
    const std::string what = "tensor '" + R.w->name() + "'";
    R.block = poolGet(pool, A.bytes, what);
    sb.resolve(R);
    char *b = R.base();
    auto [scales, zeros, bad, ctr, pd1, pi1, st1, Tw, Te, Ta, pd2] =
        std::tuple{sb.scales, sb.zeros, sb.bad, sb.ctr, sb.pd1, sb.pi1, sb.st1, sb.Tw, sb.Te, sb.Ta, sb.pd2};
    auto *gvh = reinterpret_cast<unsigned *>(b + offGvh);
    auto *bar = reinterpret_cast<unsigned *>(b + offBar);
    auto *flags = reinterpret_cast<unsigned *>(b + R.offFlags);
    auto *pv = reinterpret_cast<double *>(b + offPv);
    R.codes = poolGet(pool, static_cast<std::size_t>(n), "the codes of " + what);
    if (R.opts.wantDequantized)
        R.wHatOut = poolGet(pool, static_cast<std::size_t>(n) * 4, "Ŵ of " + what);
    auto *codes = static_cast<unsigned char *>(R.codes.get());
    auto *wHat = R.wHatOut ? static_cast<float *>(R.wHatOut.get()) : nullptr;
    u64 *hist = ctr + 2;
    const void *w = R.w->data();
    if (!perGroup) {
        auto *lut = reinterpret_cast<unsigned char *>(b + offLut);
        auto *parts = reinterpret_cast<unsigned *>(b + offParts);
        float given = 0.0f;
        if (R.opts.inputStats) {
            int zz;
            bool bd;
            tensorParamsFromStats(P, *R.opts.inputStats, given, zz, bd);
        } else {
            launch::fp8Range(in, w, n, parts, rangeBlocks, S());
            mark("fast: range");
        }
        launch::Fp8Zero zr;
        zr.gvh = gvh;
        zr.ctr = ctr;
        zr.ctrLen = 2 + R.histLen;
        zr.bar = bar;
        zr.flags = flags;
        launch::fp8Lut(in, parts, rangeBlocks, R.opts.inputStats.has_value(), given, P.fp, lut, scales, zeros, bad, zr,
                       S());
        mark("fast: code table");
        launch::fp8Pass(in, w, n, lut, P.fp, scales, codes, wHat, gvh, sms, S());
        mark("fast: codes, value counts");
        launch::fp8Tables(in, gvh, scales, P.fp, hc, flags, bar, pd1, pi1, st1, hist, pd2, S());
        mark("fast: tables (sums, histograms, moments)");
        R.offPd2Host = sb.offPd2; // Stats2 = the sum of these rows, added on the host
        R.rowsPd2Host = rows2;
        return;
    }
    if (nv) {
        // NVFP4's global scale, as the generic path takes it: given, from the stats at open, or
        // from W's amax (the FP8 range pass, then one block).
        auto *global = reinterpret_cast<float *>(b + R.offGlobal);
        R.hp.plan.nvGlobal = global; // P is R.hp.plan: every kernel below reads it
        if (R.opts.tensorAmax) {
            launch::nvGlobal(nullptr, 0, *R.opts.tensorAmax, true, global, S());
        } else if (R.opts.inputStats) {
            const TensorStats &st = *R.opts.inputStats;
            launch::nvGlobal(nullptr, 0, st.finiteCount ? static_cast<float>(st.absmax) : 0.0f, true, global, S());
        } else {
            auto *parts = reinterpret_cast<unsigned *>(b + offParts);
            launch::fp8Range(in, w, n, parts, rangeBlocks, S());
            mark("fast: range");
            launch::nvGlobalParts(parts, rangeBlocks, global, S());
        }
        mark("fast: NVFP4 global scale");
    }
    auto *lut = reinterpret_cast<unsigned char *>(b + offLut);
    if (prog) {
        // Rows' extremes and W's range in one pass; stage 1's scale and code table (the FP8
        // path's kernel, which also zeroes the counters); stage 2's row scales from the extremes.
        auto *rowMm = reinterpret_cast<float *>(b + offRowMm);
        auto *parts = reinterpret_cast<unsigned *>(b + offParts);
        auto *s1 = reinterpret_cast<float *>(b + R.offGlobal);
        auto *zb1 = reinterpret_cast<unsigned char *>(b + offOuterZB);
        launch::progRange(in, w, P, rowMm, parts, rangeBlocks, S());
        mark("fast: row ranges");
        const float given = R.opts.inputStats ? progStage1Scale(P, *R.opts.inputStats) : 0.0f;
        launch::Fp8Zero zr{gvh, ctr, 2 + R.histLen, bar, flags};
        launch::fp8Lut(in, parts, rangeBlocks, R.opts.inputStats.has_value(), given, P.fp, lut, s1,
                       reinterpret_cast<signed char *>(zb1), zb1 + 1, zr, S());
        R.hp.plan.outerScale = s1; // P is R.hp.plan: every kernel below reads them
        R.hp.plan.outerBad = zb1 + 1;
        launch::progParams(P, rowMm, scales, zeros, bad, S());
        mark("fast: stage 1 table, stage 2 scales");
    } else {
        QS_GPU_CHECK(qsMemsetAsync(ctr, 0, R.offFlags + sizeof(unsigned) - R.offCtr, stream));
    }
    launch::IntFast1 a1;
    a1.codes = codes;
    a1.wHat = wHat;
    a1.scales = scales;
    a1.zeros = zeros;
    a1.bad = bad;
    a1.counts = rowsLv ? nullptr : reinterpret_cast<unsigned char *>(b + offCounts);
    a1.levels = nv ? reinterpret_cast<u64 *>(b + offLevels) : prog ? reinterpret_cast<u64 *>(b + offRowLv) : nullptr;
    a1.flags = flags;
    a1.pd = pd1;
    a1.pi = pi1;
    if (prog)
        launch::progFast1(in, w, P, a1, lut, rows1, S());
    else if (isFp4)
        launch::fp4Fast1(in, w, n, P, a1, rows1, S());
    else
        launch::intFast1(in, w, n, P, a1, rows1, S());
    mark("fast: pass 1 (codes, code counts, error sums)");
    double *pdLv = pd1 + static_cast<std::size_t>(rows1) * kP1D;
    i64 *piLv = pi1 + static_cast<std::size_t>(rows1) * kP1I;
    if (nv)
        launch::nvLevelsRow(a1.levels, P.nvGlobal, flags, pdLv, piLv, S());
    launch::finalize1(pd1, pi1, rows1 + rowsLv1, nullptr, nullptr, 0, hc, st1, Tw, Te, Ta, S());
    mark("fast: finalize 1 (thresholds)");
    if (nv)
        launch::nvLevelsY(a1.levels, P.nvGlobal, st1, Tw, hc.bins, hist, pd2, S());
    else if (prog)
        launch::progLevelsY(P, a1.levels, scales, zeros, st1, Tw, hc.bins, hist, pd2, rowsLv, S());
    else
        launch::groupsY(P, a1.counts, scales, zeros, st1, Tw, hc.bins, hist, pd2, rowsG, S());
    mark("fast: Ŵ from code counts");
    launch::IntFast2 a2;
    a2.codes = codes;
    a2.scales = scales;
    a2.zeros = zeros;
    a2.st = st1;
    a2.Te = reinterpret_cast<const float *>(Te);
    a2.Ta = reinterpret_cast<const float *>(Ta);
    a2.gvh = gvh;
    a2.hist = hist;
    a2.flags = flags;
    a2.bins = hc.bins;
    QuantPlan p2 = P; // ProgressiveSpec: a row per group in pass 2's chunk → group map
    if (prog)
        p2.teamLog2 = fastRowTeamLog2(P.cols);
    launch::intFast2(in, w, n, p2, a2, sms, S());
    mark("fast: pass 2 (value counts, error histograms)");
    launch::valueW(in, gvh, hc, flags, bar, pv, st1, hist, pd2 + static_cast<std::size_t>(rowsG) * kP2D, S());
    mark("fast: W from value counts");
    R.offPd2Host = sb.offPd2; // Stats2 = the sum of the Ŵ and W moment rows, added on the host
    R.rowsPd2Host = rows2;
}

Engine::Engine(std::unique_ptr<Impl> impl) : m_impl(std::move(impl))
{
}
Engine::~Engine() = default;

std::unique_ptr<Engine> Engine::create(int device, std::string &reason, GpuCause *cause)
{
    const auto fail = [&](GpuCause c, const std::string &detail) {
        reason = gpuUnavailableText(c, QS_GPU_API_NAME, detail);
        if (cause)
            *cause = c;
    };
    int count = 0;
    if (const qsError_t e = qsGetDeviceCount(&count); e != qsSuccess) {
        const auto answer = e == qsErrorNoDevice             ? GpuRuntimeAnswer::NoDevice
                            : e == qsErrorInsufficientDriver ? GpuRuntimeAnswer::InsufficientDriver
                                                             : GpuRuntimeAnswer::OtherError;
        fail(classifyGpuStart(answer, pciGpuPresent(QS_GPU_PCI_VENDOR)), qsGetErrorString(e));
        (void)qsGetLastError();
        return nullptr;
    }
    if (count <= device) {
        fail(GpuCause::NoDevice, {});
        return nullptr;
    }
    try {
        auto impl = std::make_unique<Impl>();
        impl->device = device;
        QS_GPU_CHECK(qsSetDevice(device));
        QS_GPU_CHECK(qsGetDeviceProps(impl->props, device));
        QS_GPU_CHECK(qsStreamCreateNonBlocking(&impl->stream));
        QS_GPU_CHECK(qsEventCreate(&impl->evStart));
        QS_GPU_CHECK(qsEventCreate(&impl->evStop));
        for (int i = 0; i < 2; ++i) {
            QS_GPU_CHECK(qsEventCreate(&impl->stagingDone[i]));
            if (qsMallocHost(&impl->staging[i], impl->stagingBytes) != qsSuccess) {
                (void)qsGetLastError();
                impl->staging[i] = nullptr;
                impl->pinned = false;
            }
        }
        return std::unique_ptr<Engine>(new Engine(std::move(impl)));
    } catch (const Error &e) {
        fail(GpuCause::StartFailed, std::string("device ") + std::to_string(device) + ": " + e.what());
        return nullptr;
    }
}

EngineInfo Engine::info() const
{
    EngineInfo i;
    i.api = QS_GPU_API_NAME;
    i.name = m_impl->props.name;
    i.totalMemory = m_impl->props.totalGlobalMem;
    i.multiProcessors = m_impl->props.multiProcessorCount;
    i.ccMajor = m_impl->props.major;
    i.ccMinor = m_impl->props.minor;
    i.l2Bytes = m_impl->props.l2CacheSize;
    size_t freeB = 0, totalB = 0;
    if (qsSetDevice(m_impl->device) == qsSuccess && qsMemGetInfo(&freeB, &totalB) == qsSuccess) {
        i.freeMemory = freeB;
        i.totalMemory = totalB;
    } else {
        (void)qsGetLastError();
    }
    return i;
}

std::shared_ptr<GpuTensor> Engine::upload(const Tensor &t, const std::string &name)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    const DType src = t.dtype();
    const bool raw = (src == DType::F32 || src == DType::BF16 || src == DType::F16) && t.isContiguous();
    const DType storage = raw ? src : DType::F32;
    const i64 n = t.numel();
    const std::size_t esize = storage == DType::F32 ? 4 : 2;
    const std::size_t bytes = static_cast<std::size_t>(n) * esize;
    auto lease = poolGet(I.pool, std::max<std::size_t>(bytes, 32), "tensor '" + name + "'");
    char *dst = static_cast<char *>(lease.get());
    const std::byte *srcBytes = t.data();
    if (bytes > 0) {
        if (raw) {
            I.copyToDevice(dst, srcBytes, bytes);
        } else if (!I.pinned) {
            std::vector<float> tmp(static_cast<std::size_t>(n));
            t.decodeRange(0, tmp);
            QS_GPU_CHECK(qsMemcpyAsync(dst, tmp.data(), bytes, qsMemcpyHostToDevice, I.stream));
            QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        } else {
            // Double-buffered pinned staging: decode a slice while the previous one travels; an
            // mmap'd source is read once, sequentially.
            const std::size_t slice = I.stagingBytes / 4 * 4;
            int buf = 0;
            for (std::size_t off = 0; off < bytes; off += slice, buf ^= 1) {
                const std::size_t len = std::min(slice, bytes - off);
                QS_GPU_CHECK(qsEventSynchronize(I.stagingDone[buf]));
                t.decodeRange(static_cast<i64>(off / 4),
                              std::span<float>(static_cast<float *>(I.staging[buf]), len / 4));
                QS_GPU_CHECK(qsMemcpyAsync(dst + off, I.staging[buf], len, qsMemcpyHostToDevice, I.stream));
                QS_GPU_CHECK(qsEventRecord(I.stagingDone[buf], I.stream));
            }
        }
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    }
    return std::make_shared<GpuTensor>(t.shape(), src, storage, dst, name, std::move(lease));
}

std::unique_ptr<PipelineRun> Engine::enqueue(const GpuTensor &w, const QuantSpec *spec, const PipelineOptions &options,
                                             const GpuTensor *wHat)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    auto run = std::make_unique<RunImpl>();
    RunImpl &R = *run;
    I.markNames.clear();
    R.opts = options;
    R.w = &w;
    R.wHat = wHat;
    R.quantize = wHat == nullptr;
    R.n = w.numel();
    const int sms = I.props.multiProcessorCount;
    const int in = inTypeOf(w.storage());
    const i64 n = R.n, chunks = (n + kChunk - 1) / kChunk;
    if (R.quantize) {
        if (!spec)
            throw UnsupportedError("a quantization run needs a spec", Location{{}, w.name(), {}});
        R.hp = buildPlan(*spec, w.shape(), w.dtype(), QS_WARP_SIZE, w.name());
    } else {
        if (wHat->numel() != n || wHat->storage() != DType::F32)
            throw UnsupportedError("Ŵ must be an FP32 tensor with the elements of W", Location{{}, w.name(), {}});
        R.hp.plan.gran = kGranTensor;
    }
    const QuantPlan &P = R.hp.plan;
    R.deviceMetrics = options.metrics && deviceMetricsSupported(options.metricsOptions);
    const bool nvfp4 = R.quantize && P.kind == kKindFp4 && P.fp4 == kFp4Nv;
    const bool prog = R.quantize && P.kind == kKindProg;
    // The W statistics pass: per-tensor scales, NVFP4's global scale and ProgressiveSpec's stage-1
    // scale (all from W's range).
    const bool tensorFresh = R.quantize && (P.gran == kGranTensor || nvfp4 || prog) && !options.inputStats;

    // Metrics setup.
    HistConfig &hc = R.hc;
    hc.bins = std::max(options.metricsOptions.bins, 1);
    hc.haveLo = options.metricsOptions.lo.has_value();
    hc.haveHi = options.metricsOptions.hi.has_value();
    hc.lo = options.metricsOptions.lo.value_or(0.0);
    hc.hi = options.metricsOptions.hi.value_or(0.0);
    if (options.inputStats) {
        const TensorStats &s = *options.inputStats;
        hc.wSource = 2;
        hc.knownMin = s.min;
        hc.knownMax = s.max;
        hc.knownSum = s.mean * static_cast<double>(s.finiteCount);
        hc.knownFinite = s.finiteCount;
        hc.knownNan = s.nanCount;
        hc.knownInf = s.infCount;
        hc.wMoments = false;
    } else {
        hc.wSource = tensorFresh ? 1 : 0;
        hc.wMoments = true;
    }

    if (spec)
        R.spec = *spec;
    if (fastPathFor(R.hp.plan, R.quantize, R.deviceMetrics, options.debugFlags, in, R.n)) {
        I.enqueueFast(R, in, sms);
        return run;
    }

    // One pool block for everything small; codes and Ŵ apart.
    const i64 G = R.quantize ? P.groups : 1;
    const int rowsS = tensorFresh ? launch::blocksStats(in, chunks, sms) : 0;
    const int rows1 = launch::blocksQuant(in, P.kind, chunks, sms);
    const int rows2 = R.deviceMetrics ? launch::blocksHist(in, P.kind, hc.bins, chunks, sms) : 0;
    R.histLen = 3 * hc.bins + kAbsBins + 6;
    Arena A;
    SharedBuffers sb;
    SharedBuffers::reserveHead(A, R, G);
    const bool needRange = R.quantize && P.gran != kGranTensor && !P.fastGroup;
    const std::size_t offRange = needRange ? A.reserve<unsigned>(3 * static_cast<std::size_t>(G)) : 0;
    R.offGlobal = nvfp4 || prog ? A.reserve<float>(1) : 0; // NVFP4's global / stage 1's scale
    const std::size_t offOuterZ = prog ? A.reserve<signed char>(1) : 0,
                      offOuterBad = prog ? A.reserve<unsigned char>(1) : 0;
    R.offCtr = A.reserve<u64>(2 + static_cast<std::size_t>(R.histLen));
    const std::size_t offPdS = A.reserve<double>(static_cast<std::size_t>(rowsS) * kP1D);
    const std::size_t offPiS = A.reserve<i64>(static_cast<std::size_t>(rowsS) * kP1I);
    sb.reserveTables(A, R, rows1, hc.bins, std::max(rows2, 1));
    R.offSt2 = A.reserve<Stats2>(1);
    const std::string what = "tensor '" + w.name() + "'";
    R.block = poolGet(I.pool, A.bytes, what);
    sb.resolve(R);
    char *b = R.base();
    auto [scales, zeros, bad, ctr, pd1, pi1, st1, Tw, Te, Ta, pd2] =
        std::tuple{sb.scales, sb.zeros, sb.bad, sb.ctr, sb.pd1, sb.pi1, sb.st1, sb.Tw, sb.Te, sb.Ta, sb.pd2};
    auto *pdS = reinterpret_cast<double *>(b + offPdS);
    auto *piS = reinterpret_cast<i64 *>(b + offPiS);
    auto *st2 = reinterpret_cast<Stats2 *>(b + R.offSt2);
    if (R.quantize) {
        R.codes = poolGet(I.pool, static_cast<std::size_t>(n), "the codes of " + what);
        if (options.wantDequantized)
            R.wHatOut = poolGet(I.pool, static_cast<std::size_t>(n) * 4, "Ŵ of " + what);
    }
    QS_GPU_CHECK(qsMemsetAsync(ctr, 0, (2 + static_cast<std::size_t>(R.histLen)) * sizeof(u64), I.stream));

    // Group ranges and scales.
    if (nvfp4) {
        auto *global = reinterpret_cast<float *>(b + R.offGlobal);
        R.hp.plan.nvGlobal = global; // P is R.hp.plan: every kernel below reads it
        if (options.tensorAmax) {
            if (tensorFresh) { // W's statistics still feed the metrics
                launch::statsW(in, w.data(), n, rowsS, pdS, piS, I.S());
                I.mark("range (W stats)");
            }
            launch::nvGlobal(nullptr, 0, *options.tensorAmax, true, global, I.S());
        } else if (options.inputStats) {
            const TensorStats &st = *options.inputStats;
            const float amax = st.finiteCount ? static_cast<float>(st.absmax) : 0.0f;
            launch::nvGlobal(nullptr, 0, amax, true, global, I.S());
        } else {
            launch::statsW(in, w.data(), n, rowsS, pdS, piS, I.S());
            I.mark("range (W stats)");
            launch::nvGlobal(pdS, rowsS, 0.0f, false, global, I.S());
        }
        I.mark("NVFP4 global scale");
    }
    if (prog) {
        // Stage 1, FP8 per tensor: its scale and NaN/Inf flag (the stage-2 kernels read both).
        QuantPlan p1 = P;
        p1.kind = kKindFp8;
        p1.gran = kGranTensor;
        p1.groups = 1;
        p1.hasZero = false;
        auto *s1 = reinterpret_cast<float *>(b + R.offGlobal);
        auto *z1 = reinterpret_cast<signed char *>(b + offOuterZ);
        auto *bad1 = reinterpret_cast<unsigned char *>(b + offOuterBad);
        if (options.inputStats) {
            float sc;
            int zz;
            bool bd;
            tensorParamsFromStats(p1, *options.inputStats, sc, zz, bd);
            launch::paramsDirect(p1, sc, zz, bd, s1, z1, bad1, ctr, I.S());
        } else {
            launch::statsW(in, w.data(), n, rowsS, pdS, piS, I.S());
            I.mark("range (W stats)");
            launch::params(p1, nullptr, nullptr, nullptr, pdS, piS, rowsS, s1, z1, bad1, ctr, I.S());
        }
        R.hp.plan.outerScale = s1;
        R.hp.plan.outerBad = bad1;
        I.mark("stage 1 scale");
    }
    if (R.quantize) {
        if (P.gran == kGranTensor) {
            if (options.inputStats) {
                float s;
                int z;
                bool bd;
                tensorParamsFromStats(P, *options.inputStats, s, z, bd);
                launch::paramsDirect(P, s, z, bd, scales, zeros, bad, ctr, I.S());
            } else {
                if (!prog) { // ProgressiveSpec's stage 1 ran it
                    launch::statsW(in, w.data(), n, rowsS, pdS, piS, I.S());
                    I.mark("range (W stats)");
                }
                launch::params(P, nullptr, nullptr, nullptr, pdS, piS, rowsS, scales, zeros, bad, ctr, I.S());
                I.mark("scales");
            }
        } else if (needRange) {
            auto *gmin = reinterpret_cast<unsigned *>(b + offRange);
            QS_GPU_CHECK(qsMemsetAsync(gmin, 0xFF, static_cast<std::size_t>(G) * 4, I.stream));
            QS_GPU_CHECK(qsMemsetAsync(gmin + G, 0, static_cast<std::size_t>(G) * 8, I.stream));
            launch::rangeGroups(in, w.data(), n, P, gmin, gmin + G, gmin + 2 * G, sms, I.S());
            I.mark("range (groups)");
            launch::params(P, gmin, gmin + G, gmin + 2 * G, nullptr, nullptr, 0, scales, zeros, bad, ctr, I.S());
            I.mark("scales");
        }
    }

    // Pass 1.
    launch::Pass1 p1;
    p1.codes = R.quantize ? static_cast<unsigned char *>(R.codes.get()) : nullptr;
    p1.wHat = R.wHatOut ? static_cast<float *>(R.wHatOut.get()) : nullptr;
    p1.yIn = wHat ? static_cast<const float *>(wHat->data()) : nullptr;
    p1.scales = scales;
    p1.zeros = zeros;
    p1.bad = bad;
    p1.nonFiniteGroups = ctr;
    p1.firstBadNeg = ctr + 1;
    p1.metrics = R.deviceMetrics;
    p1.accW = hc.wSource == 0;
    p1.hwConvert = (options.debugFlags & launch::kBitConvert) == 0;
    p1.pd = pd1;
    p1.pi = pi1;
    launch::quant(in, w.data(), n, P, p1, rows1, I.S());
    I.mark("pass 1 (codes, sums)");

    if (R.deviceMetrics) {
        launch::finalize1(pd1, pi1, rows1, pdS, piS, rowsS, hc, st1, Tw, Te, Ta, I.S());
        I.mark("finalize 1 (thresholds)");
        launch::Pass2 p2;
        p2.yIn = p1.yIn;
        p2.codes = p1.codes;
        p2.scales = scales;
        p2.zeros = zeros;
        p2.bad = bad;
        p2.st = st1;
        p2.Tw = Tw;
        p2.Te = Te;
        p2.Ta = Ta;
        p2.hist = ctr + 2;
        p2.pd = pd2;
        p2.bins = hc.bins;
        p2.wMoments = hc.wMoments;
        p2.flags = options.debugFlags;
        p2.hwConvert = (options.debugFlags & launch::kBitConvert) == 0;
        launch::hist(in, w.data(), n, P, p2, rows2, I.S());
        I.mark("pass 2 (histograms, moments)");
        launch::finalize2(pd2, rows2, st2, I.S());
        I.mark("finalize 2 (moments)");
    }
    return run;
}

namespace {

template <typename T> std::vector<T> download(const void *src, std::size_t count, qsStream_t s)
{
    std::vector<T> v(count);
    if (count)
        QS_GPU_CHECK(qsMemcpyAsync(v.data(), src, count * sizeof(T), qsMemcpyDeviceToHost, s));
    return v;
}

Tensor downloadTensor(const GpuTensor &t, qsStream_t s)
{
    const std::size_t esize = t.storage() == DType::F32 ? 4 : 2;
    std::vector<std::byte> bytes(static_cast<std::size_t>(t.numel()) * esize);
    if (!bytes.empty())
        QS_GPU_CHECK(qsMemcpyAsync(bytes.data(), t.data(), bytes.size(), qsMemcpyDeviceToHost, s));
    QS_GPU_CHECK(qsStreamSynchronize(s));
    return Tensor::fromBytes(t.storage(), t.shape(), std::move(bytes));
}

} // namespace

void Engine::collect(PipelineRun &runBase, QuantizedTensor *q, ErrorMetrics *m)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    auto &R = dynamic_cast<RunImpl &>(runBase);
    QS_GPU_CHECK(qsSetDevice(I.device));
    const char *b = R.base();
    const QuantPlan &P = R.hp.plan;
    const auto n = static_cast<std::size_t>(R.n);
    const auto G = static_cast<std::size_t>(R.quantize ? P.groups : 1);
    if (R.fast) {
        unsigned flags = 0;
        QS_GPU_CHECK(qsMemcpyAsync(&flags, b + R.offFlags, sizeof flags, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        if (flags & launch::kFastNonFinite) {
            // Non-finite values: the generic kernels report them exactly as the CPU does.
            PipelineOptions o = R.opts;
            o.debugFlags |= launch::kNoFastPath;
            auto again = enqueue(*R.w, R.spec ? &*R.spec : nullptr, o, nullptr);
            collect(*again, q, m);
            return;
        }
    }
    auto ctr = download<u64>(b + R.offCtr, 2, I.stream);
    QuantizedTensor local;
    const bool wantQ = R.quantize && (q || (m && R.opts.metrics));
    if (wantQ) {
        QuantizedTensor &out = q ? *q : local;
        out = R.hp.skeleton;
        if (R.opts.downloadCodes || !q)
            out.codes = download<std::uint8_t>(R.codes.get(), n, I.stream);
        out.scales = download<float>(b + R.offScales, G, I.stream);
        if (P.hasZero) {
            auto z = download<signed char>(b + R.offZeros, G, I.stream);
            out.zeros.assign(z.begin(), z.end());
        }
        if (R.wHatOut && !R.opts.keepDequantizedOnDevice)
            out.dequantized = download<float>(R.wHatOut.get(), n, I.stream);
        if ((P.kind == kKindFp4 && P.fp4 == kFp4Nv) || P.kind == kKindProg)
            out.outerScales = download<float>(b + R.offGlobal, 1, I.stream);
    }
    Stats1 s1{};
    Stats2 s2{};
    std::vector<double> pd2Host;
    HostHist hh;
    if (m && R.opts.metrics && R.deviceMetrics) {
        QS_GPU_CHECK(qsMemcpyAsync(&s1, b + R.offSt1, sizeof s1, qsMemcpyDeviceToHost, I.stream));
        if (R.rowsPd2Host > 0) {
            pd2Host.resize(static_cast<std::size_t>(R.rowsPd2Host) * kP2D);
            QS_GPU_CHECK(qsMemcpyAsync(pd2Host.data(), b + R.offPd2Host, pd2Host.size() * sizeof(double),
                                       qsMemcpyDeviceToHost, I.stream));
        } else {
            QS_GPU_CHECK(qsMemcpyAsync(&s2, b + R.offSt2, sizeof s2, qsMemcpyDeviceToHost, I.stream));
        }
        hh.raw.resize(static_cast<std::size_t>(R.histLen));
        static_assert(sizeof(std::uint64_t) == sizeof(u64));
        QS_GPU_CHECK(qsMemcpyAsync(hh.raw.data(), b + R.offCtr + 2 * sizeof(u64), hh.raw.size() * sizeof(u64),
                                   qsMemcpyDeviceToHost, I.stream));
    }
    QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    for (int r = 0; r < R.rowsPd2Host; ++r) // the rows in order, as finalize2 adds them
        for (int f = 0; f < kP2D; ++f)
            s2.d[f] += pd2Host[static_cast<std::size_t>(r) * kP2D + static_cast<std::size_t>(f)];
    if (wantQ) {
        QuantizedTensor &out = q ? *q : local;
        out.nonFiniteGroups = static_cast<std::int64_t>(ctr[0]);
        out.firstNonFinite = ctr[1] ? static_cast<std::int64_t>(~ctr[1]) : -1;
    }
    if (!(m && R.opts.metrics))
        return;
    if (R.deviceMetrics && !(s1.flags & kFlagNonFiniteError)) {
        *m = assembleMetrics(static_cast<std::int64_t>(n), s1, s2, hh, R.hc, R.opts.metricsOptions, R.opts.inputStats);
        return;
    }
    // The CPU reference computes what the device does not (symlog, > 4096 bins, non-finite Ŵ
    // where W is finite): W and Ŵ come back to the host.
    const Tensor wHost = downloadTensor(*R.w, I.stream);
    std::vector<float> wHatHost;
    if (R.wHat) {
        wHatHost = download<float>(R.wHat->data(), n, I.stream);
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    } else {
        QuantizedTensor &qq = q ? *q : local;
        if (qq.dequantized.size() == n) {
            wHatHost = qq.dequantized;
        } else {
            if (qq.codes.size() != n)
                qq.codes = download<std::uint8_t>(R.codes.get(), n, I.stream), qsStreamSynchronize(I.stream);
            wHatHost.resize(n);
            makeQuantizer(qq.spec)->dequantize(qq, wHatHost);
        }
    }
    *m = computeErrorMetrics(wHost, wHatHost, R.opts.metricsOptions);
}

ErrorMetrics Engine::metricsOf(const GpuTensor &w, const GpuTensor &wHat, const ErrorMetricsOptions &options,
                               const std::optional<TensorStats> &inputStats)
{
    PipelineOptions po; // metrics on
    po.metricsOptions = options;
    po.inputStats = inputStats;
    ErrorMetrics m;
    auto run = enqueue(w, nullptr, po, &wHat);
    collect(*run, nullptr, &m);
    return m;
}

std::shared_ptr<GpuTensor> Engine::dequantizedOnDevice(PipelineRun &runBase)
{
    auto &R = dynamic_cast<RunImpl &>(runBase);
    if (!R.wHatOut)
        throw UnsupportedError("the run kept no Ŵ (enqueue it with wantDequantized)", Location{{}, R.w->name(), {}});
    return std::make_shared<GpuTensor>(R.w->shape(), DType::F32, DType::F32, R.wHatOut.get(), R.w->name() + " (Ŵ)",
                                       R.wHatOut);
}

const void *Engine::codesOnDevice(PipelineRun &run)
{
    return dynamic_cast<RunImpl &>(run).codes.get();
}

std::vector<std::uint8_t> Engine::encodeFp8(bool e4m3, std::uint32_t first, std::size_t count)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    auto buf = poolGet(I.pool, count, "the FP8 test buffer");
    launch::fp8EncodeRange(e4m3, first, count, static_cast<unsigned char *>(buf.get()), I.S());
    auto out = download<std::uint8_t>(buf.get(), count, I.stream);
    QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    return out;
}

bool engineSupports(const QuantSpec &spec)
{
    if (std::holds_alternative<IntSpec>(spec))
        return true;
    if (const auto *c = std::get_if<ConstOptSpec>(&spec))
        return c->rotate == 0; // the backend rotates around the pipeline (cuda_backend.cpp)
    if (const auto *p = std::get_if<ProgressiveSpec>(&spec))
        return progressiveOnDevice(*p);
    return std::holds_alternative<Fp8Spec>(spec) || std::holds_alternative<MxFp4Spec>(spec) ||
           std::holds_alternative<NvFp4Spec>(spec);
}

} // namespace quantscope::gpu
