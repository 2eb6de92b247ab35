// SPDX-License-Identifier: MIT
#include "kv/kv_schemes.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "kv/kv_math.h"
#include "kv/kv_rows_cpu.h"
#include "numeric/hadamard.h"
#include "numeric/qmath.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

constexpr std::int64_t kGroup = kvmath::kGroup;     // constOpt, MXFP4, INT4
constexpr std::int64_t kNvGroup = kvmath::kNvGroup; // NVFP4

std::string fmtC(double c)
{
    char b[32];
    std::snprintf(b, sizeof b, "%g", c);
    return b;
}

} // namespace

std::int64_t kvRotationBlock(std::int64_t d)
{
    std::int64_t b = 1;
    while (d % (b * 2) == 0 && b * 2 <= d)
        b *= 2;
    return b;
}

void kvRotateRows(std::vector<float> &x, std::int64_t d, std::int64_t b)
{
    kvfast::rotateRows(x.data(), static_cast<std::int64_t>(x.size()) / d, d, b);
}

std::string KvScheme::name() const
{
    switch (method) {
    case KvMethod::Bf16:
        return "bf16";
    case KvMethod::Fp8:
        switch (fp8) {
        case KvFp8Rule::Amax:
            return "fp8";
        case KvFp8Rule::Head:
            return "fp8-head";
        case KvFp8Rule::Vllm:
            return "fp8-vllm";
        case KvFp8Rule::Unit:
            return "fp8-unit";
        }
        break;
    case KvMethod::Codebook:
        switch (codebook) {
        case KvCodebook::Theory:
            return "codebook";
        case KvCodebook::Layer:
            return "codebook-layer";
        case KvCodebook::Shared:
            return "codebook-shared";
        case KvCodebook::NoRot:
            return "codebook-norot";
        }
        break;
    case KvMethod::ConstOpt: {
        std::string s = "constopt";
        std::vector<std::string> opts;
        if (cFit)
            opts.push_back("c=fit");
        else if (c != 0.156)
            opts.push_back("c=" + fmtC(c));
        if (unrounded)
            opts.push_back("unrounded");
        for (std::size_t i = 0; i < opts.size(); ++i)
            s += (i ? "," : ":") + opts[i];
        return s;
    }
    case KvMethod::MxFp4:
        return "mxfp4";
    case KvMethod::NvFp4:
        return "nvfp4";
    case KvMethod::Int4:
        return "int4";
    }
    return "?";
}

