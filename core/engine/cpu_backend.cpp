// SPDX-License-Identifier: MIT
#include "engine/cpu_backend.h"

#include <fstream>
#include <string>
#include <thread>

#include <unistd.h>

#include "util/error.h"

namespace quantscope {

namespace {

std::string cpuModelName()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                auto name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(' '));
                return name;
            }
        }
    }
    return "CPU";
}

} // namespace

CpuBackend::CpuBackend()
{
    m_info.kind = DeviceKind::Cpu;
    m_info.id = "cpu";
    m_info.name = cpuModelName();
    m_info.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long avail = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        m_info.totalMemory = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
    if (avail > 0 && page > 0)
        m_info.freeMemory = static_cast<std::uint64_t>(avail) * static_cast<std::uint64_t>(page);
}

DeviceInfo CpuBackend::info() const
{
    return m_info;
}

namespace {

class HostTensor final : public DeviceTensor {
public:
    explicit HostTensor(Tensor t) : m_t(std::move(t)) {}
    const Shape &shape() const override { return m_t.shape(); }
    DType dtype() const override { return m_t.dtype(); }
    const Tensor &tensor() const { return m_t; }

private:
    Tensor m_t;
};

const Tensor &hostOf(const DeviceTensor &d)
{
    const auto *h = dynamic_cast<const HostTensor *>(&d);
    if (!h)
        throw UnsupportedError("the CPU backend was handed a tensor of another device");
    return h->tensor();
}

} // namespace

std::shared_ptr<const DeviceTensor> CpuBackend::upload(const Tensor &t, const std::string &) const
{
    return std::make_shared<HostTensor>(t);
}

std::vector<MethodSupport> CpuBackend::capabilities() const
{
    std::vector<MethodSupport> out;
    for (const auto &m : quantizerMethods())
        out.push_back({m.method, true, "all options (the reference implementation)"});
    return out;
}

QuantizedTensor CpuBackend::quantize(const DeviceTensor &w, const QuantSpec &spec, const QuantizeOptions &options,
                                     const CancelToken *cancel) const
{
    QuantizeOptions o = options;
    o.wantDequantized = o.wantDequantized || o.dequantizedOnDevice; // the host is this backend's device
    return makeQuantizer(spec)->quantize(hostOf(w), o, cancel);
}

std::vector<float> CpuBackend::dequantize(const QuantizedTensor &q) const
{
    std::vector<float> out(static_cast<std::size_t>(q.numel()));
    makeQuantizer(q.spec)->dequantize(q, out);
    return out;
}

ErrorMetrics CpuBackend::metrics(const DeviceTensor &w, std::span<const float> wHat, const ErrorMetricsOptions &options,
                                 const CancelToken *cancel) const
{
    return computeErrorMetrics(hostOf(w), wHat, options, cancel);
}

namespace {

class HostGram final : public DeviceGram {
public:
    explicit HostGram(const GramMatrix &g) : m_g(&g) {}
    const GramMatrix &gram() const override { return *m_g; }

private:
    const GramMatrix *m_g;
};

} // namespace

std::shared_ptr<const DeviceGram> CpuBackend::uploadGram(const GramMatrix &g, std::string &) const
{
    return std::make_shared<HostGram>(g);
}

std::optional<double> CpuBackend::gramEnergy(const DeviceTensor &w, const DeviceTensor *wHatOnDevice,
                                             std::span<const float> wHat, const DeviceGram &g, std::string &,
                                             const CancelToken *cancel) const
{
    const Tensor &t = hostOf(w);
    std::vector<float> rows(static_cast<std::size_t>(t.numel()));
    t.decodeTo(rows);
    std::vector<float> hat;
    if (wHatOnDevice) {
        hat = downloadFloats(*wHatOnDevice);
        wHat = hat;
    }
    return quantscope::gramEnergy(rows, wHat, matrixShape(t.shape())[0], g.gram(), 0, cancel);
}

std::vector<float> CpuBackend::downloadFloats(const DeviceTensor &d) const
{
    const Tensor &t = hostOf(d);
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    t.decodeTo(out);
    return out;
}

} // namespace quantscope
