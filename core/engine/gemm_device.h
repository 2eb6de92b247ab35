// SPDX-License-Identifier: MIT
#pragma once
/// \file gemm_device.h
/// The device of a paired GEMM simulation (sim/gemm_sim.h) from a DeviceChoice, by the rule of
/// runQuantize (run.h): Auto and Gpu take the GPU when one is present (its
/// Backend::quantizeActivations and Backend::simulateGemm), Gpu without one notes why the CPU
/// computes; Cpu is the CPU.
#include <memory>

#include "engine/run.h"
#include "sim/gemm_sim.h"

namespace quantscope {

/// Null for the CPU (and for Auto without a GPU).
std::shared_ptr<const GemmSimDevice> gemmDevice(DeviceChoice choice);

} // namespace quantscope