KvScheme KvScheme::parse(const std::string &text)
{
    const auto bad = [&](const std::string &why) -> KvScheme {
        throw UnsupportedError("KV scheme '" + text + "': " + why +
                               " (accepted: bf16, fp8, fp8-head, fp8-vllm, fp8-unit, codebook, codebook-layer, "
                               "codebook-shared, codebook-norot, constopt[:c=C|c=fit][,unrounded], mxfp4, nvfp4, "
                               "int4)");
    };
    KvScheme s;
    const auto colon = text.find(':');
    const std::string base = text.substr(0, colon);
    if (base == "bf16")
        s.method = KvMethod::Bf16;
    else if (base == "fp8" || base == "fp8-amax")
        s.method = KvMethod::Fp8;
    else if (base == "fp8-head")
        s = {KvMethod::Fp8, KvFp8Rule::Head};
    else if (base == "fp8-vllm")
        s = {KvMethod::Fp8, KvFp8Rule::Vllm};
    else if (base == "fp8-unit")
        s = {KvMethod::Fp8, KvFp8Rule::Unit};
    else if (base == "codebook" || base == "codebook-theory")
        s.method = KvMethod::Codebook;
    else if (base == "codebook-layer")
        s = {KvMethod::Codebook, KvFp8Rule::Amax, KvCodebook::Layer};
    else if (base == "codebook-shared")
        s = {KvMethod::Codebook, KvFp8Rule::Amax, KvCodebook::Shared};
    else if (base == "codebook-norot")
        s = {KvMethod::Codebook, KvFp8Rule::Amax, KvCodebook::NoRot};
    else if (base == "constopt")
        s.method = KvMethod::ConstOpt;
    else if (base == "mxfp4")
        s.method = KvMethod::MxFp4;
    else if (base == "nvfp4")
        s.method = KvMethod::NvFp4;
    else if (base == "int4" || base == "int4-kivi")
        s.method = KvMethod::Int4;
    else
        return bad("unknown scheme");
    if (colon == std::string::npos)
        return s;
    if (s.method != KvMethod::ConstOpt)
        return bad("only constopt takes options");
    std::string rest = text.substr(colon + 1);
    std::size_t pos = 0;
    while (pos <= rest.size()) {
        const auto comma = rest.find(',', pos);
        const std::string opt = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (opt == "unrounded")
            s.unrounded = true;
        else if (opt == "pow2")
            s.unrounded = false;
        else if (opt == "c=fit")
            s.cFit = true;
        else if (opt.rfind("c=", 0) == 0) {
            char *end = nullptr;
            const double c = std::strtod(opt.c_str() + 2, &end);
            if (end == opt.c_str() + 2 || *end != '\0' || !(c > 0.0) || !(c < 10.0))
                return bad("c must be a number in (0, 10), got '" + opt.substr(2) + "'");
            s.c = c;
        } else
            return bad("unknown constopt option '" + opt + "'");
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
    return s;
}

bool KvScheme::rotates() const
{
    return (method == KvMethod::Codebook && codebook != KvCodebook::NoRot) || method == KvMethod::ConstOpt;
}

double KvScheme::bytesPerToken(KvRole role, std::int64_t d) const
{
    const double dd = static_cast<double>(d);
    const double groups = std::ceil(dd / kGroup);
    switch (method) {
    case KvMethod::Bf16:
        return 2 * dd;
    case KvMethod::Fp8:
        return dd; // one scale per layer or head: not per token
    case KvMethod::Codebook:
        return dd / 2 + 2; // 4-bit codes + the FP16 norm
    case KvMethod::ConstOpt:
        return dd / 2 + (unrounded ? 4 : 1) * groups;
    case KvMethod::MxFp4:
        return dd / 2 + groups;
    case KvMethod::NvFp4:
        return dd / 2 + std::ceil(dd / kNvGroup);
    case KvMethod::Int4:
        // K: an FP16 scale and minimum per channel per 32 tokens; V: per token per 32 channels.
        return role == KvRole::K ? dd / 2 + 4 * dd / kGroup : dd / 2 + 4 * groups;
    }
    return 2 * dd;
}

std::vector<KvScheme> defaultKvSchemes()
{
    std::vector<KvScheme> out;
    for (const char *n : {"bf16", "fp8", "fp8-head", "fp8-vllm", "codebook", "codebook-layer", "codebook-shared",
                          "codebook-norot", "constopt", "constopt:c=0.195", "constopt:c=fit", "mxfp4", "nvfp4", "int4"})
        out.push_back(KvScheme::parse(n));
    return out;
}

std::vector<float> kvQuantize(const KvScheme &scheme, KvRole role, const std::vector<float> &x,
                              const KvLayerContext &ctx, int threads)
{
    std::vector<float> out;
    kvQuantizeInto(scheme, role, x, ctx, out, threads);
    return out;
}

void kvQuantizeInto(const KvScheme &scheme, KvRole role, const std::vector<float> &x, const KvLayerContext &ctx,
                    std::vector<float> &out, int threads)
{
    const std::int64_t H = ctx.heads, T = ctx.tokens, d = ctx.dim;
    out.resize(x.size());
    const std::int64_t b = kvRotationBlock(d);
    if (scheme.rotates() && b < 2)
        throw UnsupportedError("head_dim " + std::to_string(d) + " is odd: the " + scheme.name() +
                               " scheme needs a Walsh–Hadamard rotation over a power-of-two block");
    const std::int64_t rows = H * T;
    switch (scheme.method) {
    case KvMethod::Bf16:
        kvfast::bf16Values(x.data(), out.data(), static_cast<std::int64_t>(x.size()));
        break;
    case KvMethod::Fp8: {
        const float cst = kvmath::fp8Divisor(scheme.fp8 == KvFp8Rule::Vllm, role == KvRole::K);
        if (scheme.fp8 == KvFp8Rule::Head) {
            for (std::int64_t h = 0; h < H; ++h) {
                const float s = kvmath::fdiv(kvfast::absmax(x.data() + h * T * d, T * d), 448.0f);
                kvfast::fp8Values(x.data() + h * T * d, out.data() + h * T * d, T * d, s);
            }
        } else {
            const float s = scheme.fp8 == KvFp8Rule::Unit
                                ? 1.0f
                                : kvmath::fdiv(kvfast::absmax(x.data(), static_cast<std::int64_t>(x.size())), cst);
            kvfast::fp8Values(x.data(), out.data(), static_cast<std::int64_t>(x.size()), s);
        }
        break;
    }
    case KvMethod::Codebook: {
        if (ctx.levels.size() != 16)
            throw UnsupportedError("the codebook scheme needs 16 levels");
        std::vector<float> lv(16), bound(15);
        for (int i = 0; i < 16; ++i)
            lv[static_cast<std::size_t>(i)] = static_cast<float>(ctx.levels[static_cast<std::size_t>(i)]);
        for (int i = 0; i < 15; ++i)
            bound[static_cast<std::size_t>(i)] = static_cast<float>(
                (ctx.levels[static_cast<std::size_t>(i)] + ctx.levels[static_cast<std::size_t>(i) + 1]) / 2);
        const bool rot = scheme.codebook != KvCodebook::NoRot;
        const float r = hadamardNorm(b);
        parallelSlices(rows, resolveThreads(threads), nullptr, [&](int, std::int64_t lo, std::int64_t hi) {
            kvfast::codebookRows(x.data() + lo * d, out.data() + lo * d, hi - lo, d, b, r, rot, lv.data(),
                                 bound.data());
        });
        break;
    }
    case KvMethod::ConstOpt: {
        const float fc = static_cast<float>(ctx.c);
        const float r = hadamardNorm(b);
        parallelSlices(rows, resolveThreads(threads), nullptr, [&](int, std::int64_t lo, std::int64_t hi) {
            kvfast::constOptRows(x.data() + lo * d, out.data() + lo * d, hi - lo, d, b, r, fc, scheme.unrounded);
        });
        break;
    }
    case KvMethod::MxFp4:
        kvfast::mxfp4Rows(x.data(), out.data(), rows, d);
        break;
    case KvMethod::NvFp4: {
        const float global = fp4::nvGlobalScale(kvfast::absmax(x.data(), static_cast<std::int64_t>(x.size())));
        kvfast::nvfp4Rows(x.data(), out.data(), rows, d, global);
        break;
    }
    case KvMethod::Int4:
        for (std::int64_t h = 0; h < H; ++h) {
            kvfast::int4Head(x.data() + h * T * d, out.data() + h * T * d, T, d, role == KvRole::K);
        }
        break;
    }
}

namespace {

/// One scheme's tensor-wide constants (as kvQuantizeInto resolves them) and its rows.
struct RowQuantizer {
    const KvScheme *scheme = nullptr;
    KvRole role = KvRole::K;
    const KvLayerContext *ctx = nullptr;
    std::int64_t b = 1;
    float r = 1, s = 0; // s: FP8's scale, NVFP4's global
    std::vector<float> lv, bound, headScale;

    RowQuantizer(const KvScheme &sc, KvRole ro, const std::vector<float> &x, const KvLayerContext &c)
        : scheme(&sc), role(ro), ctx(&c)
    {
        const std::int64_t H = c.heads, T = c.tokens, d = c.dim;
        b = kvRotationBlock(d);
        if (sc.rotates() && b < 2)
            throw UnsupportedError("head_dim " + std::to_string(d) + " is odd: the " + sc.name() +
                                   " scheme needs a Walsh–Hadamard rotation over a power-of-two block");
        r = b >= 2 ? hadamardNorm(b) : 1.0f;
        switch (sc.method) {
        case KvMethod::Fp8:
            if (sc.fp8 == KvFp8Rule::Head) {
                for (std::int64_t h = 0; h < H; ++h)
                    headScale.push_back(kvmath::fdiv(kvfast::absmax(x.data() + h * T * d, T * d), 448.0f));
            } else {
                const float cst = kvmath::fp8Divisor(sc.fp8 == KvFp8Rule::Vllm, ro == KvRole::K);
                s = sc.fp8 == KvFp8Rule::Unit
                        ? 1.0f
                        : kvmath::fdiv(kvfast::absmax(x.data(), static_cast<std::int64_t>(x.size())), cst);
            }
            break;
        case KvMethod::Codebook:
            if (c.levels.size() != 16)
                throw UnsupportedError("the codebook scheme needs 16 levels");
            lv.resize(16);
            bound.resize(15);
            for (int i = 0; i < 16; ++i)
                lv[static_cast<std::size_t>(i)] = static_cast<float>(c.levels[static_cast<std::size_t>(i)]);
            for (int i = 0; i < 15; ++i)
                bound[static_cast<std::size_t>(i)] = static_cast<float>(
                    (c.levels[static_cast<std::size_t>(i)] + c.levels[static_cast<std::size_t>(i) + 1]) / 2);
            break;
        case KvMethod::NvFp4:
            s = fp4::nvGlobalScale(kvfast::absmax(x.data(), static_cast<std::int64_t>(x.size())));
            break;
        default:
            break;
        }
    }

    bool codebook() const { return scheme->method == KvMethod::Codebook; }
    bool constOpt() const { return scheme->method == KvMethod::ConstOpt; }

    /// Rows [r0, r0 + n) of head h (src) into dst; r0 a multiple of 32 (INT4's per-channel groups
    /// of 32 tokens start where they do over the whole head).
    void rows(const float *src, std::int64_t h, std::int64_t n, float *dst) const
    {
        const std::int64_t d = ctx->dim;
        switch (scheme->method) {
        case KvMethod::Bf16:
            kvfast::bf16Values(src, dst, n * d);
            break;
        case KvMethod::Fp8:
            kvfast::fp8Values(src, dst, n * d, headScale.empty() ? s : headScale[static_cast<std::size_t>(h)]);
            break;
        case KvMethod::Codebook:
            kvfast::codebookRows(src, dst, n, d, b, r, scheme->codebook != KvCodebook::NoRot, lv.data(), bound.data());
            break;
        case KvMethod::ConstOpt:
            kvfast::constOptRows(src, dst, n, d, b, r, static_cast<float>(ctx->c), scheme->unrounded);
            break;
        case KvMethod::MxFp4:
            kvfast::mxfp4Rows(src, dst, n, d);
            break;
        case KvMethod::NvFp4:
            kvfast::nvfp4Rows(src, dst, n, d, s);
            break;
        case KvMethod::Int4:
            kvfast::int4Head(src, dst, n, d, role == KvRole::K);
            break;
        }
    }
};

} // namespace

std::int64_t kvQuantizeMseN(const KvScheme *schemes, KvRole role, const std::vector<float> &x,
                            const KvLayerContext *ctx, int n, std::int64_t keep, std::vector<float> *const *out,
                            std::vector<double> *const *mse)
{
    if (n <= 0)
        return 0;
    const std::int64_t H = ctx[0].heads, T = ctx[0].tokens, d = ctx[0].dim;
    constexpr std::int64_t R = 32;
    const std::int64_t kept = std::min(T, (std::max<std::int64_t>(keep, 0) + R - 1) / R * R);
    std::vector<RowQuantizer> q;
    for (int k = 0; k < n; ++k) {
        if (ctx[k].heads != H || ctx[k].tokens != T || ctx[k].dim != d)
            throw std::logic_error("kvQuantizeMseN: the contexts' shapes differ"); // a caller's error
        q.emplace_back(schemes[k], role, x, ctx[k]);
        out[k]->resize(static_cast<std::size_t>(H * kept * d));
        mse[k]->assign(static_cast<std::size_t>(H), 0.0);
    }
    // Sets that share a tile's preparation: all codebooks, or all constOpt.
    bool allCodebook = n > 1, allConstOpt = n > 1;
    for (const auto &rq : q) {
        allCodebook &= rq.codebook();
        allConstOpt &= rq.constOpt();
    }
    std::vector<float> scratch(static_cast<std::size_t>(n * R * d));
    std::vector<float *> dst(static_cast<std::size_t>(n));
    std::vector<const float *> lv(static_cast<std::size_t>(n)), bound(static_cast<std::size_t>(n));
    std::vector<float> fc(static_cast<std::size_t>(n));
    std::unique_ptr<bool[]> rot(new bool[static_cast<std::size_t>(n)]), unr(new bool[static_cast<std::size_t>(n)]);
    for (int k = 0; k < n; ++k) {
        const RowQuantizer &rq = q[static_cast<std::size_t>(k)];
        lv[static_cast<std::size_t>(k)] = rq.lv.data();
        bound[static_cast<std::size_t>(k)] = rq.bound.data();
        fc[static_cast<std::size_t>(k)] = static_cast<float>(ctx[k].c);
        rot[static_cast<std::size_t>(k)] = schemes[k].codebook != KvCodebook::NoRot;
        unr[static_cast<std::size_t>(k)] = schemes[k].unrounded;
    }
    std::vector<double> acc(static_cast<std::size_t>(32 * n));
    for (std::int64_t h = 0; h < H; ++h) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::int64_t r0 = 0; r0 < T; r0 += R) {
            const std::int64_t rows = std::min(R, T - r0);
            const float *src = x.data() + (h * T + r0) * d;
            for (int k = 0; k < n; ++k)
                dst[static_cast<std::size_t>(k)] =
                    r0 < kept ? out[k]->data() + (h * kept + r0) * d : scratch.data() + k * R * d;
            const std::int64_t b = q[0].b;
            if (allCodebook)
                kvfast::codebookRowsN(src, dst.data(), rows, d, b, q[0].r, rot.get(), lv.data(), bound.data(), n);
            else if (allConstOpt)
                kvfast::constOptRowsN(src, dst.data(), rows, d, b, q[0].r, fc.data(), unr.get(), n);
            else
                for (int k = 0; k < n; ++k)
                    q[static_cast<std::size_t>(k)].rows(src, h, rows, dst[static_cast<std::size_t>(k)]);
            for (int k = 0; k < n; ++k) {
                const float *y = dst[static_cast<std::size_t>(k)];
                double *a = acc.data() + 32 * k;
                kvfast::sumSquaredDiffAdd(src, y, rows * d, a);
                if (r0 + rows == T) {
                    const std::int64_t tail = rows * d % 32;
                    const double sse =
                        kvfast::sumSquaredDiffFinish(a, src + (rows * d - tail), y + (rows * d - tail), tail);
                    (*mse[k])[static_cast<std::size_t>(h)] = sse / static_cast<double>(T * d);
                }
            }
        }
    }
    return kept;
}

std::int64_t kvQuantizeMse(const KvScheme &scheme, KvRole role, const std::vector<float> &x, const KvLayerContext &ctx,
                           std::int64_t keep, std::vector<float> &out, std::vector<double> &mse)
{
    std::vector<float> *o = &out;
    std::vector<double> *m = &mse;
    return kvQuantizeMseN(&scheme, role, x, &ctx, 1, keep, &o, &m);
}

} // namespace quantscope
