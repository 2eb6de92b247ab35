// SPDX-License-Identifier: MIT
// The GEMM timing lab's W4A8-INT8 large-M CUTLASS candidate (issue 43; CUDA builds only): beside
// the fold route (labW4FoldInt8 + cuBLASLt INT8 GEMM + labPostScale, engine_gemmlab_quant.cpp) the
// same packed codes, zero points, scales and X̂ through CUTLASS's Hopper mixed-input GEMM
// (kernels_w4a8_cutlass.h), which reads the INT4 codes as stored — no INT8 copy of W per call.
// Timed the same way (device events, rotating weight copies, median): Σx̂ per token
// (labRowSumInt8) + the GEMM with its fused epilogue. The reordered copies of tiles 3 and 4 are
// made once per weight copy before any timing (derivedCopies: a serving engine's repack at load;
// their µs go into the note, not into the time). The tile is the fastest of the four by
// fastestCandidate. The caller checks the output and compares it with the fold route's bits.
#include "gemmlab_lt.h"

#include <algorithm>

#include "device_pool.h"
#include "gemm/kernels_gemmlab.h"
#include "gemm/kernels_w4a8_cutlass.h"
#include "util/error.h"

namespace quantscope::gpu::lab2 {

std::optional<W4a8CutlassTimed> timeW4a8Cutlass(Engine::Impl &I, const GemmBenchRequest &request,
                                                const std::vector<std::shared_ptr<void>> &weights, const float *scales,
                                                const std::int8_t *zeros, const std::int8_t *x,
                                                const float *tokenScales, std::int64_t m, void *y, std::string &why)
{
    const std::int64_t n = request.n, k = request.k;
    if (why = launch::w4a8CutlassRefusal(m, n, k); !why.empty())
        return std::nullopt;
    const auto s = static_cast<cudaStream_t>(I.stream);
    const std::string what = "the GEMM lab's W4A8 CUTLASS route";
    auto xSum = poolGet(I.pool, 4u * static_cast<std::size_t>(m), what);
    launch::W4a8CutlassProblem p;
    p.zeros = zeros, p.scales = scales, p.x = x, p.xScale = tokenScales;
    p.xSum = static_cast<const std::int32_t *>(xSum.get());
    p.y = y;
    p.m = m, p.n = n, p.k = k;
    W4a8CutlassTimed r;
    const auto reordered = derivedCopies(
        I, weights, launch::w4a8CutlassReorderedBytes(n, k),
        [&](const void *src, void *dst) { launch::w4a8CutlassReorder(src, n, k, dst, s); }, &r.reorderUs, what);
    const int copies = static_cast<int>(weights.size());
    auto useCopy = [&](int c) {
        p.packed = weights[static_cast<std::size_t>(c)].get();
        p.reordered = reordered[static_cast<std::size_t>(c)].get();
    };
    std::size_t wsBytes = 16;
    for (int t = 1; t <= launch::kW4a8CutlassTiles; ++t)
        wsBytes = std::max(wsBytes, launch::w4a8CutlassWorkspaceBytes(p, t));
    auto ws = poolGet(I.pool, wsBytes, what);
    auto *sum = static_cast<std::int32_t *>(xSum.get());
    // The tiles that run this shape (one trial launch each; CUTLASS may refuse one).
    std::vector<int> tiles;
    useCopy(0);
    for (int t = 1; t <= launch::kW4a8CutlassTiles; ++t) {
        try {
            launch::labRowSumInt8(x, m, k, sum, s);
            launch::w4a8Cutlass(p, t, ws.get(), s);
            tiles.push_back(t);
        } catch (const GpuError &e) {
            why = e.what();
        }
    }
    QS_GPU_CHECK(cudaStreamSynchronize(s));
    if (tiles.empty())
        return std::nullopt;
    r.tile = fastestCandidate(
        tiles,
        [&](int t, int i) {
            useCopy(i % copies);
            launch::labRowSumInt8(x, m, k, sum, s);
            launch::w4a8Cutlass(p, t, ws.get(), s);
        },
        [](int t) { return launch::w4a8CutlassTileName(t); }, s, r.tuned);
    const Step step = [&](int rep, const std::vector<cudaEvent_t> &mk) {
        useCopy(rep % copies);
        QS_GPU_CHECK(cudaEventRecord(mk[0], s));
        launch::labRowSumInt8(x, m, k, sum, s);
        QS_GPU_CHECK(cudaEventRecord(mk[1], s));
        launch::w4a8Cutlass(p, r.tile, ws.get(), s);
        QS_GPU_CHECK(cudaEventRecord(mk[2], s));
        return true;
    };
    const auto t = timeStep(step, 2, request.warmup, request.repeats, s, &r.runs);
    if (!t) {
        why = "the W4A8 CUTLASS route refused M = " + std::to_string(m);
        return std::nullopt;
    }
    r.stageUs = t->first;
    r.coldUs = t->second;
    { // one more step on copy 0: its output in y for the caller's check
        Events ev(3);
        step(0, ev.ev);
    }
    QS_GPU_CHECK(cudaStreamSynchronize(s));
    return r;
}

} // namespace quantscope::gpu::lab2
