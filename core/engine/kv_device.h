// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_device.h
/// The device of the KV-cache lab (kv/kv_lab.h) from a DeviceChoice, by the rule of runQuantize
/// (run.h): Auto and Gpu take the GPU when one is present and its build installed the lab's
/// factory, Gpu without one notes why the CPU computes; Cpu is the CPU. core knows no CUDA or HIP:
/// gpu/ installs the factory (registerGpuBackends, gpu/register.h) that makes the GPU's
/// KvLabAccelerator from its backend.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend.h"
#include "engine/run.h"
#include "kv/kv_lab.h"

namespace quantscope {

/// Makes the lab's accelerator on the GPU backend `gpu` over `data` (the evaluated query rows
/// given), or null with `whyNot`. Throws GpuError.
using KvGpuFactory = std::function<std::unique_ptr<KvLabAccelerator>(
    const Backend &gpu, const KvData &data, const std::vector<std::int64_t> &rows, std::string &whyNot)>;

/// Installs the factory (gpu/register.cpp); later calls replace it.
void setKvGpuFactory(KvGpuFactory factory);

/// Null for the CPU (and for Auto without a GPU).
std::shared_ptr<const KvLabDevice> kvLabDevice(DeviceChoice choice);

} // namespace quantscope
