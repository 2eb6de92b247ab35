// SPDX-License-Identifier: MIT
// llama.cpp's block quantizers on the device (engine.h Engine::gguf; docs/numerics.md "GGUF block
// types on the GPU"): the importance weights (if any) go up once, one kernel quantizes every block
// with ggml's own per-block code (kernels_ggml.h) and decodes it into Ŵ, and the blocks' scales d
// (and Ŵ, the blocks on request) come down; Ŵ's metrics are the pipeline's "given Ŵ" run. CUDA
// builds (HIP builds run the method on the CPU: cuda_backend.cpp).
#include "engine.h"
#include "engine_impl.h"

#include <algorithm>
#include <string>

#include "device_pool.h"
#include "ggml/ggml_block_math.h"
#include "kernels_ggml.h"
#include "qs_gpu_compat.h"
#include "quant/gguf_quant.h"
#include "util/error.h"

namespace quantscope::gpu {

namespace {

/// Two events around the kernel, destroyed on every path.
struct KernelEvents {
    qsEvent_t a = nullptr, b = nullptr;
    KernelEvents()
    {
        QS_GPU_CHECK(qsEventCreate(&a));
        QS_GPU_CHECK(qsEventCreate(&b));
    }
    ~KernelEvents()
    {
        if (a)
            qsEventDestroy(a);
        if (b)
            qsEventDestroy(b);
    }
    KernelEvents(const KernelEvents &) = delete;
    KernelEvents &operator=(const KernelEvents &) = delete;
};

} // namespace

GgufDeviceResult Engine::gguf(const GpuTensor &w, const GgufQuantSpec &spec, std::span<const float> importance,
                              const GgufDeviceOptions &options, const std::string &tensorName)
{
    spec.validate();
    const std::string name = tensorName.empty() ? w.name() : tensorName;
    GgufDeviceResult out;
    QuantizedTensor &q = out.quantized;
    q = ggufStart(spec, w.shape(), w.dtype(), name); // throws for a K that is not whole blocks
    const auto [rows, cols] = matrixView(w.shape());
    if (!importance.empty() && static_cast<std::int64_t>(importance.size()) != cols)
        throw UnsupportedError("gguf on the GPU: " + std::to_string(importance.size()) +
                                   " importance weights for rows of " + std::to_string(cols),
                               Location{{}, name, {}});
    const int t = static_cast<int>(spec.type);
    if (!ggml::blockmath::perBlockType(t))
        throw UnsupportedError("gguf on the GPU: " + std::string(ggml::typeName(spec.type)) +
                                   " runs on the CPU (the GPU kernels quantize q4_0 … q8_0 and q2_k … q6_k)",
                               Location{{}, name, {}});
    const std::int64_t V = ggml::blockmath::blockValues(t), B = ggml::blockmath::blockBytes(t);
    const std::int64_t nblocks = rows * (cols / V);
    const auto nk = static_cast<std::size_t>(rows * cols);
    const bool needHat = options.metrics || options.wantDequantized || options.keepDequantizedOnDevice;
    std::shared_ptr<void> wHatMem;
    {
        std::lock_guard lock(m_impl->mutex);
        Impl &I = *m_impl;
        QS_GPU_CHECK(qsSetDevice(I.device));
        const std::string what = "gguf " + std::string(ggml::typeName(spec.type)) + " of '" + name + "'";
        auto pool = [&](std::size_t bytes) { return poolGet(I.pool, std::max<std::size_t>(bytes, 64), what); };
        auto blocks = pool(static_cast<std::size_t>(nblocks * B));
        auto scales = pool(static_cast<std::size_t>(nblocks) * 4);
        auto imp = pool(importance.size() * 4);
        if (needHat)
            wHatMem = poolGet(I.pool, std::max<std::size_t>(nk * 4, 64), "Ŵ of " + what);
        KernelEvents ev;
        QS_GPU_CHECK(qsEventRecord(ev.a, I.stream));
        if (!importance.empty())
            QS_GPU_CHECK(
                qsMemcpyAsync(imp.get(), importance.data(), importance.size() * 4, qsMemcpyHostToDevice, I.stream));
        launch::GgmlQuantArgs a;
        a.type = t;
        a.in = inTypeOf(w.storage());
        a.w = w.data();
        a.rows = rows;
        a.cols = cols;
        a.importance = importance.empty() ? nullptr : static_cast<const float *>(imp.get());
        a.blocks = static_cast<unsigned char *>(blocks.get());
        a.scales = static_cast<float *>(scales.get());
        a.wHat = needHat ? static_cast<float *>(wHatMem.get()) : nullptr;
        launch::ggmlQuantize(a, I.S());
        QS_GPU_CHECK(qsEventRecord(ev.b, I.stream));
        q.scales.resize(static_cast<std::size_t>(nblocks));
        QS_GPU_CHECK(qsMemcpyAsync(q.scales.data(), scales.get(), q.scales.size() * 4, qsMemcpyDeviceToHost, I.stream));
        if (options.wantBlocks) {
            out.blocks.resize(static_cast<std::size_t>(nblocks * B));
            QS_GPU_CHECK(
                qsMemcpyAsync(out.blocks.data(), blocks.get(), out.blocks.size(), qsMemcpyDeviceToHost, I.stream));
        }
        if (options.wantDequantized) {
            q.dequantized.resize(nk);
            QS_GPU_CHECK(qsMemcpyAsync(q.dequantized.data(), wHatMem.get(), nk * 4, qsMemcpyDeviceToHost, I.stream));
        }
        QS_GPU_CHECK(qsStreamSynchronize(I.stream)); // the importance weights and the downloads are done
        QS_GPU_CHECK(qsEventElapsedTime(&out.deviceMs, ev.a, ev.b));
    }
    q.blockBytes = static_cast<std::uint64_t>(nblocks * B);
    finishDequantized(*this, w, std::move(wHatMem), options, out);
    return out;
}

} // namespace quantscope::gpu
