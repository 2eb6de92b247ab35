// SPDX-License-Identifier: MIT
#pragma once
/// \file hqq_device.h
/// One HQQ optimisation queued on the engine's stream (internal to gpu/): the state block
/// (run state, iteration history, σ, z, bad flags, stored scales and zeros) laid out once, then
/// init, the iterations (the stop rule decided on the device) and the final codes. Used by
/// enqueueHqq (engine_hqq.cpp) and by MiLo's passes (engine_milo.cpp), which reuse one block.
#include <cstddef>

#include "engine_impl.h"
#include "kernels_hqq.h"

namespace quantscope {
struct HqqSpec;
}

namespace quantscope::gpu {

/// Byte offsets inside the state block of a tensor of `groups` groups. `kept`: the bytes up to
/// the fused iterations' z slots (zHist, last; 0 when the per-iteration kernels serve the spec) —
/// what a copy of a finished run's state needs.
struct HqqBlockLayout {
    std::size_t state = 0, hist = 0, sigma = 0, zero = 0, bad = 0, scales = 0, zeros = 0, kept = 0, zHist = 0,
                bytes = 0;
    HqqBlockLayout(const HqqSpec &spec, long long groups);
};

/// Iterations per fused launch (groups of launch::kHqqFusedGroup): kHqqDefaultChunk, or
/// QS_HQQ_CHUNK (1 … kHqqMaxChunk fuses). 0 by default — the per-iteration kernels: on the H200
/// (2026-11-29, docs/perf.md "MiLo") the fused chunks were slower at every size tried (MiLo r 32's
/// 20 HQQ solves 56.3 ms per iteration against 87.5 ms with chunks of 2 and 77.8 ms of 4: ~254
/// registers leave 8 warps an SM for a memory-bound loop). The GPU test runs them with 4.
inline constexpr int kHqqDefaultChunk = 0;
int hqqChunkSize();

/// The kernels' arguments for W (`in`: kInF32/kInBf16/kInF16) in the block `base`, codes into
/// `codes`, Ŵ into `wHat` (optional).
launch::HqqArgs hqqArgs(const HqqSpec &spec, const void *w, int in, long long numel, char *base,
                        const HqqBlockLayout &L, unsigned char *codes, float *wHat);

/// Zeroes the run state and queues init, the iterations and the final pass on the engine's stream
/// (with stage marks when profiling).
void queueHqq(Engine::Impl &I, const HqqSpec &spec, const launch::HqqArgs &a, char *base, const HqqBlockLayout &L);

} // namespace quantscope::gpu
