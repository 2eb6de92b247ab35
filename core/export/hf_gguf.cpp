// SPDX-License-Identifier: MIT
// HF → GGUF (hf_gguf.h): convert_hf_to_gguf.py's LlamaModel (llama.cpp as vendored in
// llama-cpp-python 0.3.36) for the llama family — tensor order, names, RoPE row permutation,
// hyperparameters — and a GGUF v3 writer in the `gguf` package's layout.
#include "export/hf_gguf.h"
#include "export/staging.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

#include "ggml/ggml_names.h"
#include "ggml/ggml_types.h"
#include "io/checkpoint.h"
#include "io/gguf.h"
#include "tensor/convert.h"
#include "util/error.h"
#include "util/hash.h"

namespace quantscope {

namespace {

constexpr std::uint32_t kUint32 = 4, kFloat32 = 6, kBool = 7, kString = 8, kArray = 9, kInt32 = 5;
constexpr std::uint64_t kAlign = 32; // GGUF_DEFAULT_ALIGNMENT

template <typename T> void put(std::vector<std::byte> &b, T v)
{
    const auto *p = reinterpret_cast<const std::byte *>(&v);
    b.insert(b.end(), p, p + sizeof(T));
}

void putStr(std::vector<std::byte> &b, const std::string &s)
{
    put<std::uint64_t>(b, s.size());
    const auto *p = reinterpret_cast<const std::byte *>(s.data());
    b.insert(b.end(), p, p + s.size());
}

/// The architectures convert_hf_to_gguf.py writes as "llama" through LlamaModel itself (its
/// subclasses for other GGUF architectures are not these).
constexpr std::array<std::string_view, 4> kLlamaArchs = {"LlamaForCausalLM", "LLaMAForCausalLM", "MistralForCausalLM",
                                                         "LlamaModel"};

/// config.json as convert reads it (text_config merged over the top level).
struct Hparams {
    nlohmann::json j;
    std::string file;

