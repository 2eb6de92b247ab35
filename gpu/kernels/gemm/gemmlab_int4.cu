// SPDX-License-Identifier: MIT
// The GEMM timing lab II's kernels (kernels_gemmlab.h): INT4 → BF16 / INT8 / E4M3 weight
// conversions (and the large-M route's INT4 → INT8 with the zero point folded in), the per-token
// Σx and the W4A8-int8 epilogue. Plain grid-stride kernels: the lab
// times the unfused paths as a user would run them, not a tuned fused kernel; the INT4 → INT8 and
// INT4 → E4M3 conversions take 16 codes a thread (8 packed bytes in, 16 bytes out) by the fused
// W4A8 kernel's bit tricks (w4a8_math.h) where K allows, the same bytes as the scalar conversion.
#define QS_HD __host__ __device__
#include "w4a8_math.h"

#include "kernels_gemmlab.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "qs_gpu_compat.h"

namespace quantscope::gpu::launch {

namespace {

__device__ inline int nibble(std::uint8_t b, int hi)
{
    const int v = hi ? (b >> 4) : (b & 0xF);
    return v >= 8 ? v - 16 : v;
}

// One thread per packed byte (two outputs).
__global__ void w4DequantKernel(const std::uint8_t *packed, const float *scales, const std::int8_t *zeros, long long N,
                                long long K, long long group, __nv_bfloat162 *out)
{
    const long long half = K / 2, total = N * half, groups = K / group;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long n = i / half, k = 2 * (i - n * half);
        const long long g = n * groups + k / group; // k and k + 1 share a group (group is even)
        const float s = scales[g];
        const int z = zeros[g];
        const std::uint8_t b = packed[i];
        out[i] =
            __floats2bfloat162_rn(s * static_cast<float>(nibble(b, 0) - z), s * static_cast<float>(nibble(b, 1) - z));
    }
}

__global__ void w4UnpackKernel(const std::uint8_t *packed, long long total, char2 *out)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const std::uint8_t b = packed[i];
        out[i] = make_char2(static_cast<signed char>(nibble(b, 0)), static_cast<signed char>(nibble(b, 1)));
    }
}

__global__ void w4ToE4m3Kernel(const std::uint8_t *packed, const std::int8_t *zeros, long long N, long long K,
                               std::uint8_t *out)
{
    const long long half = K / 2, total = N * half;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long n = i / half;
        const int z = zeros[n];
        const std::uint8_t b = packed[i];
        out[2 * i] = __nv_cvt_float_to_fp8(static_cast<float>(nibble(b, 0) - z), __NV_SATFINITE, __NV_E4M3);
        out[2 * i + 1] = __nv_cvt_float_to_fp8(static_cast<float>(nibble(b, 1) - z), __NV_SATFINITE, __NV_E4M3);
    }
}

// 16 codes a thread: 8 packed bytes → 16 INT8 codes (w4a8Int8Codes), k order kept.
__global__ void w4UnpackVecKernel(const uint2 *packed, long long total8, uint4 *out)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total8;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const uint2 p = packed[i];
        uint4 o;
        gpumath::w4a8Int8Codes(p.x, o.x, o.y);
        gpumath::w4a8Int8Codes(p.y, o.z, o.w);
        out[i] = o;
    }
}

// 16 codes of one row a thread (K a multiple of 16) with the row's per-channel zero point:
// out[i] = Convert(packed[i], z[n]).
// Row n = blockIdx.y (its zero point read once, no index division), `units` = K / 16 a row.
template <class Convert>
__global__ void w4PerChannelVecKernel(const uint2 *packed, const std::int8_t *zeros, long long units, uint4 *out,
                                      Convert convert)
{
    const long long n = blockIdx.y;
    const int z = zeros[n];
    const uint2 *p = packed + n * units;
    uint4 *o = out + n * units;
    for (long long u = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; u < units;
         u += static_cast<long long>(gridDim.x) * blockDim.x)
        o[u] = convert(p[u], z);
}

// The launch of w4PerChannelVecKernel: one grid row per row of W (N ≤ 65535), about two units a
// thread. False (nothing launched) when the shape or alignment does not allow it.
template <class Convert>
bool perChannelVec(const std::uint8_t *packed, const std::int8_t *zeros, long long N, long long K, void *out,
                   void *stream, Convert convert)
{
    if (N < 1 || N > 65535 || K < 16 || K % 16 != 0 || reinterpret_cast<std::uintptr_t>(packed) % 8 != 0 ||
        reinterpret_cast<std::uintptr_t>(out) % 16 != 0)
        return false;
    const long long units = K / 16;
    const dim3 grid(static_cast<unsigned>((units + 511) / 512), static_cast<unsigned>(N));
    w4PerChannelVecKernel<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(
        reinterpret_cast<const uint2 *>(packed), zeros, units, static_cast<uint4 *>(out), convert);
    QS_GPU_CHECK(cudaGetLastError());
    return true;
}

