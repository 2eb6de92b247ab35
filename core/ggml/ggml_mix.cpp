// SPDX-License-Identifier: MIT
// llama-quantize's per-tensor type choice (ggml_mix.h), rule for rule as llama.cpp's
// src/llama-quant.cpp writes it (the version vendored in llama-cpp-python 0.3.36, which the goldens
// of tests/data/gguf/export-goldens.json come from) for the legacy, K-quant and i-quant file types:
// tensor_allows_quantization, tensor_get_category, llama_tensor_get_type(_impl) and
// tensor_type_fallback.
#include "ggml/ggml_mix.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <initializer_list>
#include <regex>

#include "ggml/ggml_quantize.h"
#include "util/error.h"

namespace quantscope::ggml {

namespace {

struct FileTypeName {
    FileType type;
    std::string_view name;
    Type base;
};

constexpr std::array<FileTypeName, 30> kFileTypes = {{
    {FileType::AllF32, "F32", Type::F32},          {FileType::F16, "F16", Type::F16},
    {FileType::Q4_0, "Q4_0", Type::Q4_0},          {FileType::Q4_1, "Q4_1", Type::Q4_1},
    {FileType::Q8_0, "Q8_0", Type::Q8_0},          {FileType::Q5_0, "Q5_0", Type::Q5_0},
    {FileType::Q5_1, "Q5_1", Type::Q5_1},          {FileType::Q2_K, "Q2_K", Type::Q2_K},
    {FileType::Q3_K_S, "Q3_K_S", Type::Q3_K},      {FileType::Q3_K_M, "Q3_K_M", Type::Q3_K},
    {FileType::Q3_K_L, "Q3_K_L", Type::Q3_K},      {FileType::Q4_K_S, "Q4_K_S", Type::Q4_K},
    {FileType::Q4_K_M, "Q4_K_M", Type::Q4_K},      {FileType::Q5_K_S, "Q5_K_S", Type::Q5_K},
    {FileType::Q5_K_M, "Q5_K_M", Type::Q5_K},      {FileType::Q6_K, "Q6_K", Type::Q6_K},
    {FileType::IQ2_XXS, "IQ2_XXS", Type::IQ2_XXS}, {FileType::IQ2_XS, "IQ2_XS", Type::IQ2_XS},
    {FileType::Q2_K_S, "Q2_K_S", Type::Q2_K},      {FileType::IQ3_XS, "IQ3_XS", Type::IQ3_S},
    {FileType::IQ3_XXS, "IQ3_XXS", Type::IQ3_XXS}, {FileType::IQ1_S, "IQ1_S", Type::IQ1_S},
    {FileType::IQ4_NL, "IQ4_NL", Type::IQ4_NL},    {FileType::IQ3_S, "IQ3_S", Type::IQ3_S},
    {FileType::IQ3_M, "IQ3_M", Type::IQ3_S},       {FileType::IQ2_S, "IQ2_S", Type::IQ2_XS},
    {FileType::IQ2_M, "IQ2_M", Type::IQ2_S},       {FileType::IQ4_XS, "IQ4_XS", Type::IQ4_XS},
    {FileType::IQ1_M, "IQ1_M", Type::IQ1_M},       {FileType::BF16, "BF16", Type::BF16},
}};

std::string upper(std::string_view s)
{
    std::string u(s);
    for (char &c : u)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
}

bool contains(const std::string &s, std::string_view part)
{
    return s.find(part) != std::string::npos;
}

bool endsWith(const std::string &s, std::string_view tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

int blockSize(Type t)
{
    const TypeInfo *i = typeInfo(static_cast<std::uint32_t>(t));
    return i ? i->blockSize : 1;
}

bool isQuantized(Type t)
{
    return t != Type::F32 && t != Type::F16 && t != Type::BF16 && t != Type::F64;
}

/// ggml_n_dims: dimensions up to the last one that is not 1 (at least 1).
int nDims(const std::vector<std::uint64_t> &ne)
{
    int n = static_cast<int>(ne.size());
    while (n > 1 && ne[static_cast<std::size_t>(n - 1)] == 1)
        --n;
    return n < 1 ? 1 : n;
}

/// tensor_allows_quantization.
bool quantizable(const MixTensor &t, const MixOptions &o)
{
    const std::string &n = t.name;
    if (nDims(t.ne) < 2 || !endsWith(n, "weight") || contains(n, "_norm.weight"))
        return false;
    if (!o.quantizeOutput && n == "output.weight")
        return false;
    // llama.cpp's exceptions: names that contain one of these, and two whole names.
    static constexpr std::array<std::string_view, 34> kKept = {"ffn_gate_inp.weight",
                                                               "ffn_gate_tid2eid.weight",
                                                               "altup",
                                                               "laurel",
                                                               "per_layer_model_proj",
                                                               "ssm_conv1d",
                                                               "shortconv.conv.weight",
                                                               "indexer.k_proj.weight",
                                                               "indexer.q_proj.weight",
                                                               "time_mix_first.weight",
                                                               "time_mix_w0.weight",
                                                               "time_mix_w1.weight",
                                                               "time_mix_w2.weight",
                                                               "time_mix_v0.weight",
                                                               "time_mix_v1.weight",
                                                               "time_mix_v2.weight",
                                                               "time_mix_a0.weight",
                                                               "time_mix_a1.weight",
                                                               "time_mix_a2.weight",
                                                               "time_mix_g1.weight",
                                                               "time_mix_g2.weight",
                                                               "time_mix_decay_w1.weight",
                                                               "time_mix_decay_w2.weight",
                                                               "time_mix_lerp_fused.weight",
                                                               "attn_rel_b.weight",
                                                               ".position_embd",
                                                               "sam.pos_embd",
                                                               "sam.neck.",
                                                               "sam.net_",
                                                               ".rel_pos",
                                                               ".patch_embd",
                                                               ".patch_merger",
                                                               "a.rvq.codebook",
                                                               "mm.a.code_embd"};
    for (std::string_view k : kKept)
        if (contains(n, k))
            return false;
    if (n == "position_embd.weight" || n == "token_types.weight")
        return false;
    return true;
}

enum class Category {
    Output,
    TokenEmbd,
    AttnQkv,
    AttnKvB,
    AttnV,
    AttnK,
    AttnQ,
    AttnOutput,
    FfnUp,
    FfnGate,
    FfnDown,
    Other
};

/// tensor_get_category.
Category categoryOf(const std::string &n)
{
    if (n == "output.weight")
        return Category::Output;
    if (n == "token_embd.weight" || n == "per_layer_token_embd.weight")
        return Category::TokenEmbd;
    static constexpr std::array<std::pair<std::string_view, Category>, 9> kParts = {{
        {"attn_qkv.weight", Category::AttnQkv},
        {"attn_kv_b.weight", Category::AttnKvB},
        {"attn_v.weight", Category::AttnV},
        {"attn_k.weight", Category::AttnK},
        {"attn_q.weight", Category::AttnQ},
        {"attn_output.weight", Category::AttnOutput},
        {"ffn_up", Category::FfnUp},
        {"ffn_gate", Category::FfnGate},
        {"ffn_down", Category::FfnDown},
    }};
    for (const auto &[part, cat] : kParts)
        if (contains(n, part))
            return cat;
    return Category::Other;
}

bool attnVLike(Category c)
{
    return c == Category::AttnV || c == Category::AttnQkv || c == Category::AttnKvB;
}

struct Counters {
    int iAttentionV = 0, iFfnDown = 0, iFfnGate = 0, iFfnUp = 0;
};

bool useMoreBits(int i, int n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/// The layer of a tensor: the counter, or for mixtures of experts the `blk.N.` of its name.
int layerOf(const MixModel &m, int counter, const std::string &name)
{
    if (m.experts <= 1)
        return counter;
    int layer = -1;
    if (std::sscanf(name.c_str(), "blk.%d.", &layer) != 1 || layer < 0 || layer >= m.layers)
        throw UnsupportedError("GGUF export: cannot tell the layer of tensor '" + name + "' (llama.cpp reads blk.N.)");
    return layer;
}

/// llama_tensor_get_type_impl for the file types of kFileTypes; `why` gets the rule that applied.
Type mixRule(const MixModel &m, Counters &c, Type t, const MixTensor &tensor, Category cat, FileType f,
             bool haveImatrix, std::string &why)
{
    using F = FileType;
    const std::string &name = tensor.name;
    const bool falcon = m.arch == "falcon";
    const int nGqa = m.headsKv > 0 ? m.heads / m.headsKv : 0;
    const bool is70b = m.arch == "llama" && m.layers == 80 && m.heads != m.headsKv;
    const auto set = [&](Type nt, const std::string &reason) {
        t = nt;
        why = reason + " → " + std::string(typeName(nt));
    };
    const auto any = [f](std::initializer_list<F> l) { return std::find(l.begin(), l.end(), f) != l.end(); };
    // The 1- and 2-bit i-quant mixes, and the two whose attn_v / ffn_down get IQ3_S over Q2_K.
    const bool iq12 = any({F::IQ2_XXS, F::IQ2_XS, F::IQ1_S, F::IQ2_S, F::IQ2_M, F::IQ1_M});
    const bool iq2sm = any({F::IQ2_S, F::IQ2_M});
    const std::string ft(fileTypeName(f));
    if (cat == Category::Output || (!m.hasOutput && cat == Category::TokenEmbd)) {
        const std::string outName = cat == Category::Output ? "output" : "token_embd tied to the output";
        const std::uint64_t nx = tensor.ne.empty() ? 0 : tensor.ne[0];
        if (falcon || nx % static_cast<std::uint64_t>(blockSize(t)) != 0)
            set(Type::Q8_0, outName + ": rows not whole blocks");
        else if (any({F::IQ2_XXS, F::IQ2_XS, F::IQ3_XXS, F::IQ1_S, F::IQ2_S, F::IQ2_M, F::IQ1_M}))
            set(Type::Q5_K, outName + " of " + ft);
        else if (t != Type::Q8_0)
            set(Type::Q6_K, outName);
    } else if (cat == Category::TokenEmbd) {
        if (any({F::IQ2_XXS, F::IQ2_XS, F::IQ1_S, F::IQ1_M}))
            set(Type::Q2_K, "token_embd of " + ft);
        else if (iq2sm || f == F::IQ3_XXS)
            set(Type::IQ3_S, "token_embd of " + ft);
    } else if (iq12) {
        if (attnVLike(cat)) {
            if (nGqa >= 4 || m.experts >= 4)
                set(Type::Q4_K, "attn_v of " + ft + " with GQA ≥ 4 or ≥ 4 experts");
            else
                set(iq2sm ? Type::IQ3_S : Type::Q2_K, "attn_v of " + ft);
            ++c.iAttentionV;
        } else if (m.experts == 8 && cat == Category::AttnK) {
            set(Type::Q4_K, "attn_k of " + ft + " with 8 experts");
        } else if (cat == Category::FfnDown) {
            if (c.iFfnDown < m.layers / 8)
                set(iq2sm ? Type::IQ3_S : Type::Q2_K,
                    "ffn_down " + std::to_string(c.iFfnDown) + " of " + ft + ": first eighth");
            ++c.iFfnDown;
        } else if (cat == Category::AttnOutput) {
            if (m.experts == 8)
                set(Type::Q5_K, "attn_output of " + ft + " with 8 experts");
            else if (f == F::IQ1_S || f == F::IQ1_M)
                set(Type::IQ2_XXS, "attn_output of " + ft);
            else if (iq2sm)
                set(Type::IQ3_S, "attn_output of " + ft);
        }
    } else if (attnVLike(cat)) {
        const int i = c.iAttentionV, n = m.attentionV;
        if (f == F::Q2_K)
            set(nGqa >= 4 ? Type::Q4_K : Type::Q3_K, "attn_v of Q2_K");
        else if (f == F::Q2_K_S && nGqa >= 4)
            set(Type::Q4_K, "attn_v of Q2_K_S with GQA ≥ 4");
        else if (f == F::IQ3_XXS)
            set(nGqa >= 4      ? Type::Q4_K
                : !haveImatrix ? Type::IQ3_S
                               : Type::IQ3_XXS,
                "attn_v of IQ3_XXS" + std::string(nGqa >= 4      ? " with GQA ≥ 4"
                                                  : !haveImatrix ? " without imatrix"
                                                                 : ""));
        else if ((f == F::IQ3_XS || f == F::IQ3_S) && nGqa >= 4)
            set(Type::Q4_K, "attn_v of " + ft + " with GQA ≥ 4");
        else if (f == F::IQ3_M)
            set(Type::Q4_K, "attn_v of IQ3_M");
        else if (f == F::Q3_K_M)
            set(i < 2 ? Type::Q5_K : Type::Q4_K, "attn_v of Q3_K_M");
        else if (f == F::Q3_K_L)
            set(Type::Q5_K, "attn_v of Q3_K_L");
        else if ((f == F::IQ4_NL || f == F::IQ4_XS) && nGqa >= 4)
            set(Type::Q5_K, "attn_v of " + ft + " with GQA ≥ 4");
        else if ((f == F::Q4_K_M || f == F::Q5_K_M) && useMoreBits(i, n))
            set(Type::Q6_K, "attn_v " + std::to_string(i) + " of " + std::to_string(n) + ": use_more_bits");
        else if (f == F::Q4_K_S && i < 4)
            set(Type::Q5_K, "attn_v of Q4_K_S, one of the first 4");
        if (is70b && (t == Type::Q3_K || t == Type::Q4_K))
            set(Type::Q5_K, "attn_v of a 70B llama");
        if (m.experts == 8)
            set(Type::Q8_0, "attn_v with 8 experts");
        ++c.iAttentionV;
    } else if (cat == Category::AttnK) {
        if (m.experts == 8)
            set(Type::Q8_0, "attn_k with 8 experts");
        else if (f == F::IQ3_XS)
            set(Type::IQ3_XXS, "attn_k of IQ3_XS");
        else if (f == F::IQ3_XXS)
            set(Type::IQ2_S, "attn_k of IQ3_XXS");
    } else if (cat == Category::AttnQ) {
        if (f == F::IQ3_XS)
            set(Type::IQ3_XXS, "attn_q of IQ3_XS");
        else if (f == F::IQ3_XXS)
            set(Type::IQ2_S, "attn_q of IQ3_XXS");
    } else if (cat == Category::FfnDown) {
        const int i = layerOf(m, c.iFfnDown, name), n = m.layers;
        const bool more = useMoreBits(i, n);
        const std::string at = "ffn_down of layer " + std::to_string(i) + " of " + std::to_string(n);
        if (f == F::Q2_K)
            set(Type::Q3_K, at + " (Q2_K)");
        else if (f == F::Q2_K_S) {
            if (i < n / 8)
                set(Type::Q4_K, at + ": first eighth");
        } else if (f == F::IQ3_XXS && !haveImatrix)
            set(i < n / 8 ? Type::Q4_K : Type::Q3_K, at + " (IQ3_XXS without imatrix)");
        else if (f == F::Q3_K_M)
            set(i < n / 16 ? Type::Q5_K : (!falcon || more) ? Type::Q4_K : Type::Q3_K, at + " (Q3_K_M)");
        else if (f == F::IQ3_M && (i < n / 8 || (m.experts == 8 && more)))
            set(Type::Q4_K, at + " (IQ3_M)");
        else if (f == F::Q3_K_L)
            set(falcon ? Type::Q4_K : Type::Q5_K, at + " (Q3_K_L)");
        else if (f == F::Q4_K_M) {
            if (falcon)
                set(i < n / 16 ? Type::Q6_K : more ? Type::Q5_K : Type::Q4_K, at + " (falcon)");
            else if (more)
                set(Type::Q6_K, at + ": use_more_bits");
        } else if (i < n / 8 && (f == F::IQ4_NL || f == F::IQ4_XS) && !haveImatrix)
            set(Type::Q5_K, at + ": first eighth without imatrix");
        else if (f == F::Q5_K_M && more)
            set(Type::Q6_K, at + ": use_more_bits");
        else if (f == F::Q4_K_S && !falcon && i < n / 8)
            set(Type::Q5_K, at + ": first eighth");
        else if ((f == F::Q4_0 || f == F::Q5_0) && haveImatrix && i < n / 8)
            set(f == F::Q4_0 ? Type::Q4_1 : Type::Q5_1, at + ": first eighth with an imatrix");
        ++c.iFfnDown;
    } else if (cat == Category::AttnOutput) {
        if (!falcon) {
            if (m.experts == 8) {
                if (any({F::Q2_K, F::IQ3_XS, F::IQ3_XXS, F::Q3_K_S, F::Q3_K_M, F::IQ4_NL, F::Q4_K_S, F::Q4_K_M,
                         F::IQ3_S, F::IQ3_M, F::IQ4_XS}))
                    set(Type::Q5_K, "attn_output with 8 experts");
            } else if (f == F::Q2_K)
                set(Type::Q3_K, "attn_output of Q2_K");
            else if (f == F::IQ3_XXS)
                set(Type::IQ3_S, "attn_output of IQ3_XXS");
            else if (f == F::Q3_K_M)
                set(Type::Q4_K, "attn_output of Q3_K_M");
            else if (f == F::Q3_K_L)
                set(Type::Q5_K, "attn_output of Q3_K_L");
            else if (f == F::IQ3_M)
                set(Type::Q4_K, "attn_output of IQ3_M");
        } else if (f == F::Q3_K_L) {
            set(Type::Q4_K, "attn_output of falcon Q3_K_L");
        }
    } else if (cat == Category::FfnGate || cat == Category::FfnUp) {
        int &counter = cat == Category::FfnGate ? c.iFfnGate : c.iFfnUp;
        const int i = layerOf(m, counter, name), n = m.layers;
        if (f == F::IQ3_XS && i >= n / 8 && i < 7 * n / 8)
            set(Type::IQ3_XXS, std::string(cat == Category::FfnGate ? "ffn_gate" : "ffn_up") + " of layer " +
                                   std::to_string(i) + " of IQ3_XS: middle layers");
        ++counter;
    }
    return t;
}

/// tensor_type_fallback: rows that are not whole blocks of `t`.
Type fallback(const MixTensor &tensor, Type t, std::string &why)
{
    const std::uint64_t nx = tensor.ne.empty() ? 0 : tensor.ne[0];
    if (nx % static_cast<std::uint64_t>(blockSize(t)) == 0)
        return t;
    const std::string cols = std::to_string(nx) + " columns are not whole blocks of " + std::string(typeName(t));
    Type r = t;
    switch (t) {
    case Type::IQ1_S:
    case Type::IQ1_M:
    case Type::IQ2_XXS:
    case Type::IQ2_XS:
    case Type::IQ2_S:
    case Type::IQ3_XXS:
    case Type::IQ3_S:
    case Type::IQ4_XS:
        r = Type::IQ4_NL;
        break;
    case Type::Q2_K:
    case Type::Q3_K:
        r = Type::Q4_0;
        break;
    case Type::Q4_K:
        r = Type::Q5_0;
        break;
    case Type::Q5_K:
        r = Type::Q5_1;
        break;
    case Type::Q6_K:
        r = Type::Q8_0;
        break;
    default:
        if (blockSize(t) > 32)
            throw UnsupportedError("GGUF export: tensor '" + tensor.name + "': " + cols +
                                   " (llama.cpp defines no fallback for it)");
    }
    if (nx % static_cast<std::uint64_t>(blockSize(r)) != 0)
        r = Type::F16;
    why = (why.empty() ? "" : why + "; ") + "fallback: " + cols + " → " + std::string(typeName(r));
    return r;
}

} // namespace

std::optional<FileType> fileTypeFromName(std::string_view name, std::string *why)
{
    const std::string u = upper(name);
    for (const FileTypeName &f : kFileTypes)
        if (f.name == u)
            return f.type;
    if (why) {
        if (u.rfind("TQ", 0) == 0 || u == "MXFP4_MOE" || u == "Q1_0" || u == "Q2_0")
            *why = "'" + std::string(name) + "' is a ternary / 1-2-bit / MXFP4 file type; Quantscope writes the " +
                   "legacy, K-quant and i-quant types only";
        else
            *why = "'" + std::string(name) + "' is not a llama-quantize file type";
    }
    return std::nullopt;
}

std::string_view fileTypeName(FileType f) noexcept
{
    for (const FileTypeName &n : kFileTypes)
        if (n.type == f)
            return n.name;
    return "?";
}

const std::vector<FileType> &allFileTypes()
{
    static const std::vector<FileType> all = [] {
        std::vector<FileType> v;
        for (const FileTypeName &f : kFileTypes)
            v.push_back(f.type);
        return v;
    }();
    return all;
}

Type defaultType(FileType f) noexcept
{
    for (const FileTypeName &n : kFileTypes)
        if (n.type == f)
            return n.base;
    return Type::F32;
}

std::vector<MixChoice> chooseTypes(const MixModel &model, const std::vector<MixTensor> &tensors,
                                   const MixOptions &options)
{
    const Type base = defaultType(options.fileType);
    std::vector<std::regex> patterns;
    for (const auto &[pattern, type] : options.tensorTypes) {
        try {
            patterns.emplace_back(pattern);
        } catch (const std::regex_error &e) {
            throw UnsupportedError("--tensor-type '" + pattern + "': not a regular expression (" + e.what() + ")");
        }
    }
    // llama_model_loader's weight_name_comparer.
    std::vector<std::size_t> order(tensors.size());
    std::vector<int> layer(tensors.size(), -1);
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        order[i] = i;
        std::sscanf(tensors[i].name.c_str(), "blk.%d.", &layer[i]);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return layer[a] != layer[b] ? layer[a] < layer[b] : tensors[a].name < tensors[b].name;
    });
    Counters c;
    std::vector<MixChoice> out;
    out.reserve(tensors.size());
    for (const std::size_t index : order) {
        const MixTensor &t = tensors[index];
        MixChoice ch;
        ch.index = index;
        ch.name = t.name;
        ch.type = t.type;
        if (!quantizable(t, options)) {
            ch.why = "kept as stored (llama.cpp does not quantize it)";
            out.push_back(std::move(ch));
            continue;
        }
        // llama_tensor_get_type.
        const Category cat = categoryOf(t.name);
        Type nt = base;
        std::string why = "default " + std::string(typeName(base));
        bool named = false; // per_layer_token_embd named by a --tensor-type pattern
        if (t.name == "per_layer_token_embd.weight")
            for (const auto &re : patterns)
                named = named || std::regex_search(t.name, re);
        if (options.tokenEmbeddingType && cat == Category::TokenEmbd && !named) {
            nt = *options.tokenEmbeddingType;
            why = "--token-embedding-type → " + std::string(typeName(nt));
        } else if (options.outputTensorType && cat == Category::Output) {
            nt = *options.outputTensorType;
            why = "--output-tensor-type → " + std::string(typeName(nt));
        } else if (isQuantized(base)) {
            bool manual = false; // the first matching --tensor-type wins and replaces the mix
            for (std::size_t i = 0; i < patterns.size() && !manual; ++i)
                if (std::regex_search(t.name, patterns[i])) {
                    manual = true;
                    nt = options.tensorTypes[i].second;
                    why = "--tensor-type " + options.tensorTypes[i].first + " → " + std::string(typeName(nt));
                }
            if (!manual && !options.pure) {
                std::string reason;
                nt = mixRule(model, c, nt, t, cat, options.fileType, options.haveImatrix, reason);
                if (!reason.empty())
                    why = reason;
            } else if (options.pure && !manual) {
                why = "--pure: " + why;
            }
            nt = fallback(t, nt, why);
        }
        // tensor_requires_imatrix: the 1-3-bit lattice types, and Q2_K in a Q2_K_S file
        // (token_embd and output aside, by name).
        ch.requiresImatrix = t.name != "token_embd.weight" && t.name != "per_layer_token_embd.weight" &&
                             t.name != "output.weight" &&
                             (requiresImportance(nt) || (nt == Type::Q2_K && options.fileType == FileType::Q2_K_S));
        if (ch.requiresImatrix && !options.haveImatrix)
            throw UnsupportedError("GGUF export: tensor '" + t.name + "' becomes " + std::string(typeName(nt)) +
                                   " in a " + std::string(fileTypeName(options.fileType)) +
                                   " file, which llama.cpp quantizes only with an importance matrix (\"this "
                                   "quantization requires an imatrix!\"): pass --imatrix");
        ch.type = nt;
        ch.quantize = t.type != nt;
        ch.why = ch.quantize ? why : why + " (already stored so: copied)";
        out.push_back(std::move(ch));
    }
    return out;
}

} // namespace quantscope::ggml
