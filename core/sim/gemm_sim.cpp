// SPDX-License-Identifier: MIT
#include "sim/gemm_sim.h"

#include <cmath>

#include "numeric/fp4math.h"
#include "numeric/qmath.h"
#include "numeric/hadamard.h"
#include "quant/quant_spec.h"
#include "quant/uniform.h"
#include "tensor/convert.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

/// A run of k in one weight row sharing its scale(s) (and zero point).
struct Seg {
    std::int64_t k0 = 0, k1 = 0;
    float s = 1, so = 1;
    int z = 0;
};

/// W in the form the low-precision GEMM consumes: Ŵ[n,k] = s·so·v[n,k] over each run.
struct Factored {
    std::string inner;       ///< the method whose codes are stored: int, fp8, fp4
    bool integer = false;    ///< `q` holds INT codes
    bool e4m3Exact = false;  ///< every v is exact in E4M3
    bool outer = false;      ///< a second (outer) scale per run
    bool outerZeros = false; ///< outer zero points (INT stage 1, asymmetric): no low-precision path
    bool anyZero = false;    ///< some run has z ≠ 0
    int bits = 0;
    std::int64_t rotate = 0;
    std::vector<std::int8_t> q;         ///< INT codes
    std::vector<float> v;               ///< q − z, or the FP4 / FP8 value
    std::vector<std::vector<Seg>> rows; ///< per row its runs (empty when factor() filled a flat plan)
    bool hasRuns = false;               ///< the runs were computed (into `rows` or the flat plan)
};

/// The runs of k and their scales; with `values`, the per-element codes and values the CPU's
/// loops read. A layout's groups (and an outer layout's) split K at the same columns in every row
/// (tensor, channel, group, block: groupOf(r, c) changes with c independently of r), so the
/// boundaries come from row 0 and each row's scales from one groupOf per run.
/// `flat` (with values false): the runs go straight into the plan's row-major tables (segEnd,
/// segS, segSo, segZ) instead of `rows` — no vector per row; the same values in the same places.
Factored factor(const QuantizedTensor &qw, bool values, GemmPlan *flat = nullptr)
{
    Factored F;
    const GroupLayout &L = qw.layout;
    const std::int64_t N = L.rows, K = L.cols;
    const std::string &m = qw.method;
    F.inner = m;
    if (m == "progressive") {
        F.inner = qw.spec.at("stage2").at("method").get<std::string>();
        F.outer = true;
        F.outerZeros = !qw.outerZeros.empty();
    }
    if (m == "mxfp4" || m == "nvfp4" || m == "constopt")
        F.inner = "fp4";
    if (m == "constopt")
        F.rotate = qw.spec.value("rotate", std::int64_t{0});
    F.bits = qw.codeBits;
    const std::size_t n = qw.codes.size();
    if (F.inner == "int") {
        F.integer = true;
        F.e4m3Exact = qw.codeBits <= 4; // |q − z| ≤ 15: integers up to 16 are exact in E4M3
    } else if (F.inner == "fp8") {
        F.e4m3Exact = qw.codeDtype == DType::F8_E4M3;
    } else if (F.inner == "fp4") {
        F.e4m3Exact = true;
    } else {
        return F; // weight-only products only
    }
    std::vector<std::int64_t> ends;
    for (std::int64_t k = 1; k <= K; ++k)
        if (k == K || L.groupOf(0, k) != L.groupOf(0, k - 1) ||
            (F.outer && qw.outerLayout.groupOf(0, k) != qw.outerLayout.groupOf(0, k - 1)))
            ends.push_back(k);
    const std::size_t runs = ends.size();
    flat = values ? nullptr : flat;
    if (flat) {
        flat->segEnd.assign(ends.begin(), ends.end());
        flat->segS.resize(static_cast<std::size_t>(N) * runs);
        flat->segSo.resize(flat->segS.size());
        flat->segZ.resize(flat->segS.size());
    } else {
        F.rows.resize(static_cast<std::size_t>(N));
    }
    F.hasRuns = true;
    const bool nv = m == "nvfp4";
    for (std::int64_t r = 0; r < N; ++r) {
        std::vector<Seg> *segs = flat ? nullptr : &F.rows[static_cast<std::size_t>(r)];
        if (segs)
            segs->reserve(runs);
        std::size_t at = static_cast<std::size_t>(r) * runs;
        std::int64_t k = 0;
        for (std::size_t j = 0; j < runs; ++j) {
            const std::int64_t k1 = ends[j];
            const std::int64_t g = L.groupOf(r, k);
            const std::int64_t og = F.outer ? qw.outerLayout.groupOf(r, k) : 0;
            Seg s;
            s.k0 = k;
            s.k1 = k1;
            s.s = nv ? qw.scales[static_cast<std::size_t>(g)] / qw.outerScales[0]
                     : qw.scales[static_cast<std::size_t>(g)];
            s.so = F.outer ? qw.outerScales[static_cast<std::size_t>(og)] : 1.0f;
            s.z = qw.zeros.empty() ? 0 : qw.zeros[static_cast<std::size_t>(g)];
            F.anyZero |= s.z != 0;
            if (segs) {
                segs->push_back(s);
            } else {
                flat->segS[at] = s.s;
                flat->segSo[at] = s.so;
                flat->segZ[at] = s.z;
                ++at;
            }
            k = k1;
        }
    }
    if (!values)
        return F;
    if (F.integer) {
        F.q.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            F.q[i] = static_cast<std::int8_t>(qw.codes[i]);
    }
    F.v.resize(n);
    for (std::int64_t r = 0; r < N; ++r)
        for (const Seg &s : F.rows[static_cast<std::size_t>(r)])
            for (std::int64_t c = s.k0; c < s.k1; ++c) {
                const std::size_t i = static_cast<std::size_t>(r * K + c);
                if (F.inner == "int")
                    F.v[i] = static_cast<float>(F.q[i] - s.z);
                else if (F.inner == "fp8")
                    F.v[i] = qw.codeDtype == DType::F8_E4M3 ? e4m3ToFloat(qw.codes[i]) : e5m2ToFloat(qw.codes[i]);
                else
                    F.v[i] = fp4::e2m1Value(qw.codes[i]);
            }
    return F;
}

