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
                               const ReadOptions &readOptions, const Tensor &w, const QuantizedTensor &q)
{
    const PairedGemmResult r =
        runPairedGemm({req.activation, req.actQuant, req.device}, checkpointPath, readOptions, w, q);
    return gemmSimJson(r.sim, r.activation);
}

} // namespace quantscope::cli
