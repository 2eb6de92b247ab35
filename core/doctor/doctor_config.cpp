// SPDX-License-Identifier: MIT
// The doctor's config and cross-tensor checks (doctor.h): what config.json's quantization_config
// declares against what the tensors hold, and the rules serving engines and loaders enforce that
// the readers do not (static input and KV scales, modules the config quantizes but that are
// stored dense, bits per weight, scales a cast collapsed, the MoE layer × expert grid, fused
// groups, a quantized tied lm_head, group and block sizes the loaders refuse). Works on the
// valid tensors of the headers alone (values read where a check needs them), so it runs
// whatever the completeness findings are.
#include "doctor/doctor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>

#include "io/mapped_file.h"
#include "recipe/recipe_check.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"
#include "util/glob.h"

namespace quantscope::doctor {

namespace {

void add(DoctorReport &r, Severity s, const char *check, const std::string &module, const std::string &tensor,
         const std::string &file, std::optional<std::uint64_t> offset, std::string message)
{
    Finding f;
    f.severity = s;
    f.check = check;
    f.module = module;
    f.tensor = tensor;
    f.file = file;
    f.offset = offset;
    f.message = std::move(message);
    r.findings.push_back(std::move(f));
}

std::string lastPart(const std::string &name)
{
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::string str(const nlohmann::json &j, const char *key)
{
    if (j.is_object())
        if (auto it = j.find(key); it != j.end() && it->is_string())
            return it->get<std::string>();
    return {};
}

std::int64_t integer(const nlohmann::json &j, const char *key)
{
    if (j.is_object())
        if (auto it = j.find(key); it != j.end() && it->is_number_integer())
            return it->get<std::int64_t>();
    return 0;
}

// ---- what the config declares for one module ----------------------------------------------------

/// What config.json's quantization_config says about one module.
struct Declared {
    bool quantized = false;
    int bits = 0;         ///< weight bits (0: not said)
    std::string strategy; ///< tensor | channel | group | tensor_group | block | ""
    std::int64_t groupSize = 0, blockRows = 0, blockCols = 0;
    bool staticInput = false; ///< input activations with static (calibrated) scales
    std::string source;       ///< where it came from, for messages
};

/// A `re:` target or ignore entry: Python's re.match (anchored at the start only), as
/// compressed-tensors matches module names. Patterns std::regex cannot read match nothing.
/// Compiled once per pattern (a large model asks for every module).
bool reMatch(const std::string &pattern, const std::string &name)
{
    thread_local std::map<std::string, std::optional<std::regex>> cache;
    auto it = cache.find(pattern);
    if (it == cache.end()) {
        std::optional<std::regex> re;
        try {
            re.emplace(pattern);
        } catch (const std::regex_error &) {
        }
        it = cache.emplace(pattern, std::move(re)).first;
    }
    return it->second && std::regex_search(name, *it->second, std::regex_constants::match_continuous);
}

/// compressed-tensors target matching: an exact name, `re:` regex, or the class name `Linear`
/// (every 2-D `.weight` module: the checkpoint cannot tell the class otherwise).
bool ctTargets(const std::string &t, const std::string &module, bool linear)
{
    if (t.rfind("re:", 0) == 0)
        return reMatch(t.substr(3), module);
    if (t == "Linear")
        return linear;
    return t == module;
}

class ConfigResolver {
public:
    explicit ConfigResolver(const nlohmann::json &config)
    {
        if (!config.is_object())
            return;
        if (auto it = config.find("quantization_config"); it != config.end() && it->is_object())
            m_qc = *it;
        m_method = str(m_qc, "quant_method");
        if (m_method.empty() && m_qc.contains("config_groups"))
            m_method = "compressed-tensors";
    }

    bool compressedTensors() const { return m_method == "compressed-tensors"; }
    bool quark() const { return m_method == "quark"; }
    bool any() const { return compressedTensors() || quark() || m_method == "fp8"; }

    /// Whether the config declares a quantized KV cache.
    bool kvCache() const
    {
        if (compressedTensors())
            return m_qc.contains("kv_cache_scheme") && m_qc["kv_cache_scheme"].is_object();
        if (quark()) {
            const auto it = m_qc.find("kv_cache_quant_config");
            return it != m_qc.end() && ((it->is_object() || it->is_array()) && !it->empty());
        }
        return false;
    }

    Declared resolve(const std::string &module, bool linear) const
    {
        if (compressedTensors())
            return resolveCt(module, linear);
        if (quark())
            return resolveQuark(module, linear);
        if (m_method == "fp8" && linear) {
            Declared d;
            d.quantized = true;
            d.bits = 8;
            d.source = "quantization_config (fp8)";
            if (auto it = m_qc.find("weight_block_size"); it != m_qc.end() && it->is_array() && it->size() == 2 &&
                                                          (*it)[0].is_number_integer() &&
                                                          (*it)[1].is_number_integer()) {
                d.strategy = "block";
                d.blockRows = (*it)[0].get<std::int64_t>();
                d.blockCols = (*it)[1].get<std::int64_t>();
            }
            if (auto it = m_qc.find("modules_to_not_convert"); it != m_qc.end() && it->is_array())
                for (const auto &x : *it)
                    if (x.is_string() && module.find(x.get<std::string>()) != std::string::npos)
                        d.quantized = false;
            return d;
        }
        return {};
    }

private:
    Declared resolveCt(const std::string &module, bool linear) const
    {
        Declared d;
        if (auto ig = m_qc.find("ignore"); ig != m_qc.end() && ig->is_array())
            for (const auto &x : *ig)
                if (x.is_string() && ctTargets(x.get<std::string>(), module, false))
                    return d; // the ignore list wins
        const auto groups = m_qc.find("config_groups");
        if (groups == m_qc.end() || !groups->is_object())
            return d;
        for (auto g = groups->begin(); g != groups->end(); ++g) {
            const nlohmann::json *targets = g->is_array() ? &*g : nullptr;
            if (g->is_object())
                if (auto t = g->find("targets"); t != g->end() && t->is_array())
                    targets = &*t;
            if (!targets)
                continue;
            bool hit = false;
            for (const auto &t : *targets)
                hit |= t.is_string() && ctTargets(t.get<std::string>(), module, linear);
            if (!hit)
                continue;
            d.source = "quantization_config.config_groups." + g.key();
            if (g->is_array()) { // a preset: "W4A16": ["Linear"]
                const std::string &n = g.key();
                if (n.size() >= 4 && n[0] == 'W' && n[1] >= '2' && n[1] <= '8' && n[2] == 'A') {
                    d.quantized = true;
                    d.bits = n[1] - '0';
                } else if (n.rfind("FP8", 0) == 0 || n.rfind("NVFP4", 0) == 0 || n.rfind("MXFP4", 0) == 0) {
                    d.quantized = true;
                    d.bits = n[0] == 'F' ? 8 : 4;
                    d.staticInput = n == "FP8";
                }
                return d;
            }
            const auto w = g->find("weights");
            if (w == g->end() || !w->is_object())
                return d; // this group quantizes no weight
            d.quantized = true;
            d.bits = static_cast<int>(integer(*w, "num_bits"));
            d.strategy = str(*w, "strategy");
            d.groupSize = integer(*w, "group_size");
            if (auto b = w->find("block_structure"); b != w->end() && b->is_array() && b->size() == 2 &&
                                                     (*b)[0].is_number_integer() && (*b)[1].is_number_integer()) {
                d.blockRows = (*b)[0].get<std::int64_t>();
                d.blockCols = (*b)[1].get<std::int64_t>();
            }
            if (auto ia = g->find("input_activations"); ia != g->end() && ia->is_object())
                if (auto dyn = ia->find("dynamic"); dyn != ia->end() && dyn->is_boolean() && !dyn->get<bool>())
                    d.staticInput = true;
            return d;
        }
        return d;
    }

    Declared resolveQuark(const std::string &module, bool linear) const
    {
        Declared d;
        if (auto ex = m_qc.find("exclude"); ex != m_qc.end() && ex->is_array())
            for (const auto &p : *ex)
                if (p.is_string() && (p.get<std::string>() == module || globMatch(p.get<std::string>(), module)))
                    return d;
        const nlohmann::json *layer = nullptr;
        if (auto lq = m_qc.find("layer_quant_config"); lq != m_qc.end() && lq->is_object()) {
            if (auto it = lq->find(module); it != lq->end()) {
                layer = &*it;
                d.source = "quantization_config.layer_quant_config." + module;
            } else
                for (auto it2 = lq->begin(); it2 != lq->end() && !layer; ++it2)
                    if (globMatch(it2.key(), module)) {
                        layer = &*it2;
                        d.source = "quantization_config.layer_quant_config." + it2.key();
                    }
        }
        if (!layer && linear)
            if (auto lt = m_qc.find("layer_type_quant_config"); lt != m_qc.end() && lt->is_object())
                if (auto it = lt->find("Linear"); it != lt->end()) {
                    layer = &*it;
                    d.source = "quantization_config.layer_type_quant_config.Linear";
                }
        if (!layer && linear)
            if (auto g = m_qc.find("global_quant_config"); g != m_qc.end()) {
                layer = &*g;
                d.source = "quantization_config.global_quant_config";
            }
        if (!layer || !layer->is_object())
            return d;
        const auto w = layer->find("weight");
        if (w == layer->end() || w->is_null())
            return d;
        const nlohmann::json &spec = w->is_array() && !w->empty() ? w->back() : *w;
        if (!spec.is_object())
            return d;
        d.quantized = true;
        const std::string dt = str(spec, "dtype");
        // "int4", "uint4", "fp4", "mx_fp4" → 4; "int8", "uint8", "fp8_e4m3", "fp8_e5m2" → 8.
        d.bits = dt.rfind("fp8", 0) == 0 || dt.find("int8") != std::string::npos ? 8
                 : dt.find('4') != std::string::npos                             ? 4
                                                                                 : 0;
        const std::string qs = str(spec, "qscheme");
        d.strategy = qs == "per_group" ? "group" : qs == "per_channel" ? "channel" : qs == "per_tensor" ? "tensor" : "";
        d.groupSize = integer(spec, "group_size");
        auto staticOf = [](const nlohmann::json &t) {
            if (!t.is_object())
                return false;
            const auto dyn = t.find("is_dynamic");
            return dyn != t.end() && dyn->is_boolean() && !dyn->get<bool>();
        };
        if (auto in = layer->find("input_tensors"); in != layer->end()) {
            if (in->is_array())
                for (const auto &t : *in)
                    d.staticInput |= staticOf(t);
            else
                d.staticInput = staticOf(*in);
        }
        return d;
    }

    nlohmann::json m_qc = nlohmann::json::object();
    std::string m_method;
};

// ---- the tensors, grouped by module ------------------------------------------------------------

struct Part {
    const Shard *shard = nullptr;
    const HeaderTensor *t = nullptr;
    DType dtype = DType::F32;
    std::int64_t numel() const
    {
        std::int64_t n = 1;
        for (auto d : t->shape)
            n *= d;
        return n;
    }
};

/// Reads the values of valid tensors (each shard mapped once, bounded by maxValueBytes).
class Values {
public:
    explicit Values(std::uint64_t maxBytes) : m_max(maxBytes) {}

    const std::byte *bytes(const Part &p)
    {
        auto &mf = m_maps[p.shard->file.string()];
        if (!mf) {
            try {
                mf = MappedFile::open(p.shard->file);
            } catch (const std::exception &) {
                return nullptr;
            }
        }
        const std::uint64_t n = p.t->end - p.t->begin;
        if (n > m_max || p.t->fileOffset + n > mf->size())
            return nullptr;
        return mf->data() + p.t->fileOffset;
    }
    /// Decoded elements, or nullopt (too large, not decodable, unreadable).
    std::optional<std::vector<float>> floats(const Part &p)
    {
        if (!isDecodable(p.dtype) || p.dtype == DType::F4)
            return std::nullopt;
        const std::byte *b = bytes(p);
        if (!b)
            return std::nullopt;
        std::vector<float> v(static_cast<std::size_t>(p.numel()));
        Tensor::borrow(p.dtype, {p.numel()}, b, m_maps[p.shard->file.string()]).decodeTo(v);
        return v;
    }
    std::optional<std::vector<std::int64_t>> integers(const Part &p)
    {
        const std::byte *b = bytes(p);
        if (!b || (p.dtype != DType::I64 && p.dtype != DType::I32))
            return std::nullopt;
        std::vector<std::int64_t> v(static_cast<std::size_t>(p.numel()));
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (p.dtype == DType::I64) {
                std::int64_t x;
                std::memcpy(&x, b + 8 * i, 8);
                v[i] = x;
            } else {
                std::int32_t x;
                std::memcpy(&x, b + 4 * i, 4);
                v[i] = x;
            }
        }
        return v;
    }

private:
    std::uint64_t m_max;
    std::map<std::string, std::shared_ptr<const MappedFile>> m_maps;
};

struct Module {
    std::string name;
    std::map<std::string, Part> parts; // last name part → the tensor (first valid copy)