float bf16(float x)
{
    return qmath::roundBf16(x);
}

/// "W4A16", "W4A8-int8", … (appended piecewise: GCC 12 warns falsely on "W" + std::string&&).
std::string schemeName(int bits, const char *rest)
{
    std::string s = "W";
    s += std::to_string(bits);
    s += rest;
    return s;
}

void finishSums(GemmSimResult &res, const GemmSums &sums, std::int64_t M);
bool operandsFor(GemmOperands &ops, const Factored &F, const QuantizedActivations &xa, const std::vector<float> &xs,
                 const std::vector<float> &ws, const std::vector<float> &what, const std::vector<float> &xb,
                 const std::vector<float> &wb, const std::vector<float> &xv, const std::vector<std::int8_t> &xq,
                 std::int64_t M, std::int64_t N, std::int64_t K, const GemmSimOptions &o, std::string &whyNot);

} // namespace

namespace {

/// M, N, K after the shape checks of simulateGemm.
void checkShapes(const Shape &xs, const Shape &wsh, const QuantizedTensor &qw, std::int64_t &M, std::int64_t &N,
                 std::int64_t &K)
{
    M = matrixView(xs).first;
    K = matrixView(xs).second;
    N = matrixView(wsh).first;
    const std::int64_t Kw = matrixView(wsh).second;
    if (K != Kw)
        throw UnsupportedError("activation K = " + std::to_string(K) + " (shape " + shapeToString(xs) +
                                   ") does not match the weight's K = " + std::to_string(Kw) + " (shape " +
                                   shapeToString(wsh) + ")",
                               Location{{}, qw.tensorName, {}});
    if (qw.layout.rows != N || qw.layout.cols != K)
        throw UnsupportedError("the quantized weight does not match the weight's shape",
                               Location{{}, qw.tensorName, {}});
}

/// The scheme's name and the zero-point flag; throws the scheme's UnsupportedErrors.
void schemeOf(const Factored &F, const QuantizedTensor &qw, const GemmSimOptions &o, GemmSimResult &res)
{
    if (!o.act) {
        res.scheme = schemeName(qw.codeBits, "A16");
        return;
    }
    const ActQuantSpec &a = *o.act;
    res.actQuant = a.name();
    if (F.outerZeros)
        throw UnsupportedError("a two-stage weight with an asymmetric first stage has no low-precision GEMM path",
                               Location{{}, qw.tensorName, {}});
    if (a.int8()) {
        if (!F.integer)
            throw UnsupportedError("W·A8-int8 needs integer weight codes (method int, or progressive with an int "
                                   "stage 2); got " +
                                       qw.method,
                                   Location{{}, qw.tensorName, {}});
        res.scheme = schemeName(F.bits, "A8-int8");
        res.zeroPointTerm = F.anyZero && !o.omitZeroPointTerm;
        return;
    }
    if (F.inner.empty() || !F.hasRuns)
        throw UnsupportedError("method " + qw.method + " has no FP8 GEMM path", Location{{}, qw.tensorName, {}});
    if (!F.e4m3Exact) {
        std::string why = "E5M2 weights have no FP8 E4M3 GEMM path";
        if (F.inner == "int") {
            why = "INT";
            why += std::to_string(F.bits);
            why += " weight codes are not exact in E4M3 (use int8-token activations)";
        }
        throw UnsupportedError(why, Location{{}, qw.tensorName, {}});
    }
    res.scheme = F.inner == "fp8" ? std::string("W8A8-fp8") : schemeName(F.bits, "A8-fp8");
}

} // namespace