    const nlohmann::json *find(std::initializer_list<const char *> keys) const
    {
        for (const char *k : keys)
            if (j.contains(k))
                return &j[k];
        return nullptr;
    }
    std::int64_t integer(std::initializer_list<const char *> keys, const std::string &what, bool required) const
    {
        for (const char *k : keys) {
            if (!j.contains(k))
                continue;
            const nlohmann::json &v = j[k];
            if (v.is_null() && !required)
                return -1; // convert's find_hparam takes the first key present, and skips a null value
            if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
                throw FormatError("'" + file + "': '" + k + "' is " + v.dump() + ", not a positive integer (" + what +
                                  ")");
            return v.get<std::int64_t>();
        }
        if (!required)
            return -1;
        std::string names;
        for (const char *k : keys)
            names += std::string(names.empty() ? "'" : ", '") + k + "'";
        throw FormatError("'" + file + "': missing " + (keys.size() > 1 ? "all of " : "") + names + " (" + what + ")");
    }
};

struct Model {
    Checkpoint ck;
    std::filesystem::path folder;
    Hparams hp;
    nlohmann::json rawConfig;
    std::string hfArch;
    std::int64_t layers = 0, heads = 0, headsKv = 0, hidden = 0, ffn = 0, vocab = 0, headDim = 0;
    bool headsKvGiven = false;
};

/// One tensor of the output.
struct Planned {
    std::string hfName, name;
    const TensorEntry *entry = nullptr;
    std::vector<std::uint64_t> ne;
    ggml::Type type = ggml::Type::F32;
    std::int64_t permuteHeads = 0; ///< 0: rows as stored
    std::uint64_t bytes = 0;
};

Model openModel(const std::filesystem::path &source)
{
    std::error_code ec;
    const bool dir = std::filesystem::is_directory(source, ec);
    const std::filesystem::path folder = dir ? source : source.parent_path();
    const std::filesystem::path cfg = (folder.empty() ? std::filesystem::path(".") : folder) / "config.json";
    if (!std::filesystem::is_regular_file(cfg, ec))
        throw FormatError("'" + source.string() + "': no config.json beside the checkpoint ('" + cfg.string() +
                          "'); the GGUF hyperparameters come from it");
    nlohmann::json raw;
    {
        std::ifstream is(cfg);
        raw = nlohmann::json::parse(is, nullptr, false);
    }
    if (!raw.is_object())
        throw FormatError("'" + cfg.string() + "': not a JSON object");
    Model m{Checkpoint::open(source), folder, {}, raw, {}};
    if (m.ck.gguf() || m.ck.npy() || m.ck.npz())
        throw UnsupportedError("'" + source.string() + "' is not a Hugging Face safetensors checkpoint");
    m.hp.file = cfg.string();
    m.hp.j = raw;
    const nlohmann::json *text =
        raw.contains("text_config") && raw["text_config"].is_object() ? &raw["text_config"] : nullptr;
    if (text)
        for (auto it = text->begin(); it != text->end(); ++it)
            m.hp.j[it.key()] = it.value();
    const nlohmann::json &archs = text && text->contains("architectures")
                                      ? (*text)["architectures"]
                                      : raw.value("architectures", nlohmann::json());
    if (!archs.is_array() || archs.empty() || !archs[0].is_string())
        throw FormatError("'" + cfg.string() +
                          "': no 'architectures' list (convert_hf_to_gguf.py picks the model "
                          "class by its first entry)");
    m.hfArch = archs[0].get<std::string>();
    if (std::find(kLlamaArchs.begin(), kLlamaArchs.end(), m.hfArch) == kLlamaArchs.end())
        throw UnsupportedError("'" + cfg.string() + "': architecture '" + m.hfArch +
                               "' is not one Quantscope converts to GGUF; it writes the llama family "
                               "(LlamaForCausalLM, LLaMAForCausalLM, MistralForCausalLM, LlamaModel: "
                               "convert_hf_to_gguf.py's LlamaModel, GGUF architecture 'llama')");
    if (m.hp.find({"num_local_experts"}) != nullptr)
        throw UnsupportedError("'" + cfg.string() +
                               "': a mixture of experts (num_local_experts): convert merges "
                               "the experts into 3-D tensors, which Quantscope does not write yet");
    if (m.hp.find({"draft_vocab_size"}) != nullptr)
        throw UnsupportedError("'" + cfg.string() +
                               "': an EAGLE-3 draft model (draft_vocab_size) is written as "
                               "architecture eagle3, not llama");
    m.layers = m.hp.integer({"n_layers", "num_hidden_layers", "n_layer", "num_layers"}, "llama.block_count", true);
    m.hidden = m.hp.integer({"hidden_size", "n_embd", "dim"}, "llama.embedding_length", true);
    m.ffn = m.hp.integer({"intermediate_size", "n_inner", "hidden_dim"}, "llama.feed_forward_length", true);
    m.heads = m.hp.integer({"num_attention_heads", "n_head", "n_heads"}, "llama.attention.head_count", true);
    m.headsKv = m.hp.integer({"num_key_value_heads", "n_kv_heads"}, "llama.attention.head_count_kv", false);
    m.headsKvGiven = m.headsKv > 0;
    if (!m.headsKvGiven)
        m.headsKv = m.heads;
    m.vocab = m.hp.integer({"vocab_size"}, "llama.vocab_size", true);
    m.headDim = m.hp.integer({"head_dim"}, "the rows per attention head", false);
    if (m.headDim < 0) {
        if (m.hidden % m.heads != 0)
            throw FormatError("'" + cfg.string() + "': hidden_size " + std::to_string(m.hidden) +
                              " is not a multiple of num_attention_heads " + std::to_string(m.heads) +
                              " and there is no head_dim");
        m.headDim = m.hidden / m.heads;
    }
    if (m.heads % m.headsKv != 0)
        throw FormatError("'" + cfg.string() + "': num_attention_heads " + std::to_string(m.heads) +
                          " is not a multiple of num_key_value_heads " + std::to_string(m.headsKv));
    if (m.headDim % 2 != 0)
        throw FormatError("'" + cfg.string() + "': head_dim " + std::to_string(m.headDim) +
                          " is odd; llama.cpp's RoPE rotates pairs of rows");
    return m;
}

/// The HF shape (rows, cols) llama expects of a tensor, by its GGUF name ("" for 1-D: {n}).
std::vector<std::int64_t> expectedShape(const Model &m, const std::string &gguf)
{
    const std::int64_t q = m.heads * m.headDim, kv = m.headsKv * m.headDim;
    const auto ends = [&](std::string_view s) { return gguf.size() >= s.size() && gguf.ends_with(s); };
    if (gguf == "token_embd.weight" || gguf == "output.weight")
        return {m.vocab, m.hidden};
    if (ends("norm.weight"))
        return {m.hidden};
    if (ends("attn_q.weight"))
        return {q, m.hidden};
    if (ends("attn_k.weight") || ends("attn_v.weight"))
        return {kv, m.hidden};
    if (ends("attn_output.weight"))
        return {m.hidden, q};
    if (ends("ffn_gate.weight") || ends("ffn_up.weight"))
        return {m.ffn, m.hidden};
    if (ends("ffn_down.weight"))
        return {m.hidden, m.ffn};
    if (ends("attn_q.bias"))
        return {q};
    if (ends("attn_k.bias") || ends("attn_v.bias"))
        return {kv};
    if (ends("attn_output.bias"))
        return {m.hidden};
    return {};
}

std::string shapeText(const std::vector<std::int64_t> &s)
{
    std::string t = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

ggml::Type storedType(DType d)
{
    return d == DType::F16 ? ggml::Type::F16 : d == DType::BF16 ? ggml::Type::BF16 : ggml::Type::F32;
}

std::uint64_t rowBytes(ggml::Type t, std::uint64_t n)
{
    return t == ggml::Type::F32 ? 4 * n : 2 * n;
}

std::vector<Planned> planTensors(const Model &m, HfOutType type)
{
    // convert's order: the shards sorted by file name, each shard's tensors sorted by name.
    std::vector<const TensorEntry *> order;
    for (const TensorEntry &e : m.ck.entries())
        order.push_back(&e);
    std::stable_sort(order.begin(), order.end(), [](const TensorEntry *a, const TensorEntry *b) {
        const std::string fa = a->file.filename().string(), fb = b->file.filename().string();
        return fa != fb ? fa < fb : a->name < b->name;
    });
    std::vector<Planned> out;
    std::set<std::string> seen;
    for (const TensorEntry *e : order) {
        std::string name = e->name;
        for (const std::string_view skip : {".attention.masked_bias", ".attention.bias", ".rotary_emb.inv_freq"})
            if (name.ends_with(skip))
                name.clear();
        if (name.empty())
            continue;
        if (m.hfArch == "LlamaModel")
            name = "model." + name;
        const std::string where = "tensor '" + e->name + "' of '" + e->file.string() + "'";
        Planned p;
        p.hfName = e->name;
        p.entry = e;
        p.name = ggml::ggufName("llama", name);
        if (p.name.empty() || p.name.find("attn_q_norm") != std::string::npos ||
            p.name.find("attn_k_norm") != std::string::npos)
            throw UnsupportedError(where + " has no GGUF name in the llama architecture (convert_hf_to_gguf.py "
                                           "refuses it too: \"Can not map tensor\")");
        if (p.name.rfind("blk.", 0) == 0) {
            const std::int64_t block = std::stoll(p.name.substr(4));
            if (block >= m.layers)
                throw FormatError(where + " belongs to layer " + std::to_string(block) + " but config.json has " +
                                  std::to_string(m.layers) + " layers");
        }
        if (e->dtype != DType::F32 && e->dtype != DType::F16 && e->dtype != DType::BF16)
            throw UnsupportedError(where + " is stored as " + std::string(nameOf(e->dtype)) +
                                   "; GGUF conversion reads F32, F16 and BF16 checkpoints (dequantize it first)");
        const std::vector<std::int64_t> want = expectedShape(m, p.name);
        if (!want.empty() && e->shape != want)
            throw FormatError(where + " has shape " + shapeText(e->shape) + ", config.json makes " + p.name + " " +
                              shapeText(want));
        for (auto it = e->shape.rbegin(); it != e->shape.rend(); ++it)
            p.ne.push_back(static_cast<std::uint64_t>(*it));
        const bool q = p.name.ends_with("attn_q.weight") || p.name.ends_with("attn_q.bias");
        const bool k = p.name.ends_with("attn_k.weight") || p.name.ends_with("attn_k.bias");
        p.permuteHeads = q ? m.heads : k ? m.headsKv : 0;
        // convert's prepare_tensors: 1-D tensors, norms and anything but a .weight stay F32.
        if (p.ne.size() <= 1 || p.name.ends_with("_norm.weight") || !p.name.ends_with(".weight"))
            p.type = ggml::Type::F32;
        else
            p.type = type == HfOutType::F16    ? ggml::Type::F16
                     : type == HfOutType::BF16 ? ggml::Type::BF16
                     : type == HfOutType::F32  ? ggml::Type::F32
                                               : storedType(e->dtype);
        std::uint64_t rows = 1;
        for (std::size_t d = 1; d < p.ne.size(); ++d)
            rows *= p.ne[d];
        p.bytes = rowBytes(p.type, p.ne.empty() ? 0 : p.ne[0]) * rows;
        if (!seen.insert(p.name).second)
            throw FormatError(where + " maps to " + p.name + ", which another tensor already gave");
        out.push_back(std::move(p));
    }
    // llama needs these (output.weight is optional: without it llama.cpp uses token_embd).
    std::vector<std::string> need = {"token_embd.weight", "output_norm.weight"};
    for (std::int64_t l = 0; l < m.layers; ++l)
        for (const char *t :
             {"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down"})
            need.push_back("blk." + std::to_string(l) + "." + t + ".weight");
    for (const std::string &n : need)
        if (!seen.count(n))
            throw FormatError("'" + m.ck.path().string() + "': no tensor '" + ggml::hfName("llama", n) +
                              "' (llama needs it as " + n + ")");
    return out;
}

/// gguf.utility.size_label for a dense model: the parameter count in K/M/B/T, 2+ digits.
std::string sizeLabel(std::uint64_t params)
{
    const double n = static_cast<double>(params);
    double scaled = n * 1e-3;
    const char *suffix = "K";
    if (n > 1e12) {
        scaled = n * 1e-12;
        suffix = "T";
    } else if (n > 1e9) {
        scaled = n * 1e-9;
        suffix = "B";
    } else if (n > 1e6) {
        scaled = n * 1e-6;
        suffix = "M";
    }
    std::string digits = std::to_string(static_cast<long long>(std::nearbyint(scaled)));
    digits.erase(0, digits.find_first_not_of('0') == std::string::npos ? digits.size() : digits.find_first_not_of('0'));
    const int fix = std::max(2 - static_cast<int>(digits.size()), 0);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f%s", fix, scaled, suffix);
    return buf;
}

std::uint32_t fileTypeOf(HfOutType t)
{
    return t == HfOutType::F16 ? 1u : t == HfOutType::BF16 ? 32u : 0u; // LlamaFileType ALL_F32 / MOSTLY_F16 / BF16
}

/// The key-values in convert's order: general.architecture, ModelBase.prepare_metadata (type,
/// name, size label, set_gguf_parameters, quantization version), then the vocabulary.
GgufKvList keys(const Model &m, const std::vector<Planned> &ts, HfOutType type, GgufExportResult &r)
{
    GgufKvList kv;
    kv.str("general.architecture", "llama");
    kv.str("general.type", "model");
    const std::filesystem::path folder = m.folder.empty() ? std::filesystem::current_path() : m.folder;
    std::string name = std::filesystem::absolute(folder).lexically_normal().filename().string();
    if (name.empty())
        name = std::filesystem::absolute(folder).lexically_normal().parent_path().filename().string();
    kv.str("general.name", name);
    std::uint64_t params = 0;
    for (const Planned &p : ts) {
        std::uint64_t n = 1;
        for (std::uint64_t d : p.ne)
            n *= d;
        params += n;
    }
    kv.str("general.size_label", sizeLabel(params));
    const Hparams &h = m.hp;
    kv.u32("llama.block_count", static_cast<std::uint32_t>(m.layers));
    const auto optU32 = [&](std::initializer_list<const char *> names, const std::string &key) {
        const std::int64_t v = h.integer(names, key, false);
        if (v > 0)
            kv.u32(key, static_cast<std::uint32_t>(v));
    };
    optU32({"max_position_embeddings", "n_ctx", "n_positions", "max_length", "max_sequence_length", "model_max_length"},
           "llama.context_length");
    kv.u32("llama.embedding_length", static_cast<std::uint32_t>(m.hidden));
    kv.u32("llama.feed_forward_length", static_cast<std::uint32_t>(m.ffn));
    kv.u32("llama.attention.head_count", static_cast<std::uint32_t>(m.heads));
    if (m.headsKvGiven)
        kv.u32("llama.attention.head_count_kv", static_cast<std::uint32_t>(m.headsKv));
    if (h.j.contains("is_causal") && h.j["is_causal"].is_boolean() && !h.j["is_causal"].get<bool>())
        kv.boolean("llama.attention.causal", false);
    // RoPE: rope_parameters (transformers 5) or rope_scaling, with rope_theta mirrored into it.
    nlohmann::json rope = h.j.contains("rope_parameters") && h.j["rope_parameters"].is_object() ? h.j["rope_parameters"]
                          : h.j.contains("rope_scaling") && h.j["rope_scaling"].is_object()     ? h.j["rope_scaling"]
                                                                                            : nlohmann::json::object();
    if (rope.contains("full_attention") && rope["full_attention"].is_object())
        rope = rope["full_attention"];
    else {
        if (!rope.contains("rope_theta"))
            for (const char *k :
                 {"global_rope_theta", "rope_global_theta", "rope_theta_global", "rope_theta", "rotary_emb_base"})
                if (h.j.contains(k)) {
                    rope["rope_theta"] = h.j[k];
                    break;
                }
        if (!rope.contains("rope_type") && rope.contains("type"))
            rope["rope_type"] = rope["type"];
    }
    if (rope.contains("rope_type") && rope["rope_type"].is_string()) {
        const std::string rt = rope["rope_type"].get<std::string>();
        const nlohmann::json factor = rope.value("factor", nlohmann::json());
        if (rt == "linear" && factor.is_number()) {
            kv.str("llama.rope.scaling.type", "linear");
            kv.f32("llama.rope.scaling.factor", factor.get<float>());
        } else if (rt == "yarn" && factor.is_number()) {
            kv.str("llama.rope.scaling.type", "yarn");
            kv.f32("llama.rope.scaling.factor", factor.get<float>());
            if (!rope.contains("original_max_position_embeddings") ||
                !rope["original_max_position_embeddings"].is_number_integer())
                throw FormatError("'" + h.file + "': yarn rope scaling without original_max_position_embeddings");
            kv.u32("llama.rope.scaling.original_context_length",
                   rope["original_max_position_embeddings"].get<std::uint32_t>());
            for (const auto &[k, key] :
                 {std::pair{"extrapolation_factor", "yarn_ext_factor"},
                  std::pair{"attention_factor", "yarn_attn_factor"}, std::pair{"beta_fast", "yarn_beta_fast"},
                  std::pair{"beta_slow", "yarn_beta_slow"}}) {
                nlohmann::json v = rope.value(k, nlohmann::json());
                if (std::string_view(k) == "attention_factor" && v.is_null())
                    v = rope.value("attn_factor", nlohmann::json());
                if (v.is_number())
                    kv.f32(std::string("llama.rope.scaling.") + key, v.get<float>());
            }
        } else if (rt == "llama3" || rt == "su" || rt == "longrope") {
            throw UnsupportedError("'" + h.file + "': rope type '" + rt +
                                   "' needs the rope frequency-factor tensors convert_hf_to_gguf.py computes, which "
                                   "Quantscope does not write yet");
        } else if (rt != "dynamic" && rt != "default") {
            r.notes.push_back("rope type '" + rt +
                              "' in config.json: no rope scaling keys written (convert warns "
                              "\"Unknown RoPE type\" and writes none either)");
        }
    }
    if (rope.contains("rope_theta") && rope["rope_theta"].is_number())
        kv.f32("llama.rope.freq_base", rope["rope_theta"].get<float>());
    for (const char *k : {"rms_norm_eps", "norm_eps"})
        if (h.j.contains(k) && h.j[k].is_number()) {
            kv.f32("llama.attention.layer_norm_rms_epsilon", h.j[k].get<float>());
            break;
        }
    if (h.j.contains("head_dim") && h.j["head_dim"].is_number_integer()) {
        kv.u32("llama.attention.key_length", static_cast<std::uint32_t>(m.headDim));
        kv.u32("llama.attention.value_length", static_cast<std::uint32_t>(m.headDim));
    }
    kv.u32("general.file_type", fileTypeOf(type));
    kv.u32("llama.vocab_size", static_cast<std::uint32_t>(m.vocab));
    kv.u32("llama.rope.dimension_count", static_cast<std::uint32_t>(m.headDim));
    kv.u32("general.quantization_version", 2); // GGML_QUANT_VERSION
    std::string tok;
    try {
        tok = addHfTokenizer(m.folder, m.rawConfig, m.vocab, kv, r.notes);
    } catch (const nlohmann::json::exception &e) {
        throw FormatError("'" + (m.folder / "tokenizer.json").string() +
                          "' (or tokenizer_config.json): a value of an unexpected type: " + e.what());
    }
    r.notes.push_back(tok.empty() ? "tokenizer: none" : "tokenizer: " + tok);
    return kv;
}

/// The tensor's bytes in its output type, q/k rows permuted as LlamaModel.permute does:
/// reshape(heads, 2, rows/heads/2, cols).swapaxes(1, 2).
std::vector<std::byte> produce(const Model &m, const Planned &p)
{
    const Tensor src = m.ck.tensor(p.hfName);
    std::vector<float> x(static_cast<std::size_t>(src.numel()));
    src.decodeTo(x);
    const std::size_t cols = p.ne.size() > 1 ? static_cast<std::size_t>(p.ne[0]) : 1;
    const std::size_t rows = x.size() / std::max<std::size_t>(cols, 1);
    if (p.permuteHeads > 0) {
        const std::size_t heads = static_cast<std::size_t>(p.permuteHeads), half = rows / heads / 2;
        std::vector<float> y(x.size());
        for (std::size_t h = 0; h < heads; ++h)
            for (std::size_t i = 0; i < half; ++i)
                for (std::size_t j = 0; j < 2; ++j) {
                    const std::size_t to = (h * half + i) * 2 + j, from = (h * 2 + j) * half + i;
                    std::memcpy(y.data() + to * cols, x.data() + from * cols, cols * sizeof(float));
                }
        x.swap(y);
    }
    std::vector<std::byte> out(static_cast<std::size_t>(p.bytes));
    if (p.type == ggml::Type::F32) {
        std::memcpy(out.data(), x.data(), out.size());
    } else {
        auto *h = reinterpret_cast<std::uint16_t *>(out.data());
        for (std::size_t i = 0; i < x.size(); ++i)
            h[i] = p.type == ggml::Type::F16 ? floatToF16(x[i]) : floatToBf16(x[i]);
    }
    return out;
}

GgufExportResult result(const Model &m, const std::vector<Planned> &ts, HfOutType type)
{
    GgufExportResult r;
    r.fileType = type == HfOutType::F16    ? "F16"
                 : type == HfOutType::BF16 ? "BF16"
                 : type == HfOutType::F32  ? "F32"
                                           : "stored";
    for (const Planned &p : ts) {
        GgufExportTensor t;
        t.name = p.name;
        t.hfName = p.hfName;
        t.from = std::string(nameOf(p.entry->dtype));
        t.to = std::string(ggml::typeName(p.type));
        t.ne = p.ne;
        t.bytes = p.bytes;
        t.why = std::string(p.permuteHeads ? "rows permuted for llama's RoPE; " : "") +
                (p.ne.size() <= 1 || p.name.ends_with("_norm.weight") || !p.name.ends_with(".weight")
                     ? "convert keeps 1-D tensors and norms F32"
                     : "convert --outtype " + r.fileType);
        r.bytesIn += p.entry->nbytes();
        r.bytesOut += p.bytes;
        r.tensors.push_back(std::move(t));
    }
    if (!m.ck.find("lm_head.weight") && !m.ck.find("model.lm_head.weight"))
        r.notes.push_back("no lm_head.weight: no output.weight is written, llama.cpp uses token_embd.weight "
                          "(tied embeddings, as convert_hf_to_gguf.py writes them)");
    else if (m.hp.j.contains("tie_word_embeddings") && m.hp.j["tie_word_embeddings"] == true)
        r.notes.push_back("config.json ties the embeddings but the checkpoint stores lm_head.weight: written as "
                          "output.weight, as convert_hf_to_gguf.py does");
    return r;
}

} // namespace

bool isHfCheckpointPath(const std::filesystem::path &path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return true;
    const std::string ext = path.extension().string();
    return ext == ".safetensors" || ext == ".json";
}

void GgufKvList::set(const std::string &key, std::vector<std::byte> typeAndValue)
{
    for (auto &[k, v] : m_kv)
        if (k == key) {
            v = std::move(typeAndValue);
            return;
        }
    m_kv.emplace_back(key, std::move(typeAndValue));
}

void GgufKvList::u32(const std::string &key, std::uint32_t v)
{
    std::vector<std::byte> b;
    put(b, kUint32);
    put(b, v);
    set(key, std::move(b));
}

void GgufKvList::f32(const std::string &key, float v)
{
    std::vector<std::byte> b;
    put(b, kFloat32);
    put(b, v);
    set(key, std::move(b));
}

void GgufKvList::boolean(const std::string &key, bool v)
{
    std::vector<std::byte> b;
    put(b, kBool);
    put<std::uint8_t>(b, v ? 1 : 0);
    set(key, std::move(b));
}

void GgufKvList::str(const std::string &key, const std::string &v)
{
    std::vector<std::byte> b;
    put(b, kString);
    putStr(b, v);
    set(key, std::move(b));
}

void GgufKvList::strArray(const std::string &key, const std::vector<std::string> &v)
{
    std::vector<std::byte> b;
    put(b, kArray);
    put(b, kString);
    put<std::uint64_t>(b, v.size());
    for (const std::string &s : v)
        putStr(b, s);
    set(key, std::move(b));
}

void GgufKvList::i32Array(const std::string &key, const std::vector<std::int32_t> &v)
{
    std::vector<std::byte> b;
    put(b, kArray);
    put(b, kInt32);
    put<std::uint64_t>(b, v.size());
    for (std::int32_t x : v)
        put(b, x);
    set(key, std::move(b));
}

bool GgufKvList::has(const std::string &key) const
{
    return std::any_of(m_kv.begin(), m_kv.end(), [&](const auto &kv) { return kv.first == key; });
}

std::vector<std::byte> GgufKvList::bytes() const
{
    std::vector<std::byte> b;
    for (const auto &[k, v] : m_kv) {
        putStr(b, k);
        b.insert(b.end(), v.begin(), v.end());
    }
    return b;
}

GgufExportResult planHfToGguf(const std::filesystem::path &source, HfOutType type)
{
    const Model m = openModel(source);
    const std::vector<Planned> ts = planTensors(m, type);
    GgufExportResult r = result(m, ts, type);
    keys(m, ts, type, r);
    return r;
}

GgufExportResult convertHfToGguf(const std::filesystem::path &source, const std::filesystem::path &out, HfOutType type,
                                 const CancelToken *cancel,
                                 const std::function<void(double, const std::string &)> &progress)
{
    std::error_code ec;
    if (std::filesystem::exists(out, ec))
        throw IoError("GGUF export: '" + out.string() + "' exists; remove it or choose another name");
    const Model m = openModel(source);
    const std::vector<Planned> ts = planTensors(m, type);
    GgufExportResult r = result(m, ts, type);
    const GgufKvList kv = keys(m, ts, type, r);

    std::vector<std::byte> head;
    put<std::uint32_t>(head, 0x46554747u); // "GGUF"
    put<std::uint32_t>(head, 3);
    put<std::uint64_t>(head, ts.size());
    put<std::uint64_t>(head, kv.size());
    const std::vector<std::byte> kvb = kv.bytes();
    head.insert(head.end(), kvb.begin(), kvb.end());
    std::uint64_t offset = 0;
    for (const Planned &p : ts) {
        putStr(head, p.name);
        put<std::uint32_t>(head, static_cast<std::uint32_t>(p.ne.size()));
        for (std::uint64_t n : p.ne)
            put<std::uint64_t>(head, n);
        put<std::uint32_t>(head, static_cast<std::uint32_t>(p.type));
        put<std::uint64_t>(head, offset);
        offset += (p.bytes + kAlign - 1) / kAlign * kAlign;
    }
    head.resize((head.size() + kAlign - 1) / kAlign * kAlign, std::byte{0});

    StagingFile staging{out.string() + ".partial"};
    std::vector<std::uint64_t> hashes;
    {
        std::ofstream os(staging.path, std::ios::binary | std::ios::trunc);
        if (!os)
            throw IoError("GGUF export: cannot create '" + staging.path.string() + "'");
        os.write(reinterpret_cast<const char *>(head.data()), static_cast<std::streamsize>(head.size()));
        const std::vector<char> zeros(kAlign, 0);
        std::uint64_t done = 0;
        for (const Planned &p : ts) {
            if (cancel)
                cancel->check();
            if (progress)
                progress(static_cast<double>(done) / static_cast<double>(std::max<std::uint64_t>(r.bytesIn, 1)),
                         "converting " + p.hfName + " → " + p.name + " " + std::string(ggml::typeName(p.type)));
            const std::vector<std::byte> data = produce(m, p);
            hashes.push_back(fnv1a64(data.data(), data.size()));
            os.write(reinterpret_cast<const char *>(data.data()), static_cast<std::streamsize>(data.size()));
            os.write(zeros.data(), static_cast<std::streamsize>((kAlign - p.bytes % kAlign) % kAlign));
            done += p.entry->nbytes();
        }
        os.flush();
        if (!os)
            throw IoError("GGUF export: writing '" + staging.path.string() + "' failed (disk full?)");
    }
    {
        const GgufFile back = GgufFile::open(staging.path);
        if (back.tensors().size() != ts.size() || back.metadata().size() != kv.size())
            throw FormatError("GGUF export: the re-read of '" + staging.path.string() + "' lists " +
                              std::to_string(back.tensors().size()) + " tensors and " +
                              std::to_string(back.metadata().size()) + " keys, not " + std::to_string(ts.size()) +
                              " and " + std::to_string(kv.size()));
        for (std::size_t i = 0; i < ts.size(); ++i) {
            const Tensor raw = back.rawBytes(ts[i].name);
            if (back.tensors()[i].name != ts[i].name || back.tensors()[i].type != ts[i].type ||
                fnv1a64(raw.data(), static_cast<std::size_t>(raw.numel())) != hashes[i])
                throw FormatError("GGUF export: the re-read of tensor '" + ts[i].name +
                                  "' differs from what was written");
        }
    }
    staging.publish(out, "GGUF export");
    r.file = out.string();
    if (progress)
        progress(1.0, "written " + out.string());
    return r;
}

} // namespace quantscope
