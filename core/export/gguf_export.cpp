// SPDX-License-Identifier: MIT
// GGUF export (gguf_export.h): the plan of llama-quantize (ggml_mix.h), the block quantizers, a
// GGUF v3 writer (the layout of ggml's gguf.cpp: header, key-values, tensor infos, data aligned to
// general.alignment) and the importance-matrix readers.
#include "export/gguf_export.h"
#include "export/staging.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>

#include "export/hf_gguf.h"
#include "ggml/ggml_names.h"
#include "ggml/ggml_quantize.h"
#include "ggml/ggml_types.h"
#include "io/capture.h"
#include "io/gguf.h"
#include "io/mapped_file.h"
#include "quant/quant_spec.h"
#include "recipe/recipe.h"
#include "tensor/convert.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/parallel.h"
#include "util/utf8.h"

namespace quantscope {

namespace {

constexpr std::uint32_t kGgufVersion = 3;
constexpr std::uint32_t kQuantizationVersion = 2; // GGML_QNT_VERSION
constexpr std::uint32_t kTypeUint32 = 4, kTypeString = 8;

const ggml::TypeInfo &info(ggml::Type t)
{
    const ggml::TypeInfo *i = ggml::typeInfo(static_cast<std::uint32_t>(t));
    if (i == nullptr)
        throw UnsupportedError("unknown ggml type " + std::to_string(static_cast<std::uint32_t>(t)));
    return *i;
}

std::uint64_t tensorBytes(ggml::Type t, const std::vector<std::uint64_t> &ne)
{
    const ggml::TypeInfo &i = info(t);
    std::uint64_t rows = 1;
    for (std::size_t d = 1; d < ne.size(); ++d)
        rows *= ne[d];
    return ne.empty() ? 0
                      : ne[0] / static_cast<std::uint64_t>(i.blockSize) * static_cast<std::uint64_t>(i.typeSize) * rows;
}

bool isDense(ggml::Type t)
{
    return t == ggml::Type::F32 || t == ggml::Type::F16 || t == ggml::Type::BF16;
}

/// A little-endian byte sink for the header.
struct Bytes {
    std::vector<std::byte> b;
    template <typename T> void put(T v)
    {
        const auto *p = reinterpret_cast<const std::byte *>(&v);
        b.insert(b.end(), p, p + sizeof(T));
    }
    void str(const std::string &s)
    {
        put<std::uint64_t>(s.size());
        const auto *p = reinterpret_cast<const std::byte *>(s.data());
        b.insert(b.end(), p, p + s.size());
    }
    void raw(std::span<const std::byte> s) { b.insert(b.end(), s.begin(), s.end()); }
};

int metaInt(const GgufFile &f, const std::string &key)
{
    const GgufKeyValue *kv = f.find(key);
    if (kv == nullptr || !kv->value.is_number_integer())
        return 0;
    return kv->value.get<int>();
}

ggml::MixModel mixModel(const GgufFile &f)
{
    ggml::MixModel m;
    m.arch = f.architecture();
    const std::string a = m.arch + ".";
    m.layers = metaInt(f, a + "block_count");
    m.heads = metaInt(f, a + "attention.head_count");
    m.headsKv = metaInt(f, a + "attention.head_count_kv");
    if (m.headsKv == 0)
        m.headsKv = m.heads;
    m.experts = metaInt(f, a + "expert_count");
    for (const GgufTensorInfo &t : f.tensors()) {
        if (t.name == "output.weight")
            m.hasOutput = true;
        if (t.name.find("attn_v.weight") != std::string::npos || t.name.find("attn_qkv.weight") != std::string::npos ||
            t.name.find("attn_kv_b.weight") != std::string::npos)
            ++m.attentionV;
    }
    return m;
}

/// A recipe's rule for the module of `t` (by HF name, else by GGUF name) replaces the choice.
void applyRecipe(const Recipe &recipe, const GgufFile &f, const GgufTensorInfo &t, ggml::MixChoice &choice)
{
    const std::string hf = f.hfName(t.name);
    const std::string module = moduleOf(hf.empty() ? t.name : hf);
    const RecipeMatch m = matchModule(recipe, module);
    if (m.excluded) {
        choice.type = t.type;
        choice.quantize = false;
        choice.why = "recipe: " + m.why + " (left as stored)";
        return;
    }
    if (!m.matched())
        return;
    const auto *g = m.specs.empty() ? nullptr : std::get_if<GgufQuantSpec>(&m.specs.front());
    if (g == nullptr || m.specs.size() != 1)
        throw UnsupportedError("GGUF export: the recipe's " + m.why + " gives module '" + module + "' " +
                               (m.specs.empty() ? std::string("no spec") : methodOf(m.specs.front())) +
                               (m.specs.size() > 1 ? " (several specs)" : "") +
                               "; a GGUF file stores ggml's block types, written as {\"method\": \"gguf\", "
                               "\"type\": \"q4_k\"}");
    choice.type = g->type;
    choice.quantize = t.type != g->type;
    choice.why = "recipe: " + m.why + " → " + std::string(ggml::typeName(g->type));
}

/// The plan: each tensor's choice, checked against what Quantscope can write.
struct Planned {
    ggml::MixChoice choice;
    const GgufTensorInfo *src = nullptr;
    const std::vector<float> *importance = nullptr;
    std::uint64_t offset = 0, bytes = 0;
};

std::vector<Planned> plan(const GgufFile &f, const GgufExportOptions &o, const Imatrix *im, GgufExportResult &r)
{
    const ggml::MixModel model = mixModel(f);
    std::vector<ggml::MixTensor> ts;
    for (const GgufTensorInfo &t : f.tensors())
        ts.push_back({t.name, t.ne, t.type});
    ggml::MixOptions mo = o.mix;
    mo.haveImatrix = im != nullptr;
    const std::vector<ggml::MixChoice> choices = ggml::chooseTypes(model, ts, mo);
    std::vector<Planned> out;
    const std::string file = f.path().string();
    for (std::size_t i = 0; i < choices.size(); ++i) {
        Planned p;
        p.choice = choices[i];
        p.src = &f.tensors()[choices[i].index];
        if (o.recipe && p.choice.why.rfind("kept as stored", 0) != 0)
            applyRecipe(*o.recipe, f, *p.src, p.choice);
        const ggml::Type to = p.choice.type;
        if (o.recipe && p.choice.quantize) // the recipe's type, not the mix's, decides
            p.choice.requiresImatrix = ggml::requiresImportance(to) && p.src->name != "token_embd.weight" &&
                                       p.src->name != "per_layer_token_embd.weight" && p.src->name != "output.weight";
        const auto where = [&](const std::string &why) {
            return UnsupportedError("GGUF export of '" + file + "': tensor '" + p.src->name + "': " + why);
        };
        if (p.choice.quantize) {
            if (!isDense(p.src->type) && !info(p.src->type).decodes)
                throw where("its type " + std::string(ggml::typeName(p.src->type)) + " does not decode");
            if (!isDense(p.src->type) && !o.allowRequantize)
                throw where("requantizing from " + std::string(ggml::typeName(p.src->type)) +
                            " is disabled, as in llama-quantize (pass --allow-requantize; the result carries both "
                            "roundings)");
            if (!isDense(to) && !ggml::quantizes(to))
                throw where("llama.cpp's choice is " + std::string(ggml::typeName(to)) + " (" + p.choice.why +
                            "), which Quantscope does not quantize");
            if (im != nullptr && ggml::takesImportance(to)) {
                const auto it = im->weights.find(p.src->name);
                if (it != im->weights.end()) {
                    const std::uint64_t experts = p.src->ne.size() > 2 ? p.src->ne[2] : 1;
                    if (it->second.size() != p.src->ne[0] * experts)
                        throw where("the importance matrix holds " + std::to_string(it->second.size()) +
                                    " weights, the tensor needs " + std::to_string(p.src->ne[0] * experts));
                    p.importance = &it->second;
                }
            } else if (im != nullptr && to != ggml::Type::Q8_0 && !isDense(to) && im->weights.count(p.src->name)) {
                throw where("llama.cpp quantizes " + std::string(ggml::typeName(to)) +
                            " with importance weights (its *_impl quantizers), which Quantscope implements for the "
                            "K-quants and i-quants only; drop the imatrix or choose such types for this tensor");
            }
            if (p.choice.requiresImatrix && p.importance == nullptr)
                throw where("it becomes " + std::string(ggml::typeName(to)) +
                            ", which llama.cpp quantizes only with importance weights, and the importance matrix " +
                            (im ? "'" + im->file + "' has none for it" : std::string("is missing")) +
                            " (llama-quantize: \"Missing importance matrix for tensor\")");
        }
        p.bytes = tensorBytes(to, p.src->ne);
        if (p.src->ne[0] % static_cast<std::uint64_t>(info(to).blockSize) != 0)
            throw where("its rows are not whole blocks of " + std::string(ggml::typeName(to)));
        out.push_back(std::move(p));
    }
    r.fileType = std::string(ggml::fileTypeName(o.mix.fileType));
    r.imatrix = im ? im->file : std::string();
    for (const Planned &p : out) {
        GgufExportTensor t;
        t.name = p.src->name;
        t.hfName = f.hfName(p.src->name);
        t.from = std::string(ggml::typeName(p.src->type));
        t.to = std::string(ggml::typeName(p.choice.type));
        t.quantized = p.choice.quantize;
        t.imatrix = p.importance != nullptr;
        t.why = p.choice.why;
        t.ne = p.src->ne;
        t.bytes = p.bytes;
        r.bytesIn += p.src->nbytes;
        r.bytesOut += p.bytes;
        r.tensors.push_back(std::move(t));
    }
    return out;
}

/// The converted or quantized bytes of one tensor, and its relative error.
std::vector<std::byte> produce(const GgufFile &f, const Planned &p, int threads, const CancelToken *cancel,
                               double &relErr)
{
    const GgufTensorInfo &s = *p.src;
    if (!p.choice.quantize) {
        const Tensor raw = f.rawBytes(s.name);
        const auto *b = static_cast<const std::byte *>(raw.data());
        return {b, b + raw.numel()};
    }
    const Tensor src = f.tensor(s.name);
    std::vector<float> x(static_cast<std::size_t>(src.numel()));
    src.decodeTo(x);
    const std::int64_t cols = static_cast<std::int64_t>(s.ne[0]);
    const std::int64_t rows = static_cast<std::int64_t>(x.size()) / cols;
    const std::int64_t experts = s.ne.size() > 2 ? static_cast<std::int64_t>(s.ne[2]) : 1;
    const std::int64_t rowsPerExpert = rows / std::max<std::int64_t>(experts, 1);
    const ggml::Type to = p.choice.type;
    const ggml::TypeInfo &ti = info(to);
    const std::int64_t rowBytes = cols / ti.blockSize * ti.typeSize;
    std::vector<std::byte> out(static_cast<std::size_t>(rows * rowBytes));
    std::vector<float> back(x.size());
    parallelSlices(rows, resolveThreads(threads), cancel, [&](int, std::int64_t b, std::int64_t e) {
        // A slice never straddles an expert's importance weights: quantize expert by expert.
        for (std::int64_t r0 = b; r0 < e;) {
            const std::int64_t ex = r0 / rowsPerExpert;
            const std::int64_t r1 = std::min(e, (ex + 1) * rowsPerExpert);
            const float *w = p.importance ? p.importance->data() + ex * cols : nullptr;
            const float *xs = x.data() + r0 * cols;
            std::byte *dst = out.data() + r0 * rowBytes;
            if (to == ggml::Type::F32) {
                std::memcpy(dst, xs, static_cast<std::size_t>((r1 - r0) * cols) * 4);
            } else if (to == ggml::Type::F16 || to == ggml::Type::BF16) {
                auto *h = reinterpret_cast<std::uint16_t *>(dst);
                for (std::int64_t i = 0; i < (r1 - r0) * cols; ++i)
                    h[i] = to == ggml::Type::F16 ? floatToF16(xs[i]) : floatToBf16(xs[i]);
            } else {
                const std::vector<std::byte> q = ggml::quantizeRows(to, xs, r1 - r0, cols, w);
                std::memcpy(dst, q.data(), q.size());
            }
            ggml::decodeBlocks(to, dst, static_cast<std::size_t>((r1 - r0) * cols / ti.blockSize),
                               back.data() + r0 * cols);
            r0 = r1;
        }
    });
    double num = 0, den = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double d = static_cast<double>(x[i]) - static_cast<double>(back[i]);
        num += d * d;
        den += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    }
    relErr = den > 0 ? num / den : 0;
    return out;
}

} // namespace