GemmPlan planGemm(const Shape &xShape, const Shape &wShape, const QuantizedTensor &qw, const GemmSimOptions &o)
{
    GemmPlan p;
    checkShapes(xShape, wShape, qw, p.M, p.N, p.K);
    const std::int64_t N = p.N;
    const bool intMethod = qw.method == "int";
    // Runs are needed for the low-precision operands, and for Ŵ of the int method.
    const Factored F = o.act || intMethod ? factor(qw, false, &p) : Factored{};
    GemmSimResult head;
    schemeOf(F, qw, o, head);
    p.scheme = head.scheme;
    p.actQuant = head.actQuant;
    p.zeroPointTerm = head.zeroPointTerm;
    p.dropZ = o.omitZeroPointTerm;
    if (o.act) {
        p.mode = o.act->int8() ? GemmOperands::Int8 : GemmOperands::Fp8;
        if (F.rotate > 0) {
            checkRotation(F.rotate, p.K, qw.tensorName);
            p.rotate = F.rotate;
            p.rotatedActivations = true;
        }
    }
    if (F.hasRuns) { // factor() filled segEnd, segS, segSo and segZ
        p.codeKind = F.integer                        ? GemmPlan::IntCodes
                     : F.inner == "fp4"               ? GemmPlan::E2m1
                     : qw.codeDtype == DType::F8_E4M3 ? GemmPlan::E4m3
                                                      : GemmPlan::E5m2;
        p.outer = F.outer;
    }
    if (intMethod && qw.nonFiniteGroups == 0 && qw.codes.size() == static_cast<std::size_t>(N * p.K)) {
        const QuantSpec spec = parseQuantSpec(qw.spec);
        if (const auto *is = std::get_if<IntSpec>(&spec)) {
            p.intDequant = true;
            p.intParams = intParams(*is, qw.sourceDtype);
        }
    }
    return p;
}

GemmSimResult finishPlannedGemm(const GemmPlan &plan, GemmDeviceRun &&run, bool keepOutput)
{
    GemmSimResult res;
    res.scheme = plan.scheme;
    res.actQuant = plan.actQuant;
    res.zeroPointTerm = plan.zeroPointTerm;
    res.rotatedActivations = plan.rotatedActivations;
    res.tokens = plan.M;
    res.n = plan.N;
    res.k = plan.K;
    res.actScaleSource = run.actScaleSource;
    res.actRelErr = run.actSq > 0 ? std::sqrt(run.actErr / run.actSq) : 0.0;
    finishSums(res, run.sums, plan.M);
    if (keepOutput)
        res.output = std::move(run.sums.output);
    return res;
}

