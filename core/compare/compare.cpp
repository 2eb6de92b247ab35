// SPDX-License-Identifier: MIT
// Two checkpoints module by module (compare.h). Each side is opened memory-mapped and its
// modules resolved as the doctor and `decode` resolve them; one module of each side is decoded,
// compared and dropped before the next.
#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <span>

#include "compare/compare_detail.h"
#include "io/checkpoint.h"
#include "io/quantized.h"
#include "tensor/dtype.h"
#include "util/error.h"

namespace quantscope {

using ojson = nlohmann::ordered_json;

namespace {

/// One checkpoint with its modules in order: a quantized module (its logical weight) or a plain
/// floating-point `*.weight` of rank ≥ 2; modules the readers refuse keep their message.
struct Side {
    Checkpoint ck;
    Detection det;
    std::vector<std::string> order;
    std::map<std::string, std::string, std::less<>> dense;   // module → tensor name
    std::map<std::string, std::string, std::less<>> problem; // module → refusal

    bool has(const std::string &m) const { return dense.count(m) || problem.count(m) || det.find(m) != nullptr; }
};

bool endsWith(const std::string &s, const std::string &t)
{
    return s.size() > t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

Side openSide(const std::string &path, const CompareOptions &o)
{
    ReadOptions ro;
    ro.lenient = o.lenient;
    Side s{Checkpoint::open(path, ro), {}, {}, {}, {}};
    DetectOptions d;
    d.strict = false; // one undecodable module does not hide the others
    s.det = detectQuantized(s.ck, d);
    for (const auto &p : s.det.problems)
        s.problem[p.module] = p.message;
    std::set<std::string, std::less<>> seen;
    for (const TensorEntry &e : s.ck.entries()) {
        std::string module;
        if (s.det.isPart(e.name)) {
            module = s.det.find(e.name)->module;
        } else if (endsWith(e.name, ".weight") && e.shape.size() >= 2 && isFloating(e.dtype)) {
            module = e.name.substr(0, e.name.size() - 7);
            if (s.problem.count(module))
                continue;
            s.dense[module] = e.name;
        } else if (const auto dot = e.name.rfind('.');
                   dot != std::string::npos && s.problem.count(e.name.substr(0, dot))) {
            module = e.name.substr(0, dot);
        } else {
            continue;
        }
        if (seen.insert(module).second)
            s.order.push_back(module);
    }
    return s;
}

std::string schemeText(const Side &s, const std::string &module)
{
    if (const QuantizedModule *q = s.det.find(module))
        return std::string(formatName(q->format)) + ": " + q->scheme.text();
    if (const auto it = s.dense.find(module); it != s.dense.end())
        return "dense " + std::string(nameOf(s.ck.find(it->second)->dtype));
    return "";
}

Tensor decodeModule(const Side &s, const std::string &module)
{
    if (const auto it = s.problem.find(module); it != s.problem.end())
        throw FormatError(it->second, Location{s.ck.path().string(), module, {}});
    if (const QuantizedModule *q = s.det.find(module))
        return decodeQuantized(s.ck, *q).contiguous();
    return s.ck.tensor(s.dense.at(module)).toF32().contiguous();
}

Shape shapeOf(const Side &s, const std::string &module)
{
    if (const QuantizedModule *q = s.det.find(module))
        return q->shape;
    return s.ck.find(s.dense.at(module))->shape;
}

/// The scheme fields that decide whether two modules' codes can be compared one to one.
bool codesComparable(const QuantScheme &x, const QuantScheme &y)
{
    return x.isFloat == y.isFloat && x.bits == y.bits && x.element == y.element && x.granularity == y.granularity &&
           x.groupSize == y.groupSize && x.blockRows == y.blockRows && x.blockCols == y.blockCols &&
           x.symmetric == y.symmetric;
}

std::string valueText(const nlohmann::ordered_json &j)
{
    return j.is_string() ? j.get<std::string>() : j.dump();
}

std::string schemeDifference(const Side &sa, const Side &sb, const std::string &module)
{
    const QuantizedModule *qa = sa.det.find(module), *qb = sb.det.find(module);
    if (!qa || !qb) {
        const std::string ta = schemeText(sa, module), tb = schemeText(sb, module);
        return ta == tb ? std::string() : ta + " vs " + tb;
    }
    std::string out;
    auto add = [&](const std::string &what) { out += (out.empty() ? "" : "; ") + what; };
    if (qa->format != qb->format)
        add("format " + std::string(formatName(qa->format)) + " vs " + std::string(formatName(qb->format)));
    const ojson ja = qa->scheme.toJson(), jb = qb->scheme.toJson();
    for (const auto &[key, va] : ja.items()) {
        if (key == "from_config")
            continue;
        const ojson vb = jb.contains(key) ? jb[key] : ojson();
        if (va != vb)
            add(key + " " + valueText(va) + " vs " + valueText(vb));
    }
    return out;
}

/// Codes that differ, element by element: the stored element bytes (so −0 and +0 FP8 codes
/// differ), or for sub-byte views the bits of the decoded value.
void countCodes(const Side &sa, const Side &sb, const QuantizedModule &qa, const QuantizedModule &qb,
                ModuleComparison &r)
{
    const Tensor ca = quantizedCodes(sa.ck, qa).contiguous(), cb = quantizedCodes(sb.ck, qb).contiguous();
    if (ca.dtype() != cb.dtype() || ca.numel() != cb.numel())
        return;
    const std::int64_t n = ca.numel();
    std::int64_t differ = 0;
    const int bits = bitsOf(ca.dtype());
    if (bits >= 8 && bits % 8 == 0) {
        const std::size_t w = static_cast<std::size_t>(bits / 8);
        const std::byte *pa = ca.data(), *pb = cb.data();
        for (std::int64_t i = 0; i < n; ++i)
            differ += std::memcmp(pa + static_cast<std::size_t>(i) * w, pb + static_cast<std::size_t>(i) * w, w) != 0;
    } else {
        std::vector<float> fa(static_cast<std::size_t>(n)), fb(static_cast<std::size_t>(n));
        ca.decodeTo(fa);
        cb.decodeTo(fb);
        for (std::size_t i = 0; i < fa.size(); ++i)
            differ += std::memcmp(&fa[i], &fb[i], sizeof(float)) != 0;
    }
    r.codesDiffer = differ;
    r.codesTotal = n;
    r.codeDiff = n == 0 ? 0.0 : static_cast<double>(differ) / static_cast<double>(n);
}

void scaleRatios(const Side &sa, const Side &sb, const QuantizedModule &qa, const QuantizedModule &qb,
                 ModuleComparison &r)
{
    const QuantParams pa = quantizedParams(sa.ck, qa), pb = quantizedParams(sb.ck, qb);
    if (pa.scales.size() != pb.scales.size() || pa.scales.empty())
        return;
    std::vector<double> ratios;
    ratios.reserve(pa.scales.size());
    ScaleRatio s;
    for (std::size_t i = 0; i < pa.scales.size(); ++i) {
        const double x = static_cast<double>(pa.scales[i]) * pa.outer, y = static_cast<double>(pb.scales[i]) * pb.outer;
        if (!std::isfinite(x) || !std::isfinite(y) || y == 0) {
            ++s.skipped;
            continue;
        }
        ratios.push_back(x / y);
    }
    s.count = static_cast<std::int64_t>(ratios.size());
    if (!ratios.empty()) {
        std::sort(ratios.begin(), ratios.end());
        s.min = ratios.front();
        s.max = ratios.back();
        const std::size_t h = ratios.size() / 2;
        s.median = ratios.size() % 2 ? ratios[h] : 0.5 * (ratios[h - 1] + ratios[h]);
    }
    r.scaleRatio = s;
}

} // namespace

namespace comparedetail {

double relativeDifference(const Tensor &x, const Tensor &y)
{
    // The decoded modules are contiguous FP32 already: read them in place (no third copy of a
    // large module); anything else is decoded first.
    std::vector<float> bufA, bufB;
    auto floats = [](const Tensor &t, std::vector<float> &buf) -> std::span<const float> {
        if (t.dtype() == DType::F32 && t.isContiguous())
            return {reinterpret_cast<const float *>(t.data()), static_cast<std::size_t>(t.numel())};
        buf.resize(static_cast<std::size_t>(t.numel()));
        t.decodeTo(buf);
        return buf;
    };
    const std::span<const float> a = floats(x, bufA), b = floats(y, bufB);
    double se = 0, sy = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
            continue; // as the error metrics: pairs with a non-finite side are not counted
        const double e = static_cast<double>(a[i]) - static_cast<double>(b[i]);
        se += e * e;
        sy += static_cast<double>(b[i]) * static_cast<double>(b[i]);
    }
    if (sy == 0)
        return se == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return std::sqrt(se / sy);
}

CompareReport finish(CompareReport r)
{
    std::vector<double> ea, eb;
    for (const ModuleComparison &m : r.modules)
        if (m.errorA && m.errorB && std::isfinite(*m.errorA) && std::isfinite(*m.errorB)) {
            ea.push_back(*m.errorA);
            eb.push_back(*m.errorB);
        }
    r.spearmanModules = static_cast<std::int64_t>(ea.size());
    if (ea.size() >= 2)
        if (const double rho = spearmanRank(ea, eb); std::isfinite(rho))
            r.spearman = rho;
    std::stable_sort(r.modules.begin(), r.modules.end(), [](const ModuleComparison &x, const ModuleComparison &y) {
        return x.difference() > y.difference();
    });
    return r;
}

} // namespace comparedetail

double ModuleComparison::difference() const
{
    double d = -1;
    if (relDiff)
        d = *relDiff;
    else if (errorA && errorB)
        d = std::abs(*errorA - *errorB);
    if (std::isnan(d))
        return -1;
    return d;
}

double spearmanRank(const std::vector<double> &x, const std::vector<double> &y)
{
    if (x.size() != y.size() || x.size() < 2)
        return std::numeric_limits<double>::quiet_NaN();
    auto ranks = [](const std::vector<double> &v) {
        std::vector<std::size_t> idx(v.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](std::size_t i, std::size_t j) { return v[i] < v[j]; });
        std::vector<double> r(v.size());
        for (std::size_t i = 0; i < idx.size();) {
            std::size_t j = i;
            while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]])
                ++j;
            const double avg = 0.5 * static_cast<double>(i + j) + 1.0; // ranks i+1 … j+1
            for (std::size_t k = i; k <= j; ++k)
                r[idx[k]] = avg;
            i = j + 1;
        }
        return r;
    };
    const std::vector<double> rx = ranks(x), ry = ranks(y);
    const double mean = 0.5 * static_cast<double>(x.size() + 1);
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < rx.size(); ++i) {
        sxy += (rx[i] - mean) * (ry[i] - mean);
        sxx += (rx[i] - mean) * (rx[i] - mean);
        syy += (ry[i] - mean) * (ry[i] - mean);
    }
    if (sxx == 0 || syy == 0)
        return std::numeric_limits<double>::quiet_NaN();
    return sxy / std::sqrt(sxx * syy);
}

