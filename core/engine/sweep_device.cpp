// SPDX-License-Identifier: MIT
#include "engine/sweep_device.h"

#include "engine/registry.h"

namespace quantscope {

std::shared_ptr<const CSweepDevice> sweepDevice(DeviceChoice choice)
{
    if (choice == DeviceChoice::Cpu)
        return nullptr;
    const auto &reg = BackendRegistry::instance();
    auto d = std::make_shared<CSweepDevice>();
    if (const Backend *gpu = reg.gpu()) {
        d->id = gpu->info().id;
        d->make = [gpu](const Tensor &w, const CSweepOptions &o, std::string &whyNot) {
            if (w.numel() == 0) {
                whyNot = "empty tensor: computed on the CPU";
                return std::unique_ptr<CSweepGridEvaluator>();
            }
            return gpu->sweepGrid(w, o, whyNot);
        };
        return d;
    }
    if (choice != DeviceChoice::Gpu)
        return nullptr;
    d->id = "cpu";
    d->note = "GPU requested but unavailable (" + reg.gpuUnavailableReason() + "): computed on the CPU";
    return d;
}

} // namespace quantscope
