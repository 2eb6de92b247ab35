// SPDX-License-Identifier: MIT
#include "devicequery.h"

#include "engine/registry.h"
#include "qtstring.h"
#include "coremessages.h"

#include <QCoreApplication>
#include <QLocale>
#include <exception>

namespace quantscope {

namespace {

QString gib(std::uint64_t bytes)
{
    return QLocale::c().toString(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), 'f', 1);
}

} // namespace

DeviceQuery queryDevice() noexcept
{
    DeviceQuery q;
    try {
        const auto &registry = BackendRegistry::instance();
        for (const auto &d : registry.devices()) {
            const bool isCpu = d.kind == DeviceKind::Cpu;
            q.devices << (isCpu ? QCoreApplication::translate("DeviceQuery",
                                                              "%1: %2, %3 threads, %4 GiB RAM (%5 GiB free)")
                                      .arg(fromStd(d.id), fromStd(d.name))
                                      .arg(d.threads)
                                      .arg(gib(d.totalMemory), gib(d.freeMemory))
                                : QCoreApplication::translate("DeviceQuery",
                                                              "%1: %2, %3 GiB memory (%4 GiB free), %5 SMs")
                                      .arg(fromStd(d.id), fromStd(d.name), gib(d.totalMemory), gib(d.freeMemory))
                                      .arg(d.threads));
        }
        q.gpu = registry.gpu() != nullptr;
        if (q.gpu) {
            QStringList onGpu, onCpu;
            for (const auto &m : registry.gpu()->capabilities()) {
                q.gpuMethods << QStringLiteral("%1: %2").arg(fromStd(m.method), coremessages::translated(m.options));
                (m.supported ? onGpu : onCpu) << fromStd(m.method);
            }
            // Logged as one more "Compute device" line: what runs where.
            q.devices << QCoreApplication::translate("DeviceQuery", "%1 runs %2; on the CPU: %3")
                             .arg(fromStd(registry.gpu()->info().id), onGpu.join(QStringLiteral(", ")),
                                  onCpu.join(QStringLiteral(", ")));
        }
        q.gpuReason = coremessages::translated(registry.gpuUnavailableReason());
        q.gpuCause = registry.gpuUnavailableCause();
        q.gpuVendor = fromStd(gpuVendorOf(builtGpuBackends()));
        // The status bar's line, in the UI's language (core's describeComputeDevice() is the
        // CLI's English one).
        if (const Backend *gpu = registry.gpu()) {
            const DeviceInfo i = gpu->info();
            q.description =
                QCoreApplication::translate("DeviceQuery", "GPU: %1 (%2, %3 GiB free of %4)")
                    .arg(fromStd(i.name), i.kind == DeviceKind::Hip ? QStringLiteral("HIP") : QStringLiteral("CUDA"),
                         gib(i.freeMemory), gib(i.totalMemory));
        } else {
            q.description = QCoreApplication::translate("DeviceQuery", "CPU: %1 threads (%2)")
                                .arg(registry.cpu().info().threads)
                                .arg(noGpuText(q.gpuCause, q.gpuVendor, q.gpuReason).isEmpty()
                                         ? q.gpuReason
                                         : noGpuText(q.gpuCause, q.gpuVendor, q.gpuReason));
        }
    } catch (const std::exception &e) {
        q.error = coremessages::translated(std::string(e.what()));
    } catch (...) {
        q.error = QStringLiteral("unknown error");
    }
    return q;
}

QString noGpuText(GpuCause cause, const QString &vendor, const QString &reason)
{
    switch (cause) {
    case GpuCause::Available:
        return {};
    case GpuCause::BuiltWithout:
        return QCoreApplication::translate("DeviceQuery", "No GPU: this build has no GPU support");
    case GpuCause::NoDevice:
        return QCoreApplication::translate("DeviceQuery", "No %1 GPU found").arg(vendor);
    case GpuCause::DriverMismatch:
        return QCoreApplication::translate("DeviceQuery", "An %1 GPU is present, but its driver is missing or "
                                                          "older than this build needs: install or update the "
                                                          "%1 driver (%2)")
            .arg(vendor, reason);
    case GpuCause::StartFailed:
        return QCoreApplication::translate("DeviceQuery", "An %1 GPU is present, but it did not start (%2)")
            .arg(vendor, reason);
    }
    return {};
}

} // namespace quantscope
