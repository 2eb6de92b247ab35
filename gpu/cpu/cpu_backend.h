// SPDX-License-Identifier: MIT
#pragma once
/// \file cpu_backend.h
/// The CPU backend: plain scalar code and std::thread; the reference every GPU backend matches.
#include "backend.h"

namespace quantscope {

class CpuBackend final : public Backend {
public:
    CpuBackend();
    DeviceInfo info() const override;

private:
    DeviceInfo m_info;
};

} // namespace quantscope
