// SPDX-License-Identifier: MIT
#include "progress.h"

#include <cstdio>

#include <unistd.h>

namespace quantscope::cli {

ProgressLine::ProgressLine(bool quiet) : m_active(!quiet && isatty(STDERR_FILENO) == 1)
{
    m_t0 = std::chrono::steady_clock::now();
    m_estimator.start(0.0);
}

ProgressLine::~ProgressLine()
{
    finish();
}

double ProgressLine::now() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
}

StepCallback ProgressLine::callback()
{
    if (!m_active)
        return {};
    return [this](double begin, double end, double total, const std::string &what) { report(begin, end, total, what); };
}

void ProgressLine::report(double begin, double end, double total, const std::string &what)
{
    std::lock_guard lock(m_mutex);
    const double t = now();
    m_estimator.step(begin, end, total, what, t);
    // At most ten lines a second, and nothing for jobs that finish within half a second.
    if (t < 0.5 || (m_lastDraw >= 0 && t - m_lastDraw < 0.1))
        return;
    m_lastDraw = t;
    const auto e = m_estimator.at(t);
    char left[64] = "";
    if (e.secondsLeft >= 0)
        std::snprintf(left, sizeof left, "  %.0f s left", e.secondsLeft + 0.5);
    std::string text = e.what;
    if (text.size() > 56)
        text = "…" + text.substr(text.size() - 55);
    std::fprintf(stderr, "\r\033[K[%3.0f%%] %s  %.1f s%s", 100.0 * e.fraction, text.c_str(), t, left);
    std::fflush(stderr);
    m_drawn = true;
}

void ProgressLine::finish()
{
    std::lock_guard lock(m_mutex);
    if (m_drawn) {
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
        m_drawn = false;
    }
}

} // namespace quantscope::cli
