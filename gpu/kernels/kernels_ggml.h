// SPDX-License-Identifier: MIT
#pragma once
/// \file kernels_ggml.h
/// Launcher of llama.cpp's block quantizers on the device (ggml_quant.cu; docs/numerics.md
/// "GGUF block types on the GPU"): the CPU's own per-block functions (core/ggml/
/// ggml_kquant_blocks.h: ggml's quantize_row_q*_K_ref / _impl on one super-block, and
/// ggml_block_math.h's legacy types and decode), compiled for the device with -fmad=false and IEEE
/// division and square root, so every block's bytes are the CPU's. One thread per ggml block; the
/// blocks of a thread block are staged in shared memory with coalesced loads and Ŵ leaves the same
/// way. Plain C++: device pointers typed, the stream as void*. The launcher checks its launch.
#include "plan.h"

namespace quantscope::gpu::launch {

struct GgmlQuantArgs {
    int type = 0;                      ///< ggml::blockmath::kQ4_0 … kQ6_K
    int in = 0;                        ///< kInF32 / kInBf16 / kInF16: W as stored
    const void *w = nullptr;           ///< rows × cols, row-major
    long long rows = 0, cols = 0;      ///< cols a multiple of the block's values
    const float *importance = nullptr; ///< K-quants: cols weights (one per column), or null
    unsigned char *blocks = nullptr;   ///< rows · cols / values blocks of blockBytes(type)
    float *scales = nullptr;           ///< optional: each block's d (F16 widened), one per block
    float *wHat = nullptr;             ///< optional: Ŵ (FP32, rows × cols), the blocks decoded
};

/// Quantizes (and, with wHat, decodes) every block. GpuError on a launch failure.
void ggmlQuantize(const GgmlQuantArgs &a, void *stream);

} // namespace quantscope::gpu::launch
