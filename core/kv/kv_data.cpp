// SPDX-License-Identifier: MIT
#include "kv/kv_data.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>

#include "io/capture.h"
#include "io/npy.h"
#include "io/npz.h"
#include "io/safetensors.h"
#include "util/error.h"
#include "util/parallel.h"

namespace quantscope {

namespace {

Location at(const std::string &file, const std::string &tensor = {})
{
    Location l;
    l.file = file;
    l.tensor = tensor;
    return l;
}

std::vector<float> floatsOf(const Tensor &t)
{
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    t.decodeTo(out);
    return out;
}

/// Keeps the first `keep` of the T rows of every head of a row-major [H, T, d] array.
std::vector<float> firstRows(const std::vector<float> &x, std::int64_t H, std::int64_t T, std::int64_t d,
                             std::int64_t keep)
{
    if (keep <= 0 || keep >= T)
        return x;
    std::vector<float> out(static_cast<std::size_t>(H * keep * d));
    for (std::int64_t h = 0; h < H; ++h)
        std::copy_n(x.begin() + h * T * d, keep * d, out.begin() + h * keep * d);
    return out;
}

void checkFinite(const std::string &file, const KvLayer &l, const std::vector<float> &x, std::int64_t T, std::int64_t d,
                 const char *what)
{
    // A branch-free pass first (vectorised: exponent bits all ones), the first offender only then.
    bool bad = false;
    for (const float v : x)
        bad |= (std::bit_cast<std::uint32_t>(v) & 0x7F800000u) == 0x7F800000u;
    if (!bad)
        return;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x[i])) {
            const std::int64_t head = static_cast<std::int64_t>(i) / (T * d);
            const std::int64_t tok = static_cast<std::int64_t>(i) / d % T;
            throw FormatError(std::string(what) + " of " + l.name + " head " + std::to_string(head) + " holds " +
                                  (std::isnan(x[i]) ? "NaN" : "Inf") + " at token " + std::to_string(tok) +
                                  ": the lab needs finite caches",
                              at(file));
        }
}

/// Adds one layer after checking its shapes against the first layer's.
void addLayer(KvData &data, const std::string &file, KvLayer layer, const Shape &ks, const Shape &vs,
              const std::optional<Shape> &qs, const KvLoadOptions &opt)
{
    auto shapeErr = [&](const std::string &why) { throw FormatError(layer.name + ": " + why, at(file)); };
    if (ks.size() != 3 || vs.size() != 3)
        shapeErr("K and V must be [heads, tokens, head_dim]; K is " + shapeToString(ks) + ", V " + shapeToString(vs));
    if (ks != vs)
        shapeErr("K " + shapeToString(ks) + " and V " + shapeToString(vs) + " disagree");
    if (ks[0] <= 0 || ks[1] <= 0 || ks[2] <= 0)
        shapeErr("K/V shape " + shapeToString(ks) + " has an empty dimension");
    std::int64_t H = 0, Q = 0;
    if (qs) {
        if (qs->size() != 3 || (*qs)[2] != ks[2])
            shapeErr("queries " + shapeToString(*qs) + " must be [heads, queries, " + std::to_string(ks[2]) + "]");
        H = (*qs)[0];
        Q = (*qs)[1];
        if (H <= 0 || Q <= 0 || H % ks[0] != 0)
            shapeErr("query heads (" + std::to_string(H) + ") must be a positive multiple of the KV heads (" +
                     std::to_string(ks[0]) + ")");
    }
    std::int64_t T = ks[1];
    const std::int64_t d = ks[2];
    if (opt.maxTokens > 0 && T > opt.maxTokens) {
        layer.k = firstRows(layer.k, ks[0], T, d, opt.maxTokens);
        layer.v = firstRows(layer.v, ks[0], T, d, opt.maxTokens);
        T = opt.maxTokens;
    }
    if (qs && opt.maxQueries > 0 && Q > opt.maxQueries) {
        layer.q = firstRows(layer.q, H, Q, d, opt.maxQueries);
        Q = opt.maxQueries;
    }
    if (qs && Q > T)
        shapeErr(std::to_string(Q) + " queries but only " + std::to_string(T) +
                 " keys: query i needs the keys up to position i");
    checkFinite(file, layer, layer.k, T, d, "K");
    checkFinite(file, layer, layer.v, T, d, "V");
    if (qs)
        checkFinite(file, layer, layer.q, Q, d, "the queries");
    if (data.layers.empty()) {
        data.kvHeads = ks[0];
        data.tokens = T;
        data.headDim = d;
        data.heads = H;
        data.queries = Q;
    } else if (ks[0] != data.kvHeads || T != data.tokens || d != data.headDim || H != data.heads || Q != data.queries) {
        shapeErr("shape differs from the first layer's (K/V " + std::to_string(data.kvHeads) + "×" +
                 std::to_string(data.tokens) + "×" + std::to_string(data.headDim) + ", queries " +
                 std::to_string(data.heads) + "×" + std::to_string(data.queries) + ")");
    }
    data.layers.push_back(std::move(layer));
}