GemmSimResult simulateGemm(const Tensor &x, const Tensor &w, const QuantizedTensor &qw, const GemmSimOptions &o,
                           const CancelToken *cancel)
{
    std::int64_t M = 0, N = 0, K = 0;
    checkShapes(x.shape(), w.shape(), qw, M, N, K);
    if (!isDecodable(x.dtype()))
        throw UnsupportedError("cannot decode " + std::string(nameOf(x.dtype())) + " activations");

    if (o.device && o.device->simulate) {
        // The whole simulation on the device from X, W and the codes; when it declines, the host
        // prepares the operands below (the device may still run the loops).
        const GemmPlan plan = planGemm(x.shape(), w.shape(), qw, o);
        GemmDeviceRun run;
        std::string why;
        bool ok = false;
        try {
            ok = o.device->simulate(x, w, qw, plan, o, run, why);
        } catch (const Error &) {
            ok = false; // the host path below runs and says where
        }
        if (ok) {
            GemmSimResult res = finishPlannedGemm(plan, std::move(run), o.keepOutput);
            res.device = o.device->id;
            return res;
        }
    }

    GemmSimResult res;
    std::string deviceNote;
    res.tokens = M;
    res.n = N;
    res.k = K;
    std::vector<float> xs(static_cast<std::size_t>(M * K)), ws(static_cast<std::size_t>(N * K));
    x.decodeTo(xs);
    w.decodeTo(ws);
    std::vector<float> what;
    if (qw.dequantized.size() == ws.size()) {
        what = qw.dequantized;
    } else {
        what.resize(ws.size());
        makeQuantizer(qw.spec)->dequantize(qw, what);
    }

    // Scheme and operands.
    const Factored F = o.act ? factor(qw, true) : Factored{};
    schemeOf(F, qw, o, res);
    QuantizedActivations xa;
    std::vector<float> xb; // BF16-rounded X (weight-only scheme)
    std::vector<float> wb; // BF16-rounded Ŵ
    if (!o.act) {
        xb.resize(xs.size());
        wb.resize(what.size());
        for (std::size_t i = 0; i < xs.size(); ++i)
            xb[i] = bf16(xs[i]);
        for (std::size_t i = 0; i < what.size(); ++i)
            wb[i] = bf16(what[i]);
    } else {
        const ActQuantSpec &a = *o.act;
        std::vector<float> xr;
        if (F.rotate > 0) {
            checkRotation(F.rotate, K, qw.tensorName);
            xr = xs;
            hadamardRows(xr, M, K, F.rotate, o.threads);
            res.rotatedActivations = true;
        }
        const Tensor xt = F.rotate > 0 ? Tensor::fromFloats({M, K}, xr) : x;
        std::optional<QuantizedActivations> onDevice;
        if (o.device && o.device->quantizeActivations) {
            std::string why;
            try {
                onDevice = o.device->quantizeActivations(xt, a, why);
            } catch (const Error &e) {
                why = std::string("the device failed (") + e.what() + ")";
            }
            if (!onDevice)
                deviceNote = why + ": activations quantized on the CPU";
        }
        xa = onDevice ? std::move(*onDevice) : quantizeActivations(xt, a, o.threads, cancel);
        res.actScaleSource = xa.scaleSource;
        const std::vector<float> &xo = F.rotate > 0 ? xr : xs;
        double ex = 0, sx = 0;
        for (std::size_t i = 0; i < xo.size(); ++i) {
            if (!qmath::isFinite(xo[i]))
                continue;
            const double d = static_cast<double>(xo[i]) - xa.dequantized[i];
            ex += d * d;
            sx += static_cast<double>(xo[i]) * xo[i];
        }
        res.actRelErr = sx > 0 ? std::sqrt(ex / sx) : 0.0;
    }
    std::vector<float> xv; // activation code values (INT8 integers or E4M3 values)
    std::vector<std::int8_t> xq;
    if (o.act) {
        xv.resize(xa.codes.size());
        for (std::size_t i = 0; i < xv.size(); ++i)
            xv[i] = xa.codeValue(static_cast<std::int64_t>(i));
        if (xa.int8) {
            xq.resize(xa.codes.size());
            for (std::size_t i = 0; i < xq.size(); ++i)
                xq[i] = static_cast<std::int8_t>(xa.codes[i]);
        }
    }

    // Per token: Σ Y², Σ (Y − Ŷ)², Σ (Y − Y_w)²: on the device when one takes the loops.
    GemmSums sums;
    bool onDevice = false;
    if (o.device && o.device->run) {
        GemmOperands ops;
        std::string why;
        if (operandsFor(ops, F, xa, xs, ws, what, xb, wb, xv, xq, M, N, K, o, why)) {
            try {
                onDevice = o.device->run(ops, o.keepOutput, sums, why);
            } catch (const Error &e) {
                why = std::string("the device failed (") + e.what() + ")";
            }
        }
        if (onDevice) {
            res.device = o.device->id;
        } else {
            if (!deviceNote.empty())
                deviceNote += "; ";
            deviceNote += (o.device->note.empty() ? why : o.device->note) + ": the GEMM computed on the CPU";
        }
    }
    if (o.device && !o.device->run && !o.device->note.empty())
        deviceNote = o.device->note + ": computed on the CPU";
    res.deviceNote = deviceNote;
    if (onDevice) {
        finishSums(res, sums, M);
        if (o.keepOutput)
            res.output = std::move(sums.output);
        return res;
    }
    std::vector<double> &yy = sums.yy, &es = sums.es, &ew = sums.ew;
    yy.assign(static_cast<std::size_t>(M), 0.0);
    es.assign(static_cast<std::size_t>(M), 0.0);
    ew.assign(static_cast<std::size_t>(M), 0.0);
    if (o.keepOutput)
        res.output.assign(static_cast<std::size_t>(M * N), 0.0f);
    const bool dropZ = o.omitZeroPointTerm;
    parallelSlices(M, resolveThreads(o.threads), cancel, [&](int, std::int64_t m0, std::int64_t m1) {
        for (std::int64_t m = m0; m < m1; ++m) {
            if (cancel)
                cancel->check();
            const float *xm = xs.data() + m * K;
            double sYY = 0, sE = 0, sW = 0;
            for (std::int64_t n = 0; n < N; ++n) {
                const float *wn = ws.data() + n * K;
                const float *hn = what.data() + n * K;
                double y = 0, yw = 0;
                for (std::int64_t k = 0; k < K; ++k) {
                    y += static_cast<double>(xm[k]) * wn[k];
                    yw += static_cast<double>(xm[k]) * hn[k];
                }
                float ys = 0.0f;
                if (!o.act) {
                    const float *a = xb.data() + m * K;
                    const float *b = wb.data() + n * K;
                    for (std::int64_t k = 0; k < K; ++k)
                        ys = ys + a[k] * b[k];
                } else {
                    const float sx = xa.scaleOf(m);
                    for (const Seg &s : F.rows[static_cast<std::size_t>(n)]) {
                        float t = sx * s.s;
                        if (F.outer)
                            t = t * s.so;
                        if (xa.int8) {
                            const std::int8_t *a = xq.data() + m * K;
                            const std::int8_t *b = F.q.data() + n * K;
                            std::int32_t acc = 0, sum = 0;
                            for (std::int64_t k = s.k0; k < s.k1; ++k) {
                                acc += static_cast<std::int32_t>(a[k]) * static_cast<std::int32_t>(b[k]);
                                sum += a[k];
                            }
                            const std::int32_t A = dropZ ? acc : acc - s.z * sum;
                            ys = ys + t * static_cast<float>(A);
                        } else {
                            const float *a = xv.data() + m * K;
                            const float *b = F.v.data() + n * K;
                            float acc = 0.0f;
                            for (std::int64_t k = s.k0; k < s.k1; ++k)
                                acc = acc + a[k] * b[k];
                            ys = ys + t * acc;
                        }
                    }
                }
                if (o.keepOutput)
                    res.output[static_cast<std::size_t>(m * N + n)] = ys;
                sYY += y * y;
                sE += (y - ys) * (y - ys);
                sW += (y - yw) * (y - yw);
            }
            yy[static_cast<std::size_t>(m)] = sYY;
            es[static_cast<std::size_t>(m)] = sE;
            ew[static_cast<std::size_t>(m)] = sW;
        }
    });

    finishSums(res, sums, M);
    return res;
}