CompareReport runCompare(const std::string &a, const std::string &b, const CompareOptions &options,
                         const CancelToken *cancel, const CompareProgress &progress)
{
    const bool ra = isScanReport(a), rb = isScanReport(b);
    if (ra != rb)
        throw FormatError("compare takes two checkpoints or two scan reports; this one is " +
                              std::string(ra ? "a checkpoint" : "a scan report") + " and the other is not",
                          Location{ra ? b : a, {}, {}});
    if (ra)
        return comparedetail::compareScanReports(a, b, options, cancel, progress);

    const Side sa = openSide(a, options), sb = openSide(b, options);
    std::optional<Side> ref;
    if (!options.reference.empty())
        ref = openSide(options.reference, options);
    CompareReport r;
    r.kind = "checkpoints";
    r.a = a;
    r.b = b;
    r.reference = options.reference;
    for (const auto &m : sa.order)
        if (!sb.has(m))
            r.onlyA.push_back(m);
    for (const auto &m : sb.order)
        if (!sa.has(m))
            r.onlyB.push_back(m);
    std::vector<std::string> both;
    for (const auto &m : sa.order)
        if (sb.has(m))
            both.push_back(m);
    const auto total = static_cast<std::int64_t>(both.size());
    for (std::int64_t i = 0; i < total; ++i) {
        if (cancel)
            cancel->check();
        const std::string &module = both[static_cast<std::size_t>(i)];
        if (progress)
            progress(i, total, module);
        ModuleComparison mc;
        mc.module = module;
        mc.tensor = module + ".weight";
        mc.schemeA = schemeText(sa, module);
        mc.schemeB = schemeText(sb, module);
        try {
            mc.shape = shapeOf(sa, module);
            mc.schemeDiff = schemeDifference(sa, sb, module);
            const QuantizedModule *qa = sa.det.find(module), *qb = sb.det.find(module);
            if (qa && qb && qa->shape == qb->shape) {
                mc.sameScheme = codesComparable(qa->scheme, qb->scheme);
                if (mc.sameScheme)
                    countCodes(sa, sb, *qa, *qb, mc);
                scaleRatios(sa, sb, *qa, *qb, mc);
            }
            const Tensor wa = decodeModule(sa, module), wb = decodeModule(sb, module);
            if (wa.shape() != wb.shape())
                throw FormatError("the two sides' weights differ in shape: " + shapeToString(wa.shape()) + " vs " +
                                      shapeToString(wb.shape()),
                                  Location{b, module, {}});
            mc.relDiff = comparedetail::relativeDifference(wa, wb);
            if (ref) {
                if (!ref->has(module))
                    throw FormatError("the reference has no module of this name",
                                      Location{options.reference, module, {}});
                const Tensor w = decodeModule(*ref, module);
                if (w.shape() != wa.shape())
                    throw FormatError("the reference's weight differs in shape: " + shapeToString(w.shape()),
                                      Location{options.reference, module, {}});
                // ‖Ŵ − W‖ / ‖W‖: the reference is the denominator.
                mc.errorA = comparedetail::relativeDifference(wa, w);
                mc.errorB = comparedetail::relativeDifference(wb, w);
            }
        } catch (const Cancelled &) {
            throw;
        } catch (const std::exception &e) {
            mc.error = e.what();
        }
        r.modules.push_back(std::move(mc));
    }
    if (progress)
        progress(total, total, "");
    return comparedetail::finish(std::move(r));
}

ModuleReconstructions loadReconstructions(const std::string &a, const std::string &b, const std::string &module,
                                          const CompareOptions &options)
{
    const Side sa = openSide(a, options), sb = openSide(b, options);
    std::string m = module;
    if (!sa.has(m) && endsWith(m, ".weight"))
        m = m.substr(0, m.size() - 7);
    for (const Side *s : {&sa, &sb})
        if (!s->has(m))
            throw FormatError("no module of this name", Location{s->ck.path().string(), module, {}});
    ModuleReconstructions r;
    r.a = decodeModule(sa, m);
    r.b = decodeModule(sb, m);
    r.schemeA = schemeText(sa, m);
    r.schemeB = schemeText(sb, m);
    if (!options.reference.empty()) {
        const Side ref = openSide(options.reference, options);
        if (!ref.has(m))
            throw FormatError("no module of this name", Location{options.reference, module, {}});
        r.reference = decodeModule(ref, m);
    }
    return r;
}

} // namespace quantscope
