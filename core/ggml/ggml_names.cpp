// SPDX-License-Identifier: MIT
// The llama family's GGUF tensor names (gguf-py constants.py TENSOR_NAMES and tensor_mapping.py).
#include "ggml/ggml_names.h"

#include <array>
#include <cctype>
#include <utility>

namespace quantscope::ggml {

namespace {

using Pair = std::pair<std::string_view, std::string_view>; // GGUF, HF

constexpr std::array<Pair, 3> kGlobal = {{
    {"token_embd", "model.embed_tokens"},
    {"output_norm", "model.norm"},
    {"output", "lm_head"},
}};

/// Per-block names, after `blk.N.` and `model.layers.N.`.
constexpr std::array<Pair, 11> kBlock = {{
    {"attn_norm", "input_layernorm"},
    {"attn_q", "self_attn.q_proj"},
    {"attn_k", "self_attn.k_proj"},
    {"attn_v", "self_attn.v_proj"},
    {"attn_output", "self_attn.o_proj"},
    {"attn_q_norm", "self_attn.q_norm"},
    {"attn_k_norm", "self_attn.k_norm"},
    {"ffn_norm", "post_attention_layernorm"},
    {"ffn_gate", "mlp.gate_proj"},
    {"ffn_up", "mlp.up_proj"},
    {"ffn_down", "mlp.down_proj"},
}};

constexpr std::array<std::string_view, 6> kArchs = {"llama", "mistral", "qwen2", "qwen3", "granite", "smollm3"};

/// Splits "base.weight" / "base.bias" into base and suffix; false for other suffixes.
bool splitSuffix(std::string_view name, std::string_view &base, std::string_view &suffix)
{
    for (const std::string_view s : {std::string_view(".weight"), std::string_view(".bias")})
        if (name.size() > s.size() && name.substr(name.size() - s.size()) == s) {
            base = name.substr(0, name.size() - s.size());
            suffix = s;
            return true;
        }
    return false;
}

/// "12.rest" after `prefix` → ("12", "rest"); false when not a block name.
bool splitBlock(std::string_view name, std::string_view prefix, std::string_view &index, std::string_view &rest)
{
    if (name.substr(0, prefix.size()) != prefix)
        return false;
    name.remove_prefix(prefix.size());
    std::size_t i = 0;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])))
        ++i;
    if (i == 0 || i > 6 || i >= name.size() || name[i] != '.' || (i > 1 && name[0] == '0'))
        return false;
    index = name.substr(0, i);
    rest = name.substr(i + 1);
    return true;
}

std::string map(std::string_view arch, std::string_view name, bool toHf)
{
    if (!knownArchitecture(arch))
        return {};
    std::string_view base, suffix;
    if (!splitSuffix(name, base, suffix))
        return {};
    for (const auto &[g, h] : kGlobal)
        if (base == (toHf ? g : h))
            return std::string(toHf ? h : g) + std::string(suffix);
    std::string_view index, rest;
    if (!splitBlock(base, toHf ? "blk." : "model.layers.", index, rest))
        return {};
    for (const auto &[g, h] : kBlock)
        if (rest == (toHf ? g : h))
            return std::string(toHf ? "model.layers." : "blk.") + std::string(index) + "." + std::string(toHf ? h : g) +
                   std::string(suffix);
    return {};
}

} // namespace

bool knownArchitecture(std::string_view arch) noexcept
{
    for (const std::string_view a : kArchs)
        if (a == arch)
            return true;
    return false;
}

std::string hfName(std::string_view arch, std::string_view gguf)
{
    return map(arch, gguf, true);
}

std::string ggufName(std::string_view arch, std::string_view hf)
{
    return map(arch, hf, false);
}

} // namespace quantscope::ggml
