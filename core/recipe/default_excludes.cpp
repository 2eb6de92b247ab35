// SPDX-License-Identifier: MIT
// The default exclusions (default_excludes.h).
#include "recipe/default_excludes.h"

#include <string_view>

namespace quantscope {

namespace {

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lastComponent(const std::string &m)
{
    const auto dot = m.rfind('.');
    return dot == std::string::npos ? m : m.substr(dot + 1);
}

} // namespace

bool isEmbeddingModule(const std::string &module)
{
    const std::string last = lastComponent(module);
    for (const char *e : {"embed_tokens", "wte", "wpe", "word_embeddings", "embeddings", "embed_positions"})
        if (last == e)
            return true;
    return false;
}

std::string defaultExcludeReason(const std::string &module, const Shape &weightShape)
{
    if (weightShape.size() != 2)
        return "not a 2-D weight (" + std::to_string(weightShape.size()) + "-D): no Linear layer to quantize";
    const std::string last = lastComponent(module);
    if (isEmbeddingModule(module))
        return "an embedding: the toolkits quantize Linear layers, and vLLM keeps embeddings dense";
    if (last == "lm_head" || last == "embed_out" || last == "output")
        return "the output head: llm-compressor, Quark and vLLM users keep lm_head dense by default";
    if (last == "router" || last == "shared_expert_gate" ||
        (last == "gate" && (module.find(".mlp.") != std::string::npos || endsWith(module, "mlp.gate") ||
                            module.find("block_sparse_moe") != std::string::npos)))
        return "a MoE router: serving engines keep routers dense (their logits choose the experts)";
    if (last.find("norm") != std::string::npos)
        return "a norm: not a Linear layer";
    return "";
}

} // namespace quantscope
