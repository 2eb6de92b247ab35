// SPDX-License-Identifier: MIT
#include "util/memory.h"

#include <atomic>
#include <cstdlib>
#include <unistd.h>

namespace quantscope {

namespace {
std::atomic<std::uint64_t> g_override{0};
} // namespace

void setMemoryLimit(std::uint64_t bytes) noexcept
{
    g_override.store(bytes, std::memory_order_relaxed);
}

std::uint64_t memoryLimitBytes() noexcept
{
    if (const std::uint64_t o = g_override.load(std::memory_order_relaxed))
        return o;
    static const std::uint64_t limit = [] {
        if (const char *v = std::getenv("QUANTSCOPE_MEMORY_LIMIT_MB"); v && *v) {
            const long long mb = std::atoll(v);
            if (mb > 0)
                return static_cast<std::uint64_t>(mb) << 20;
        }
        const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
        if (pages <= 0 || page <= 0)
            return ~std::uint64_t{0};
        return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
    }();
    return limit;
}

void checkAllocation(std::uint64_t bytes, const Location &where, const std::string &what)
{
    const std::uint64_t limit = memoryLimitBytes();
    if (bytes <= limit)
        return;
    const auto mib = [](std::uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20); };
    throw ResourceError(what + " needs " + mib(bytes) + " MiB, more than the memory limit of " + mib(limit) +
                            " MiB (this machine's memory, or QUANTSCOPE_MEMORY_LIMIT_MB); refused before allocating",
                        where);
}

} // namespace quantscope
