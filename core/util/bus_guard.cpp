// SPDX-License-Identifier: MIT
#include "util/bus_guard.h"

#include "util/error.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <signal.h>
#include <unistd.h>

namespace quantscope::busguard {

namespace {

/// Fixed slots, read by the signal handler without locks: a slot is published by storing its
/// `begin` last and withdrawn by clearing `begin` first.
struct Slot {
    std::atomic<const std::byte *> begin{nullptr};
    std::atomic<std::uint64_t> size{0};
    char path[1024] = {};
};
constexpr int kSlots = 512;
Slot g_slots[kSlots];
std::atomic<int> g_used{0}; ///< slots [0, g_used) may be in use
std::mutex g_mutex;         ///< registration only
struct sigaction g_previous {};

int slotOf(const void *p) noexcept
{
    const auto *b = static_cast<const std::byte *>(p);
    const int used = g_used.load(std::memory_order_acquire);
    for (int i = 0; i < used; ++i) {
        const std::byte *s = g_slots[i].begin.load(std::memory_order_acquire);
        if (s && b >= s && static_cast<std::uint64_t>(b - s) < g_slots[i].size.load(std::memory_order_relaxed))
            return i;
    }
    return -1;
}

void writeAll(const char *s) noexcept
{
    std::size_t n = std::strlen(s);
    while (n > 0) {
        const ssize_t w = ::write(2, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= static_cast<std::size_t>(w);
    }
}

void onBus(int sig, siginfo_t *info, void *ctx)
{
    const void *addr = info ? info->si_addr : nullptr;
    const int slot = addr ? slotOf(addr) : -1;
    if (slot >= 0) {
        if (Frame *f = currentFrame()) {
            f->fault = addr;
            siglongjmp(f->env, 1);
        }
        writeAll("quantscope: error: ");
        writeAll(g_slots[slot].path);
        writeAll(": the file was truncated or replaced while it was read (bus error reading its mapping)\n");
        ::_exit(1);
    }
    // Not ours: the previous disposition.
    if (g_previous.sa_flags & SA_SIGINFO) {
        if (g_previous.sa_sigaction) {
            g_previous.sa_sigaction(sig, info, ctx);
            return;
        }
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
        g_previous.sa_handler(sig);
        return;
    }
    ::signal(SIGBUS, SIG_DFL);
    ::raise(SIGBUS);
}

void installOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa {};
        sa.sa_sigaction = onBus;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &g_previous);
    });
}

} // namespace

Frame *&currentFrame() noexcept
{
    thread_local Frame *frame = nullptr;
    return frame;
}

void registerMapping(const void *begin, std::uint64_t size, const std::string &path)
{
    if (!begin || size == 0)
        return;
    installOnce();
    std::lock_guard lock(g_mutex);
    for (int i = 0; i < kSlots; ++i) {
        Slot &s = g_slots[i];
        if (s.begin.load(std::memory_order_relaxed) != nullptr)
            continue;
        const std::size_t n = std::min(path.size(), sizeof s.path - 1);
        std::memcpy(s.path, path.data(), n);
        s.path[n] = '\0';
        s.size.store(size, std::memory_order_relaxed);
        s.begin.store(static_cast<const std::byte *>(begin), std::memory_order_release);
        if (i >= g_used.load(std::memory_order_relaxed))
            g_used.store(i + 1, std::memory_order_release);
        return;
    }
    // More mappings than slots: this one is unguarded (the default SIGBUS), nothing else changes.
}

void unregisterMapping(const void *begin) noexcept
{
    if (!begin)
        return;
    std::lock_guard lock(g_mutex);
    for (int i = 0; i < g_used.load(std::memory_order_relaxed); ++i)
        if (g_slots[i].begin.load(std::memory_order_relaxed) == begin) {
            g_slots[i].begin.store(nullptr, std::memory_order_release);
            return;
        }
}

bool isMapped(const void *p) noexcept
{
    return g_used.load(std::memory_order_relaxed) > 0 && slotOf(p) >= 0;
}

void throwBusError(const void *fault)
{
    std::string path = "a mapped file";
    std::optional<std::uint64_t> offset;
    {
        std::lock_guard lock(g_mutex);
        const int slot = slotOf(fault);
        if (slot >= 0) {
            path = g_slots[slot].path;
            offset = static_cast<std::uint64_t>(static_cast<const std::byte *>(fault) -
                                                g_slots[slot].begin.load(std::memory_order_relaxed));
        }
    }
    throw IoError("the file was truncated or replaced while it was read (bus error reading its mapping)",
                  Location{path, {}, offset});
}

} // namespace quantscope::busguard
