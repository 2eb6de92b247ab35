// SPDX-License-Identifier: MIT
#include "engine/gemm_device.h"

#include "engine/registry.h"

namespace quantscope {

std::shared_ptr<const GemmSimDevice> gemmDevice(DeviceChoice choice)
{
    if (choice == DeviceChoice::Cpu)
        return nullptr;
    const auto &reg = BackendRegistry::instance();
    auto d = std::make_shared<GemmSimDevice>();
    if (const Backend *gpu = reg.gpu()) {
        d->id = gpu->info().id;
        d->quantizeActivations = [gpu](const Tensor &x, const ActQuantSpec &spec, std::string &whyNot) {
            return gpu->quantizeActivations(x, spec, whyNot);
        };
        d->run = [gpu](const GemmOperands &ops, bool keepOutput, GemmSums &out, std::string &whyNot) {
            return gpu->simulateGemm(ops, keepOutput, out, whyNot);
        };
        return d;
    }
    if (choice != DeviceChoice::Gpu)
        return nullptr;
    d->id = "cpu";
    d->note = "GPU requested but unavailable (" + reg.gpuUnavailableReason() + ")";
    return d;
}

} // namespace quantscope
