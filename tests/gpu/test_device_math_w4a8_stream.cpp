// SPDX-License-Identifier: MIT
// The streaming W4A16 / W4A8 kernels' host side, no device needed (label core; CUDA builds, where
// the launchers exist): the tile-ordered copy's size against the layout docs/numerics.md gives
// ("The streaming small-M kernel": per expert ⌈N/16⌉ tiles × K/128 chunks of one KiB, then 96 bytes
// per tile and group), the shapes it refuses, and the W4A8 streaming kernel's refusals, each
// naming its reason, with the launcher throwing that reason before it touches a device when the
// kernel is asked for and cannot run. The GPU tests (test_gpu_w4a16_stream.cpp,
// test_gpu_w4a8_stream.cpp) run the kernels.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>

#include "kernels/gemm/kernels_w4a16.h"
#include "kernels/gemm/kernels_w4a8.h"
#include "util/error.h"

namespace L = quantscope::gpu::launch;

namespace {

/// A 16-byte-aligned address that is never dereferenced (the refusals only look at it).
const void *aligned(std::uintptr_t at)
{
    return reinterpret_cast<const void *>(at * 16);
}

L::W4a8Problem w4a8(long long m, long long n, long long k, long long group)
{
    L::W4a8Problem p;
    p.m = m, p.n = n, p.k = k, p.group = group;
    p.xq = aligned(0x1000);
    p.tilePacked = aligned(0x2000);
    return p;
}

} // namespace

TEST(DeviceMathStream, TheTileCopysSizeFollowsTheDocumentedLayout)
{
    for (const int experts : {1, 3})
        for (const long long n : {16LL, 72LL, 4096LL})
            for (const long long k : {128LL, 1024LL, 14336LL})
                for (const long long group : {128LL, 256LL, k}) {
                    if (k % group != 0)
                        continue;
                    L::W4a16Problem p;
                    p.n = n, p.k = k, p.group = group, p.experts = experts;
                    const long long tiles = (n + 15) / 16;
                    const long long expect = experts * (tiles * (k / 128) * 1024 + tiles * (k / group) * 96);
                    EXPECT_EQ(static_cast<long long>(L::w4a16TileBytes(p)), expect)
                        << "E " << experts << " N " << n << " K " << k << " group " << group;
                }
    // What the copy cannot hold: groups below 128 or not dividing K, K not a multiple of 128.
    for (const auto &[k, group] : {std::pair{1024LL, 64LL}, std::pair{1024LL, 32LL}, std::pair{1000LL, 1000LL},
                                   std::pair{1024LL, 384LL}, std::pair{64LL, 64LL}}) {
        L::W4a16Problem p;
        p.n = 64, p.k = k, p.group = group;
        EXPECT_EQ(L::w4a16TileBytes(p), 0u) << "K " << k << " group " << group;
    }
}

TEST(DeviceMathStream, TheW4a8StreamingKernelsRefusalsNameTheirReason)
{
    ASSERT_TRUE(L::w4a8FusedBuilt()) << "a CUDA build has the fused kernels";
    EXPECT_EQ(L::w4a8TileRefusal(w4a8(16, 4096, 14336, 128)), "");
    L::W4a8Problem perChannel = w4a8(1, 72, 1024, 1024);
    perChannel.xSums = static_cast<const int *>(aligned(0x3000));
    EXPECT_EQ(L::w4a8TileRefusal(perChannel), "") << "per channel, with X's chunk sums";
    L::W4a8Problem noSums = w4a8(1, 72, 1024, 1024);
    struct Case {
        L::W4a8Problem p;
        const char *reason;
    };
    L::W4a8Problem noCopy = w4a8(4, 64, 512, 128);
    noCopy.tilePacked = nullptr;
    L::W4a8Problem xOff = w4a8(4, 64, 512, 128);
    xOff.xq = static_cast<const char *>(xOff.xq) + 8;
    L::W4a8Problem copyOff = w4a8(4, 64, 512, 128);
    copyOff.tilePacked = static_cast<const char *>(copyOff.tilePacked) + 4;
    L::W4a8Problem fp8 = w4a8(4, 64, 512, 64);
    fp8.fp8 = true;
    for (const Case &c :
         {Case{w4a8(4, 64, 512, 64), "multiple of 128"}, Case{fp8, "W4A8-FP8"}, Case{noCopy, "tile-ordered copy"},
          Case{xOff, "16-byte aligned"}, Case{copyOff, "16-byte aligned"}, Case{w4a8(17, 64, 512, 128), "M ≤ 16"},
          Case{w4a8(4, 64, 200, 200), "multiple of 128"}, Case{w4a8(4, 64, 131072, 128), "65536"},
          Case{noSums, "chunk sums"}}) {
        const std::string why = L::w4a8TileRefusal(c.p);
        EXPECT_NE(why.find(c.reason), std::string::npos) << "expected '" << c.reason << "' in: " << why;
        // Asked for, the streaming kernel is refused with a reason before any device work.
        L::W4a8Tiling t;
        t.kernel = 2;
        try {
            L::w4a8Fused(c.p, t, nullptr, nullptr, nullptr);
            ADD_FAILURE() << "launched despite: " << why;
        } catch (const quantscope::GpuError &e) { // the refusal's own reason, not a failed device call
            EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos) << e.what();
        }
    }
}

TEST(DeviceMathStream, XsChunkSumsRefuseWhatTheyCannotHoldBeforeAnyDeviceWork)
{
    // (chunks + 1) × 16 INT32 entries: the prefix at every chunk boundary for up to 16 tokens
    EXPECT_EQ(L::w4a8XSumsBytes(128), 2u * 16 * 4);
    EXPECT_EQ(L::w4a8XSumsBytes(14336), 113u * 16 * 4);
    int *sums = const_cast<int *>(static_cast<const int *>(aligned(0x3000)));
    const void *codes = aligned(0x1000);
    for (const auto &[m, k, at, reason] :
         {std::tuple{17LL, 256LL, codes, "outside [1, 16]"}, std::tuple{0LL, 256LL, codes, "outside [1, 16]"},
          std::tuple{4LL, 200LL, codes, "multiple of 128"}, std::tuple{4LL, 131072LL, codes, "multiple of 128"},
          std::tuple{4LL, 256LL, static_cast<const void *>(static_cast<const char *>(codes) + 8), "16-byte aligned"}}) {
        try {
            L::w4a8XSums(at, m, k, sums, nullptr);
            ADD_FAILURE() << "M " << m << " K " << k << ": no refusal";
        } catch (const quantscope::GpuError &e) {
            EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
        }
    }
    // E4M3 codes have no chunk sums: the quantizer refuses the buffer before any device work
    try {
        L::w4a8QuantizeX(aligned(0x4000), 4, 256, true, const_cast<void *>(codes),
                         const_cast<float *>(static_cast<const float *>(aligned(0x5000))), sums, nullptr);
        ADD_FAILURE() << "E4M3 with sums: no refusal";
    } catch (const quantscope::GpuError &e) {
        EXPECT_NE(std::string(e.what()).find("INT8 path"), std::string::npos) << e.what();
    }
}
