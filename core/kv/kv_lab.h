// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_lab.h
/// The KV-cache lab (docs/numerics.md "KV-cache lab"): every KV scheme (kv_schemes.h) on every
/// layer and head of a K/V capture, with
///  * MSE of K and V per layer, head and scheme (mean over the head's elements, FP64);
///  * attention errors with the captured queries (query head h reads KV head h/(H/Hkv); query i
///    attends to the keys of its causal segment up to its own position; at most `scoreQueries`
///    queries per head, evenly spaced over the captured ones, all when 0): scores z = q·k/√d in
///    FP64 from the FP32 values, P = softmax(z) against P̂ from K̂: KL(P‖P̂) per query (mean
///    reported) and max |P − P̂|; outputs o = P·V and ô = P̂·V̂: Σ‖o − ô‖² / Σ‖o‖² and the MSE;
///  * the constOpt c sweep on the rotated keys of all layers (pow2 and unrounded), c*, the flat
///    interval (MSE ≤ (1 + 1e-3)·min), the MSE at 0.156 and 0.195, and c* per layer;
///  * the codebooks: the theoretical Lloyd–Max for the exact law at d (kv_codebook.h) and those
///    refit on the rotated unit vectors of K and V per layer and shared (16 levels each);
///  * the distortion of unit-vector coordinates under plain FP4 per 32 (scale max/6), constOpt at
///    0.156, 0.195 and c*, and the Lloyd–Max floor, for d = 64, 128, 256 on the theoretical law
///    (seeded Gaussian directions) and on the user's rotated unit keys;
///  * excess kurtosis of K per layer before and after the rotation; the rotation's largest relative
///    norm change;
///  * storage per token per scheme (K + V, all layers and KV heads, the first and last `boundary`
///    layers in BF16) and the tokens of context that fit in `memoryGiB`;
///  * the plan: K scheme, V scheme and boundary protection together (errors and storage).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kv/kv_codebook.h"
#include "kv/kv_data.h"
#include "kv/kv_schemes.h"
#include "util/cancel.h"