    const Part *get(const std::string &p) const
    {
        const auto it = parts.find(p);
        return it == parts.end() ? nullptr : &it->second;
    }
    /// The stored codes of a quantized module (packed words or one code per element), or null.
    const Part *codes() const
    {
        if (const Part *p = get("weight_packed"))
            return p;
        const Part *w = get("weight");
        if (w && (get("weight_scale") || get("weight_scale_inv")))
            return w;
        return nullptr;
    }
    bool storedQuantized() const
    {
        if (get("weight_packed") || get("weight_scale") || get("weight_scale_inv"))
            return true;
        const Part *w = get("weight");
        return w && w->dtype != DType::F32 && w->dtype != DType::F16 && w->dtype != DType::BF16 &&
               w->dtype != DType::F64;
    }
    /// A plain float `.weight` with no quantized companion.
    bool storedDense() const
    {
        const Part *w = get("weight");
        return w && !storedQuantized() &&
               (w->dtype == DType::F32 || w->dtype == DType::F16 || w->dtype == DType::BF16 || w->dtype == DType::F64);
    }
    /// Whether this module's logical weight is 2-D (what `Linear` targets).
    bool linear() const
    {
        if (const Part *w = get("weight"))
            return w->t->shape.size() == 2;
        if (const Part *p = get("weight_packed"))
            return p->t->shape.size() == 2;
        return false;
    }
    std::string file() const { return parts.begin()->second.shard->file.string(); }
};

/// The logical [N, K] of a module's weight, when the tensors say it.
std::optional<std::pair<std::int64_t, std::int64_t>> logicalShape(const Module &m, Values &values)
{
    if (const Part *s = m.get("weight_shape"))
        if (auto v = values.integers(*s); v && v->size() == 2 && (*v)[0] > 0 && (*v)[1] > 0)
            return std::pair{(*v)[0], (*v)[1]};
    // One code per element (I8, F8) or a dense float weight; U8 and I32 `weight`s may be packed
    // (Quark), so their shape is not the logical one.
    const Part *w = m.get("weight");
    const bool oneEach = w && (w->dtype == DType::I8 || w->dtype == DType::F8_E4M3 || w->dtype == DType::F8_E5M2 ||
                               w->dtype == DType::F16 || w->dtype == DType::BF16 || w->dtype == DType::F32);
    if (oneEach && w->t->shape.size() == 2 && !m.get("weight_packed"))
        return std::pair{w->t->shape[0], w->t->shape[1]};
    // FP4 pairs in U8 (NVFP4 / MXFP4 pack-quantized): two codes a byte.
    const Part *p = m.get("weight_packed");
    if (p && p->dtype == DType::U8 && p->t->shape.size() == 2 && m.get("weight_scale") &&
        (m.get("weight_global_scale") || m.get("weight_scale")->dtype == DType::U8 ||
         m.get("weight_scale")->dtype == DType::F8_E8M0))
        return std::pair{p->t->shape[0], 2 * p->t->shape[1]};
    return std::nullopt;
}

std::string fmt(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

/// `…layers.L…experts.E…` → (L, E).
std::optional<std::pair<int, int>> layerExpert(const std::string &module)
{
    static const std::regex re(R"((?:^|\.)layers\.(\d+)\..*experts\.(\d+)(?:\.|$))");
    std::smatch sm;
    if (!std::regex_search(module, sm, re) || sm[1].length() > 6 || sm[2].length() > 6)
        return std::nullopt;
    return std::pair{std::stoi(sm[1].str()), std::stoi(sm[2].str())};
}

/// `…layers.L.<attn>` of a module named `…layers.L.<attn>.{q,k,v}_proj`, or "".
std::string attentionOf(const std::string &module)
{
    for (const char *p : {".k_proj", ".v_proj", ".q_proj"}) {
        const std::string s = p;
        if (module.size() > s.size() && module.compare(module.size() - s.size(), s.size(), s) == 0)
            return module.substr(0, module.size() - s.size());
    }
    return {};
}

} // namespace

void checkConfig(const std::vector<Shard> &shards, const nlohmann::json &config, const DoctorOptions &o,
                 DoctorReport &r, const CancelToken *cancel)
{
    std::map<std::string, Module> modules;
    for (const Shard &sh : shards)
        for (const HeaderTensor &t : sh.tensors) {
            if (!t.valid)
                continue;
            const auto dt = dtypeFromSafetensors(t.dtype);
            if (!dt)
                continue;
            Module &m = modules[moduleOf(t.name)];
            m.name = moduleOf(t.name);
            m.parts.emplace(lastPart(t.name), Part{&sh, &t, *dt});
        }
    Values values(o.maxValueBytes);
    const ConfigResolver cfg(config);
    std::map<std::string, Declared> declared;
    for (const auto &[name, m] : modules)
        if (cfg.any() && (m.get("weight") || m.get("weight_packed")))
            declared[name] = cfg.resolve(name, m.linear());

    // Static input scales and KV-cache scales the config declares.
    for (const auto &[name, d] : declared) {
        const Module &m = modules.at(name);
        if (d.quantized && d.staticInput && m.storedQuantized() && !m.get("input_scale"))
            add(r, Severity::Error, "static-scales", name, name + ".input_scale", m.file(), std::nullopt,
                "config.json declares static input scales but " + name + " has no input_scale (" + d.source +
                    "): engines have no activation scale for it");
    }
    if (cfg.kvCache()) {
        std::set<std::string> attns;
        for (const auto &[name, m] : modules)
            if (const std::string a = attentionOf(name); !a.empty())
                attns.insert(a);
        for (const std::string &a : attns)
            for (const char *kind : {"k", "v"}) {
                const std::string k = kind;
                const bool has = modules.count(a) && (modules.at(a).get(k + "_scale") || modules.at(a).get("kv_scale"));
                const bool onProj =
                    modules.count(a + "." + k + "_proj") && (modules.at(a + "." + k + "_proj").get("output_scale") ||
                                                             modules.at(a + "." + k + "_proj").get(k + "_scale"));
                if (!has && !onProj)
                    add(r, Severity::Error, "static-scales", a, a + "." + k + "_scale",
                        modules.count(a + "." + k + "_proj") ? modules.at(a + "." + k + "_proj").file() : "",
                        std::nullopt,
                        "config.json declares a quantized KV cache but " + a + " has no " + k +
                            "_scale: engines fall back to 1.0 for this layer");
            }
    }

    // Modules the config quantizes but that are stored dense (the reverse of the ignore check).
    for (const auto &[name, d] : declared) {
        const Module &m = modules.at(name);
        if (!d.quantized || !m.storedDense() || !m.linear())
            continue;
        if (name.find("embed") != std::string::npos)
            continue; // embeddings are no Linear, whatever the target list says
        add(r, Severity::Warning, "ignore", name, name + ".weight", m.file(), m.get("weight")->t->fileOffset,
            "config.json quantizes " + name + " (" + d.source + ", not in its ignore/exclude list) but its weight is " +
                "stored dense (" + m.get("weight")->t->dtype +
                "): loaders expect the quantized tensors; add it to the ignore list or quantize it");
    }

    // Effective bits per weight against the declared scheme; group and block sizes the loaders
    // refuse.
    const bool ct = cfg.compressedTensors();
    for (const auto &[name, d] : declared) {
        if (cancel)
            cancel->check();
        const Module &m = modules.at(name);
        if (!d.quantized || !m.storedQuantized())
            continue;
        const Part *codes = m.codes();
        const auto nk = logicalShape(m, values);
        if (codes && nk && d.bits > 0) {
            const double elements = static_cast<double>(nk->first) * static_cast<double>(nk->second);
            std::uint64_t other = 0;
            for (const auto &[part, p] : m.parts)
                if (&p != codes && part.rfind("weight_", 0) == 0 && part != "weight_shape" && part != "weight_g_idx")
                    other += p.t->end - p.t->begin;
            const double codeBits = 8.0 * static_cast<double>(codes->t->end - codes->t->begin) / elements;
            const double totalBits = codeBits + 8.0 * static_cast<double>(other) / elements;
            if (elements > 0 && codeBits >= d.bits + 1.0)
                add(r, Severity::Warning, "bits", name, codes->t->name, m.file(), codes->t->fileOffset,
                    "the scheme declares " + std::to_string(d.bits) + "-bit weights (" + d.source + ") but " + name +
                        " stores " + fmt(codeBits) + " bits of codes per weight (" + fmt(totalBits) +
                        " with its scales): " + codes->t->dtype + " codes, larger than declared");
            else if (elements > 0 && codeBits < d.bits - 0.5)
                add(r, Severity::Error, "bits", name, codes->t->name, m.file(), codes->t->fileOffset,
                    "the scheme declares " + std::to_string(d.bits) + "-bit weights (" + d.source + ") but " + name +
                        " stores only " + fmt(codeBits) + " bits of codes per weight: the codes cannot hold them");
        }
        if (ct && nk && d.groupSize > 0 && (d.strategy == "group" || d.strategy == "tensor_group") &&
            nk->second % d.groupSize != 0)
            add(r, Severity::Error, "loader-groups", name, name + ".weight", m.file(), std::nullopt,
                name + ": K = " + std::to_string(nk->second) + " columns is not divisible by group_size " +
                    std::to_string(d.groupSize) +
                    " (compressed-tensors 0.20 raises 'tensor column shape must be divisible by the given "
                    "group_size')");
        const bool block = m.get("weight_scale_inv") || d.strategy == "block";
        if (block && nk && d.blockRows > 0 && d.blockCols > 0 &&
            (nk->first % d.blockRows != 0 || nk->second % d.blockCols != 0))
            add(r, Severity::Error, "loader-groups", name, name + ".weight", m.file(), std::nullopt,
                name + ": the weight [" + std::to_string(nk->first) + ", " + std::to_string(nk->second) +
                    "] is not a whole number of " + std::to_string(d.blockRows) + "×" + std::to_string(d.blockCols) +
                    " FP8 blocks (transformers' FineGrainedFP8 refuses: not divisible by scale grid)");
    }

    // Scales a cast collapsed: F8 E4M3 scales that are 0 where the group's codes are not, and
    // E8M0 scales of 2^-127 (code 0, the smallest the format has: an underflow, not a scale).
    for (const auto &[name, m] : modules) {
        if (cancel)
            cancel->check();
        const Part *s = m.get("weight_scale");
        const Part *c = m.codes();
        if (!s)
            continue;
        const bool e8m0 = s->dtype == DType::F8_E8M0 || (s->dtype == DType::U8 && m.get("weight_packed"));
        const bool e4m3 = s->dtype == DType::F8_E4M3;
        if (!e8m0 && !e4m3)
            continue;
        const std::byte *sb = values.bytes(*s);
        if (!sb)
            continue;
        const std::int64_t ns = s->numel();
        // The group each scale covers: [N, G] scales over [N, W] stored code bytes.
        const std::byte *cb = c ? values.bytes(*c) : nullptr;
        std::int64_t rows = 0, cols = 0, groups = 0;
        if (cb && c->t->shape.size() == 2 && s->t->shape.size() == 2 && s->t->shape[0] == c->t->shape[0] &&
            s->t->shape[1] > 0 && c->t->shape[1] % s->t->shape[1] == 0 && bitsOf(c->dtype) == 8) {
            rows = c->t->shape[0];
            cols = c->t->shape[1];
            groups = s->t->shape[1];
        }
        const bool fp4 = c && c->dtype == DType::U8 && m.get("weight_packed");
        auto groupNonzero = [&](std::int64_t i) {
            if (!groups)
                return true; // cannot tell: assume the weights are not zero
            const std::int64_t row = i / groups, g = i % groups, per = cols / groups;
            for (std::int64_t k = 0; k < per; ++k) {
                const auto b = static_cast<std::uint8_t>(cb[row * cols + g * per + k]);
                if (fp4 ? ((b & 0x7) || (b & 0x70)) : (c->dtype == DType::F8_E4M3 ? (b & 0x7F) != 0 : b != 0))
                    return true;
            }
            return false;
        };
        (void)rows;
        std::int64_t collapsed = 0, zeroGroups = 0;
        for (std::int64_t i = 0; i < ns; ++i) {
            const auto b = static_cast<std::uint8_t>(sb[i]);
            const bool bad = e8m0 ? b == 0 : (b & 0x7F) == 0;
            if (!bad)
                continue;
            if (groupNonzero(i))
                ++collapsed;
            else
                ++zeroGroups;
        }
        if (collapsed)
            add(r, Severity::Error, "scale-cast", name, s->t->name, m.file(), s->t->fileOffset,
                std::to_string(collapsed) + " of " + std::to_string(ns) + " " + s->t->dtype +
                    (e8m0 ? (s->dtype == DType::U8 ? " (E8M0)" : "") + std::string(" scales are 2^-127 (code 0)")
                          : std::string(" scales are 0")) +
                    " where the group's codes are not: the scale underflowed when it was cast, and the group "
                    "decodes to (almost) 0");
        else if (zeroGroups && e8m0)
            add(r, Severity::Info, "scale-cast", name, s->t->name, m.file(), s->t->fileOffset,
                std::to_string(zeroGroups) + " E8M0 scales are 2^-127 over groups whose codes are all 0");
    }

    // The MoE expert × layer grid of scale health.
    std::map<std::pair<int, int>, std::pair<std::int64_t, std::int64_t>> cells; // (L, E) → (bad, total)
    std::map<std::pair<int, int>, std::string> cellModule;
    for (const auto &[name, m] : modules) {
        const auto le = layerExpert(name);
        if (!le)
            continue;
        auto &cell = cells[*le];
        for (const auto &[part, p] : m.parts) {
            if (part.find("scale") == std::string::npos)
                continue;
            const auto v = values.floats(p);
            if (!v)
                continue;
            const bool e8m0U8 = p.dtype == DType::U8;
            for (std::size_t i = 0; i < v->size(); ++i) {
                const float x = e8m0U8 ? std::ldexp(1.0f, static_cast<int>((*v)[i]) - 127) : (*v)[i];
                const bool bad = !std::isfinite(x) || x == 0.0f || (e8m0U8 && (*v)[i] == 255.0f);
                cell.first += bad;
                ++cell.second;
            }
            if (cell.first && cellModule[*le].empty())
                cellModule[*le] = name;
        }
    }
    if (!cells.empty()) {
        std::set<int> layers, experts;
        for (const auto &[le, c] : cells) {
            layers.insert(le.first);
            experts.insert(le.second);
        }
        std::string grid;
        std::int64_t badCells = 0;
        for (int l : layers) {
            grid += (grid.empty() ? "" : " ") + std::string("L") + std::to_string(l) + ":";
            for (int e : experts) {
                const auto it = cells.find({l, e});
                grid += it == cells.end() ? '-' : it->second.second == 0 ? '?' : it->second.first ? 'X' : '.';
                if (it != cells.end() && it->second.first) {
                    ++badCells;
                    add(r, Severity::Error, "moe-grid", cellModule[{l, e}], {}, {}, std::nullopt,
                        "layer " + std::to_string(l) + ", expert " + std::to_string(e) + ": " +
                            std::to_string(it->second.first) + " of " + std::to_string(it->second.second) +
                            " scales are NaN, Inf or zero (first in " + cellModule[{l, e}] + ")");
                }
            }
        }
        add(r, Severity::Info, "moe-grid", {}, {}, {}, std::nullopt,
            "MoE scale health, " + std::to_string(layers.size()) + " layers × " + std::to_string(experts.size()) +
                " experts (per layer, one mark per expert: '.' healthy, 'X' NaN/Inf/zero scales, '?' no scale, "
                "'-' absent), " +
                std::to_string(badCells) + " bad: " + grid);
    }

    // Fused groups: one NVFP4 global scale per fused GEMM (vLLM takes one for q/k/v and gate/up).
    std::map<std::string, std::vector<std::pair<std::string, float>>> globals;
    for (const auto &[name, m] : modules)
        if (const Part *g = m.get("weight_global_scale"); g && g->numel() == 1)
            if (const std::string grp = fusionGroupOf(name); !grp.empty())
                if (auto v = values.floats(*g))
                    globals[grp].push_back({name, (*v)[0]});
    for (const auto &[grp, list] : globals) {
        // The value most members share is the reference; each member off it is named.
        std::size_t ref = 0, refCount = 0;
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto n = static_cast<std::size_t>(
                std::count_if(list.begin(), list.end(), [&](const auto &x) { return x.second == list[i].second; }));
            if (n > refCount) {
                ref = i;
                refCount = n;
            }
        }
        for (const auto &[name, v] : list)
            if (!(v == list[ref].second))
                add(r, Severity::Error, "fused", name, name + ".weight_global_scale", modules.at(name).file(),
                    modules.at(name).get("weight_global_scale")->t->fileOffset,
                    name + " has NVFP4 weight_global_scale " + fmt(v) + " but " + list[ref].first + " of the " +
                        "same fused group " + grp + " has " + fmt(list[ref].second) +
                        ": vLLM fuses them and takes one global scale, so they cannot all decode right");
    }

    // A quantized lm_head tied to the embeddings.
    bool tied = false;
    if (config.is_object()) {
        if (auto it = config.find("tie_word_embeddings"); it != config.end() && it->is_boolean())
            tied = it->get<bool>();
        if (auto tc = config.find("text_config"); tc != config.end() && tc->is_object())
            if (auto it = tc->find("tie_word_embeddings"); it != tc->end() && it->is_boolean())
                tied |= it->get<bool>();
    }
    for (const auto &[name, m] : modules)
        if (tied && lastPart(name) == "lm_head" && m.storedQuantized())
            add(r, Severity::Error, "tied-lm-head", name, name + ".weight", m.file(), std::nullopt,
                "config.json says tie_word_embeddings: true but " + name +
                    " is stored quantized: transformers ties it to the embeddings and fails to load it");
}

} // namespace quantscope::doctor
