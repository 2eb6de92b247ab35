// SPDX-License-Identifier: MIT
#pragma once
/// \file cancel.h
/// Cooperative cancellation and progress reporting for long core jobs (no Qt).
#include <atomic>
#include <functional>
#include <memory>

#include "util/error.h"

namespace quantscope {

/// Shared flag a job polls at its checkpoints; copies share the same flag.
class CancelToken {
public:
    CancelToken() : m_flag(std::make_shared<std::atomic<bool>>(false)) {}
    void cancel() const noexcept { m_flag->store(true, std::memory_order_relaxed); }
    bool cancelled() const noexcept { return m_flag->load(std::memory_order_relaxed); }
    /// Throws Cancelled when cancellation was requested.
    void check() const
    {
        if (cancelled())
            throw Cancelled();
    }

private:
    std::shared_ptr<std::atomic<bool>> m_flag;
};

/// Receives progress in [0, 1] and a short status text. May be called from any thread.
class ProgressSink {
public:
    virtual ~ProgressSink() = default;
    virtual void progress(double fraction, const char *what) = 0;
};

/// A sink that drops everything.
class NullProgress final : public ProgressSink {
public:
    void progress(double, const char *) override {}
};

} // namespace quantscope