nlohmann::ordered_json GgufExportResult::toJson() const
{
    nlohmann::ordered_json j;
    j["file"] = file;
    j["file_type"] = fileType;
    j["bytes_in"] = bytesIn;
    j["bytes_out"] = bytesOut;
    j["imatrix"] = imatrix.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(imatrix);
    nlohmann::ordered_json ts = nlohmann::ordered_json::array();
    for (const GgufExportTensor &t : tensors) {
        nlohmann::ordered_json e;
        e["name"] = t.name;
        e["hf_name"] = t.hfName.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.hfName);
        e["ne"] = t.ne;
        e["from"] = t.from;
        e["to"] = t.to;
        e["quantized"] = t.quantized;
        e["imatrix"] = t.imatrix;
        e["bytes"] = t.bytes;
        e["rel_err"] = t.quantized ? nlohmann::ordered_json(t.relErr) : nlohmann::ordered_json(nullptr);
        e["why"] = t.why;
        ts.push_back(std::move(e));
    }
    j["tensors"] = std::move(ts);
    j["notes"] = notes;
    return j;
}

namespace {

/// A Hugging Face source (hf_gguf.h): F32 / F16 / BF16 without per-tensor options is
/// convert_hf_to_gguf.py's --outtype; anything else converts (each tensor as stored) and then
/// quantizes that file as llama-quantize does.
std::optional<HfOutType> plainConversion(const GgufExportOptions &o)
{
    const ggml::MixOptions &m = o.mix;
    if (m.pure || !m.tensorTypes.empty() || m.tokenEmbeddingType || m.outputTensorType || o.recipe || o.imatrix)
        return std::nullopt;
    switch (m.fileType) {
    case ggml::FileType::AllF32:
        return HfOutType::F32;
    case ggml::FileType::F16:
        return HfOutType::F16;
    case ggml::FileType::BF16:
        return HfOutType::BF16;
    default:
        return std::nullopt;
    }
}

GgufExportResult exportFromHf(const std::filesystem::path &source, const std::filesystem::path *out,
                              const GgufExportOptions &options)
{
    if (const std::optional<HfOutType> t = plainConversion(options))
        return out ? convertHfToGguf(source, *out, *t, options.cancel, options.progress) : planHfToGguf(source, *t);
    std::error_code ec;
    if (out && std::filesystem::exists(*out, ec))
        throw IoError("GGUF export: '" + out->string() + "' exists; remove it or choose another name");
    // The converted model beside OUT (a dry run: in the temporary folder), removed in any case.
    StagingFile converted{out ? std::filesystem::path(out->string() + ".convert.partial")
                              : std::filesystem::temp_directory_path() /
                                    ("quantscope-hf-plan-" + std::to_string(fnv1a64(source.string())) + "-" +
                                     std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
                                     ".gguf")};
    std::filesystem::remove(converted.path, ec);
    GgufExportOptions o = options;
    if (options.progress)
        o.progress = [&](double f, const std::string &what) { options.progress(0.5 * f, what); };
    const GgufExportResult c = convertHfToGguf(source, converted.path, HfOutType::Stored, options.cancel, o.progress);
    if (options.progress)
        o.progress = [&](double f, const std::string &what) { options.progress(0.5 + 0.5 * f, what); };
    GgufExportResult r = out ? exportGguf(converted.path, *out, o) : planGgufExport(converted.path, o);
    std::map<std::string, const GgufExportTensor *> byName;
    for (const GgufExportTensor &ct : c.tensors)
        byName[ct.name] = &ct;
    for (GgufExportTensor &t : r.tensors)
        if (const auto it = byName.find(t.name); it != byName.end())
            t.from = it->second->from; // the checkpoint's dtype, not the staging file's
    r.bytesIn = c.bytesIn;
    r.notes.insert(r.notes.begin(), c.notes.begin(), c.notes.end());
    r.notes.insert(r.notes.begin(), "converted as convert_hf_to_gguf.py does (each tensor as stored), then "
                                    "quantized as llama-quantize does");
    return r;
}

} // namespace

