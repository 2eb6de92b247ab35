// SPDX-License-Identifier: MIT
#pragma once
/// \file sweep_device.h
/// The device of a constOpt c sweep (quant/constopt_sweep.h) from a DeviceChoice, by the rule of
/// runQuantize (run.h): Auto and Gpu take the GPU when one is present (its Backend::sweepGrid), Gpu
/// without one notes why the CPU computes; Cpu is the CPU.
#include <memory>

#include "engine/run.h"
#include "quant/constopt_sweep.h"

namespace quantscope {

/// Null for the CPU (and for Auto without a GPU).
std::shared_ptr<const CSweepDevice> sweepDevice(DeviceChoice choice);

} // namespace quantscope
