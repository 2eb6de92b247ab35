// SPDX-License-Identifier: MIT
#include "register.h"

#include "engine/kv_device.h"
#include "engine/registry.h"
#if defined(QUANTSCOPE_HAVE_CUDA) || defined(QUANTSCOPE_HAVE_HIP)
#include "cuda/cuda_backend.h"
#endif

namespace quantscope {

void registerGpuBackends()
{
#if defined(QUANTSCOPE_HAVE_CUDA)
    BackendRegistry::setGpuFactory("CUDA", createCudaBackend);
    setKvGpuFactory(createKvLabAccelerator);
#elif defined(QUANTSCOPE_HAVE_HIP)
    BackendRegistry::setGpuFactory("HIP", createCudaBackend);
    setKvGpuFactory(createKvLabAccelerator);
#endif
}

} // namespace quantscope
