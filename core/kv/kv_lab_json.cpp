// SPDX-License-Identifier: MIT
// KvLabReport::toJson: the lab's report as `quantscope-cli kv --json` prints it.
#include "kv/kv_lab.h"

namespace quantscope {

namespace {

nlohmann::ordered_json attnJson(const KvAttentionError &a)
{
    nlohmann::ordered_json j;
    j["kl"] = a.kl;
    j["score_max_err"] = a.scoreMaxErr;
    j["out_rel"] = a.outRel;
    j["out_mse"] = a.outMse;
    j["queries"] = a.queries;
    return j;
}

nlohmann::ordered_json fitJson(const KvCodebookFit &f)
{
    nlohmann::ordered_json j;
    j["levels"] = f.levels;
    j["mse"] = f.mse;
    j["iterations"] = f.iterations;
    j["max_move"] = f.maxMove;
    return j;
}

nlohmann::ordered_json summaryJson(const KvSchemeSummary &s, const KvLabReport &rep)
{
    nlohmann::ordered_json j;
    j["name"] = s.name;
    j["k_mse"] = s.kMse;
    j["v_mse"] = s.vMse;
    j["k_rel"] = s.kRel;
    j["v_rel"] = s.vRel;
    if (s.attention)
        j["attention"] = attnJson(*s.attention);
    j["bytes_per_token"] = s.bytesPerToken;
    j["context_tokens"] = s.contextTokens;
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < s.layers.size(); ++i) {
        const auto &l = s.layers[i];
        nlohmann::ordered_json lj;
        lj["layer"] = rep.layerIndex[i];
        lj["k_mse"] = l.kMse;
        lj["v_mse"] = l.vMse;
        if (l.c > 0)
            lj["c"] = l.c;
        if (!l.attention.empty()) {
            nlohmann::ordered_json a = nlohmann::ordered_json::array();
            for (const auto &e : l.attention)
                a.push_back(attnJson(e));
            lj["attention"] = a;
        }
        layers.push_back(lj);
    }
    j["layers"] = layers;
    return j;
}

} // namespace

nlohmann::ordered_json KvLabReport::toJson() const
{
    nlohmann::ordered_json j;
    j["source"] = source;
    j["kind"] = kind;
    if (!rope.empty())
        j["rope"] = rope;
    j["layers"] = layers;
    j["kv_heads"] = kvHeads;
    j["heads"] = heads;
    j["tokens"] = tokens;
    j["queries"] = queries;
    j["head_dim"] = headDim;
    j["segment"] = segment;
    j["rotation_block"] = rotationBlock;
    j["layer_index"] = layerIndex;
    j["layer_names"] = layerNames;
    nlohmann::ordered_json ss = nlohmann::ordered_json::array();
    for (const auto &s : schemes)
        ss.push_back(summaryJson(s, *this));
    j["schemes"] = ss;
    j["plan"] = summaryJson(plan, *this);
    nlohmann::ordered_json sw;
    sw["c"] = sweep.c;
    sw["mse_pow2"] = sweep.msePow2;
    sw["mse_unrounded"] = sweep.mseUnrounded;
    sw["c_star"] = sweep.cStar;
    sw["c_star_mse"] = sweep.cStarMse;
    sw["c_star_interval"] = {sweep.intervalLo, sweep.intervalHi};
    sw["c_star_unrounded"] = sweep.cStarUnrounded;
    sw["mse_at_0.156"] = sweep.mseAt0156;
    sw["mse_at_0.195"] = sweep.mseAt0195;
    sw["layer_c_star"] = sweep.layerCStar;
    j["c_sweep"] = sw;
    nlohmann::ordered_json cb;
    cb["theory"] = fitJson(theory);
    cb["theory"]["d"] = headDim;
    cb["theory"]["largest"] = theory.levels.empty() ? 0.0 : theory.levels.back();
    cb["theory"]["gaussian_limit_largest"] = gaussianLargest;
    cb["theory"]["paper_largest_d64"] = paperLargest;
    cb["k_shared"] = fitJson(kShared);
    cb["v_shared"] = fitJson(vShared);
    nlohmann::ordered_json kl = nlohmann::ordered_json::array(), vl = nlohmann::ordered_json::array();
    for (const auto &f : kLayer)
        kl.push_back(fitJson(f));
    for (const auto &f : vLayer)
        vl.push_back(fitJson(f));
    cb["k_layer"] = kl;
    cb["v_layer"] = vl;
    cb["calibrated_gain_k"] = calibratedGain;
    cb["unrotated_over_rotated_k"] = unrotatedOverRotated;
    j["codebooks"] = cb;
    j["kurtosis_k_before"] = kurtosisBefore;
    j["kurtosis_k_after"] = kurtosisAfter;
    j["rotation_norm_error"] = rotationNormError;
    nlohmann::ordered_json dist = nlohmann::ordered_json::array();
    for (const auto &x : distortion) {
        nlohmann::ordered_json dj;
        dj["source"] = x.source;
        dj["d"] = x.d;
        dj["fp4_per32"] = x.fp4Plain;
        dj["constopt_0.156"] = x.constOpt0156;
        dj["constopt_0.195"] = x.constOpt0195;
        dj["constopt_c_star"] = x.constOptStar;
        dj["c_star"] = x.cStar;
        dj["lloyd_max"] = x.lloydMax;
        dj["c"] = x.c;
        dj["constopt_curve"] = x.curve;
        dist.push_back(dj);
    }
    j["distortion"] = dist;
    j["notes"] = notes;
    j["device"] = device;
    if (!deviceNote.empty())
        j["device_note"] = deviceNote;
    j["time_ms"] = timeMs;
    nlohmann::ordered_json phases = nlohmann::ordered_json::object();
    for (const auto &[name, ms] : phasesMs)
        phases[name] = ms;
    j["phases_ms"] = phases;
    return j;
}

} // namespace quantscope
