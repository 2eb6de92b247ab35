// SPDX-License-Identifier: MIT
#pragma once
/// \file cuda_backend.h
/// The GPU backend (CUDA build; the same adapter serves a HIP build): a Backend over the GPU
/// engine (gpu/kernels/engine.h). Created only when the build has a GPU API and a device answers.
#include <memory>
#include <string>

#include "engine/backend.h"

namespace quantscope {

/// Tries to start device 0; on failure returns nullptr and sets `reason`.
std::unique_ptr<Backend> createCudaBackend(std::string &reason);

} // namespace quantscope