// q − z as E4M3 by the fused kernel's FP16 route (exact for z ∈ [−9, 8]), else the scalar
// saturating conversion — the same bytes.
struct ToE4m3 {
    __device__ uint4 operator()(uint2 p, int z) const
    {
        uint4 o;
        if (z >= gpumath::kW4a8Fp8ZeroMin && z <= gpumath::kW4a8Fp8ZeroMax) {
            const std::uint32_t zz = gpumath::w4a8Fp16ZeroPair(z);
            gpumath::w4a8Fp8Operand(p.x, zz, o.x, o.y);
            gpumath::w4a8Fp8Operand(p.y, zz, o.z, o.w);
            return o;
        }
        std::uint32_t w[4] = {0, 0, 0, 0};
        for (int j = 0; j < 16; ++j) {
            const std::uint32_t word = j < 8 ? p.x : p.y;
            int v = static_cast<int>((word >> (4 * (j & 7))) & 0xFu);
            v = v >= 8 ? v - 16 : v;
            const std::uint32_t b = __nv_cvt_float_to_fp8(static_cast<float>(v - z), __NV_SATFINITE, __NV_E4M3);
            w[j >> 2] |= b << (8 * (j & 3));
        }
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
};

// q − z as INT8 (w4a8FoldedCodes; the launcher has checked every z in the exact range).
struct FoldInt8 {
    __device__ uint4 operator()(uint2 p, int z) const
    {
        uint4 o;
        gpumath::w4a8FoldedCodes(p.x, z, o.x, o.y);
        gpumath::w4a8FoldedCodes(p.y, z, o.z, o.w);
        return o;
    }
};

// The block's sum of s (one value a thread, blocks of at most 256 threads, a power of two) into
// *out by thread 0, through part (256 ints of shared memory).
__device__ void blockSumTo(int s, int *part, std::int32_t *out)
{
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (static_cast<int>(threadIdx.x) < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = part[0];
}

// One block per token: a block-wide sum of the row.
__global__ void rowSumKernel(const std::int8_t *x, long long K, std::int32_t *rowSum)
{
    __shared__ int part[256];
    const long long m = blockIdx.x;
    int s = 0;
    for (long long k = threadIdx.x; k < K; k += blockDim.x)
        s += x[m * K + k];
    blockSumTo(s, part, rowSum + m);
}

// One block per token, 16 codes a thread a step (16-byte loads; K a multiple of 16, X 16-byte
// aligned): four dp4a against ones a load, then the block-wide sum — the same INT32 sum (integer
// addition is associative), far fewer instructions than a byte a thread.
__global__ void rowSumVecKernel(const uint4 *x, long long units, std::int32_t *rowSum)
{
    __shared__ int part[256];
    const long long m = blockIdx.x;
    const uint4 *row = x + m * units;
    int s = 0;
    for (long long u = threadIdx.x; u < units; u += blockDim.x) {
        const uint4 v = row[u];
        s = gpumath::byteSum16(v.x, v.y, v.z, v.w, s);
    }
    blockSumTo(s, part, rowSum + m);
}

__global__ void w4a8EpilogueKernel(const std::int32_t *acc, const std::int32_t *rowSum, const std::int8_t *zeros,
                                   const float *sTok, const float *sCh, long long M, long long N, __nv_bfloat16 *out)
{
    const long long total = M * N;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long m = i / N, n = i - m * N;
        const int v = acc[i] - static_cast<int>(zeros[n]) * rowSum[m]; // exact in INT32
        out[i] = __float2bfloat16_rn(static_cast<float>(v) * sTok[m] * sCh[n]);
    }
}

// D[m, n] = Σ_k a[m, k]·b[n, k] in INT32 by dp4a: a 16 × 16 block of outputs, 64 k a step
// through shared memory (K a multiple of 64, rows 16-byte aligned). Exact, like any INT32 sum of
// these products: the order does not matter.
__global__ void gemmInt8RefKernel(const std::int8_t *a, const std::int8_t *b, long long M, long long N, long long K,
                                  std::int32_t *d)
{
    __shared__ int as[16][17], bs[16][17];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long m = blockIdx.y * 16LL + ty, n = blockIdx.x * 16LL + tx;
    const long long mLoad = blockIdx.y * 16LL + ty, nLoad = blockIdx.x * 16LL + ty;
    int acc = 0;
    for (long long k0 = 0; k0 < K; k0 += 64) {
        as[ty][tx] = mLoad < M ? reinterpret_cast<const int *>(a + mLoad * K + k0)[tx] : 0;
        bs[ty][tx] = nLoad < N ? reinterpret_cast<const int *>(b + nLoad * K + k0)[tx] : 0;
        __syncthreads();
        for (int j = 0; j < 16; ++j)
            acc = __dp4a(as[ty][j], bs[tx][j], acc);
        __syncthreads();
    }
    if (m < M && n < N)
        d[m * N + n] = acc;
}

int gridFor(long long n)
{
    const long long blocks = (n + 255) / 256;
    return static_cast<int>(blocks < 16384 ? (blocks < 1 ? 1 : blocks) : 16384);
}

} // namespace

