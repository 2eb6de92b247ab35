// SPDX-License-Identifier: MIT
// The engine's Hadamard rotation and constOpt c sweep (kernels in hadamard.cu and csweep.cu): the
// device state of engine_impl.h, the work queued on the engine's one stream. The sweep's MSEs are
// the exact fixed-point sums of quant/constopt_sweep.h, so they equal the CPU evaluator's bits.
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <numeric>

#include "device_pool.h"
#include "kernels_sweep.h"
#include "numeric/fixedsum.h"
#include "plan.h"
#include "qs_gpu_compat.h"
#include "quant/constopt_sweep.h"
#include "numeric/hadamard.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

using u64 = unsigned long long;

/// The indices of fc in ascending order (pow2's difference arrays need it; stable), and fc so sorted.
std::vector<std::size_t> ascendingOrder(const std::vector<float> &fc, std::vector<float> &sorted)
{
    std::vector<std::size_t> order(fc.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return fc[a] < fc[b]; });
    sorted.resize(fc.size());
    for (std::size_t i = 0; i < fc.size(); ++i)
        sorted[i] = fc[order[i]];
    return order;
}

/// One matrix's sweep over the n sorted values dFc on `stream`, in tiles of kSweepTile: value i's
/// fixed-point sum into sums[2i, 2i + 1] and its flag into bad[i] (bad zeroed by the caller);
/// `parts` holds blocks·2·kSweepTile words.
void enqueueSweepTiles(bool pow2, const float *x, long long rows, long long K, long long group, const float *m,
                       const float *dFc, std::size_t n, int unit, u64 *parts, unsigned *bad, u64 *sums, int blocks,
                       void *stream, const CancelToken *cancel)
{
    for (std::size_t t0 = 0; t0 < n; t0 += launch::kSweepTile) {
        if (cancel) {
            cancel->stepProgress(static_cast<double>(t0) / static_cast<double>(n));
            cancel->check();
        }
        const int cnt = static_cast<int>(std::min<std::size_t>(launch::kSweepTile, n - t0));
        launch::sweepTile(pow2, x, rows, K, group, m, dFc + t0, cnt, unit, parts, bad + t0, blocks, stream);
        launch::sweepReduce(pow2, parts, blocks, cnt, sums + 2 * t0, stream);
    }
}

