// SPDX-License-Identifier: MIT
// The GEMM timing lab's kernels (kernels_gemmlab.h): input fill and the post-scale epilogue.
#include "kernels_gemmlab.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

__device__ inline unsigned long long splitmix(unsigned long long x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

__global__ void fillKernel(int kind, void *out, long long n, unsigned long long seed, float scale)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const unsigned long long h = splitmix(seed ^ splitmix(static_cast<unsigned long long>(i)));
        // Four 16-bit uniforms: their sum − 2 scaled to unit variance is close to N(0, 1).
        float s = 0.0f;
        for (int j = 0; j < 4; ++j)
            s += static_cast<float>((h >> (16 * j)) & 0xFFFFu) * (1.0f / 65536.0f);
        float v = (s - 2.0f) * 1.7320508f * scale;
        if (kind == kLabInt8) {
            float r = rintf(fminf(fmaxf(v, -127.0f), 127.0f));
            if (r == 0.0f)
                r = (h >> 63) ? -1.0f : 1.0f;
            static_cast<signed char *>(out)[i] = static_cast<signed char>(r);
        } else if (kind == kLabE4m3) {
            const float tiny = 0.015625f; // 2^-6, E4M3's smallest normal
            if (fabsf(v) < tiny)
                v = (h >> 63) ? -tiny : tiny;
            static_cast<__nv_fp8_storage_t *>(out)[i] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
        } else {
            const float tiny = 1e-3f * scale;
            if (fabsf(v) < tiny)
                v = (h >> 63) ? -tiny : tiny;
            static_cast<__nv_bfloat16 *>(out)[i] = __float2bfloat16_rn(v);
        }
    }
}

template <typename In>
__global__ void postScaleKernel(const In *in, const float *sTok, const float *sCh, long long M, long long N,
                                __nv_bfloat16 *out)
{
    const long long total = M * N;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long m = i / N, n = i - m * N;
        out[i] = __float2bfloat16_rn(static_cast<float>(in[i]) * sTok[m] * sCh[n]);
    }
}

int gridFor(long long n)
{
    const long long blocks = (n + 255) / 256;
    return static_cast<int>(blocks < 8192 ? (blocks < 1 ? 1 : blocks) : 8192);
}

} // namespace

void labFill(int kind, void *out, long long n, unsigned long long seed, float scale, void *stream)
{
    if (n <= 0)
        return;
    fillKernel<<<gridFor(n), 256, 0, static_cast<cudaStream_t>(stream)>>>(kind, out, n, seed, scale);
    QS_GPU_CHECK(cudaGetLastError());
}

void labPostScale(const void *in, bool inInt32, const float *sTok, const float *sCh, long long M, long long N,
                  void *outBf16, void *stream)
{
    auto *o = static_cast<__nv_bfloat16 *>(outBf16);
    auto s = static_cast<cudaStream_t>(stream);
    if (inInt32)
        postScaleKernel<<<gridFor(M * N), 256, 0, s>>>(static_cast<const int *>(in), sTok, sCh, M, N, o);
    else
        postScaleKernel<<<gridFor(M * N), 256, 0, s>>>(static_cast<const float *>(in), sTok, sCh, M, N, o);
    QS_GPU_CHECK(cudaGetLastError());
}

} // namespace quantscope::gpu::launch