KvData fromCapture(const std::filesystem::path &path, const KvLoadOptions &opt)
{
    const Capture cap = Capture::open(path);
    KvData data;
    data.source = path;
    data.kind = "capture";
    const std::string file = path.string();
    std::vector<const CaptureAttention *> blocks;
    for (const auto &a : cap.attention())
        blocks.push_back(&a);
    std::stable_sort(blocks.begin(), blocks.end(), [](auto *a, auto *b) { return a->layer < b->layer; });
    // The tensors (views into the mapping) in layer order, decoded to FP32 by the workers (each
    // layer's own pages: the copies and their page faults side by side), then checked and added in
    // order; a layer's decoding error is raised at its turn.
    struct Views {
        const CaptureAttention *block;
        std::optional<Tensor> k, v, q;
    };
    std::vector<Views> views;
    for (const CaptureAttention *b : blocks) {
        Views w{b, cap.attentionTensor(b->module, 'k'), cap.attentionTensor(b->module, 'v'), std::nullopt};
        if (!w.k || !w.v) {
            data.notes.push_back(b->module + ": no K/V cache in the capture; skipped");
            continue;
        }
        w.q = cap.attentionTensor(b->module, 'q');
        views.push_back(std::move(w));
    }
    std::vector<KvLayer> layers(views.size());
    std::vector<std::exception_ptr> errors(views.size());
    parallelForEach(static_cast<std::int64_t>(views.size()), 0, [&](std::int64_t i) {
        const Views &w = views[static_cast<std::size_t>(i)];
        KvLayer &l = layers[static_cast<std::size_t>(i)];
        try {
            l.k = floatsOf(*w.k);
            l.v = floatsOf(*w.v);
            if (w.q)
                l.q = floatsOf(*w.q);
        } catch (...) {
            errors[static_cast<std::size_t>(i)] = std::current_exception();
        }
    });
    for (std::size_t i = 0; i < views.size(); ++i) {
        if (errors[i])
            std::rethrow_exception(errors[i]);
        const Views &w = views[i];
        KvLayer &l = layers[i];
        l.layer = w.block->layer;
        l.name = w.block->module;
        std::optional<Shape> qs;
        if (w.q)
            qs = w.q->shape();
        if (data.rope.empty())
            data.rope = w.block->rope;
        addLayer(data, file, std::move(l), w.k->shape(), w.v->shape(), qs, opt);
    }
    if (data.layers.empty())
        throw FormatError("the capture holds no K/V cache (capture with --kv-tokens > 0)", at(file));
    data.segment = opt.segment > 0 ? opt.segment : (cap.seq() > 0 ? cap.seq() : data.tokens);
    if (!data.hasQueries())
        data.notes.push_back("no queries in the capture: attention-score and output errors are omitted");
    if (data.rope == "pre")
        data.notes.push_back("the capture holds pre-RoPE queries: score errors use them as stored");
    return data;
}

/// Layer `i` of a [L, H, T, d] (or [H, T, d] as one layer) tensor as FP32.
std::vector<float> layerOf(const Tensor &t, std::int64_t i)
{
    if (t.rank() == 3)
        return floatsOf(t);
    const std::int64_t per = t.numel() / t.dim(0);
    std::vector<float> out(static_cast<std::size_t>(per));
    t.decodeRange(i * per, out);
    return out;
}

Shape layerShape(const Tensor &t)
{
    if (t.rank() == 3)
        return t.shape();
    return Shape(t.shape().begin() + 1, t.shape().end());
}

