// SPDX-License-Identifier: MIT
#include "engine/kv_device.h"

#include <mutex>

#include "engine/registry.h"

namespace quantscope {

namespace {

std::mutex &factoryMutex()
{
    static std::mutex m;
    return m;
}

KvGpuFactory &factory()
{
    static KvGpuFactory f;
    return f;
}

} // namespace

void setKvGpuFactory(KvGpuFactory f)
{
    std::lock_guard lock(factoryMutex());
    factory() = std::move(f);
}

std::shared_ptr<const KvLabDevice> kvLabDevice(DeviceChoice choice)
{
    if (choice == DeviceChoice::Cpu)
        return nullptr;
    const auto &reg = BackendRegistry::instance();
    KvGpuFactory f;
    {
        std::lock_guard lock(factoryMutex());
        f = factory();
    }
    auto d = std::make_shared<KvLabDevice>();
    const Backend *gpu = reg.gpu();
    if (gpu && f) {
        d->id = gpu->info().id;
        d->make = [gpu, f](const KvData &data, const std::vector<std::int64_t> &rows, std::string &whyNot) {
            return f(*gpu, data, rows, whyNot);
        };
        return d;
    }
    if (choice != DeviceChoice::Gpu)
        return nullptr;
    d->id = "cpu";
    d->note = gpu ? "GPU requested but this build's GPU backend has no KV lab: computed on the CPU"
                  : "GPU requested but unavailable (" + reg.gpuUnavailableReason() + "): computed on the CPU";
    return d;
}

} // namespace quantscope