namespace quantscope {

struct KvLabDevice;

struct KvLabOptions {
    std::vector<KvScheme> schemes = defaultKvSchemes();
    KvScheme kPlan = KvScheme::parse("constopt"), vPlan = KvScheme::parse("fp8");
    int boundary = 2;      ///< first and last n layers kept in BF16 (plan and storage)
    double memoryGiB = 80; ///< KV memory for the context-length figure
    std::int64_t scoreQueries = 128;
    double cLo = 0.05, cHi = 0.40, cStep = 0.0005; ///< 701 values
    bool distortion = true;
    std::int64_t distortionVectors = 4096;
    std::uint64_t seed = 0;
    int threads = 0;
    /// Where the schemes, their errors and the pow2 c curves run (engine/kv_device.h makes one from
    /// a DeviceChoice); null: the CPU.
    std::shared_ptr<const KvLabDevice> device;
};

struct KvAttentionError {
    double kl = 0;          ///< mean over the evaluated queries of KL(P‖P̂) (nats)
    double scoreMaxErr = 0; ///< max |P − P̂|
    double outRel = 0;      ///< Σ‖o − ô‖² / Σ‖o‖²
    double outMse = 0;      ///< Σ‖o − ô‖² / (queries · d)
    std::int64_t queries = 0;
};

struct KvSchemeLayer {
    std::vector<double> kMse, vMse;          ///< per KV head
    double kMean2 = 0, vMean2 = 0;           ///< mean x² of the layer's K and V
    std::vector<KvAttentionError> attention; ///< per query head (empty without queries)
    double c = 0;                            ///< constOpt: the c used (fit or given)
};

struct KvSchemeSummary {
    std::string name;
    double kMse = 0, vMse = 0, kRel = 0, vRel = 0; ///< over all layers (rel = MSE / mean x²)
    std::optional<KvAttentionError> attention;     ///< over all layers and heads
    double bytesPerToken = 0;                      ///< K + V of all layers and KV heads, boundary layers BF16
    std::int64_t contextTokens = 0;
    std::vector<KvSchemeLayer> layers;
};

struct KvCSweep {
    std::vector<double> c, msePow2, mseUnrounded;
    double cStar = 0, cStarMse = 0, intervalLo = 0, intervalHi = 0;
    double cStarUnrounded = 0;
    double mseAt0156 = 0, mseAt0195 = 0;
    std::vector<double> layerCStar; ///< per layer, pow2, keys
};

struct KvDistortion {
    std::string source; ///< "theory" or "keys"
    std::int64_t d = 0;
    double fp4Plain = 0, constOpt0156 = 0, constOpt0195 = 0, constOptStar = 0, cStar = 0, lloydMax = 0;
    std::vector<double> c, curve; ///< constOpt pow2 MSE over a coarse grid (step 0.005)
};

struct KvLabReport {
    std::string source, kind, rope;
    std::int64_t layers = 0, kvHeads = 0, heads = 0, tokens = 0, queries = 0, headDim = 0, segment = 0;
    std::int64_t rotationBlock = 0;
    std::vector<int> layerIndex;
    std::vector<std::string> layerNames;
    std::vector<KvSchemeSummary> schemes;
    KvSchemeSummary plan; ///< name "K:<k> V:<v> boundary n"
    KvCSweep sweep;
    KvCodebookFit theory;                              ///< at d
    double paperLargest = 0.342;                       ///< the paper's largest theoretical centroid at d = 64
    double gaussianLargest = 0;                        ///< 2.7326/√d (the Gaussian limit)
    KvCodebookFit kShared, vShared;                    ///< refit on all layers
    std::vector<KvCodebookFit> kLayer, vLayer;         ///< refit per layer
    std::vector<double> kurtosisBefore, kurtosisAfter; ///< K per layer
    double rotationNormError = 0;                      ///< max |‖Hx‖ − ‖x‖| / ‖x‖ over the keys
    double unrotatedOverRotated = 0;                   ///< K MSE of codebook-norot / codebook (theory levels)
    double calibratedGain = 0;                         ///< 1 − K MSE(codebook-layer) / K MSE(codebook)
    std::vector<KvDistortion> distortion;
    std::vector<std::string> notes;
    double timeMs = 0;
    /// Wall time per phase in the order run (prepare, codebooks, c_sweep, layer_c, schemes,
    /// findings, distortion): where a lab's time goes, on either device.
    std::vector<std::pair<std::string, double>> phasesMs;
    std::string device = "cpu"; ///< DeviceInfo::id of the device that ran the schemes and c curves
    std::string deviceNote;     ///< why the CPU ran although another device was asked for ("" when as asked)

