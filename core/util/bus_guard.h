// SPDX-License-Identifier: MIT
#pragma once
/// \file bus_guard.h
/// Files truncated while they are mapped (docs/reliability.md "Resource limits"). Reading a page
/// of a mapping past the file's new end raises SIGBUS. MappedFile registers each mapping here;
/// reads through guarded() (Tensor::decodeRange: every decode and toF32 of a mapped tensor) turn
/// that SIGBUS into an IoError naming the file, and any other read of a registered mapping ends
/// the process with that message and exit status 1 instead of a bus error. Addresses outside every
/// registered mapping keep the default SIGBUS.
#include <csetjmp>
#include <cstdint>
#include <string>

namespace quantscope::busguard {

/// Registers [begin, begin + size) as a mapping of `path` (installs the SIGBUS handler once).
void registerMapping(const void *begin, std::uint64_t size, const std::string &path);
void unregisterMapping(const void *begin) noexcept;
/// Whether `p` lies in a registered mapping.
bool isMapped(const void *p) noexcept;

/// One guarded region of this thread (internal to guarded()).
struct Frame {
    sigjmp_buf env;
    const void *volatile fault = nullptr;
    Frame *prev = nullptr;
};
Frame *&currentFrame() noexcept;
[[noreturn]] void throwBusError(const void *fault);

/// Runs `fn()`; a SIGBUS on a registered mapping inside it throws IoError naming the file (and the
/// byte). `fn` must hold no object with a destructor across the faulting read (plain copies and
/// conversions: the jump skips its frames).
template <typename F> void guarded(F &&fn)
{
    Frame f;
    f.prev = currentFrame();
    if (sigsetjmp(f.env, 1) != 0) {
        currentFrame() = f.prev;
        throwBusError(f.fault);
    }
    currentFrame() = &f;
    try {
        fn();
    } catch (...) {
        currentFrame() = f.prev;
        throw;
    }
    currentFrame() = f.prev;
}

} // namespace quantscope::busguard
