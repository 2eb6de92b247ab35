// SPDX-License-Identifier: MIT
#pragma once
/// \file kv_data.h
/// K/V caches (and queries) per attention layer for the KV-cache lab (docs/numerics.md
/// "KV-cache lab"; docs/formats.md "KV-cache files"). Sources:
///  * a capture (io/capture.h): each attention block's `A.k`, `A.v` [Hkv, T, d] and `A.q` [H, Q, d];
///    queries and keys are the first positions of the capture's samples, concatenated, so the
///    causal segment is the capture's `seq`;
///  * `.npz`: arrays `k`, `v` (or `keys`, `values`) and optionally `q` (or `queries`), each
///    [L, H, T, d] (all layers) or [H, T, d] (one layer);
///  * `.safetensors`: the same names as the .npz, or per-layer tensors `<prefix>.k`, `<prefix>.v`
///    (and `<prefix>.q`) [H, T, d] for every prefix that has both `.k` and `.v`, in name order with a
///    numeric part compared as a number (layers.2 before layers.10);
///  * `.npy`: one array [2, L, H, T, d] (K then V), no queries.
/// Every layer must agree on Hkv, T and d between K and V; queries need H a multiple of Hkv (grouped
/// query attention: query head h reads KV head h / (H / Hkv)) and the same d. Values are decoded to
/// FP32. A NaN/Inf is refused naming the layer, the head and the tensor. Without a stated sequence
/// length the whole file is one causal sequence: query i sits at position i.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace quantscope {

struct KvLayer {
    int layer = 0;    ///< the model's layer index
    std::string name; ///< "model.layers.0.self_attn", "layer 0"
    /// Row-major FP32 [Hkv, T, d] keys and values; queries [H, Q, d] (empty when absent).
    std::vector<float> k, v, q;
};

struct KvData {
    std::filesystem::path source;
    std::string kind; ///< "capture", "npz", "safetensors", "npy"
    std::int64_t kvHeads = 0, heads = 0, tokens = 0, queries = 0, headDim = 0;
    /// Tokens per causal sequence: query i attends to keys [⌊i/segment⌋·segment, i].
    std::int64_t segment = 0;
    std::string rope; ///< "post", "pre" or "" (unknown)
    std::vector<KvLayer> layers;
    std::vector<std::string> notes;
    bool hasQueries() const noexcept { return queries > 0; }
};

struct KvLoadOptions {
    /// Overrides the causal segment (0: the capture's seq, else the whole file).
    std::int64_t segment = 0;
    /// Keep at most this many tokens of K/V per layer (0: all) and queries (0: all).
    std::int64_t maxTokens = 0, maxQueries = 0;
};

/// Throws IoError (cannot open) or FormatError naming the file, the array/tensor, the layer and
/// head where a rule above is broken.
KvData loadKv(const std::filesystem::path &path, const KvLoadOptions &options = {});

/// Builds KvData from tensors (used by loadKv and by tests): k, v [L, Hkv, T, d] or [Hkv, T, d],
/// q likewise or empty. Validates and applies `options` as loadKv does; `label` names the source.
KvData kvFromArrays(const std::string &label, const Tensor &k, const Tensor &v, const std::optional<Tensor> &q,
                    const KvLoadOptions &options = {});

} // namespace quantscope
