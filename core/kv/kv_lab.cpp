// SPDX-License-Identifier: MIT
#include "kv/kv_lab.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>
#include <stdexcept>
#include <thread>

#include "kv/kv_attention.h"
#include "kv/kv_lab_parts.h"
#include "kv/kv_math.h"
#include "kv/kv_rows_cpu.h"
#include "numeric/fp4math.h"
#include "quant/constopt_sweep.h"
#include "numeric/hadamard.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/philox.h"

namespace quantscope {

using namespace kvlab;

namespace {

struct LayerPrep {
    std::vector<float> rotK; ///< rotated keys [Hkv·T, d]
    double kurtBefore = 0, kurtAfter = 0, normErr = 0;
};

} // namespace

KvLabReport runKvLab(const KvData &data, const KvLabOptions &opt, const CancelToken *cancel,
                     const std::function<void(double)> &progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    const std::int64_t L = static_cast<std::int64_t>(data.layers.size());
    const std::int64_t Hkv = data.kvHeads, T = data.tokens, d = data.headDim, H = data.heads, Q = data.queries;
    if (L == 0)
        throw UnsupportedError("no layers to study");
    const std::int64_t b = kvRotationBlock(d);
    KvLabReport rep;
    rep.source = data.source.string();
    rep.kind = data.kind;
    rep.rope = data.rope;
    rep.layers = L;
    rep.kvHeads = Hkv;
    rep.heads = H;
    rep.tokens = T;
    rep.queries = Q;
    rep.headDim = d;
    rep.segment = data.segment;
    rep.rotationBlock = b;
    rep.notes = data.notes;
    for (const auto &l : data.layers) {
        rep.layerIndex.push_back(l.layer);
        rep.layerNames.push_back(l.name);
    }
    if (b < 2)
        throw UnsupportedError("head_dim " + std::to_string(d) +
                               " is odd: no Walsh–Hadamard rotation exists for it, so the rotated schemes, the c "
                               "sweep and the codebooks cannot run");
    if (b != d)
        rep.notes.push_back("head_dim " + std::to_string(d) +
                            " is not a power of two: the rotation works in blocks of " + std::to_string(b) +
                            " (the theoretical codebook assumes a rotation over all " + std::to_string(d) +
                            " channels)");
    const int threads = resolveThreads(opt.threads);
    const bool withQ = data.hasQueries();
    std::vector<std::int64_t> rows;
    if (withQ) {
        const std::int64_t n = opt.scoreQueries > 0 ? std::min(opt.scoreQueries, Q) : Q;
        for (std::int64_t i = 0; i < n; ++i)
            rows.push_back(n == Q ? i : (i * (Q - 1)) / std::max<std::int64_t>(1, n - 1));
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    }
    // The theoretical distortion's unit vectors (a function of the seed alone) are drawn on host
    // threads from here on, beside the upload and the device's work.
    std::vector<std::future<std::vector<float>>> unitFutures;
    if (opt.distortion)
        for (const std::int64_t dd : {64, 128, 256})
            unitFutures.push_back(std::async(std::launch::async, [&opt, dd, threads] {
                const std::int64_t n = std::max<std::int64_t>(1, opt.distortionVectors);
                std::vector<float> u(static_cast<std::size_t>(n * dd));
                // A quarter of the threads each: the upload's copies need the rest of the host.
                parallelForEach(n, std::max(1, threads / 4), [&](std::int64_t i) {
                    double n2 = 0;
                    double g[256];
                    for (std::int64_t j = 0; j < dd; ++j) {
                        g[j] = philox::normalAt(opt.seed, static_cast<std::uint32_t>(dd),
                                                static_cast<std::uint64_t>(i * dd + j));
                        n2 += g[j] * g[j];
                    }
                    for (std::int64_t j = 0; j < dd; ++j)
                        u[static_cast<std::size_t>(i * dd + j)] = static_cast<float>(g[j] / std::sqrt(n2));
                });
                return u;
            }));
    // The device, when one is asked for: the schemes and the pow2 c curves run there; a failure
    // leaves the rest to the CPU, saying why.
    std::unique_ptr<KvLabAccelerator> acc;
    if (opt.device) {
        std::string why = opt.device->note;
        if (opt.device->make) {
            try {
                acc = opt.device->make(data, rows, why);
            } catch (const Cancelled &) {
                throw;
            } catch (const std::exception &e) {
                why = e.what();
            }
        }
        if (acc)
            rep.device = opt.device->id;
        else if (!why.empty())
            rep.deviceNote = opt.device->make ? why + ": computed on the CPU" : why;
    }
    auto onDevice = [&](const std::function<void()> &f) {
        if (!acc)
            return false;
        try {
            f();
            return true;
        } catch (const Cancelled &) {
            throw;
        } catch (const std::exception &e) {
            rep.deviceNote = std::string("the device failed (") + e.what() + "): the rest computed on the CPU";
            acc.reset();
            return false;
        }
    };
    std::atomic<int> done{0};
    const double totalSteps = static_cast<double>(2 * L + 2);
    auto tick = [&] {
        const int n = ++done;
        if (progress)
            progress(std::min(1.0, n / totalSteps));
        if (cancel)
            cancel->check();
    };

    auto mark = std::chrono::steady_clock::now();
    auto phase = [&](const char *name) {
        const auto now = std::chrono::steady_clock::now();
        rep.phasesMs.emplace_back(name, std::chrono::duration<double, std::milli>(now - mark).count());
        mark = now;
    };

    // ---- phase 1: rotation, kurtosis, unit-vector histograms; the codebooks refit on them ----
    // On the device when the lab has one (KvLabAccelerator::prepare); the rotated keys for the CPU
    // parts below are then made when first needed.
    // The theoretical codebooks (lloydMaxSphere: tens of milliseconds each, once per process) are
    // computed beside the rest from here on.
    std::vector<std::future<KvCodebookFit>> spheres;
    std::vector<std::int64_t> sphereDims{d};
    for (const std::int64_t dd : {64, 128, 256})
        if (opt.distortion && dd != d)
            sphereDims.push_back(dd);
    for (const std::int64_t dd : sphereDims)
        spheres.push_back(std::async(std::launch::async, [dd] { return lloydMaxSphere(dd); }));
    auto theory = [&]() -> const KvCodebookFit & {
        if (rep.theory.levels.empty())
            rep.theory = lloydMaxSphere(d);
        return rep.theory;
    };
    rep.gaussianLargest = gaussianLloydMax16().back() / std::sqrt(static_cast<double>(d));
    std::vector<LayerPrep> prep(static_cast<std::size_t>(L));
    const bool preparedOnDevice = onDevice([&] {
        KvPrepared dp = acc->prepare([&] { return theory().levels; });
        rep.kurtosisBefore = std::move(dp.kurtosisBefore);
        rep.kurtosisAfter = std::move(dp.kurtosisAfter);
        rep.rotationNormError = dp.rotationNormError;
        rep.kShared = std::move(dp.kShared);
        rep.vShared = std::move(dp.vShared);
        rep.kLayer = std::move(dp.kLayer);
        rep.vLayer = std::move(dp.vLayer);
        for (std::int64_t li = 0; li < L; ++li)
            tick();
    });
    // The unit rotated keys of every layer, kept from here for the distortion when the CPU makes them.
    const std::size_t unitPer = static_cast<std::size_t>(Hkv * T * d);
    RawFloats unitK;
    RawFloats all; // the rotated keys of all layers, for the CPU's curves (written by the workers)
    if (!preparedOnDevice) {
        // The unit rotated coordinates' histograms per layer (1.5 MB each: made only here).
        std::vector<KvUnitHistogram> kHists(static_cast<std::size_t>(L)), vHists(static_cast<std::size_t>(L));
        if (opt.distortion)
            unitK.allocate(unitPer * static_cast<std::size_t>(L));
        all.allocate(unitPer * static_cast<std::size_t>(L));
        parallelForEach(L, threads, [&](std::int64_t li) {
            const KvLayer &l = data.layers[static_cast<std::size_t>(li)];
            LayerPrep &p = prep[static_cast<std::size_t>(li)];
            // K rotated (into the c sweep's buffer of all layers), its unit rows rotated and the
            // rotation's norm error in one pass; V's unit rows rotated; each layer's histograms.
            float *rk = all.data() + static_cast<std::size_t>(li) * unitPer;
            std::vector<float> own;
            float *uk = !unitK.empty() ? unitK.data() + static_cast<std::size_t>(li) * unitPer
                                       : (own.resize(l.k.size()), own.data());
            kvfast::prepareKeyRows(l.k.data(), rk, uk, Hkv * T, d, b, p.normErr);
            p.kurtBefore = kvfast::excessKurtosis(l.k.data(), l.k.size());
            p.kurtAfter = kvfast::excessKurtosis(rk, l.k.size());
            KvUnitHistogram &kh = kHists[static_cast<std::size_t>(li)], &vh = vHists[static_cast<std::size_t>(li)];
            kvfast::histogramAdd(uk, static_cast<std::int64_t>(l.k.size()), KvUnitHistogram::kBins, kh.n.data(),
                                 kh.s1.data(), kh.s2.data());
            own.resize(l.v.size());
            kvfast::unitRotatedRows(l.v.data(), own.data(), Hkv * T, d, b);
            kvfast::histogramAdd(own.data(), static_cast<std::int64_t>(l.v.size()), KvUnitHistogram::kBins, vh.n.data(),
                                 vh.s1.data(), vh.s2.data());
            tick();
        });

        phase("prepare");
        KvUnitHistogram kAll, vAll;
        for (std::int64_t li = 0; li < L; ++li) {
            kAll.merge(kHists[static_cast<std::size_t>(li)]);
            vAll.merge(vHists[static_cast<std::size_t>(li)]);
        }
        rep.kShared = lloydMaxHistogram(kAll, theory().levels);
        rep.vShared = lloydMaxHistogram(vAll, rep.theory.levels);
        rep.kLayer.resize(static_cast<std::size_t>(L));
        rep.vLayer.resize(static_cast<std::size_t>(L));
        parallelForEach(L, threads, [&](std::int64_t li) {
            rep.kLayer[static_cast<std::size_t>(li)] =
                lloydMaxHistogram(kHists[static_cast<std::size_t>(li)], rep.theory.levels);
            rep.vLayer[static_cast<std::size_t>(li)] =
                lloydMaxHistogram(vHists[static_cast<std::size_t>(li)], rep.theory.levels);
        });
        for (auto &p : prep) {
            rep.kurtosisBefore.push_back(p.kurtBefore);
            rep.kurtosisAfter.push_back(p.kurtAfter);
            rep.rotationNormError = std::max(rep.rotationNormError, p.normErr);
        }
    }
    theory();
    // The rotated keys of layer li for the CPU parts (made here when the device prepared).
    auto rotKOwn = [&](std::int64_t li) -> const std::vector<float> & {
        LayerPrep &p = prep[static_cast<std::size_t>(li)];
        if (p.rotK.empty()) {
            p.rotK = data.layers[static_cast<std::size_t>(li)].k;
            kvRotateRows(p.rotK, d, b);
        }
        return p.rotK;
    };
    // From the buffer of all layers once it is filled (the CPU's preparation fills it).
    auto rotK = [&](std::int64_t li) -> std::span<const float> {
        if (!all.empty())
            return {all.data() + static_cast<std::size_t>(li) * unitPer, unitPer};
        return rotKOwn(li);
    };
    phase(preparedOnDevice ? "prepare_codebooks" : "codebooks");

    // ---- c sweep on the rotated keys (all layers, then per layer; V per layer for c=fit) ----
    const std::vector<double> cs = grid(opt.cLo, opt.cHi, opt.cStep);
    if (cs.size() < 2 || !(opt.cLo > 0))
        throw UnsupportedError("the c grid needs lo > 0 and at least two points");
    // ---- distortion of unit-vector coordinates ----
    // On the CPU it runs on the side thread (after the unrounded curve), beside the layers' curves
    // and the schemes: it reads only the unit keys, the shared codebook's MSE and its own vectors.
    auto distortionPhase = [&] {
        if (!opt.distortion)
            return;
        const std::vector<double> coarse = grid(opt.cLo, opt.cHi, 0.005);
        // curve(grid, pow2): the MSE of the unit vectors over a grid (pow2, or unrounded scales).
        using Curve = std::function<std::vector<double>(const std::vector<double> &, bool)>;
        auto measure = [&](const std::string &source, std::int64_t dd, const Curve &curve, double floor) {
            KvDistortion r;
            r.source = source;
            r.d = dd;
            // The three pow2 grids in one call (exact sums: each value's bits as alone).
            std::vector<double> g{0.156, 0.195};
            g.insert(g.end(), cs.begin(), cs.end());
            g.insert(g.end(), coarse.begin(), coarse.end());
            const auto all = curve(g, true);
            r.constOpt0156 = all[0];
            r.constOpt0195 = all[1];
            r.fp4Plain = curve({static_cast<double>(1.0f / 6.0f)}, false)[0]; // plain FP4: s = m/6
            const std::vector<double> m(all.begin() + 2, all.begin() + 2 + static_cast<std::ptrdiff_t>(cs.size()));
            const std::size_t i = argmin(m);
            r.cStar = cs[i];
            r.constOptStar = m[i];
            r.c = coarse;
            r.curve.assign(all.begin() + 2 + static_cast<std::ptrdiff_t>(cs.size()), all.end());
            r.lloydMax = floor;
            rep.distortion.push_back(std::move(r));
        };
        // One pow2 evaluator per source for every grid (exact sums: the same bits as one per grid).
        auto cpuCurve = [&](std::span<const float> u, std::int64_t dd) -> Curve {
            auto ev = std::make_shared<std::unique_ptr<CSweepGridEvaluator>>();
            return [u, dd, threads, ev, lo = cs.front(), hi = cs.back()](const std::vector<double> &g, bool pow2) {
                if (pow2) {
                    if (!*ev)
                        *ev = makeCpuSweepEvaluator(u, static_cast<std::int64_t>(u.size()) / dd, dd, 32,
                                                    ConstOptEncoder::Pow2, static_cast<float>(lo),
                                                    static_cast<float>(hi), threads);
                    return (*ev)->mse(g, nullptr);
                }
                const auto ev = makeCpuSweepEvaluator(u, static_cast<std::int64_t>(u.size()) / dd, dd, 32,
                                                      ConstOptEncoder::Unrounded, 0.1f, 0.2f, threads);
                std::vector<double> out;
                for (const double c : g)
                    out.push_back(ev->mse(static_cast<float>(c)));
                return out;
            };
        };
        for (std::size_t di = 0; di < unitFutures.size(); ++di) {
            if (cancel) // on the side thread too: a cancelled lab does not wait for the rest of it
                cancel->check();
            const std::int64_t dd = std::int64_t{64} << di;
            const std::vector<float> u = unitFutures[di].get();
            // On the device when the lab has one (the CPU evaluator's bits).
            std::unique_ptr<KvRowsEvaluator> rows;
            const std::size_t before = rep.distortion.size();
            const bool theoryOnDevice = onDevice([&] {
                rows = acc->rowsEvaluator(u, dd);
                measure(
                    "theory", dd, [&](const std::vector<double> &g, bool pow2) { return rows->curve(g, pow2); },
                    lloydMaxSphere(dd).mse);
            });
            if (!theoryOnDevice) {
                rep.distortion.resize(before);
                measure("theory", dd, cpuCurve(u, dd), lloydMaxSphere(dd).mse);
            }
        }
        // The user's rotated unit keys: on the device when the lab has one (the same bits).
        bool keysOnDevice = false;
        if (acc) {
            const std::size_t before = rep.distortion.size();
            keysOnDevice = onDevice([&] {
                measure(
                    "keys", d, [&](const std::vector<double> &g, bool pow2) { return acc->unitKeysCurve(g, pow2); },
                    rep.kShared.mse);
            });
            if (!keysOnDevice)
                rep.distortion.resize(before);
        }
        if (!keysOnDevice) {
            if (unitK.empty()) { // the device prepared: made here
                unitK.allocate(unitPer * static_cast<std::size_t>(L));
                parallelForEach(L, threads, [&](std::int64_t li) {
                    kvfast::unitRotatedRows(data.layers[static_cast<std::size_t>(li)].k.data(),
                                            unitK.data() + static_cast<std::size_t>(li) * unitPer, Hkv * T, d, b);
                });
            }
            measure("keys", d, cpuCurve(unitK.span(), d), rep.kShared.mse);
        }
    };
    auto allKeys = [&]() -> std::span<const float> {
        if (all.empty()) {
            const std::size_t per = static_cast<std::size_t>(Hkv * T * d);
            all.allocate(per * static_cast<std::size_t>(L));
            parallelForEach(L, threads, [&](std::int64_t li) {
                std::copy(rotKOwn(li).begin(), rotKOwn(li).end(), all.data() + static_cast<std::size_t>(li) * per);
            });
        }
        return all.span();
    };
    // One CPU evaluator for both grids and the layers' K curves (its sums are exact: the same bits
    // as one per grid or per layer).
    std::unique_ptr<CSweepGridEvaluator> allEv;
    auto cpuAll = [&]() -> const CSweepGridEvaluator & {
        if (!allEv) {
            const std::span<const float> x = allKeys();
            allEv = makeCpuSweepEvaluator(x, static_cast<std::int64_t>(x.size()) / d, d, 32, ConstOptEncoder::Pow2,
                                          static_cast<float>(cs.front()), static_cast<float>(cs.back()), threads);
        }
        return *allEv;
    };
    auto allCurve = [&](const std::vector<double> &g) { return cpuAll().mse(g, nullptr); };
    // The CPU's side work (the unrounded curve, then the distortion), beside the rest; declared after
    // everything it reads, so that an exception here waits for it before those go.
    std::future<void> side;
    std::vector<std::vector<double>> kLayer; // the layers' K curves, when the c sweep's walk made them
    std::vector<double> atGrid;              // the pow2 MSE at 0.156 and 0.195, when it made them
    {
        rep.sweep.c = cs;
        if (!acc) {
            // Both curves on the CPU: the unrounded one (one serial pass) on a side thread, beside the
            // pow2 one, the layers' curves and the schemes (joined before the summaries).
            allKeys();
            side = std::async(std::launch::async, [&] {
                rep.sweep.mseUnrounded = unroundedCurve(all.span(), d, cs);
                distortionPhase();
            });
            // The pow2 curve on the grid and at 0.156 and 0.195, and the layers' K curves, from one
            // walk over the groups (each value's exact sum does not depend on the grid around it).
            std::vector<double> g = cs;
            g.push_back(0.156);
            g.push_back(0.195);
            std::vector<std::size_t> order(g.size());
            std::iota(order.begin(), order.end(), std::size_t{0});
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return static_cast<float>(g[a]) < static_cast<float>(g[b]);
            });
            std::vector<double> sorted(g.size()), whole;
            for (std::size_t j = 0; j < g.size(); ++j)
                sorted[j] = g[order[j]];
            const auto blocks = cpuAll().blockCurves(sorted, L, cancel, &whole);
            if (blocks.size() == static_cast<std::size_t>(L) && whole.size() == g.size()) {
                auto unsort = [&](const std::vector<double> &v) {
                    std::vector<double> u(v.size());
                    for (std::size_t j = 0; j < v.size(); ++j)
                        u[order[j]] = v[j];
                    return u;
                };
                const std::vector<double> all2 = unsort(whole);
                rep.sweep.msePow2.assign(all2.begin(), all2.begin() + static_cast<std::ptrdiff_t>(cs.size()));
                atGrid = {all2[cs.size()], all2[cs.size() + 1]};
                for (const auto &curve : blocks) {
                    std::vector<double> u = unsort(curve);
                    u.resize(cs.size());
                    kLayer.push_back(std::move(u));
                }
            } else {
                rep.sweep.msePow2 = allCurve(cs);
            }
        } else {
            if (!onDevice([&] { rep.sweep.msePow2 = acc->rotatedCurve(KvRole::K, -1, cs); }))
                rep.sweep.msePow2 = allCurve(cs);
            if (!onDevice([&] { rep.sweep.mseUnrounded = acc->unroundedKeysCurve(cs); }))
                rep.sweep.mseUnrounded = unroundedCurve(allKeys(), d, cs);
        }
        const std::size_t i = argmin(rep.sweep.msePow2);
        rep.sweep.cStar = cs[i];
        rep.sweep.cStarMse = rep.sweep.msePow2[i];
        if (!side.valid())
            rep.sweep.cStarUnrounded = cs[argmin(rep.sweep.mseUnrounded)];
        double lo = INFINITY, hi = -INFINITY;
        for (std::size_t j = 0; j < cs.size(); ++j)
            if (rep.sweep.msePow2[j] <= (1 + 1e-3) * rep.sweep.cStarMse) {
                lo = std::min(lo, cs[j]);
                hi = std::max(hi, cs[j]);
            }
        rep.sweep.intervalLo = lo;
        rep.sweep.intervalHi = hi;
        const std::vector<double> two{0.156, 0.195};
        std::vector<double> at = atGrid;
        if (at.empty() && !onDevice([&] { at = acc->rotatedCurve(KvRole::K, -1, two); }))
            at = allCurve(two);
        rep.sweep.mseAt0156 = at[0];
        rep.sweep.mseAt0195 = at[1];
    }
    tick();
    phase("c_sweep");
    bool needFitV = false;
    for (const auto &s : opt.schemes)
        needFitV |= s.method == KvMethod::ConstOpt && s.cFit;
    needFitV |= opt.vPlan.method == KvMethod::ConstOpt && opt.vPlan.cFit;
    std::vector<double> vCStar(static_cast<std::size_t>(L), 0.156);
    rep.sweep.layerCStar.assign(static_cast<std::size_t>(L), 0);
    const bool layersOnDevice = onDevice([&] {
        const auto kc = acc->layerCurves(KvRole::K, L, cs);
        for (std::int64_t li = 0; li < L; ++li)
            rep.sweep.layerCStar[static_cast<std::size_t>(li)] = cs[argmin(kc.at(static_cast<std::size_t>(li)))];
        if (needFitV) {
            const auto vc = acc->layerCurves(KvRole::V, L, cs);
            for (std::int64_t li = 0; li < L; ++li)
                vCStar[static_cast<std::size_t>(li)] = cs[argmin(vc.at(static_cast<std::size_t>(li)))];
        }
    });
    // On the CPU the layers' K curves come from the c sweep's evaluator (its table of group SSEs,
    // each layer's own fixed-point unit); V's, when c=fit needs them, from one evaluator per layer.
    if (!layersOnDevice && kLayer.empty())
        kLayer = cpuAll().blockCurves(cs, L, cancel);
    parallelForEach(layersOnDevice ? 0 : L, threads, [&](std::int64_t li) {
        const auto m = kLayer.size() == static_cast<std::size_t>(L) ? kLayer[static_cast<std::size_t>(li)]
                                                                    : pow2Curve(rotK(li), d, cs, 1);
        rep.sweep.layerCStar[static_cast<std::size_t>(li)] = cs[argmin(m)];
        if (needFitV) {
            std::vector<float> rv = data.layers[static_cast<std::size_t>(li)].v;
            kvRotateRows(rv, d, b);
            vCStar[static_cast<std::size_t>(li)] = cs[argmin(pow2Curve(rv, d, cs, 1))];
        }
    });
    allEv.reset();
    if (!side.valid())
        all.release();
    tick();
    phase("layer_c");

    // ---- schemes on every layer ----
    if (withQ && rows.size() < static_cast<std::size_t>(Q))
        rep.notes.push_back("attention errors use " + std::to_string(rows.size()) + " of the " + std::to_string(Q) +
                            " captured queries per head, evenly spaced (--score-queries)");
    const auto isBoundary = [&](std::int64_t li) {
        return opt.boundary > 0 && (li < opt.boundary || li >= L - opt.boundary);
    };
    const KvScheme bf16 = KvScheme::parse("bf16");
    // Every (scheme, layer) job: schemes in order, then the plan.
    const std::size_t S = opt.schemes.size();
    rep.schemes.resize(S);
    for (std::size_t s = 0; s < S; ++s) {
        rep.schemes[s].name = opt.schemes[s].name();
        rep.schemes[s].layers.resize(static_cast<std::size_t>(L));
    }
    rep.plan.name = "K:" + opt.kPlan.name() + " V:" + opt.vPlan.name() + " boundary " + std::to_string(opt.boundary);
    rep.plan.layers.resize(static_cast<std::size_t>(L));
    auto levelsFor = [&](const KvScheme &s, KvRole role, std::int64_t li) -> const std::vector<double> & {
        if (s.codebook == KvCodebook::Layer)
            return (role == KvRole::K ? rep.kLayer : rep.vLayer)[static_cast<std::size_t>(li)].levels;
        if (s.codebook == KvCodebook::Shared)
            return (role == KvRole::K ? rep.kShared : rep.vShared).levels;
        return rep.theory.levels;
    };
    auto cFor = [&](const KvScheme &s, KvRole role, std::int64_t li) {
        if (!s.cFit)
            return s.c;
        return role == KvRole::K ? rep.sweep.layerCStar[static_cast<std::size_t>(li)]
                                 : vCStar[static_cast<std::size_t>(li)];
    };
    const bool schemesOnDevice = onDevice([&] {
        const std::vector<double> kMean2 = acc->meanSquares(KvRole::K), vMean2 = acc->meanSquares(KvRole::V);
        std::vector<std::vector<KvLayerJob>> pairs(S + 1);
        for (std::size_t s = 0; s <= S; ++s) {
            const bool plan = s == S;
            for (std::int64_t li = 0; li < L; ++li) {
                const KvScheme &ks = plan ? (isBoundary(li) ? bf16 : opt.kPlan) : opt.schemes[s];
                const KvScheme &vs = plan ? (isBoundary(li) ? bf16 : opt.vPlan) : opt.schemes[s];
                pairs[s].push_back({ks, vs,
                                    KvLayerContext{Hkv, T, d, levelsFor(ks, KvRole::K, li), cFor(ks, KvRole::K, li)},
                                    KvLayerContext{Hkv, T, d, levelsFor(vs, KvRole::V, li), cFor(vs, KvRole::V, li)}});
            }
        }
        std::vector<std::vector<KvSchemeLayer>> results = acc->runSchemes(pairs); // one wait for all
        for (std::size_t s = 0; s <= S; ++s) {
            const bool plan = s == S;
            const std::vector<KvLayerJob> &jobs = pairs[s];
            std::vector<KvSchemeLayer> &out = results.at(s);
            for (std::int64_t li = 0; li < L; ++li) {
                KvSchemeLayer &o = out[static_cast<std::size_t>(li)];
                o.kMean2 = kMean2[static_cast<std::size_t>(li)];
                o.vMean2 = vMean2[static_cast<std::size_t>(li)];
                const KvLayerJob &j = jobs[static_cast<std::size_t>(li)];
                o.c = j.k.method == KvMethod::ConstOpt ? j.kc.c : 0;
            }
            auto &dst = (plan ? rep.plan : rep.schemes[s]).layers;
            dst = std::move(out);
        }
        for (std::int64_t li = 0; li < L; ++li)
            tick();
    });
    // The plan's K and V schemes are listed schemes on every layer (the boundary's BF16 too, when
    // listed): their x̂ and errors are reused; only the plan's attention (K̂ of one, V̂ of the
    // other) is computed again.
    const auto listed = [&](const KvScheme &sc) -> std::ptrdiff_t {
        for (std::size_t s = 0; s < S; ++s)
            if (opt.schemes[s] == sc)
                return static_cast<std::ptrdiff_t>(s);
        return -1;
    };
    const std::int64_t keyEnd = withQ ? kvKeyEnd(T, data.segment, rows) : 0;
    // Per worker the buffers of a layer (x̂, key tiles, scratch: ≈ 25 MB), reused for every layer it
    // takes: fresh pages cost the kernel's clearing, ≈ 8 % of the CPU lab (perf).
    struct LayerBuffers {
        KvAttnScratch scratch;
        std::vector<KvKeyTiles> tiles;
        std::vector<float> kq, vq, planKq, planVq;
        std::vector<double> planValues; // the plan's V̂ rows as FP64, for its errors beside its K scheme's
        // A family's x̂ and MSEs, made at its first scheme for all its members (per member: K, V).
        std::vector<std::vector<float>> famK, famV;
        std::vector<std::vector<double>> famKMse, famVMse;
    };
    // Families of listed schemes quantized together, so that each block of rows is prepared once for
    // all of a family (kvQuantizeMseN): the codebooks (norms, division, rotation), the constOpts
    // (rotation, group maxima). famOf[s]: the family of scheme s (-1: alone).
    std::vector<std::vector<std::size_t>> families(2);
    std::vector<int> famOf(opt.schemes.size(), -1);
    for (std::size_t s = 0; s < opt.schemes.size(); ++s) {
        const KvMethod m = opt.schemes[s].method;
        if (m == KvMethod::Codebook || m == KvMethod::ConstOpt)
            families[m == KvMethod::Codebook ? 0 : 1].push_back(s);
    }
    for (int f = 0; f < 2; ++f)
        if (families[static_cast<std::size_t>(f)].size() > 1)
            for (const std::size_t s : families[static_cast<std::size_t>(f)])
                famOf[s] = f;
    auto schemeLayer = [&](std::int64_t li, LayerBuffers &B) {
        const KvLayer &l = data.layers[static_cast<std::size_t>(li)];
        double kMean2, vMean2;
        meanSquares(l.k, l.v, kMean2, vMean2);
        const std::int64_t group = withQ ? H / Hkv : 1;
        KvAttnScratch &scratch = B.scratch;
        std::vector<KvKeyTiles> &tiles = B.tiles;
        tiles.resize(static_cast<std::size_t>(Hkv));
        std::vector<KvAttnRef> refs;
        if (withQ)
            for (std::int64_t g = 0; g < Hkv; ++g) {
                KvKeyTiles &kt = tiles[static_cast<std::size_t>(g)];
                kt.build(l.k.data() + g * T * d, keyEnd, d);
                kt.buildValues(l.v.data() + g * T * d);
                std::vector<const float *> qs;
                for (std::int64_t h = g * group; h < (g + 1) * group; ++h)
                    qs.push_back(l.q.data() + h * Q * d);
                for (KvAttnRef &r : kvAttnRefGroup(qs.data(), group, kt, T, data.segment, rows))
                    refs.push_back(std::move(r));
            }
        const KvScheme &planK = isBoundary(li) ? bf16 : opt.kPlan, &planV = isBoundary(li) ? bf16 : opt.vPlan;
        const std::ptrdiff_t planKAt = listed(planK), planVAt = listed(planV);
        std::vector<float> &kq = B.kq, &vq = B.vq, &planKq = B.planKq, &planVq = B.planVq;
        // x̂ keeps the first `kept` rows of each head (kvQuantizeMse): heads hs values apart.
        const std::int64_t hs = std::min(T, (keyEnd + 31) / 32 * 32) * d;
        // K̂/V̂'s attention errors into out; with vd2, also K̂ with that V̂ into out2 from the same
        // scores (the plan's errors beside its K scheme's: the bits of a call of their own).
        auto attention = [&](const float *kd, const float *vd, KvSchemeLayer &out, const float *vd2 = nullptr,
                             std::vector<KvAttentionError> *out2 = nullptr) {
            if (vd2)
                out2->resize(static_cast<std::size_t>(Hkv * group));
            for (std::int64_t g = 0; g < Hkv; ++g) {
                KvKeyTiles &kt = tiles[static_cast<std::size_t>(g)];
                kt.build(kd + g * hs, keyEnd, d);
                kt.buildValues(vd + g * hs);
                if (vd2) {
                    B.planValues.resize(static_cast<std::size_t>(keyEnd * d));
                    std::copy(vd2 + g * hs, vd2 + g * hs + keyEnd * d, B.planValues.begin());
                }
                std::vector<const KvAttnRef *> hs;
                for (std::int64_t h = g * group; h < (g + 1) * group; ++h)
                    hs.push_back(&refs[static_cast<std::size_t>(h)]);
                out.attention.resize(static_cast<std::size_t>((g + 1) * group));
                kvAttnAgainstGroup(hs.data(), group, kt, scratch, out.attention.data() + g * group,
                                   vd2 ? &B.planValues : nullptr, vd2 ? out2->data() + g * group : nullptr);
            }
        };
        // The plan's K scheme comes after its V scheme: its errors are computed with the K scheme's.
        const bool planBeside = withQ && planKAt >= 0 && planVAt >= 0 && planVAt < planKAt;
        std::vector<KvAttentionError> planAttention;
        for (std::size_t s = 0; s <= S; ++s) {
            const bool plan = s == S;
            const KvScheme &ks = plan ? planK : opt.schemes[s];
            const KvScheme &vs = plan ? planV : opt.schemes[s];
            KvLayerContext kc{Hkv, T, d, levelsFor(ks, KvRole::K, li), cFor(ks, KvRole::K, li)};
            KvLayerContext vc{Hkv, T, d, levelsFor(vs, KvRole::V, li), cFor(vs, KvRole::V, li)};
            KvSchemeLayer out;
            out.kMean2 = kMean2;
            out.vMean2 = vMean2;
            out.c = ks.method == KvMethod::ConstOpt ? kc.c : 0;
            if (plan && planKAt >= 0 && planVAt >= 0) {
                const KvSchemeLayer &kl =
                    rep.schemes[static_cast<std::size_t>(planKAt)].layers[static_cast<std::size_t>(li)];
                const KvSchemeLayer &vl =
                    rep.schemes[static_cast<std::size_t>(planVAt)].layers[static_cast<std::size_t>(li)];
                out.kMse = kl.kMse;
                out.vMse = vl.vMse;
                if (planKAt == planVAt)
                    out.attention = kl.attention;
                else if (planBeside)
                    out.attention = std::move(planAttention);
                else if (withQ)
                    attention(planKq.data(), planVq.data(), out);
                rep.plan.layers[static_cast<std::size_t>(li)] = std::move(out);
                continue;
            }
            // x̂ with the per-head MSE in one pass; only the rows the attention reads are kept.
            const int fam = plan ? -1 : famOf[s];
            if (fam < 0) {
                if (kvQuantizeMse(ks, KvRole::K, l.k, kc, keyEnd, kq, out.kMse) * d != hs ||
                    kvQuantizeMse(vs, KvRole::V, l.v, vc, keyEnd, vq, out.vMse) * d != hs)
                    throw std::logic_error("kvQuantizeMse kept another number of rows");
            } else {
                const std::vector<std::size_t> &members = families[static_cast<std::size_t>(fam)];
                const std::size_t n = members.size();
                const std::size_t m =
                    static_cast<std::size_t>(std::find(members.begin(), members.end(), s) - members.begin());
                if (m == 0) {
                    B.famK.resize(n);
                    B.famV.resize(n);
                    B.famKMse.resize(n);
                    B.famVMse.resize(n);
                    std::vector<KvScheme> sc;
                    std::vector<KvLayerContext> kcs, vcs;
                    std::vector<std::vector<float> *> ko, vo;
                    std::vector<std::vector<double> *> km, vm;
                    for (std::size_t j = 0; j < n; ++j) {
                        const KvScheme &x = opt.schemes[members[j]];
                        sc.push_back(x);
                        kcs.push_back({Hkv, T, d, levelsFor(x, KvRole::K, li), cFor(x, KvRole::K, li)});
                        vcs.push_back({Hkv, T, d, levelsFor(x, KvRole::V, li), cFor(x, KvRole::V, li)});
                        ko.push_back(&B.famK[j]);
                        vo.push_back(&B.famV[j]);
                        km.push_back(&B.famKMse[j]);
                        vm.push_back(&B.famVMse[j]);
                    }
                    const int nn = static_cast<int>(n);
                    if (kvQuantizeMseN(sc.data(), KvRole::K, l.k, kcs.data(), nn, keyEnd, ko.data(), km.data()) * d !=
                            hs ||
                        kvQuantizeMseN(sc.data(), KvRole::V, l.v, vcs.data(), nn, keyEnd, vo.data(), vm.data()) * d !=
                            hs)
                        throw std::logic_error("kvQuantizeMseN kept another number of rows");
                }
                std::swap(kq, B.famK[m]);
                std::swap(vq, B.famV[m]);
                out.kMse = B.famKMse[m];
                out.vMse = B.famVMse[m];
            }
            if (planBeside && static_cast<std::ptrdiff_t>(s) == planKAt)
                attention(kq.data(), vq.data(), out, planVq.data(), &planAttention);
            else if (withQ)
                attention(kq.data(), vq.data(), out);
            if (!plan && static_cast<std::ptrdiff_t>(s) == planKAt)
                std::swap(planKq, kq); // kq is written afresh by the next scheme
            if (!plan && static_cast<std::ptrdiff_t>(s) == planVAt)
                std::swap(planVq, vq);
            (plan ? rep.plan : rep.schemes[s]).layers[static_cast<std::size_t>(li)] = std::move(out);
        }
        tick();
    };
    if (!schemesOnDevice) {
        const int parts = static_cast<int>(std::min<std::int64_t>(L, resolveThreads(threads)));
        std::vector<LayerBuffers> buffers(static_cast<std::size_t>(parts));
        std::atomic<std::int64_t> next{0};
        parallelSlices(parts, parts, nullptr, [&](int part, std::int64_t, std::int64_t) {
            for (std::int64_t li; (li = next.fetch_add(1)) < L;)
                schemeLayer(li, buffers[static_cast<std::size_t>(part)]);
        });
    }

    phase("schemes");

    // ---- summaries and storage ----
    const double memBytes = opt.memoryGiB * 1024.0 * 1024.0 * 1024.0;
    auto summarise = [&](KvSchemeSummary &sum, const KvScheme &ks, const KvScheme &vs) {
        double k = 0, v = 0, k2 = 0, v2 = 0, oRef = 0, oErr = 0;
        KvAttentionError a;
        for (std::int64_t li = 0; li < L; ++li) {
            const KvSchemeLayer &l = sum.layers[static_cast<std::size_t>(li)];
            for (double x : l.kMse)
                k += x;
            for (double x : l.vMse)
                v += x;
            k2 += l.kMean2;
            v2 += l.vMean2;
            for (const auto &e : l.attention)
                accumulate(a, e, oRef, oErr, d);
            const bool bnd = isBoundary(li);
            sum.bytesPerToken += static_cast<double>(Hkv) * ((bnd ? bf16 : ks).bytesPerToken(KvRole::K, d) +
                                                             (bnd ? bf16 : vs).bytesPerToken(KvRole::V, d));
        }
        sum.kMse = k / static_cast<double>(L * Hkv);
        sum.vMse = v / static_cast<double>(L * Hkv);
        sum.kRel = k2 > 0 ? sum.kMse / (k2 / static_cast<double>(L)) : 0;
        sum.vRel = v2 > 0 ? sum.vMse / (v2 / static_cast<double>(L)) : 0;
        if (a.queries > 0) {
            a.kl /= static_cast<double>(a.queries);
            a.outMse = oErr / static_cast<double>(a.queries * d);
            a.outRel = oRef > 0 ? oErr / oRef : 0;
            sum.attention = a;
        }
        sum.contextTokens = sum.bytesPerToken > 0 ? static_cast<std::int64_t>(memBytes / sum.bytesPerToken) : 0;
    };
    for (std::size_t s = 0; s < S; ++s)
        summarise(rep.schemes[s], opt.schemes[s], opt.schemes[s]);
    summarise(rep.plan, opt.kPlan, opt.vPlan);

    // ---- rotation and calibration findings (computed on K when the list lacks the schemes) ----
    auto kMseOf = [&](const std::string &name) -> double {
        for (const auto &s : rep.schemes)
            if (s.name == name)
                return s.kMse;
        const KvScheme sc = KvScheme::parse(name);
        double sum = 0;
        for (std::int64_t li = 0; li < L; ++li) {
            const KvLayer &l = data.layers[static_cast<std::size_t>(li)];
            KvLayerContext kc{Hkv, T, d, levelsFor(sc, KvRole::K, li), 0.156};
            const auto kq = kvQuantize(sc, KvRole::K, l.k, kc, threads);
            sum += mseOf(l.k.data(), kq.data(), static_cast<std::int64_t>(l.k.size()));
        }
        return sum / static_cast<double>(L);
    };
    const double rot = kMseOf("codebook"), norot = kMseOf("codebook-norot"), cal = kMseOf("codebook-layer");
    rep.unrotatedOverRotated = rot > 0 ? norot / rot : 0;
    rep.calibratedGain = rot > 0 ? 1 - cal / rot : 0;

    phase("findings");

    if (side.valid()) {
        side.get(); // the unrounded curve and the distortion, run beside the layers and schemes
        rep.sweep.cStarUnrounded = cs[argmin(rep.sweep.mseUnrounded)];
        all.release();
    } else {
        distortionPhase();
    }
    tick();
    phase("distortion");
    rep.timeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return rep;
}

} // namespace quantscope