GgufExportResult planGgufExport(const std::filesystem::path &source, const GgufExportOptions &options)
{
    if (isHfCheckpointPath(source))
        return exportFromHf(source, nullptr, options);
    const GgufFile f = GgufFile::open(source);
    const std::optional<Imatrix> im = options.imatrix ? std::optional(loadImatrix(*options.imatrix, f)) : std::nullopt;
    GgufExportResult r;
    plan(f, options, im ? &*im : nullptr, r);
    return r;
}

GgufExportResult exportGguf(const std::filesystem::path &source, const std::filesystem::path &out,
                            const GgufExportOptions &options)
{
    if (isHfCheckpointPath(source))
        return exportFromHf(source, &out, options);
    const GgufFile f = GgufFile::open(source);
    if (f.tensors().empty())
        throw UnsupportedError("GGUF export of '" + source.string() + "': the file holds no tensors");
    std::error_code ec;
    if (std::filesystem::exists(out, ec))
        throw IoError("GGUF export: '" + out.string() + "' exists; remove it or choose another name");
    const std::optional<Imatrix> im = options.imatrix ? std::optional(loadImatrix(*options.imatrix, f)) : std::nullopt;
    GgufExportResult r;
    std::vector<Planned> ps = plan(f, options, im ? &*im : nullptr, r);
    bool any = false;
    for (const Planned &p : ps)
        any = any || p.choice.quantize;
    if (!any)
        r.notes.push_back("no tensor changes type: the file is copied with the new general.file_type");

    // Header: the source's key-values byte for byte, less the split keys and those set here, which
    // follow in llama-quantize's order (ggml's gguf_set_val removes a key and appends it).
    const std::uint64_t align = f.alignment();
    Bytes set;
    std::vector<std::string> setKeys;
    const auto setU32 = [&](const std::string &key, std::uint32_t v) {
        set.str(key);
        set.put<std::uint32_t>(kTypeUint32);
        set.put<std::uint32_t>(v);
        setKeys.push_back(key);
    };
    const auto setStr = [&](const std::string &key, const std::string &v) {
        set.str(key);
        set.put<std::uint32_t>(kTypeString);
        set.str(v.substr(0, 127)); // llama-quantize's override strings hold 127 bytes
        setKeys.push_back(key);
    };
    setU32("general.quantization_version", kQuantizationVersion);
    setU32("general.file_type", static_cast<std::uint32_t>(options.mix.fileType));
    if (im) {
        setStr("quantize.imatrix.file", im->file);
        if (!im->datasets.empty())
            setStr("quantize.imatrix.dataset", im->datasets.front());
        setU32("quantize.imatrix.entries_count", static_cast<std::uint32_t>(im->weights.size()));
        if (im->chunks > 0)
            setU32("quantize.imatrix.chunks_count", static_cast<std::uint32_t>(im->chunks));
    }
    Bytes kvs;
    std::uint64_t nKv = setKeys.size();
    for (const GgufKeyValue &kv : f.metadata()) {
        if (kv.key == "split.no" || kv.key == "split.count" || kv.key == "split.tensors.count" ||
            std::find(setKeys.begin(), setKeys.end(), kv.key) != setKeys.end())
            continue;
        kvs.raw(f.rawKeyValue(kv));
        ++nKv;
    }
    kvs.raw(set.b);
    Bytes head;
    head.put<std::uint32_t>(0x46554747u); // "GGUF"
    head.put<std::uint32_t>(kGgufVersion);
    head.put<std::uint64_t>(ps.size());
    head.put<std::uint64_t>(nKv);
    head.raw(kvs.b);
    std::uint64_t offset = 0;
    for (Planned &p : ps) {
        p.offset = offset;
        head.str(p.src->name);
        head.put<std::uint32_t>(static_cast<std::uint32_t>(p.src->ne.size()));
        for (std::uint64_t n : p.src->ne)
            head.put<std::uint64_t>(n);
        head.put<std::uint32_t>(static_cast<std::uint32_t>(p.choice.type));
        head.put<std::uint64_t>(offset);
        offset += (p.bytes + align - 1) / align * align;
    }
    head.b.resize((head.b.size() + align - 1) / align * align, std::byte{0});

    StagingFile staging{out.string() + ".partial"};
    std::vector<std::uint64_t> hashes;
    {
        std::ofstream os(staging.path, std::ios::binary | std::ios::trunc);
        if (!os)
            throw IoError("GGUF export: cannot create '" + staging.path.string() + "'");
        os.write(reinterpret_cast<const char *>(head.b.data()), static_cast<std::streamsize>(head.b.size()));
        std::uint64_t done = 0;
        const std::vector<char> zeros(static_cast<std::size_t>(align), 0);
        for (std::size_t i = 0; i < ps.size(); ++i) {
            const Planned &p = ps[i];
            if (options.cancel)
                options.cancel->check();
            if (options.progress)
                options.progress(static_cast<double>(done) / static_cast<double>(std::max<std::uint64_t>(r.bytesIn, 1)),
                                 (p.choice.quantize ? "quantizing " : "copying ") + p.src->name + " → " +
                                     std::string(ggml::typeName(p.choice.type)));
            double rel = 0;
            const std::vector<std::byte> data = produce(f, p, options.threads, options.cancel, rel);
            if (data.size() != p.bytes)
                throw FormatError("GGUF export: tensor '" + p.src->name + "' gave " + std::to_string(data.size()) +
                                  " bytes, its info says " + std::to_string(p.bytes));
            r.tensors[i].relErr = rel;
            hashes.push_back(fnv1a64(data.data(), data.size()));
            os.write(reinterpret_cast<const char *>(data.data()), static_cast<std::streamsize>(data.size()));
            const std::uint64_t pad = (align - p.bytes % align) % align;
            os.write(zeros.data(), static_cast<std::streamsize>(pad));
            done += p.src->nbytes;
        }
        os.flush();
        if (!os)
            throw IoError("GGUF export: writing '" + staging.path.string() + "' failed (disk full?)");
    }

    // Re-read with our reader: every tensor's stored bytes are the bytes produced.
    {
        const GgufFile back = GgufFile::open(staging.path);
        if (back.tensors().size() != ps.size() || back.metadata().size() != nKv)
            throw FormatError("GGUF export: the re-read of '" + staging.path.string() + "' lists " +
                              std::to_string(back.tensors().size()) + " tensors and " +
                              std::to_string(back.metadata().size()) + " keys, not " + std::to_string(ps.size()) +
                              " and " + std::to_string(nKv));
        for (std::size_t i = 0; i < ps.size(); ++i) {
            const Tensor raw = back.rawBytes(ps[i].src->name);
            if (back.tensors()[i].type != ps[i].choice.type ||
                fnv1a64(raw.data(), static_cast<std::size_t>(raw.numel())) != hashes[i])
                throw FormatError("GGUF export: the re-read of tensor '" + ps[i].src->name +
                                  "' differs from what was written");
        }
    }
    staging.publish(out, "GGUF export");
    r.file = out.string();
    if (options.progress)
        options.progress(1.0, "written " + out.string());
    return r;
}

} // namespace quantscope
