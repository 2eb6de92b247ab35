// SPDX-License-Identifier: MIT
// ggml's reference quantizers of the legacy block types, as gguf-py's numpy code writes them
// (gguf/quants.py Q4_0 … Q8_0 quantize_blocks): FP32 arithmetic in the same order, F16 scales by
// round-to-nearest-even.
#include "ggml/ggml_quantize.h"

#include "tensor/convert.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace quantscope::ggml {

namespace {

void putF16(unsigned char *p, float v)
{
    const std::uint16_t h = floatToF16(v);
    p[0] = static_cast<unsigned char>(h & 0xFF);
    p[1] = static_cast<unsigned char>(h >> 8);
}

/// numpy's float → uint8 cast then clip(0, hi), for the non-negative values these blocks make.
unsigned clipCode(float v, int hi)
{
    const int q = static_cast<int>(v);
    return static_cast<unsigned>(std::clamp(q, 0, hi));
}

/// gguf-py np_roundf: round half away from zero.
float roundAway(float n)
{
    const float a = std::fabs(n);
    const float floored = std::floor(a);
    const float b = floored + std::floor(2.0f * (a - floored));
    return n > 0 ? b : (n < 0 ? -b : 0.0f);
}

/// The element of largest magnitude, the first one on ties (numpy argmax).
float absMaxSigned(const float *x, int n)
{
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (std::fabs(x[i]) > std::fabs(x[best]))
            best = i;
    return x[best];
}

void packLowHigh(const unsigned *q, unsigned char *qs)
{
    for (int j = 0; j < 16; ++j)
        qs[j] = static_cast<unsigned char>(((q[j] & 0x0F) | (q[16 + j] << 4)) & 0xFF);
}

void packHigh(const unsigned *q, unsigned char *qh)
{
    std::uint32_t h = 0;
    for (int j = 0; j < 32; ++j)
        h |= static_cast<std::uint32_t>((q[j] >> 4) & 1u) << j;
    for (int k = 0; k < 4; ++k)
        qh[k] = static_cast<unsigned char>(h >> (8 * k));
}

void quantizeBlock(Type t, const float *x, unsigned char *y)
{
    unsigned q[32];
    switch (t) {
    case Type::Q4_0:
    case Type::Q5_0: {
        const bool five = t == Type::Q5_0;
        const float max = absMaxSigned(x, 32);
        const float d = max / (five ? -16.0f : -8.0f);
        const float id = d == 0.0f ? 0.0f : 1.0f / d;
        for (int j = 0; j < 32; ++j)
            q[j] = clipCode(std::trunc(x[j] * id + (five ? 16.5f : 8.5f)), five ? 31 : 15);
        putF16(y, d);
        if (five) {
            packHigh(q, y + 2);
            packLowHigh(q, y + 6);
        } else {
            packLowHigh(q, y + 2);
        }
        return;
    }
    case Type::Q4_1:
    case Type::Q5_1: {
        const bool five = t == Type::Q5_1;
        const float max = *std::max_element(x, x + 32), min = *std::min_element(x, x + 32);
        const float d = (max - min) / (five ? 31.0f : 15.0f);
        const float id = d == 0.0f ? 0.0f : 1.0f / d;
        for (int j = 0; j < 32; ++j)
            q[j] = clipCode(std::trunc((x[j] - min) * id + 0.5f), five ? 31 : 15);
        putF16(y, d);
        putF16(y + 2, min);
        if (five) {
            packHigh(q, y + 4);
            packLowHigh(q, y + 8);
        } else {
            packLowHigh(q, y + 4);
        }
        return;
    }
    case Type::Q8_0: {
        float amax = 0.0f;
        for (int j = 0; j < 32; ++j)
            amax = std::max(amax, std::fabs(x[j]));
        const float d = amax / 127.0f;
        const float id = d == 0.0f ? 0.0f : 1.0f / d;
        putF16(y, d);
        for (int j = 0; j < 32; ++j)
            y[2 + j] = static_cast<unsigned char>(static_cast<std::int8_t>(roundAway(x[j] * id)));
        return;
    }
    default:
        throw UnsupportedError("quantizing to the ggml type " + std::string(typeName(t)) + " is not implemented");
    }
}

} // namespace

bool isKQuant(Type t) noexcept
{
    return t == Type::Q2_K || t == Type::Q3_K || t == Type::Q4_K || t == Type::Q5_K || t == Type::Q6_K;
}

bool quantizes(Type t) noexcept
{
    return t == Type::Q4_0 || t == Type::Q4_1 || t == Type::Q5_0 || t == Type::Q5_1 || t == Type::Q8_0 || isKQuant(t) ||
           smallquants::quantizes(t);
}

std::vector<std::byte> quantizeRows(Type t, const float *x, std::int64_t rows, std::int64_t cols,
                                    const float *importance)
{
    if (!quantizes(t))
        throw UnsupportedError(
            "quantizing to the ggml type " + std::string(typeName(t)) +
            " is not implemented (q4_0, q4_1, q5_0, q5_1, q8_0, q2_k … q6_k, tq1_0, tq2_0, mxfp4 are)");
    const TypeInfo *info = typeInfo(static_cast<std::uint32_t>(t));
    const std::int64_t bs = info->blockSize, ts = info->typeSize;
    if (cols % bs != 0)
        throw UnsupportedError("rows of " + std::to_string(cols) + " values are not a whole number of " +
                               std::string(info->name) + " blocks of " + std::to_string(bs) +
                               " (ggml quantizes along rows; pick a type with smaller blocks)");
    if (importance && !isKQuant(t))
        throw UnsupportedError("importance weights are used by the K-quants (q2_k … q6_k) only, not by " +
                               std::string(info->name));
    std::vector<std::byte> out(static_cast<std::size_t>(rows * (cols / bs) * ts));
    if (isKQuant(t)) {
        kquants::quantize(t, x, out.data(), rows, cols, importance);
        return out;
    }
    const std::int64_t nblocks = rows * (cols / bs);
    if (smallquants::quantizes(t)) {
        smallquants::quantize(t, x, out.data(), nblocks);
        return out;
    }
    for (std::int64_t b = 0; b < nblocks; ++b)
        quantizeBlock(t, x + b * bs, reinterpret_cast<unsigned char *>(out.data()) + b * ts);
    return out;
}

} // namespace quantscope::ggml
