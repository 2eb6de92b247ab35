// SPDX-License-Identifier: MIT
#pragma once
/// \file register.h
/// Installs this build's GPU backend (CUDA or HIP, when built) into the engine's
/// BackendRegistry. Every program that should compute on a GPU calls it once at the start of
/// main, before the registry is first used; without it the engine runs on the CPU alone.
namespace quantscope {

void registerGpuBackends();

} // namespace quantscope
