// SPDX-License-Identifier: MIT
#pragma once
/// \file cuda_backend.h
/// The GPU backend (CUDA build; the same adapter serves a HIP build): a Backend over the GPU
/// engine (gpu/host/engine.h). Created only when the build has a GPU API and a device answers.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend.h"
#include "engine/gpu_status.h"

namespace quantscope {

/// Tries to start device 0; on failure returns nullptr and sets `reason` and `cause`.
std::unique_ptr<Backend> createCudaBackend(std::string &reason, GpuCause &cause);

class KvLabAccelerator;
struct KvData;
/// The KV lab's accelerator on `gpu`, a backend createCudaBackend made (engine/kv_device.h's
/// factory, installed by registerGpuBackends); null with `whyNot` for another backend.
std::unique_ptr<KvLabAccelerator> createKvLabAccelerator(const Backend &gpu, const KvData &data,
                                                         const std::vector<std::int64_t> &rows, std::string &whyNot);

} // namespace quantscope
