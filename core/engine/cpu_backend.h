// SPDX-License-Identifier: MIT
#pragma once
/// \file cpu_backend.h
/// The CPU backend: the core quantizers' scalar reference on std::threads; the reference every
/// GPU backend matches.
#include "engine/backend.h"

namespace quantscope {

class CpuBackend final : public Backend {
public:
    CpuBackend();
    DeviceInfo info() const override;
    Capability supports(const QuantSpec &) const override { return {true, {}}; }
    std::vector<MethodSupport> capabilities() const override;
    std::shared_ptr<const DeviceTensor> upload(const Tensor &t, const std::string &name) const override;
    QuantizedTensor quantize(const DeviceTensor &w, const QuantSpec &spec, const QuantizeOptions &options,
                             const CancelToken *cancel = nullptr) const override;
    std::vector<float> dequantize(const QuantizedTensor &q) const override;
    ErrorMetrics metrics(const DeviceTensor &w, std::span<const float> wHat, const ErrorMetricsOptions &options,
                         const CancelToken *cancel = nullptr) const override;
    /// Wraps `g` (no copy): the FP64 row blocks of metrics/output_error.h.
    std::shared_ptr<const DeviceGram> uploadGram(const GramMatrix &g, std::string &whyNot) const override;
    std::optional<double> gramEnergy(const DeviceTensor &w, const DeviceTensor *wHatOnDevice,
                                     std::span<const float> wHat, const DeviceGram &g, std::string &whyNot,
                                     const CancelToken *cancel = nullptr) const override;
    std::vector<float> downloadFloats(const DeviceTensor &t) const override;

private:
    DeviceInfo m_info;
};

} // namespace quantscope