namespace {

void finishSums(GemmSimResult &res, const GemmSums &sums, std::int64_t M)
{
    const std::vector<double> &yy = sums.yy, &es = sums.es, &ew = sums.ew;
    double tY = 0, tE = 0, tW = 0;
    for (std::int64_t m = 0; m < M; ++m) {
        const auto i = static_cast<std::size_t>(m);
        tY += yy[i];
        tE += es[i];
        tW += ew[i];
        if (!(yy[i] > 0))
            continue;
        const double re = std::sqrt(es[i] / yy[i]), rw = std::sqrt(ew[i] / yy[i]);
        if (res.worstToken < 0 || re > res.worstTokenRelErr) {
            res.worstTokenRelErr = re;
            res.worstToken = m;
        }
        if (res.worstTokenWeightOnly < 0 || rw > res.worstTokenRelErrWeightOnly) {
            res.worstTokenRelErrWeightOnly = rw;
            res.worstTokenWeightOnly = m;
        }
    }
    res.relErrOutput = tY > 0 ? std::sqrt(tE / tY) : 0.0;
    res.relErrWeightOnly = tY > 0 ? std::sqrt(tW / tY) : 0.0;
}

bool operandsFor(GemmOperands &ops, const Factored &F, const QuantizedActivations &xa, const std::vector<float> &xs,
                 const std::vector<float> &ws, const std::vector<float> &what, const std::vector<float> &xb,
                 const std::vector<float> &wb, const std::vector<float> &xv, const std::vector<std::int8_t> &xq,
                 std::int64_t M, std::int64_t N, std::int64_t K, const GemmSimOptions &o, std::string &whyNot)
{
    ops.M = M;
    ops.N = N;
    ops.K = K;
    ops.xs = xs.data();
    ops.ws = ws.data();
    ops.what = what.data();
    ops.dropZ = o.omitZeroPointTerm;
    if (!o.act) {
        ops.mode = GemmOperands::A16;
        ops.xa = xb.data();
        ops.wa = wb.data();
        return true;
    }
    ops.mode = xa.int8 ? GemmOperands::Int8 : GemmOperands::Fp8;
    if (xa.int8) {
        ops.xq = xq.data();
        ops.wq = F.q.data();
    } else {
        ops.xa = xv.data();
        ops.wa = F.v.data();
    }
    ops.sx = xa.scales.data();
    ops.perToken = xa.perToken;
    ops.outer = F.outer;
    // The runs of k are the same in every row for every layout (groups, blocks and channels
    // split K at the same columns); checked, so a layout that did not would stay on the CPU.
    const auto &first = F.rows.front();
    for (const Seg &sg : first)
        ops.segEnd.push_back(sg.k1);
    const std::size_t runs = first.size();
    ops.segS.resize(static_cast<std::size_t>(N) * runs);
    ops.segSo.resize(ops.segS.size());
    ops.segZ.resize(ops.segS.size());
    for (std::int64_t n = 0; n < N; ++n) {
        const auto &row = F.rows[static_cast<std::size_t>(n)];
        if (row.size() != runs) {
            whyNot = "the weight's scale runs differ between rows";
            return false;
        }
        for (std::size_t j = 0; j < runs; ++j) {
            if (row[j].k1 != ops.segEnd[j]) {
                whyNot = "the weight's scale runs differ between rows";
                return false;
            }
            const std::size_t i = static_cast<std::size_t>(n) * runs + j;
            ops.segS[i] = row[j].s;
            ops.segSo[i] = row[j].so;
            ops.segZ[i] = row[j].z;
        }
    }
    return true;
}

} // namespace

nlohmann::ordered_json gemmSimJson(const GemmSimResult &g, const GemmActivationSource &activation)
{
    nlohmann::ordered_json j;
    j["scheme"] = g.scheme;
    j["rel_err_output"] = g.relErrOutput;
    j["rel_err_weight_only"] = g.relErrWeightOnly;
    j["worst_token_rel_err"] = g.worstTokenRelErr;
    j["worst_token"] = g.worstToken;
    j["worst_token_rel_err_weight_only"] = g.worstTokenRelErrWeightOnly;
    j["worst_token_weight_only"] = g.worstTokenWeightOnly;
    j["activation"] = activation.name;
    j["activation_file"] = activation.file;
    j["activation_shape"] = activation.shape;
    j["tokens"] = g.tokens;
    j["act_quant"] = g.actQuant;
    if (!g.actScaleSource.empty())
        j["act_scale_source"] = g.actScaleSource;
    j["act_rel_err"] = g.actRelErr;
    j["rotated_activations"] = g.rotatedActivations;
    j["zero_point_term"] = g.zeroPointTerm;
    j["device"] = g.device;
    if (!g.deviceNote.empty())
        j["device_note"] = g.deviceNote;
    return j;
}

} // namespace quantscope