/// Numeric-aware name order: "layers.2" before "layers.10".
bool naturalLess(const std::string &a, const std::string &b)
{
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
            std::size_t i2 = i, j2 = j;
            while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2])))
                ++i2;
            while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2])))
                ++j2;
            const std::string na = a.substr(i, i2 - i), nb = b.substr(j, j2 - j);
            if (na.size() != nb.size())
                return na.size() < nb.size();
            if (na != nb)
                return na < nb;
            i = i2;
            j = j2;
        } else {
            if (a[i] != b[j])
                return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

int layerIndexOf(const std::string &prefix, int fallback)
{
    // The last run of digits in the prefix ("model.layers.12.self_attn" → 12).
    int value = -1;
    for (std::size_t i = 0; i < prefix.size();) {
        if (std::isdigit(static_cast<unsigned char>(prefix[i]))) {
            std::size_t j = i;
            while (j < prefix.size() && std::isdigit(static_cast<unsigned char>(prefix[j])))
                ++j;
            if (j - i < 9)
                value = std::stoi(prefix.substr(i, j - i));
            i = j;
        } else {
            ++i;
        }
    }
    return value >= 0 ? value : fallback;
}

template <typename Find>
KvData fromNamedArrays(const std::filesystem::path &path, const std::string &kind, const Find &find,
                       const KvLoadOptions &opt)
{
    auto first = [&](std::initializer_list<const char *> names) -> std::optional<Tensor> {
        for (const char *n : names)
            if (auto t = find(n))
                return t;
        return std::nullopt;
    };
    const auto k = first({"k", "keys"});
    const auto v = first({"v", "values"});
    if (!k || !v)
        return {};
    const auto q = first({"q", "queries"});
    return kvFromArrays(path.string(), *k, *v, q, opt);
}

/// The `seq` metadata of a K/V safetensors file (tokens per causal sequence), else `fallback`.
std::int64_t metaSeq(const SafetensorsFile &st, std::int64_t fallback)
{
    const auto it = st.metadata().find("seq");
    if (it == st.metadata().end())
        return fallback;
    char *end = nullptr;
    const long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != '\0' || v <= 0)
        throw FormatError("metadata `seq` is '" + it->second + "': expected a positive integer (tokens per sequence)",
                          Location{st.path().string(), {}, {}});
    return v;
}

KvData fromSafetensors(const std::filesystem::path &path, const KvLoadOptions &opt)
{
    if (isCaptureFile(path))
        return fromCapture(path, opt);
    const SafetensorsFile st = SafetensorsFile::open(path);
    KvData data = fromNamedArrays(
        path, "safetensors",
        [&](const char *n) -> std::optional<Tensor> {
            if (st.find(n))
                return st.tensor(n);
            return std::nullopt;
        },
        opt);
    if (!data.layers.empty()) {
        data.kind = "safetensors";
        if (opt.segment <= 0)
            data.segment = metaSeq(st, data.tokens);
        return data;
    }
    // Per-layer tensors <prefix>.k / <prefix>.v / <prefix>.q.
    std::map<std::string, std::string> prefixes; // prefix → itself, ordered below
    std::vector<std::string> names;
    for (const auto &e : st.entries()) {
        const std::string &n = e.name;
        if (n.size() > 2 && n.compare(n.size() - 2, 2, ".k") == 0) {
            const std::string p = n.substr(0, n.size() - 2);
            if (st.find(p + ".v"))
                names.push_back(p);
        }
    }
    if (names.empty())
        throw FormatError("no K/V arrays: expected tensors `k` and `v` (or `keys`, `values`) of [layers, heads, "
                          "tokens, head_dim], or per-layer `<prefix>.k` and `<prefix>.v` [heads, tokens, head_dim]",
                          at(path.string()));
    std::sort(names.begin(), names.end(), naturalLess);
    data = {};
    data.source = path;
    data.kind = "safetensors";
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string &p = names[i];
        const Tensor k = st.tensor(p + ".k"), v = st.tensor(p + ".v");
        KvLayer l;
        l.layer = layerIndexOf(p, static_cast<int>(i));
        l.name = p;
        l.k = floatsOf(k);
        l.v = floatsOf(v);
        std::optional<Shape> qs;
        if (st.find(p + ".q")) {
            const Tensor q = st.tensor(p + ".q");
            l.q = floatsOf(q);
            qs = q.shape();
        }
        addLayer(data, path.string(), std::move(l), k.shape(), v.shape(), qs, opt);
    }
    data.segment = opt.segment > 0 ? opt.segment : metaSeq(st, data.tokens);
    if (!data.hasQueries())
        data.notes.push_back("no queries in the file: attention-score and output errors are omitted");
    return data;
}

} // namespace

