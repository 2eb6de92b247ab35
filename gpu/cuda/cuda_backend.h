// SPDX-License-Identifier: MIT
#pragma once
/// \file cuda_backend.h
/// The CUDA backend. Created only when the build has CUDA and a device answers.
#include <memory>
#include <string>

#include "backend.h"

namespace quantscope {

/// Tries to start device 0; on failure returns nullptr and sets `reason`.
std::unique_ptr<Backend> createCudaBackend(std::string &reason);

} // namespace quantscope