class GpuSweepEvaluator final : public CSweepGridEvaluator {
public:
    GpuSweepEvaluator(Engine::Impl &impl, std::shared_ptr<const GpuTensor> x, std::int64_t group, bool pow2)
        : m_impl(impl), m_x(std::move(x)), m_group(group), m_pow2(pow2)
    {
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const auto [R, K] = matrixView(m_x->shape());
        m_rows = R;
        m_K = K;
        m_groups = R * ((K + group - 1) / group);
        m_sms = I.props.multiProcessorCount;
        m_blocks = launch::sweepBlocks(m_groups, m_sms);
        const std::string what = "the c sweep of '" + m_x->name() + "'";
        m_m = poolGet(I.pool, static_cast<std::size_t>(std::max<std::int64_t>(m_groups, 1)) * sizeof(float), what);
        auto ctr = poolGet(I.pool, sizeof(launch::SweepCounters), what);
        QS_GPU_CHECK(qsMemsetAsync(ctr.get(), 0, sizeof(launch::SweepCounters), I.stream));
        launch::sweepGroups(static_cast<const float *>(m_x->data()), R, K, group, static_cast<float *>(m_m.get()),
                            static_cast<launch::SweepCounters *>(ctr.get()), m_sms, I.S());
        launch::SweepCounters c;
        QS_GPU_CHECK(qsMemcpyAsync(&c, ctr.get(), sizeof c, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        m_counted = static_cast<std::int64_t>(c.counted);
        m_nonFinite = static_cast<std::int64_t>(c.nonFinite);
        m_unit = fixed::fixedUnit(qmath::fromBits(c.amaxBits), m_counted);
        m_parts = poolGet(I.pool, static_cast<std::size_t>(m_blocks) * 2 * launch::kSweepTile * sizeof(u64), what);
    }

    std::vector<double> mse(const std::vector<double> &cs, const CancelToken *cancel) const override
    {
        std::vector<float> fc(cs.size());
        for (std::size_t i = 0; i < cs.size(); ++i)
            fc[i] = static_cast<float>(cs[i]);
        return evaluate(fc, cancel);
    }

    double mse(float fc) const override { return evaluate({fc}, nullptr).at(0); }

private:
    /// MSE at each fc: sorted ascending (pow2's difference arrays need it), in tiles of kSweepTile.
    std::vector<double> evaluate(const std::vector<float> &fcIn, const CancelToken *cancel) const
    {
        const std::size_t n = fcIn.size();
        std::vector<double> out(n, 0.0);
        if (n == 0)
            return out;
        if (m_counted == 0 || m_groups == 0) // nothing counted: every MSE 0, as the CPU
            return out;
        std::vector<float> fc;
        const std::vector<std::size_t> order = ascendingOrder(fcIn, fc);
        Engine::Impl &I = m_impl;
        std::lock_guard lock(I.mutex);
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::string what = "the c sweep of '" + m_x->name() + "'";
        auto dFc = poolGet(I.pool, n * sizeof(float), what);
        auto dSum = poolGet(I.pool, n * 2 * sizeof(u64), what);
        auto dBad = poolGet(I.pool, n * sizeof(unsigned), what);
        QS_GPU_CHECK(qsMemcpyAsync(dFc.get(), fc.data(), n * sizeof(float), qsMemcpyHostToDevice, I.stream));
        QS_GPU_CHECK(qsMemsetAsync(dBad.get(), 0, n * sizeof(unsigned), I.stream));
        enqueueSweepTiles(m_pow2, static_cast<const float *>(m_x->data()), m_rows, m_K, m_group,
                          static_cast<const float *>(m_m.get()), static_cast<const float *>(dFc.get()), n, m_unit,
                          static_cast<u64 *>(m_parts.get()), static_cast<unsigned *>(dBad.get()),
                          static_cast<u64 *>(dSum.get()), m_blocks, I.S(), cancel);
        std::vector<u64> sums(2 * n);
        std::vector<unsigned> bad(n);
        QS_GPU_CHECK(qsMemcpyAsync(sums.data(), dSum.get(), sums.size() * sizeof(u64), qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(
            qsMemcpyAsync(bad.data(), dBad.get(), bad.size() * sizeof(unsigned), qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        for (std::size_t i = 0; i < n; ++i)
            out[order[i]] = fixed::mean(fixed::U128{sums[2 * i], sums[2 * i + 1]}, m_unit, m_counted, bad[i] != 0);
        return out;
    }

    Engine::Impl &m_impl;
    std::shared_ptr<const GpuTensor> m_x;
    std::int64_t m_group;
    bool m_pow2;
    std::int64_t m_rows = 0, m_K = 0, m_groups = 0, m_counted = 0, m_nonFinite = 0;
    int m_sms = 1, m_blocks = 1, m_unit = 0;
    std::shared_ptr<void> m_m, m_parts;
};

} // namespace

std::vector<std::vector<double>> Engine::Impl::sweepCurves(const std::vector<SweepRows> &xs, long long group, bool pow2,
                                                           const std::vector<double> &cs)
{
    std::lock_guard lock(mutex);
    QS_GPU_CHECK(qsSetDevice(device));
    const std::size_t nx = xs.size(), n = cs.size();
    std::vector<std::vector<double>> out(nx, std::vector<double>(n, 0.0));
    if (nx == 0 || n == 0)
        return out;
    if (group < 1)
        throw GpuError("the c sweep needs a group size ≥ 1");
    // GpuSweepEvaluator's steps for every matrix: the group passes, one read of the counters, then
    // the tiles (ascending c, as evaluate sorts them) side by side, one read of the sums.
    std::vector<float> fcIn(n), fc;
    for (std::size_t i = 0; i < n; ++i)
        fcIn[i] = static_cast<float>(cs[i]);
    const std::vector<std::size_t> order = ascendingOrder(fcIn, fc);
    const int sms = props.multiProcessorCount;
    std::vector<long long> groups(nx), mOff(nx + 1, 0);
    int maxBlocks = 1;
    for (std::size_t i = 0; i < nx; ++i) {
        groups[i] = xs[i].rows * ((xs[i].K + group - 1) / group);
        mOff[i + 1] = mOff[i] + std::max<long long>(groups[i], 1);
        maxBlocks = std::max(maxBlocks, launch::sweepBlocks(groups[i], sms));
    }
    const std::string what = "the c sweeps";
    auto m = poolGet(pool, static_cast<std::size_t>(mOff[nx]) * sizeof(float), what);
    auto ctr = poolGet(pool, nx * sizeof(launch::SweepCounters), what);
    auto *ctrs = static_cast<launch::SweepCounters *>(ctr.get());
    auto *mm = static_cast<float *>(m.get());
    QS_GPU_CHECK(qsMemsetAsync(ctrs, 0, nx * sizeof(launch::SweepCounters), stream));
    const int ns = static_cast<int>(std::min<std::size_t>(nx, kAuxStreams));
    forkAux(ns);
    for (std::size_t i = 0; i < nx; ++i)
        launch::sweepGroups(xs[i].x, xs[i].rows, xs[i].K, group, mm + mOff[i], ctrs + i, sms,
                            aux[i % static_cast<std::size_t>(ns)]);
    joinAux(ns);
    std::vector<launch::SweepCounters> c(nx);
    QS_GPU_CHECK(qsMemcpyAsync(c.data(), ctrs, nx * sizeof(launch::SweepCounters), qsMemcpyDeviceToHost, stream));
    QS_GPU_CHECK(qsStreamSynchronize(stream));
    std::vector<int> unit(nx);
    for (std::size_t i = 0; i < nx; ++i)
        unit[i] = fixed::fixedUnit(qmath::fromBits(c[i].amaxBits), static_cast<std::int64_t>(c[i].counted));
    // The matrices' tiles on the auxiliary streams (small grids run side by side), one `parts` each.
    const std::size_t partLen = static_cast<std::size_t>(maxBlocks) * 2 * launch::kSweepTile;
    auto parts = poolGet(pool, static_cast<std::size_t>(ns) * partLen * sizeof(u64), what);
    auto dFc = poolGet(pool, n * sizeof(float), what);
    auto dSum = poolGet(pool, nx * n * 2 * sizeof(u64), what);
    auto dBad = poolGet(pool, nx * n * sizeof(unsigned), what);
    QS_GPU_CHECK(qsMemcpyAsync(dFc.get(), fc.data(), n * sizeof(float), qsMemcpyHostToDevice, stream));
    QS_GPU_CHECK(qsMemsetAsync(dBad.get(), 0, nx * n * sizeof(unsigned), stream));
    forkAux(ns);
    for (std::size_t i = 0; i < nx; ++i) {
        if (c[i].counted == 0 || groups[i] == 0)
            continue;
        enqueueSweepTiles(pow2, xs[i].x, xs[i].rows, xs[i].K, group, mm + mOff[i],
                          static_cast<const float *>(dFc.get()), n, unit[i],
                          static_cast<u64 *>(parts.get()) + (i % static_cast<std::size_t>(ns)) * partLen,
                          static_cast<unsigned *>(dBad.get()) + i * n, static_cast<u64 *>(dSum.get()) + 2 * i * n,
                          launch::sweepBlocks(groups[i], sms), aux[i % static_cast<std::size_t>(ns)], nullptr);
    }
    joinAux(ns);
    std::vector<u64> sums(nx * n * 2);
    std::vector<unsigned> bad(nx * n);
    QS_GPU_CHECK(qsMemcpyAsync(sums.data(), dSum.get(), sums.size() * sizeof(u64), qsMemcpyDeviceToHost, stream));
    QS_GPU_CHECK(qsMemcpyAsync(bad.data(), dBad.get(), bad.size() * sizeof(unsigned), qsMemcpyDeviceToHost, stream));
    QS_GPU_CHECK(qsStreamSynchronize(stream));
    for (std::size_t i = 0; i < nx; ++i) {
        if (c[i].counted == 0 || groups[i] == 0)
            continue; // nothing counted: every MSE 0, as the CPU
        for (std::size_t j = 0; j < n; ++j)
            out[i][order[j]] = fixed::mean(fixed::U128{sums[2 * (i * n + j)], sums[2 * (i * n + j) + 1]}, unit[i],
                                           static_cast<std::int64_t>(c[i].counted), bad[i * n + j] != 0);
    }
    return out;
}

std::shared_ptr<GpuTensor> Engine::hadamardRows(const GpuTensor &w, std::int64_t d)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    const auto [R, K] = matrixView(w.shape());
    if (d < 0 || d > launch::kMaxHadamard || (d > 1 && (d & (d - 1)) != 0) || (d > 1 && K % d != 0))
        throw GpuError("the device rotates blocks of a power of two ≤ " + std::to_string(launch::kMaxHadamard) +
                       " dividing K; d = " + std::to_string(d) + ", K = " + std::to_string(K));
    const std::size_t n = static_cast<std::size_t>(R * K);
    auto lease = poolGet(I.pool, std::max<std::size_t>(n * sizeof(float), 32), "the rotated '" + w.name() + "'");
    auto *out = static_cast<float *>(lease.get());
    const int dd = d > 1 ? static_cast<int>(d) : 1;
    launch::hadamardRows(inTypeOf(w.storage()), w.data(), R, K, dd, dd > 1 ? hadamardNorm(dd) : 1.0f, out, I.S());
    return std::make_shared<GpuTensor>(Shape{R, K}, DType::F32, DType::F32, out, w.name(), std::move(lease));
}

ChannelMomentSums Engine::channelMoments(const GpuTensor &w)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    const auto [R, C] = matrixView(w.shape());
    ChannelMomentSums out;
    if (R <= 0 || C <= 0)
        return out;
    const auto r = static_cast<std::size_t>(R), c = static_cast<std::size_t>(C);
    const std::size_t bytes = (3 * r + 3 * c) * sizeof(double) + launch::channelMomentsScratch(R, C);
    auto lease = poolGet(I.pool, bytes, "the channel moments of '" + w.name() + "'");
    auto *rows = static_cast<double *>(lease.get());
    double *cols = rows + 3 * r, *scratch = cols + 3 * c;
    launch::channelMoments(inTypeOf(w.storage()), w.data(), R, C, rows, cols, scratch, I.S());
    std::vector<double> host(3 * r + 3 * c);
    QS_GPU_CHECK(qsMemcpyAsync(host.data(), rows, host.size() * sizeof(double), qsMemcpyDeviceToHost, I.stream));
    QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    auto take = [&](std::size_t base, std::size_t n, std::size_t f) {
        std::vector<double> v(n);
        for (std::size_t i = 0; i < n; ++i)
            v[i] = host[base + 3 * i + f];
        return v;
    };
    out.rowCount = take(0, r, 0), out.rowS2 = take(0, r, 1), out.rowS4 = take(0, r, 2);
    out.colCount = take(3 * r, c, 0), out.colS2 = take(3 * r, c, 1), out.colS4 = take(3 * r, c, 2);
    return out;
}

std::vector<float> Engine::downloadFloats(const GpuTensor &t)
{
    std::lock_guard lock(m_impl->mutex);
    Impl &I = *m_impl;
    QS_GPU_CHECK(qsSetDevice(I.device));
    const auto n = static_cast<std::size_t>(t.numel());
    std::vector<float> out(n);
    if (n == 0)
        return out;
    if (t.storage() == DType::F32) {
        QS_GPU_CHECK(qsMemcpyAsync(out.data(), t.data(), n * 4, qsMemcpyDeviceToHost, I.stream));
        QS_GPU_CHECK(qsStreamSynchronize(I.stream));
        return out;
    }
    std::vector<std::uint16_t> raw(n);
    QS_GPU_CHECK(qsMemcpyAsync(raw.data(), t.data(), n * 2, qsMemcpyDeviceToHost, I.stream));
    QS_GPU_CHECK(qsStreamSynchronize(I.stream));
    for (std::size_t i = 0; i < n; ++i)
        out[i] = t.storage() == DType::BF16 ? gpumath::bf16ToF32(raw[i]) : gpumath::f16ToF32(raw[i]);
    return out;
}

std::unique_ptr<CSweepGridEvaluator> Engine::sweepEvaluator(std::shared_ptr<const GpuTensor> x, std::int64_t group,
                                                            bool pow2)
{
    if (x->storage() != DType::F32)
        throw GpuError("the c sweep needs an FP32 device matrix (Engine::hadamardRows makes one)");
    if (group < 1)
        throw GpuError("the c sweep needs a group size ≥ 1");
    return std::make_unique<GpuSweepEvaluator>(*m_impl, std::move(x), group, pow2);
}

std::unique_ptr<CSweepGridEvaluator> sweepGrid(Engine &engine, const Tensor &w, const CSweepOptions &o,
                                               std::string &whyNot)
{
    if (o.rotate > launch::kMaxHadamard) {
        whyNot = "a Hadamard rotation larger than " + std::to_string(launch::kMaxHadamard) +
                 " runs on the CPU: the c sweep computed on the CPU";
        return nullptr;
    }
    if (w.numel() == 0) {
        whyNot = "empty tensor: computed on the CPU";
        return nullptr;
    }
    const auto up = engine.upload(w, o.tensorName);
    std::shared_ptr<const GpuTensor> x = engine.hadamardRows(*up, o.rotate);
    return engine.sweepEvaluator(std::move(x), o.group, o.encoder == ConstOptEncoder::Pow2);
}

} // namespace quantscope::gpu
