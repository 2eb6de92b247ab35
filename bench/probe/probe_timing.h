// SPDX-License-Identifier: MIT
#pragma once
// What the probes share (bench/probe/*_harness.cu, read_pattern.cu): CK, a CUDA call checked (the probe
// stops with the error and the line), and their timing, the lab's way — every repeat queued on the
// default stream with CUDA events around each launch, one synchronisation at the end, 5 untimed
// launches, then the median of 40. launch(i) queues launch i (a harness rotates its weight copies
// by i).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                                                          \
    do {                                                                                                               \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess) {                                                                                       \
            printf("err %s line %d\n", cudaGetErrorString(e_), __LINE__);                                              \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

inline float probeMedianUs(const std::function<void(int)> &launch)
{
    constexpr int kWarm = 5, kTimed = 40;
    std::vector<cudaEvent_t> ev(2 * kTimed);
    for (auto &e : ev)
        cudaEventCreate(&e);
    for (int i = 0; i < kWarm + kTimed; ++i) {
        if (i >= kWarm)
            cudaEventRecord(ev[2 * (i - kWarm)]);
        launch(i);
        if (i >= kWarm)
            cudaEventRecord(ev[2 * (i - kWarm) + 1]);
    }
    cudaDeviceSynchronize();
    std::vector<float> ts;
    for (int i = 0; i < kTimed; ++i) {
        float ms = 0;
        cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]);
        ts.push_back(ms * 1000);
    }
    for (auto &e : ev)
        cudaEventDestroy(e);
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2];
}

/// The harnesses' INT4 weight operands: packed codes (random bytes), group scales in [0.001, 0.011)
/// and zero points in [zLo, zLo + zSpan), drawn from rng in that order; the scales and zero points
/// also copied to the device (s, z).
struct ProbeW4 {
    std::vector<uint8_t> codes;
    float *s = nullptr;
    int8_t *z = nullptr;
};
inline ProbeW4 probeW4(std::mt19937 &rng, long long wBytes, long long sCount, int zLo, int zSpan)
{
    ProbeW4 o;
    o.codes.resize(wBytes);
    for (auto &b : o.codes)
        b = rng() & 0xFF;
    std::vector<float> hs(sCount);
    for (auto &v : hs)
        v = 0.001f + 0.01f * (rng() % 1000) / 1000.0f;
    std::vector<int8_t> hz(sCount);
    for (auto &v : hz)
        v = (int8_t)((int)(rng() % zSpan) + zLo);
    CK(cudaMalloc(&o.s, sCount * 4));
    CK(cudaMalloc(&o.z, sCount));
    CK(cudaMemcpy(o.s, hs.data(), sCount * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(o.z, hz.data(), sCount, cudaMemcpyHostToDevice));
    return o;
}

/// The W4A8 harnesses' X̂ of M tokens × K: codes (random INT8 bytes, or E4M3 bytes below NaN) and
/// token scales in [0.01, 0.11), drawn from rng in that order, copied to the device (x, sx).
struct ProbeX {
    void *x = nullptr;
    float *sx = nullptr;
};
inline ProbeX probeX(std::mt19937 &rng, long long M, long long K, bool fp8)
{
    std::vector<uint8_t> hx(M * K);
    for (auto &v : hx)
        v = fp8 ? (uint8_t)(rng() % 0x7F) | (rng() & 0x80) : (uint8_t)(rng() & 0xFF);
    std::vector<float> hsx(M);
    for (auto &v : hsx)
        v = 0.01f + 0.001f * (rng() % 100);
    ProbeX o;
    CK(cudaMalloc(&o.x, M * K));
    CK(cudaMalloc(&o.sx, M * 4));
    CK(cudaMemcpy(o.x, hx.data(), M * K, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(o.sx, hsx.data(), M * 4, cudaMemcpyHostToDevice));
    return o;
}
