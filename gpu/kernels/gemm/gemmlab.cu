// SPDX-License-Identifier: MIT
// The GEMM timing lab's kernels (kernels_gemmlab.h): input fill and the post-scale epilogue.
#include "kernels_gemmlab.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

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

// Four outputs a thread, one row a grid row (N a multiple of 4, rows ≤ 65535, 16-byte aligned
// rows): no index division, 16-byte loads, 8-byte stores; the same products in the same order.
template <typename In, typename In4>
__global__ void postScaleVec4Kernel(const In4 *in, const float *sTok, const float4 *sCh, long long N4, uint2 *out)
{
    const long long n4 = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (n4 >= N4)
        return;
    const long long m = blockIdx.y;
    const float t = sTok[m];
    const In4 v = in[m * N4 + n4];
    const float4 c = sCh[n4];
    const __nv_bfloat162 a = __halves2bfloat162(__float2bfloat16_rn(static_cast<float>(v.x) * t * c.x),
                                                __float2bfloat16_rn(static_cast<float>(v.y) * t * c.y));
    const __nv_bfloat162 b = __halves2bfloat162(__float2bfloat16_rn(static_cast<float>(v.z) * t * c.z),
                                                __float2bfloat16_rn(static_cast<float>(v.w) * t * c.w));
    uint2 o;
    o.x = *reinterpret_cast<const unsigned *>(&a);
    o.y = *reinterpret_cast<const unsigned *>(&b);
    out[m * N4 + n4] = o;
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
    const auto aligned = [](const void *p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    if (N % 4 == 0 && M >= 1 && M <= 65535 && aligned(in) && aligned(sCh) && aligned(outBf16)) {
        const long long n4 = N / 4;
        const dim3 grid(static_cast<unsigned>((n4 + 255) / 256), static_cast<unsigned>(M));
        if (inInt32)
            postScaleVec4Kernel<int, int4><<<grid, 256, 0, s>>>(static_cast<const int4 *>(in), sTok,
                                                                reinterpret_cast<const float4 *>(sCh), n4,
                                                                static_cast<uint2 *>(outBf16));
        else
            postScaleVec4Kernel<float, float4><<<grid, 256, 0, s>>>(static_cast<const float4 *>(in), sTok,
                                                                    reinterpret_cast<const float4 *>(sCh), n4,
                                                                    static_cast<uint2 *>(outBf16));
        QS_GPU_CHECK(cudaGetLastError());
        return;
    }
    if (inInt32)
        postScaleKernel<<<gridFor(M * N), 256, 0, s>>>(static_cast<const int *>(in), sTok, sCh, M, N, o);
    else
        postScaleKernel<<<gridFor(M * N), 256, 0, s>>>(static_cast<const float *>(in), sTok, sCh, M, N, o);
    QS_GPU_CHECK(cudaGetLastError());
}

} // namespace quantscope::gpu::launch
