// SPDX-License-Identifier: MIT
#include "engine/progress_estimator.h"

#include <chrono>

#include <algorithm>

namespace quantscope {

void ProgressEstimator::start(double now)
{
    m_jobStart = now;
    m_stepStart = now;
    m_begin = m_end = m_total = 0;
    m_what.clear();
    m_shownFraction = 0;
    m_shownLeft = -1;
}

void ProgressEstimator::step(double begin, double end, double total, const std::string &what, double now)
{
    m_begin = begin;
    m_end = end;
    m_total = total;
    m_what = what;
    m_stepStart = now;
}

ProgressEstimator::Estimate ProgressEstimator::at(double now)
{
    const double elapsedJob = now - m_jobStart;
    // Once a little of the job is done, its own speed replaces the one remembered.
    if (m_begin > 0.02 && elapsedJob > 0.2)
        m_costPerSecond = m_begin * m_total / elapsedJob;
    const double inStep = now - m_stepStart;
    Estimate e;
    e.what = m_what;
    e.fraction = m_begin;
    if (m_total > 0 && m_end > m_begin && m_costPerSecond > 0) {
        const double stepCost = (m_end - m_begin) * m_total;
        e.fraction += (m_end - m_begin) * std::min(0.95, inStep * m_costPerSecond / stepCost);
    }
    e.fraction = std::max(e.fraction, m_shownFraction);
    if (m_total > 0 && m_costPerSecond > 0 && elapsedJob > 0.3)
        e.secondsLeft = (1.0 - e.fraction) * m_total / m_costPerSecond;
    if (e.secondsLeft >= 0 && m_shownLeft >= 0)
        e.secondsLeft = std::min(e.secondsLeft, m_shownLeft);
    m_shownFraction = e.fraction;
    if (e.secondsLeft >= 0)
        m_shownLeft = e.secondsLeft;
    return e;
}

void ProgressEstimator::finish(double now)
{
    const double seconds = now - m_jobStart;
    if (seconds > 0.05 && m_total > 0)
        m_costPerSecond = m_total / seconds;
}

double steadySeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void StepMailbox::report(double begin, double end, double total, const std::string &what)
{
    const double now = steadySeconds();
    const std::lock_guard lock(m_mutex);
    m_begin = begin;
    m_end = end;
    m_total = total;
    m_what = what;
    m_at = now;
}

void StepMailbox::feed(ProgressEstimator &estimator) const
{
    const std::lock_guard lock(m_mutex);
    estimator.step(m_begin, m_end, m_total, m_what, m_at);
}

} // namespace quantscope
