// SPDX-License-Identifier: MIT
#pragma once
/// \file memory.h
/// The memory limit of declared sizes (docs/reliability.md "Resource limits"): an allocation a
/// file's header asks for (a decoded tensor, an inflated member) is refused before it is made when
/// it is larger than the machine's physical memory, or than QUANTSCOPE_MEMORY_LIMIT_MB when that
/// is set (a smaller cap, e.g. a container's share; the tests use it to refuse small sizes).
#include "util/error.h"

#include <cstdint>
#include <string>

namespace quantscope {

/// The input needs more of a resource than this machine has (a declared size larger than its
/// memory): refused before the allocation.
class ResourceError : public Error {
public:
    using Error::Error;
};

/// setMemoryLimit's cap when set, else QUANTSCOPE_MEMORY_LIMIT_MB · 2^20 when that is set (read
/// once), else the physical memory.
std::uint64_t memoryLimitBytes() noexcept;
/// Caps memoryLimitBytes() (0: back to the environment / physical memory). For front ends and tests.
void setMemoryLimit(std::uint64_t bytes) noexcept;

/// Throws ResourceError at `where` ("`what` needs N MiB, more than the memory limit of M MiB")
/// when `bytes` exceeds memoryLimitBytes().
void checkAllocation(std::uint64_t bytes, const Location &where, const std::string &what);

} // namespace quantscope
