// SPDX-License-Identifier: MIT
#pragma once
/// \file progress_estimator.h
/// Fraction done and time left of a job that reports progress in steps (the engine's
/// StepCallback: "now working on [begin, end) of `total` cost units"). Between two reports the
/// engine says nothing, so the estimate interpolates inside the current step by the speed
/// measured so far, never past 95 % of the step. The measured speed (cost units per second)
/// outlives a job, so the next job's first estimate starts from it. Plain C++: the window's
/// progress bar and the CLI's progress line use the same estimator. Times are in seconds on
/// any monotonic clock the caller chooses.
#include <mutex>
#include <string>

namespace quantscope {

/// Seconds on the steady clock: the time base the window's controllers give ProgressEstimator.
double steadySeconds();

class ProgressEstimator {
public:
    struct Estimate {
        double fraction = 0;     ///< [0, 1]
        double secondsLeft = -1; ///< < 0: not known yet
        std::string what;        ///< what the current step does
    };

    /// `initialCostPerSecond`: the speed to assume before any job was measured (0: unknown, so
    /// the first job shows no time left until its own speed is known).
    explicit ProgressEstimator(double initialCostPerSecond = 0) : m_costPerSecond(initialCostPerSecond) {}

    /// A job starts at `now`; the speed learned from earlier jobs is kept.
    void start(double now);
    /// The job reports a step: it now works on [begin, end) (fractions of `total`).
    void step(double begin, double end, double total, const std::string &what, double now);
    /// The estimate at `now`; also refines the speed from the steps completed so far. Within a
    /// job the fraction never decreases and the time left, once known, never increases.
    Estimate at(double now);
    /// The job finished at `now`: its whole cost over its whole time is the speed to remember.
    void finish(double now);

    /// Cost units per second measured so far (0: unknown).
    double costPerSecond() const { return m_costPerSecond; }

private:
    double m_jobStart = 0;
    double m_stepStart = 0;
    double m_begin = 0, m_end = 0, m_total = 0;
    std::string m_what;
    double m_costPerSecond = 0;
    // What at() last said: the bar never moves back and the time left never rises (a slow
    // step holds it until the measured speed brings it down again; issue 42 "no jumps back").
    double m_shownFraction = 0;
    double m_shownLeft = -1;
};

/// The step a worker thread last reported, for the thread that polls a ProgressEstimator (the
/// window's job, scan and compare controllers): report() on the worker, feed() on the poller.
class StepMailbox {
public:
    /// `now`: when the job started (its first step is "nothing yet" from then).
    explicit StepMailbox(double now) : m_at(now) {}
    /// The worker works on [begin, end) of `total` from now (steadySeconds()) on.
    void report(double begin, double end, double total, const std::string &what);
    /// Hands the last reported step, with the time it was reported, to `estimator`.
    void feed(ProgressEstimator &estimator) const;

private:
    mutable std::mutex m_mutex;
    double m_begin = 0, m_end = 0, m_total = 0;
    std::string m_what;
    double m_at;
};

} // namespace quantscope
