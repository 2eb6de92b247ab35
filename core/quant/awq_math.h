// SPDX-License-Identifier: MIT
#pragma once
/// \file awq_math.h
/// What AWQ's CPU reference (awq.cpp) and its device kernels (gpu/kernels/awq.cu) must agree on
/// and that kernel sources can include (no JSON or tensor headers): the summation order of w̄.

namespace quantscope {

/// The rows of one segment of w̄'s FP64 sums: each segment summed in row order from 0, the
/// segments' sums added in order (the GPU sums the segments in parallel: the same bits).
constexpr long long kAwqSegmentRows = 128;

} // namespace quantscope
