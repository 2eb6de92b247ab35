// SPDX-License-Identifier: MIT
#pragma once
/// \file spectrum_device.h
/// The device of a residual spectrum (metrics/spectrum.h) from a DeviceChoice, by the rule of
/// runQuantize (run.h): Auto and Gpu take the GPU when one is present (its
/// Backend::singularValues), Gpu without one notes why the CPU computes; Cpu is the CPU.
#include <memory>

#include "engine/run.h"
#include "metrics/spectrum.h"

namespace quantscope {

/// Null for the CPU (and for Auto without a GPU).
std::shared_ptr<const SpectrumDevice> spectrumDevice(DeviceChoice choice);

} // namespace quantscope
