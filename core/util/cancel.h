// SPDX-License-Identifier: MIT
#pragma once
/// \file cancel.h
/// Cooperative cancellation and step progress for long core jobs (no Qt).
#include <atomic>
#include <functional>
#include <memory>

#include "util/error.h"

namespace quantscope {

/// Shared flag a job polls at its checkpoints; copies share the same flag. The job may also
/// attach a progress hook that long loops (MiLo passes, spectrum power iterations, c sweep
/// points) call at those checkpoints with how far the current step is, in [0, 1]. The hook is
/// set between steps on the job's thread; it may be called from a worker thread of a parallel
/// loop, so it must be thread-safe (the engine job's is).
class CancelToken {
public:
    CancelToken() : m_state(std::make_shared<State>()) {}
    void cancel() const noexcept { m_state->flag.store(true, std::memory_order_relaxed); }
    bool cancelled() const noexcept { return m_state->flag.load(std::memory_order_relaxed); }
    /// Throws Cancelled when cancellation was requested.
    void check() const
    {
        if (cancelled())
            throw Cancelled();
    }
    /// Installs (or, with an empty function, removes) the step-progress hook.
    void setStepProgress(std::function<void(double)> hook) const { m_state->progress = std::move(hook); }
    /// Reports progress within the current step and checks for cancellation.
    void stepProgress(double fraction) const
    {
        check();
        if (m_state->progress)
            m_state->progress(fraction);
    }

private:
    struct State {
        std::atomic<bool> flag{false};
        std::function<void(double)> progress;
    };
    std::shared_ptr<State> m_state;
};

} // namespace quantscope
