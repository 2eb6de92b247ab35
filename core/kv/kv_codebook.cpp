// SPDX-License-Identifier: MIT
#include "kv/kv_codebook.h"
#include "kv/kv_lloyd.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "util/error.h"

namespace quantscope {

namespace {

constexpr int kOrder = 20;

struct GaussLegendre {
    std::array<double, kOrder> node{}, weight{};
};

/// Nodes and weights of the kOrder-point Gauss–Legendre rule on [−1, 1], by Newton's iteration on
/// P_n (three-term recurrence) from the Chebyshev-like start cos(π(i − 1/4)/(n + 1/2)).
const GaussLegendre &gaussLegendre()
{
    static const GaussLegendre gl = [] {
        GaussLegendre g;
        const int n = kOrder;
        for (int i = 0; i < n; ++i) {
            double x = std::cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 0;
            for (int it = 0; it < 100; ++it) {
                double p0 = 1, p1 = x;
                for (int k = 2; k <= n; ++k) {
                    const double p2 = ((2.0 * k - 1) * x * p1 - (k - 1.0) * p0) / k;
                    p0 = p1;
                    p1 = p2;
                }
                dp = n * (x * p1 - p0) / (x * x - 1);
                const double dx = p1 / dp;
                x -= dx;
                if (std::fabs(dx) < 1e-16)
                    break;
            }
            g.node[static_cast<std::size_t>(i)] = x;
            g.weight[static_cast<std::size_t>(i)] = 2 / ((1 - x * x) * dp * dp);
        }
        return g;
    }();
    return gl;
}
constexpr int kPanels = 16;

/// u^e for u ≥ 0 and e a whole or half-whole number ≥ 0 (the sphere law's (d − 3)/2): the whole
/// part by squaring, the half by one square root — a few roundings instead of std::pow's exp∘log,
/// within a few ulp of it; other e by std::pow.
double powLaw(double u, double e)
{
    const double twice = 2 * e;
    if (!(e >= 0) || twice != std::floor(twice) || e > 1e6)
        return std::pow(u, e);
    const bool half = e != std::floor(e);
    double r = 1, base = u;
    for (auto k = static_cast<unsigned long long>(e); k; k >>= 1, base *= base)
        if (k & 1)
            r *= base;
    return half ? r * std::sqrt(u) : r;
}

/// ∫_a^b g(t) (1 − t²)^e dt, g = 1 or t², composite Gauss–Legendre.
double integrate(double a, double b, double e, bool second)
{
    if (!(b > a))
        return 0;
    double sum = 0;
    const double h = (b - a) / kPanels;
    for (int p = 0; p < kPanels; ++p) {
        const double m = a + (p + 0.5) * h, r = h / 2;
        const GaussLegendre &gl = gaussLegendre();
        for (std::size_t i = 0; i < gl.node.size(); ++i) {
            const double t = m + r * gl.node[i];
            const double w = powLaw(std::max(0.0, 1 - t * t), e);
            sum += gl.weight[i] * r * (second ? t * t * w : w);
        }
    }
    return sum;
}

/// ∫_a^b t (1 − t²)^e dt in closed form.
double firstMoment(double a, double b, double e)
{
    const auto F = [e](double t) { return -powLaw(std::max(0.0, 1 - t * t), e + 1) / (2 * (e + 1)); };
    return F(b) - F(a);
}

} // namespace

const std::vector<double> &gaussianLloydMax16()
{
    // Max (1960), Table I, N = 16; positive half, mirrored.
    static const std::vector<double> levels = [] {
        const double pos[8] = {0.1284, 0.3881, 0.6568, 0.9424, 1.2562, 1.6181, 2.0690, 2.7326};
        std::vector<double> v;
        for (int i = 7; i >= 0; --i)
            v.push_back(-pos[i]);
        for (int i = 0; i < 8; ++i)
            v.push_back(pos[i]);
        return v;
    }();
    return levels;
}

namespace {

KvCodebookFit sphereFit(std::int64_t d, double tol, int maxIterations)
{
    const double e = (static_cast<double>(d) - 3) / 2;
    const double sd = 1 / std::sqrt(static_cast<double>(d));
    std::vector<double> lv = gaussianLloydMax16();
    for (double &l : lv)
        l = std::clamp(l * sd, -0.999, 0.999);
    KvCodebookFit fit;
    const double total = integrate(-1, 1, e, false);
    std::vector<double> bounds(17);
    for (int it = 1; it <= maxIterations; ++it) {
        bounds[0] = -1;
        bounds[16] = 1;
        for (int i = 1; i < 16; ++i)
            bounds[i] = (lv[i - 1] + lv[i]) / 2;
        double move = 0;
        // Symmetric law: fit the upper half and mirror (keeps the levels exactly symmetric).
        for (int i = 8; i < 16; ++i) {
            const double m0 = integrate(bounds[i], bounds[i + 1], e, false);
            const double m1 = firstMoment(bounds[i], bounds[i + 1], e);
            const double nl = m0 > 0 ? m1 / m0 : lv[i];
            move = std::max(move, std::fabs(nl - lv[i]));
            lv[i] = nl;
            lv[15 - i] = -nl;
        }
        fit.iterations = it;
        fit.maxMove = move;
        if (move <= tol)
            break;
    }
    for (int i = 1; i < 16; ++i)
        bounds[i] = (lv[i - 1] + lv[i]) / 2;
    double dist = 0;
    for (int i = 0; i < 16; ++i) {
        const double a = bounds[i], b = bounds[i + 1];
        const double m0 = integrate(a, b, e, false), m1 = firstMoment(a, b, e), m2 = integrate(a, b, e, true);
        dist += m2 - 2 * lv[i] * m1 + lv[i] * lv[i] * m0;
    }
    fit.levels = lv;
    fit.mse = dist / total;
    return fit;
}

} // namespace

KvCodebookFit lloydMaxSphere(std::int64_t d, double tol, int maxIterations)
{
    if (d < 3)
        throw UnsupportedError("the sphere codebook needs d ≥ 3, got " + std::to_string(d));
    // A pure function of its arguments, computed once per process (concurrent callers of the same
    // arguments wait for the one computing it).
    using Key = std::tuple<std::int64_t, double, int>;
    static std::mutex mu;
    static std::map<Key, std::shared_future<KvCodebookFit>> cache;
    const Key key{d, tol, maxIterations};
    std::promise<KvCodebookFit> mine;
    std::shared_future<KvCodebookFit> f;
    bool compute = false;
    {
        std::lock_guard lock(mu);
        const auto it = cache.find(key);
        if (it == cache.end()) {
            f = mine.get_future().share();
            cache.emplace(key, f);
            compute = true;
        } else {
            f = it->second;
        }
    }
    if (compute) {
        try {
            mine.set_value(sphereFit(d, tol, maxIterations));
        } catch (...) {
            mine.set_exception(std::current_exception());
            std::lock_guard lock(mu);
            cache.erase(key);
        }
    }
    return f.get();
}

void KvUnitHistogram::add(float y)
{
    const int b = static_cast<int>(std::floor((static_cast<double>(y) + 1) / 2 * kBins));
    const std::size_t i = static_cast<std::size_t>(std::clamp(b, 0, kBins - 1));
    n[i] += 1;
    s1[i] += y;
    s2[i] += static_cast<double>(y) * y;
}

void KvUnitHistogram::merge(const KvUnitHistogram &o)
{
    for (std::size_t i = 0; i < n.size(); ++i) {
        n[i] += o.n[i];
        s1[i] += o.s1[i];
        s2[i] += o.s2[i];
    }
}

double KvUnitHistogram::count() const
{
    double c = 0;
    for (double v : n)
        c += v;
    return c;
}

KvCodebookFit lloydMaxHistogram(const KvUnitHistogram &h, const std::vector<double> &init, double tol,
                                int maxIterations)
{
    if (init.size() != 16)
        throw UnsupportedError("a codebook has 16 levels");
    constexpr int B = KvUnitHistogram::kBins;
    std::vector<double> p0(B + 1, 0), p1(B + 1, 0), p2(B + 1, 0);
    for (int i = 0; i < B; ++i) {
        p0[i + 1] = p0[i] + h.n[static_cast<std::size_t>(i)];
        p1[i + 1] = p1[i] + h.s1[static_cast<std::size_t>(i)];
        p2[i + 1] = p2[i] + h.s2[static_cast<std::size_t>(i)];
    }
    return toCodebookFit(kvlloyd::lloydOnPrefix(p0.data(), p1.data(), p2.data(), B, init.data(), tol, maxIterations));
}

KvCodebookFit toCodebookFit(const kvlloyd::Fit &f)
{
    KvCodebookFit fit;
    fit.levels.assign(f.levels, f.levels + kvlloyd::kLevels);
    fit.mse = f.mse;
    fit.iterations = f.iterations;
    fit.maxMove = f.maxMove;
    return fit;
}

KvCodebookFit lloydMaxSamples(std::span<const float> samples, const std::vector<double> &init, double tol,
                              int maxIterations)
{
    KvUnitHistogram h;
    for (float y : samples)
        h.add(y);
    return lloydMaxHistogram(h, init, tol, maxIterations);
}

} // namespace quantscope
