// SPDX-License-Identifier: MIT
#pragma once
/// \file coremessages_tables.h
/// The tables of core's message patterns beyond coremessages.cpp's own, one per group of core
/// folders (docs/architecture.md "Core messages in the window"). Each holds QT_TRANSLATE_NOOP
/// strings of the context "quantscope::CoreMessages".
#include <span>

namespace quantscope::coremessages::tables {

/// The readers of core/io: safetensors, .npy, .npz, GGUF, captures, the file sniffer, the checkpoint folder and index, mapped and staged files.
std::span<const char *const> readers();
/// The quantized-checkpoint readers of core/io (compressed-tensors, Quark, FP8 block, native) and the weight reader.
std::span<const char *const> quantized();
/// Core/export: the checkpoint, compressed-tensors, Quark, FP8 block and GGUF writers, the imatrix and the Hugging Face to GGUF converter.
std::span<const char *const> writers();
/// Core/ggml: llama.cpp's types, quantizers and the GGUF type mix.
std::span<const char *const> ggml();
/// Core/doctor, core/scan, core/recipe and core/bridge: the checks, the scan, the recipes and the Python bridge.
std::span<const char *const> checks();

} // namespace quantscope::coremessages::tables
