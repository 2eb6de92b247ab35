// SPDX-License-Identifier: MIT
// The paired GEMM simulation (quantize --activation, --act-quant) that adds "gemm" to quantize's JSON.
#include <filesystem>

#include "cli.h"
#include "io/checkpoint.h"
#include "engine/gemm_device.h"
#include "sim/gemm_sim.h"
#include "util/error.h"

namespace quantscope::cli {

nlohmann::ordered_json runGemm(const GemmRequest &req, const std::filesystem::path &checkpointPath,
                               const ReadOptions &readOptions, const Tensor &w,
                               const QuantizedTensor &q)
{
    // [FILE:]NAME: FILE when the part before the last ':' names an existing path.
    std::filesystem::path file = checkpointPath;
    std::string name = req.activation;
    const auto colon = req.activation.rfind(':');
    if (colon != std::string::npos && colon > 0 &&
        std::filesystem::exists(req.activation.substr(0, colon))) {
        file = req.activation.substr(0, colon);
        name = req.activation.substr(colon + 1);
    }
    const Checkpoint ck = Checkpoint::open(file, readOptions);
    const Tensor x = ck.tensor(name);
    GemmSimOptions o;
    if (req.actQuant)
        o.act = ActQuantSpec::parse(*req.actQuant);
    o.device = gemmDevice(req.device);
    const GemmSimResult g = simulateGemm(x, w, q, o);
    nlohmann::ordered_json j;
    j["scheme"] = g.scheme;
    j["rel_err_output"] = g.relErrOutput;
    j["rel_err_weight_only"] = g.relErrWeightOnly;
    j["worst_token_rel_err"] = g.worstTokenRelErr;
    j["worst_token"] = g.worstToken;
    j["worst_token_rel_err_weight_only"] = g.worstTokenRelErrWeightOnly;
    j["worst_token_weight_only"] = g.worstTokenWeightOnly;
    j["activation"] = name;
    j["activation_file"] = file.string();
    j["activation_shape"] = x.shape();
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

} // namespace quantscope::cli
