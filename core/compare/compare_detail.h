// SPDX-License-Identifier: MIT
#pragma once
// Internal to core/compare: what the checkpoint comparison (compare.cpp) and the scan-report
// comparison (compare_reports.cpp) share.
#include "compare/compare.h"

namespace quantscope::comparedetail {

/// ‖x − y‖ / ‖y‖ over the element pairs where both are finite, in double (as the error metrics'
/// rel_frobenius); 0 for two zero tensors, ∞ for a zero y and a nonzero x.
double relativeDifference(const Tensor &x, const Tensor &y);
/// The Spearman agreement over the modules with both errors, then the sort by difference.
CompareReport finish(CompareReport r);
/// Two scan reports (compare_reports.cpp).
CompareReport compareScanReports(const std::string &a, const std::string &b, const CompareOptions &options,
                                 const CancelToken *cancel, const CompareProgress &progress);

} // namespace quantscope::comparedetail
