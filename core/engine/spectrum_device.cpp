// SPDX-License-Identifier: MIT
#include "engine/spectrum_device.h"

#include "engine/registry.h"

namespace quantscope {

std::shared_ptr<const SpectrumDevice> spectrumDevice(DeviceChoice choice)
{
    if (choice == DeviceChoice::Cpu)
        return nullptr;
    const auto &reg = BackendRegistry::instance();
    auto d = std::make_shared<SpectrumDevice>();
    if (const Backend *gpu = reg.gpu()) {
        d->id = gpu->info().id;
        d->singularValues = [gpu](std::span<const float> e, std::int64_t rows, std::int64_t cols,
                                  const SpectrumOptions &o, std::string &algorithm, std::string &whyNot) {
            return gpu->singularValues(e, rows, cols, o, algorithm, whyNot);
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
