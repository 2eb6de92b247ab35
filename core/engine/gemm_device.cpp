// SPDX-License-Identifier: MIT
#include "engine/gemm_device.h"

#include "engine/registry.h"
#include "io/checkpoint.h"

namespace quantscope {

std::shared_ptr<const GemmSimDevice> gemmDevice(DeviceChoice choice)
{
    if (choice == DeviceChoice::Cpu)
        return nullptr;
    const auto &reg = BackendRegistry::instance();
    auto d = std::make_shared<GemmSimDevice>();
    if (const Backend *gpu = reg.gpu()) {
        d->id = gpu->info().id;
        d->simulate = [gpu](const Tensor &x, const Tensor &w, const QuantizedTensor &qw, const GemmPlan &plan,
                            const GemmSimOptions &o, GemmDeviceRun &out, std::string &whyNot) {
            const auto dx = gpu->upload(x, "activations");
            const auto dw = gpu->upload(w, qw.tensorName.empty() ? std::string("weight") : qw.tensorName);
            return gpu->simulateGemmPlanned(*dx, *dw, nullptr, qw, plan, o, out, whyNot);
        };
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

std::optional<GemmSimResult> simulateGemmResident(const Backend &device, const DeviceTensor &x, const DeviceTensor &w,
                                                  const DeviceTensor *wHat, const QuantizedTensor &qw,
                                                  const GemmSimOptions &o, std::string &whyNot)
{
    const GemmPlan plan = planGemm(x.shape(), w.shape(), qw, o);
    GemmDeviceRun run;
    if (!device.simulateGemmPlanned(x, w, wHat, qw, plan, o, run, whyNot))
        return std::nullopt;
    GemmSimResult r = finishPlannedGemm(plan, std::move(run), o.keepOutput);
    r.device = device.info().id;
    return r;
}

PairedGemmResult runPairedGemm(const PairedGemmRequest &request, const std::filesystem::path &checkpointPath,
                               const ReadOptions &readOptions, const Tensor &w, const QuantizedTensor &q,
                               const CancelToken *cancel)
{
    // [FILE:]NAME: FILE when the part before the last ':' names an existing path.
    std::filesystem::path file = checkpointPath;
    std::string name = request.activation;
    const auto colon = request.activation.rfind(':');
    if (colon != std::string::npos && colon > 0 && std::filesystem::exists(request.activation.substr(0, colon))) {
        file = request.activation.substr(0, colon);
        name = request.activation.substr(colon + 1);
    }
    const Checkpoint ck = Checkpoint::open(file, readOptions);
    const Tensor x = ck.tensor(name);
    GemmSimOptions o;
    if (request.actQuant)
        o.act = ActQuantSpec::parse(*request.actQuant);
    o.device = gemmDevice(request.device);
    PairedGemmResult r;
    r.sim = simulateGemm(x, w, q, o, cancel);
    r.activation = {name, file.string(), x.shape()};
    return r;
}

} // namespace quantscope
