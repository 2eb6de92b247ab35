// SPDX-License-Identifier: MIT
#pragma once
/// \file ggml_names.h
/// llama.cpp's tensor names ↔ the Hugging Face names the rest of Quantscope uses, for the
/// architectures whose layout is the llama family's (docs/formats.md "GGUF"): `blk.N.attn_q.weight`
/// ↔ `model.layers.N.self_attn.q_proj.weight`, `token_embd.weight` ↔ `model.embed_tokens.weight`,
/// `output_norm.weight` ↔ `model.norm.weight`, `output.weight` ↔ `lm_head.weight`, …
#include <string>
#include <string_view>

namespace quantscope::ggml {

/// Whether `arch` (GGUF `general.architecture`) uses the llama family's names: llama, mistral,
/// qwen2, qwen3, granite, smollm3.
bool knownArchitecture(std::string_view arch) noexcept;
/// The HF name of a GGUF tensor name, "" when it has none (unknown architecture or name).
std::string hfName(std::string_view arch, std::string_view ggufName);
/// The GGUF name of an HF tensor name, "" when it has none.
std::string ggufName(std::string_view arch, std::string_view hfName);

} // namespace quantscope::ggml
