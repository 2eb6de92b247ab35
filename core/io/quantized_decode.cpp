// SPDX-License-Identifier: MIT
// Unpacking and decoding of detected quantized modules: the codes in logical order, the scale
// grid in normalized orientation and the FP32 weight (quantized.h "Decoding is FP32").
#include "io/native.h"
#include "io/quantized_common.h"
#include "util/memory.h"

#include <algorithm>
#include <cstring>

namespace quantscope {

using namespace quantized_detail;

namespace {

std::uint32_t wordAt(const Tensor &t, std::int64_t i)
{
    std::uint32_t w;
    std::memcpy(&w, t.data() + 4 * i, 4);
    return w;
}

constexpr int kAwqOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};

/// c-t code i (0-based) of a row of words, unsigned (offset not removed).
std::uint32_t ctCode(const Tensor &t, std::int64_t rowWord0, std::int64_t i, int b, bool legacy, std::int64_t rowWords)
{
    const std::uint32_t mask = (1u << b) - 1u;
    if (legacy) {
        const int pf = 32 / b;
        return (wordAt(t, rowWord0 + i / pf) >> ((i % pf) * b)) & mask;
    }
    const std::int64_t bit = i * b;
    const std::int64_t w = bit >> 5;
    const int off = static_cast<int>(bit & 31);
    std::uint64_t v = wordAt(t, rowWord0 + w) >> off;
    if (off + b > 32 && w + 1 < rowWords)
        v |= static_cast<std::uint64_t>(wordAt(t, rowWord0 + w + 1)) << (32 - off);
    return static_cast<std::uint32_t>(v) & mask;
}

/// Quark: unpacks one row of `words` int32 into 8·words nibble values.
void quarkRow(const Tensor &t, std::int64_t word0, std::int64_t words, bool reorder, bool isSigned, std::int32_t *out)
{
    for (std::int64_t c = 0; c < words; ++c) {
        const std::uint32_t w = wordAt(t, word0 + c);
        for (int slot = 0; slot < 8; ++slot) {
            const int nib = static_cast<int>((w >> (4 * slot)) & 0xFu);
            const int elem = reorder ? kAwqOrder[slot] : slot;
            out[8 * c + elem] = isSigned && (nib & 0x8) ? nib - 16 : nib;
        }
    }
}

std::vector<std::int32_t> intCodes(const Checkpoint &ck, const QuantizedModule &m)
{
    const Tensor P = ck.tensor(*m.part("codes"));
    const std::int64_t E = m.experts, N = m.rows, K = m.cols;
    std::vector<std::int32_t> out(static_cast<std::size_t>(E * N * K));
    const QuantScheme &q = m.scheme;
    if (m.format == QuantFormat::CtPackQuantized) {
        const std::int64_t W = P.shape().back();
        const int b = q.bits;
        const auto offset = static_cast<std::int32_t>(1u << (b - 1));
        const bool legacy = q.packOrder == PackOrder::CtLegacy;
        for (std::int64_t r = 0; r < E * N; ++r)
            for (std::int64_t k = 0; k < K; ++k)
                out[static_cast<std::size_t>(r * K + k)] =
                    static_cast<std::int32_t>(ctCode(P, r * W, k, b, legacy, W)) - offset;
        return out;
    }
    if (m.format == QuantFormat::QuarkRealQuantized && P.dtype() == DType::I32) {
        const bool reorder = q.packOrder == PackOrder::QuarkReorder;
        const bool sgn = q.element == "int4";
        const std::int64_t words = P.shape()[1];
        std::vector<std::int32_t> row(static_cast<std::size_t>(words * 8));
        if (q.transposed) { // stored [K, N/8]: row k holds codes of all N outputs
            for (std::int64_t k = 0; k < K; ++k) {
                quarkRow(P, k * words, words, reorder, sgn, row.data());
                for (std::int64_t n = 0; n < N; ++n)
                    out[static_cast<std::size_t>(n * K + k)] = row[static_cast<std::size_t>(n)];
            }
        } else {
            for (std::int64_t n = 0; n < N; ++n) {
                quarkRow(P, n * words, words, reorder, sgn, row.data());
                std::copy(row.begin(), row.begin() + K, out.begin() + n * K);
            }
        }
        return out;
    }
    // Unpacked I8 codes.
    for (std::int64_t i = 0; i < P.numel(); ++i)
        out[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(P.at(i));
    return out;
}

} // namespace

// ---- decoding ----------------------------------------------------------------------------------

Tensor quantizedCodes(const Checkpoint &ck, const QuantizedModule &m)
{
    if (m.format == QuantFormat::QuantscopeNative)
        return nativeCodes(ck, m);
    const Tensor P = ck.tensor(*m.part("codes"));
    if (m.scheme.element == "fp4_e2m1")
        return Tensor::borrow(DType::F4, m.shape, P.data(), std::make_shared<Tensor>(P));
    if (m.scheme.isFloat)
        return P;
    auto codes = intCodes(ck, m);
    std::vector<std::byte> bytes(codes.size() * 4);
    if (!bytes.empty())
        std::memcpy(bytes.data(), codes.data(), bytes.size());
    return Tensor::fromBytes(DType::I32, m.shape, std::move(bytes));
}

QuantParams quantizedParams(const Checkpoint &ck, const QuantizedModule &m)
{
    if (m.format == QuantFormat::QuantscopeNative)
        return nativeParams(ck, m);
    QuantParams p;
    const QuantScheme &q = m.scheme;
    const std::int64_t E = m.experts, R = m.gridRows, C = m.gridCols;
    const Tensor S = ck.tensor(*m.part("scale"));
    std::vector<float> raw = floatsOf(S, q.scaleIsE8m0);
    p.scales.resize(static_cast<std::size_t>(E * R * C));
    if (q.transposed) { // Quark per-group: stored [G, N]
        for (std::int64_t n = 0; n < R; ++n)
            for (std::int64_t g = 0; g < C; ++g)
                p.scales[static_cast<std::size_t>(n * C + g)] = raw[static_cast<std::size_t>(g * R + n)];
    } else if (raw.size() == p.scales.size()) {
        p.scales = std::move(raw);
    } else {
        p.scales.assign(p.scales.size(), raw.empty() ? 0.0f : raw[0]);
    }
    if (const std::string *gs = m.part("global_scale")) {
        const float g = floatsOf(ck.tensor(*gs), false).at(0);
        for (float &s : p.scales)
            s = s / g; // compressed-tensors: scale / global_scale, then × code
    }
    if (const std::string *s1 = m.part("scale_1"))
        p.outer = floatsOf(ck.tensor(*s1), false).at(0);

    if (const std::string *zn = m.part("zero_point")) {
        const Tensor Z = ck.tensor(*zn);
        p.zeroPoints.resize(p.scales.size());
        if (m.format == QuantFormat::CtPackQuantized && m.zeroPointPacked) {
            // Packed along dim 0: column c holds the zero points of all rows (per expert).
            const int b = q.bits;
            const auto offset = static_cast<std::int32_t>(1u << (b - 1));
            const bool legacy = q.packOrder == PackOrder::CtLegacy;
            const std::int64_t ZR = Z.shape()[Z.rank() - 2];
            for (std::int64_t e = 0; e < E; ++e)
                for (std::int64_t c = 0; c < C; ++c) {
                    // Gather column c of expert e into a contiguous word row.
                    std::vector<std::byte> col(static_cast<std::size_t>(ZR * 4));
                    for (std::int64_t w = 0; w < ZR; ++w)
                        std::memcpy(col.data() + 4 * w, Z.data() + 4 * ((e * ZR + w) * C + c), 4);
                    const Tensor colT = Tensor::fromBytes(DType::I32, {ZR}, std::move(col));
                    for (std::int64_t r = 0; r < R; ++r)
                        p.zeroPoints[static_cast<std::size_t>((e * R + r) * C + c)] =
                            static_cast<float>(static_cast<std::int32_t>(ctCode(colT, 0, r, b, legacy, ZR)) - offset);
                }
        } else if (m.format == QuantFormat::QuarkRealQuantized && Z.numel() != R * C) {
            // Packed nibbles: channel [ceil(N/8)], group [G, N/8] (transposed).
            const bool reorder = q.packOrder == PackOrder::QuarkReorder;
            const bool sgn = q.element == "int4";
            const std::int64_t words = ceilDiv(R, 8);
            std::vector<std::int32_t> row(static_cast<std::size_t>(words * 8));
            const std::int64_t lines = q.granularity == Granularity::Group ? C : 1;
            for (std::int64_t g = 0; g < lines; ++g) {
                quarkRow(Z, g * words, words, reorder, sgn, row.data());
                for (std::int64_t n = 0; n < R; ++n)
                    p.zeroPoints[static_cast<std::size_t>(n * C + g)] =
                        static_cast<float>(row[static_cast<std::size_t>(n)]);
            }
        } else {
            std::vector<float> z(static_cast<std::size_t>(Z.numel()));
            for (std::int64_t i = 0; i < Z.numel(); ++i)
                z[static_cast<std::size_t>(i)] = static_cast<float>(Z.at(i));
            if (q.transposed) {
                for (std::int64_t n = 0; n < R; ++n)
                    for (std::int64_t g = 0; g < C; ++g)
                        p.zeroPoints[static_cast<std::size_t>(n * C + g)] = z[static_cast<std::size_t>(g * R + n)];
            } else if (z.size() == p.zeroPoints.size()) {
                p.zeroPoints = std::move(z);
            } else {
                p.zeroPoints.assign(p.zeroPoints.size(), z.empty() ? 0.0f : z[0]);
            }
        }
    }
    if (q.actOrder)
        for (std::int64_t g : integersOf(ck.tensor(*m.part("g_idx"))))
            p.gIdx.push_back(static_cast<std::int32_t>(g));
    return p;
}

Tensor decodeQuantized(const Checkpoint &ck, const QuantizedModule &m)
{
    if (m.format == QuantFormat::QuantscopeNative)
        return decodeNative(ck, m); // the method's own dequantization
    const QuantScheme &q = m.scheme;
    const std::int64_t E = m.experts, N = m.rows, K = m.cols;
    // Codes as float and the FP32 result, plus the integer codes: 12 bytes an element at the peak.
    const long double elements = static_cast<long double>(E) * N * K;
    checkAllocation(elements * 12 > 1.8e19L ? ~std::uint64_t{0} : static_cast<std::uint64_t>(elements * 12),
                    Location{ck.path().string(), m.name, {}}, "decoding " + m.name + " to FP32");
    const std::size_t total = static_cast<std::size_t>(E * N * K);
    std::vector<float> codes(total);
    if (q.isFloat) {
        const Tensor c = quantizedCodes(ck, m);
        c.decodeTo(codes);
    } else {
        const auto ic = intCodes(ck, m);
        for (std::size_t i = 0; i < total; ++i)
            codes[i] = static_cast<float>(ic[i]);
    }
    const QuantParams p = quantizedParams(ck, m);
    std::int64_t rowBlock = 1, colBlock = std::max<std::int64_t>(K, 1);
    switch (q.granularity) {
    case Granularity::Tensor:
        rowBlock = std::max<std::int64_t>(N, 1);
        break;
    case Granularity::Channel:
        break;
    case Granularity::Group:
        colBlock = q.groupSize;
        break;
    case Granularity::Block:
        rowBlock = q.blockRows;
        colBlock = q.blockCols;
        break;
    }
    std::vector<std::int64_t> colOf(static_cast<std::size_t>(K));
    for (std::int64_t k = 0; k < K; ++k)
        colOf[static_cast<std::size_t>(k)] = p.gIdx.empty() ? k / colBlock : p.gIdx[static_cast<std::size_t>(k)];
    const std::int64_t R = m.gridRows, C = m.gridCols;
    const bool zp = !p.zeroPoints.empty();
    const bool outer = m.part("scale_1") != nullptr;
    Tensor out = Tensor::zeros(DType::F32, m.shape);
    auto *o = reinterpret_cast<float *>(out.mutableData());
    for (std::int64_t e = 0; e < E; ++e)
        for (std::int64_t n = 0; n < N; ++n) {
            const std::int64_t gridRow = (e * R + n / rowBlock) * C;
            const std::int64_t base = (e * N + n) * K;
            for (std::int64_t k = 0; k < K; ++k) {
                const std::size_t gi = static_cast<std::size_t>(gridRow + colOf[static_cast<std::size_t>(k)]);
                float v = codes[static_cast<std::size_t>(base + k)];
                if (zp)
                    v = v - p.zeroPoints[gi];
                v = v * p.scales[gi];
                if (outer)
                    v = p.outer * v;
                o[base + k] = v;
            }
        }
    return out;
}

} // namespace quantscope