void labW4Dequant(const std::uint8_t *packed, const float *scales, const std::int8_t *zeros, long long N, long long K,
                  long long group, void *outBf16, void *stream)
{
    const long long total = N * (K / 2);
    if (total <= 0)
        return;
    w4DequantKernel<<<gridFor(total), 256, 0, static_cast<cudaStream_t>(stream)>>>(
        packed, scales, zeros, N, K, group, static_cast<__nv_bfloat162 *>(outBf16));
    QS_GPU_CHECK(cudaGetLastError());
}

void labW4Unpack(const std::uint8_t *packed, long long N, long long K, std::int8_t *out, void *stream)
{
    const long long total = N * (K / 2);
    if (total <= 0)
        return;
    if (K % 16 == 0 && reinterpret_cast<std::uintptr_t>(packed) % 8 == 0 &&
        reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
        w4UnpackVecKernel<<<gridFor(total / 8), 256, 0, static_cast<cudaStream_t>(stream)>>>(
            reinterpret_cast<const uint2 *>(packed), total / 8, reinterpret_cast<uint4 *>(out));
        QS_GPU_CHECK(cudaGetLastError());
        return;
    }
    w4UnpackKernel<<<gridFor(total), 256, 0, static_cast<cudaStream_t>(stream)>>>(packed, total,
                                                                                  reinterpret_cast<char2 *>(out));
    QS_GPU_CHECK(cudaGetLastError());
}

void labW4ToE4m3(const std::uint8_t *packed, const std::int8_t *zeros, long long N, long long K, std::uint8_t *out,
                 void *stream)
{
    const long long total = N * (K / 2);
    if (total <= 0)
        return;
    if (perChannelVec(packed, zeros, N, K, out, stream, ToE4m3{}))
        return;
    w4ToE4m3Kernel<<<gridFor(total), 256, 0, static_cast<cudaStream_t>(stream)>>>(packed, zeros, N, K, out);
    QS_GPU_CHECK(cudaGetLastError());
}

bool labW4FoldInt8(const std::uint8_t *packed, const std::int8_t *zeros, long long N, long long K, std::int8_t *out,
                   void *stream)
{
    const long long total = N * (K / 2);
    return total > 0 && perChannelVec(packed, zeros, N, K, out, stream, FoldInt8{});
}

void labRowSumInt8(const std::int8_t *x, long long M, long long K, std::int32_t *rowSum, void *stream)
{
    if (M <= 0)
        return;
    if (K % 16 == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0 && M <= 0x7FFFFFFFLL) {
        rowSumVecKernel<<<static_cast<unsigned>(M), 256, 0, static_cast<cudaStream_t>(stream)>>>(
            reinterpret_cast<const uint4 *>(x), K / 16, rowSum);
        QS_GPU_CHECK(cudaGetLastError());
        return;
    }
    rowSumKernel<<<static_cast<unsigned>(M), 256, 0, static_cast<cudaStream_t>(stream)>>>(x, K, rowSum);
    QS_GPU_CHECK(cudaGetLastError());
}

void labW4a8Epilogue(const std::int32_t *acc, const std::int32_t *rowSum, const std::int8_t *zeros, const float *sTok,
                     const float *sCh, long long M, long long N, void *outBf16, void *stream)
{
    if (M * N <= 0)
        return;
    w4a8EpilogueKernel<<<gridFor(M * N), 256, 0, static_cast<cudaStream_t>(stream)>>>(
        acc, rowSum, zeros, sTok, sCh, M, N, static_cast<__nv_bfloat16 *>(outBf16));
    QS_GPU_CHECK(cudaGetLastError());
}

bool labGemmInt8Ref(const std::int8_t *a, const std::int8_t *b, long long M, long long N, long long K, std::int32_t *d,
                    void *stream)
{
    if (M <= 0 || N <= 0 || K <= 0 || K % 64 != 0 || M > 65535LL * 16 ||
        reinterpret_cast<std::uintptr_t>(a) % 16 != 0 || reinterpret_cast<std::uintptr_t>(b) % 16 != 0)
        return false;
    const dim3 grid(static_cast<unsigned>((N + 15) / 16), static_cast<unsigned>((M + 15) / 16));
    gemmInt8RefKernel<<<grid, dim3(16, 16), 0, static_cast<cudaStream_t>(stream)>>>(a, b, M, N, K, d);
    QS_GPU_CHECK(cudaGetLastError());
    return true;
}

} // namespace quantscope::gpu::launch