    nlohmann::ordered_json toJson() const;
};

/// One layer's K and V schemes with their contexts: what a device runs per layer.
struct KvLayerJob {
    KvScheme k, v;
    KvLayerContext kc, vc;
};

/// The lab's preparation as a device returns it (KvLabAccelerator::prepare).
struct KvPrepared {
    std::vector<double> kurtosisBefore, kurtosisAfter; ///< K per layer
    double rotationNormError = 0;
    KvCodebookFit kShared, vShared;
    std::vector<KvCodebookFit> kLayer, vLayer;
};

/// constOpt MSE over a grid of c (pow2, or unrounded scales; groups of 32) of rows held by a device.
class KvRowsEvaluator {
public:
    virtual ~KvRowsEvaluator() = default;
    virtual std::vector<double> curve(const std::vector<double> &cs, bool pow2) = 0;
};

/// The lab's heavy parts on another device than the CPU (docs/numerics.md "KV-cache lab"), made
/// once per lab over the capture (K, V and the queries uploaded once). Its x̂ are the CPU's bits
/// (kv_math.h); its sums and attention errors are within the bound docs/numerics.md "On the GPU"
/// states. Throws GpuError (the lab then continues on the CPU and says why), Cancelled.
class KvLabAccelerator {
public:
    virtual ~KvLabAccelerator() = default;
    /// constOpt pow2 MSE over `cs` of the rotated K (or V) of layer `layer` (−1: all layers),
    /// groups of 32: the CPU's pow2Curve bits.
    virtual std::vector<double> rotatedCurve(KvRole role, std::int64_t layer, const std::vector<double> &cs) = 0;
    /// constOpt MSE over `cs` (pow2, or unrounded scales) of the keys of all layers scaled to unit
    /// length per token and rotated (the distortion curves' user keys): the CPU evaluator's bits.
    virtual std::vector<double> unitKeysCurve(const std::vector<double> &cs, bool pow2) = 0;
    /// The mean x² of K (or V) per layer (the schemes' relative MSE), within the bound of the CPU's.
    virtual std::vector<double> meanSquares(KvRole role) = 0;
    /// One scheme pair on every layer (jobs[l]): per layer the MSE per KV head and, with queries,
    /// the attention errors per query head at the query rows given to the factory (kMean2, vMean2
    /// and c are the caller's).
    virtual std::vector<KvSchemeLayer> runScheme(const std::vector<KvLayerJob> &jobs) = 0;
    /// Several scheme pairs, each as runScheme (a device queues them all and waits once);
    /// dequantized() then holds the last pair's x̂.
    virtual std::vector<std::vector<KvSchemeLayer>> runSchemes(const std::vector<std::vector<KvLayerJob>> &pairs)
    {
        std::vector<std::vector<KvSchemeLayer>> out;
        for (const auto &jobs : pairs)
            out.push_back(runScheme(jobs));
        return out;
    }
    /// rotatedCurve of every layer (curve l of layer l), the same bits (a device batches them).
    virtual std::vector<std::vector<double>> layerCurves(KvRole role, std::int64_t layers,
                                                         const std::vector<double> &cs)
    {
        std::vector<std::vector<double>> out;
        for (std::int64_t l = 0; l < layers; ++l)
            out.push_back(rotatedCurve(role, l, cs));
        return out;
    }
    /// K's excess kurtosis per layer before and after the rotation, the rotation's largest relative
    /// norm change (the CPU's bits), and the codebooks refit on the unit rotated K and V per layer
    /// and over all layers, started from the theoretical levels (kv_lloyd.h on the device's
    /// histograms: within rounding of the CPU's sums). `theory` is called once the histograms are
    /// under way (the host computes the levels while the device works).
    virtual KvPrepared prepare(const std::function<std::vector<double>()> &theory) = 0;
    /// constOpt MSE with unrounded scales over `cs` of the rotated keys of all layers (kv_lab.cpp's
    /// histogram rule; the histogram's sums within rounding of the CPU's).
    virtual std::vector<double> unroundedKeysCurve(const std::vector<double> &cs) = 0;
    /// The caller's rows u [n, dd] (the theoretical distortion's unit vectors) on the device, for
    /// constOpt curves over them: the CPU evaluator's bits.
    virtual std::unique_ptr<KvRowsEvaluator> rowsEvaluator(const std::vector<float> &u, std::int64_t dd) = 0;
    /// x̂ of layer `layer` ([Hkv, T, d]) from the last runScheme (for the tests' bit comparison).
    virtual std::vector<float> dequantized(KvRole role, std::int64_t layer) = 0;
};

/// A device for the lab: `make` returns its accelerator over `data` with the evaluated query rows,
/// or null with `whyNot` (the CPU runs). `note`: why the CPU runs although another device was asked
/// for, when known up front (no GPU).
struct KvLabDevice {
    std::string id; ///< DeviceInfo::id ("cuda:0")
    std::string note;
    std::function<std::unique_ptr<KvLabAccelerator>(const KvData &data, const std::vector<std::int64_t> &rows,
                                                    std::string &whyNot)>
        make;
};

/// Runs the lab. Throws UnsupportedError (a scheme that cannot run on this head dimension),
/// Cancelled. `progress(f)` is called with f in [0, 1].
KvLabReport runKvLab(const KvData &data, const KvLabOptions &options, const CancelToken *cancel = nullptr,
                     const std::function<void(double)> &progress = {});

/// Attention errors of one query head against one KV head (the rule above), exposed for tests:
/// q [Q, d], k/v/kq/vq [T, d], query i at causal position `firstQuery + i`… evaluated at the
/// query indices `rows`.
KvAttentionError kvAttentionError(const float *q, const float *k, const float *v, const float *kq, const float *vq,
                                  std::int64_t T, std::int64_t d, std::int64_t segment,
                                  const std::vector<std::int64_t> &rows);

} // namespace quantscope
