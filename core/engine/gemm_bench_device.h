// SPDX-License-Identifier: MIT
#pragma once
/// \file gemm_bench_device.h
/// The GEMM timing lab (sim/gemm_bench.h) on the device of a DeviceChoice, by the rule of
/// runQuantize (run.h): Auto and Gpu take the GPU when one is present (Backend::timeGemms); when
/// it is absent, declines (a HIP build) or fails, the CPU's Eigen FP32 table is timed and the
/// result says why (deviceNote). Cpu is the CPU.
#include "engine/run.h"
#include "sim/gemm_bench.h"

namespace quantscope {

/// Validates the request (UnsupportedError), skips the formats the shape cannot run (the result's
/// `skipped`, runnableGemmRequest: throws only when none can), then times the rest. Progress
/// through cancel's step progress; throws Cancelled.
GemmBenchResult runGemmBench(const GemmBenchRequest &request, DeviceChoice device, const CancelToken *cancel = nullptr);

} // namespace quantscope
