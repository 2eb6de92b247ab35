// SPDX-License-Identifier: MIT
#pragma once
/// \file demo.h
/// The built-in demo: a small MoE checkpoint named like a Hugging Face model (hidden 1024),
/// generated in code with a fixed seed, and an activation tensor with outlier channels.
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace quantscope::demo {

inline constexpr std::uint64_t kDefaultSeed = 20261122;

/// All weight tensors of the demo, by name, in a fixed order (layer 0 dense, layer 1 MoE,
/// embeddings, norm, head). Deterministic for a given seed.
std::vector<std::pair<std::string, Tensor>> makeDemoWeights(std::uint64_t seed = kDefaultSeed);
/// The activation [256, 1024] with 3 outlier channels at ~50× the median channel absmax.
Tensor makeDemoActivation(std::uint64_t seed = kDefaultSeed);
/// The three outlier channel indices of the activation.
std::vector<int> demoActivationOutlierChannels();
/// The 4 outlier input channels of the layer-0/1 q/k projections.
std::vector<int> demoQkOutlierChannels();

/// Writes the demo into `dir` (created if needed): two shards
/// `model-00001-of-00002.safetensors`, `model-00002-of-00002.safetensors`,
/// `model.safetensors.index.json`, `config.json` and `activations.npy`. Every file atomically.
void writeDemoCheckpoint(const std::filesystem::path &dir, std::uint64_t seed = kDefaultSeed);

/// Folder of the cached demo (XDG cache: $XDG_CACHE_HOME or ~/.cache, then quantscope/demo-<version>);
/// generates it there on first use and returns it.
std::filesystem::path ensureDemoCheckpoint();

} // namespace quantscope::demo
