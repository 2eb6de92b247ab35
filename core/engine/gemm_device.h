// SPDX-License-Identifier: MIT
#pragma once
/// \file gemm_device.h
/// The device of a paired GEMM simulation (sim/gemm_sim.h) from a DeviceChoice, by the rule of
/// runQuantize (run.h): Auto and Gpu take the GPU when one is present (its
/// Backend::quantizeActivations and Backend::simulateGemm), Gpu without one notes why the CPU
/// computes; Cpu is the CPU.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "engine/run.h"
#include "io/safetensors.h"
#include "sim/gemm_sim.h"

namespace quantscope {

/// Null for the CPU (and for Auto without a GPU). With a GPU its `simulate` uploads X and W as
/// stored (BF16 stays BF16) and runs Backend::simulateGemmPlanned.
std::shared_ptr<const GemmSimDevice> gemmDevice(DeviceChoice choice);

/// The paired simulation from tensors already on `device` (X, W; Ŵ when the quantize left it
/// there, else null) and the weight's host result `qw` (its codes are uploaded, 1 byte each):
/// planGemm, then Backend::simulateGemmPlanned. nullopt with `whyNot` when the backend declines.
/// Throws UnsupportedError as simulateGemm does, GpuError.
std::optional<GemmSimResult> simulateGemmResident(const Backend &device, const DeviceTensor &x, const DeviceTensor &w,
                                                  const DeviceTensor *wHat, const QuantizedTensor &qw,
                                                  const GemmSimOptions &options, std::string &whyNot);

/// A paired W×A simulation as a front end asks for it (the CLI's --activation / --act-quant /
/// --device; the window could fill the same).
struct PairedGemmRequest {
    std::string activation;              ///< [FILE:]NAME: FILE when the part before the last ':' exists
    std::optional<std::string> actQuant; ///< ActQuantSpec::parse's text; unset: weight only
    DeviceChoice device = DeviceChoice::Auto;
};

struct PairedGemmResult {
    GemmSimResult sim;
    GemmActivationSource activation; ///< the name and file the request resolved to, X's shape
};

/// Resolves the activation (in `checkpointPath` unless the request names a file), reads it with
/// `readOptions`, parses the activation quantizer, picks the device (gemmDevice) and runs
/// simulateGemm(X, w, q). gemmSimJson(result.sim, result.activation) is its JSON.
PairedGemmResult runPairedGemm(const PairedGemmRequest &request, const std::filesystem::path &checkpointPath,
                               const ReadOptions &readOptions, const Tensor &w, const QuantizedTensor &q,
                               const CancelToken *cancel = nullptr);

} // namespace quantscope
