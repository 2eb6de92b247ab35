// SPDX-License-Identifier: MIT
#pragma once
/// \file progress.h
/// The CLI's progress line: the engine job's step progress through the same ProgressEstimator
/// the window uses, drawn as one self-overwriting line on stderr ("[ 42%] milo: q_proj  3 s
/// left"). Only when stderr is a terminal and --quiet was not given; nothing otherwise, so
/// piped output and logs stay clean.
#include <chrono>
#include <mutex>
#include <string>

#include "engine/job.h"
#include "engine/progress_estimator.h"

namespace quantscope::cli {

class ProgressLine {
public:
    /// `quiet`: --quiet. Draws only when stderr is a terminal.
    explicit ProgressLine(bool quiet);
    ~ProgressLine();
    ProgressLine(const ProgressLine &) = delete;
    ProgressLine &operator=(const ProgressLine &) = delete;

    /// The callback to hand to runQuantizeJob (or to call from any long loop).
    StepCallback callback();
    /// Wipes the line (before the result is printed).
    void finish();
    bool active() const { return m_active; }

private:
    void report(double begin, double end, double total, const std::string &what);
    double now() const;

    bool m_active = false;
    bool m_drawn = false;
    std::mutex m_mutex;
    ProgressEstimator m_estimator;
    std::chrono::steady_clock::time_point m_t0;
    double m_lastDraw = -1;
};

} // namespace quantscope::cli