KvData kvFromArrays(const std::string &label, const Tensor &k, const Tensor &v, const std::optional<Tensor> &q,
                    const KvLoadOptions &opt)
{
    auto rankErr = [&](const char *what, const Tensor &t) {
        if (t.rank() != 3 && t.rank() != 4)
            throw FormatError(std::string(what) + " is " + shapeToString(t.shape()) +
                                  ": expected [layers, heads, tokens, head_dim] or [heads, tokens, head_dim]",
                              at(label, what));
    };
    rankErr("k", k);
    rankErr("v", v);
    if (q)
        rankErr("q", *q);
    const std::int64_t L = k.rank() == 4 ? k.dim(0) : 1;
    if ((v.rank() == 4 ? v.dim(0) : 1) != L || (q && (q->rank() == 4 ? q->dim(0) : 1) != L))
        throw FormatError("k, v and q disagree on the number of layers (k " + shapeToString(k.shape()) + ", v " +
                              shapeToString(v.shape()) + (q ? ", q " + shapeToString(q->shape()) : std::string()) + ")",
                          at(label));
    if (L <= 0)
        throw FormatError("no layers", at(label));
    KvData data;
    data.source = label;
    for (std::int64_t i = 0; i < L; ++i) {
        KvLayer l;
        l.layer = static_cast<int>(i);
        l.name = "layer " + std::to_string(i);
        l.k = layerOf(k, i);
        l.v = layerOf(v, i);
        std::optional<Shape> qs;
        if (q) {
            l.q = layerOf(*q, i);
            qs = layerShape(*q);
        }
        addLayer(data, label, std::move(l), layerShape(k), layerShape(v), qs, opt);
    }
    data.segment = opt.segment > 0 ? opt.segment : data.tokens;
    if (!data.hasQueries())
        data.notes.push_back("no queries: attention-score and output errors are omitted");
    return data;
}

KvData loadKv(const std::filesystem::path &path, const KvLoadOptions &options)
{
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    KvData data;
    if (ext == ".npz") {
        const NpzFile z = NpzFile::open(path);
        data = fromNamedArrays(
            path, "npz",
            [&](const char *n) -> std::optional<Tensor> {
                if (z.find(n))
                    return z.tensor(n);
                return std::nullopt;
            },
            options);
        if (data.layers.empty())
            throw FormatError("no K/V arrays: the .npz needs arrays `k` and `v` (or `keys`, `values`), optionally "
                              "`q` (or `queries`), each [layers, heads, tokens, head_dim] or [heads, tokens, head_dim]",
                              at(path.string()));
        data.kind = "npz";
    } else if (ext == ".npy") {
        const Tensor t = readNpy(path);
        if (t.rank() != 5 || t.dim(0) != 2)
            throw FormatError("a K/V .npy holds one array [2, layers, heads, tokens, head_dim] (K then V); this one "
                              "is " +
                                  shapeToString(t.shape()),
                              at(path.string()));
        const Tensor c = t.contiguous();
        const Shape half(c.shape().begin() + 1, c.shape().end());
        const std::int64_t n = numelOf(half);
        std::vector<float> all(static_cast<std::size_t>(c.numel()));
        c.decodeTo(all);
        const Tensor k = Tensor::fromFloats(half, std::span<const float>(all.data(), static_cast<std::size_t>(n)));
        const Tensor v = Tensor::fromFloats(half, std::span<const float>(all.data() + n, static_cast<std::size_t>(n)));
        data = kvFromArrays(path.string(), k, v, std::nullopt, options);
        data.kind = "npy";
    } else if (ext == ".safetensors") {
        data = fromSafetensors(path, options);
    } else {
        throw FormatError("not a K/V file: the KV lab reads a capture or a .safetensors, .npz or .npy file",
                          at(path.string()));
    }
    data.source = path;
    return data;
}

} // namespace quantscope
