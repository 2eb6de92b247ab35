// SPDX-License-Identifier: MIT
#include "register.h"

#include "engine/registry.h"
#if defined(QUANTSCOPE_HAVE_CUDA) || defined(QUANTSCOPE_HAVE_HIP)
#include "cuda/cuda_backend.h"
#endif

namespace quantscope {

void registerGpuBackends()
{
#if defined(QUANTSCOPE_HAVE_CUDA)
    BackendRegistry::setGpuFactory("CUDA", createCudaBackend);
#elif defined(QUANTSCOPE_HAVE_HIP)
    BackendRegistry::setGpuFactory("HIP", createCudaBackend);
#endif
}

} // namespace quantscope
