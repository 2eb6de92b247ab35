// SPDX-License-Identifier: MIT
#include "engine/gemm_bench_device.h"

#include "engine/registry.h"
#include "util/error.h"

namespace quantscope {

GemmBenchResult runGemmBench(const GemmBenchRequest &request, DeviceChoice device, const CancelToken *cancel)
{
    request.validate();
    GemmBenchResult r;
    const auto &reg = BackendRegistry::instance();
    if (device != DeviceChoice::Cpu) {
        if (const Backend *gpu = reg.gpu()) {
            std::string whyNot;
            try {
                if (auto pts = gpu->timeGemms(request, cancel, whyNot)) {
                    r.device = gpu->info().id;
                    r.points = std::move(*pts);
                    return r;
                }
            } catch (const GpuError &e) {
                whyNot = e.what();
            }
            r.deviceNote = "GEMM lab not run on " + gpu->info().id + " (" + whyNot + ")";
        } else if (device == DeviceChoice::Gpu) {
            r.deviceNote = "GPU requested but unavailable (" + reg.gpuUnavailableReason() + ")";
        }
    }
    r.device = "cpu";
    r.points = timeGemmsCpu(request, cancel);
    return r;
}

} // namespace quantscope
