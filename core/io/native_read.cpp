// SPDX-License-Identifier: MIT
// Reading Quantscope's native layout back (io/native.h; docs/formats.md "Quantized tensors
// written"): the modules of `__metadata__["quantscope"]` become quantized modules with their
// scheme, and each decodes by its method's own dequantization from the stored parts.
#include <cstring>

#include "json/json_int.h"
#include "io/native.h"
#include "io/safetensors.h"
#include "io/quantized_common.h"
#include "quant/milo_math.h"
#include "util/error.h"

namespace quantscope {

namespace {

/// The native metadata of every file, merged: a sharded checkpoint lists in each shard the
/// modules stored there. A file of another version makes the merged version that one (refused
/// on reading with the advice to save again).
nlohmann::json nativeMeta(const Checkpoint &ck)
{
    const std::string first = ck.metadataValue("quantscope");
    if (first.empty())
        return nullptr;
    std::vector<std::string> texts{first};
    if (ck.sharded()) { // each shard's own list (the Checkpoint keeps the first value only)
        texts.clear();
        for (const auto &f : ck.files()) {
            try {
                if (const SafetensorsFile sf = SafetensorsFile::open(f); sf.metadata().count("quantscope"))
                    texts.push_back(sf.metadata().at("quantscope"));
            } catch (const Error &) {
                // opened already by the Checkpoint (under its options); a header this strict
                // open refuses lists no modules, and their parts stay unexplained
            }
        }
    }
    nlohmann::json merged;
    for (const std::string &text : texts) {
        nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("format") || j["format"] != "quantscope-native")
            continue;
        if (merged.is_null()) {
            merged = j;
            if (!merged.contains("modules") || !merged["modules"].is_object())
                merged["modules"] = nlohmann::json::object();
            continue;
        }
        if (j.value("version", nlohmann::json(0)) != merged.value("version", nlohmann::json(0)))
            merged["version"] = j.value("version", nlohmann::json(0));
        if (j.contains("modules") && j["modules"].is_object())
            for (const auto &[module, m] : j["modules"].items())
                merged["modules"][module] = m;
    }
    return merged;
}

[[noreturn]] void fail(const Checkpoint &ck, const std::string &module, const std::string &why)
{
    throw FormatError("native module " + module + ": " + why, Location{ck.path().string(), module, {}});
}

const nlohmann::json &moduleMeta(const Checkpoint &ck, const nlohmann::json &meta, const std::string &module)
{
    if (meta.is_null())
        fail(ck, module, "the file has no quantscope-native metadata");
    const nlohmann::json version = meta.contains("version") ? meta["version"] : nlohmann::json(0);
    if (!version.is_number_integer() || version != kNativeVersion)
        fail(ck, module,
             "layout version " + version.dump() + " (this build reads " + std::to_string(kNativeVersion) +
                 "; quantize --save it again)");
    if (!meta.contains("modules") || !meta["modules"].is_object() || !meta["modules"].contains(module))
        fail(ck, module, "not listed in the metadata");
    return meta["modules"][module];
}

Granularity granularityOf(const Checkpoint &ck, const std::string &module, const std::string &s)
{
    for (Granularity g : {Granularity::Tensor, Granularity::Channel, Granularity::Group, Granularity::Block})
        if (toString(g) == s)
            return g;
    fail(ck, module, "unknown granularity '" + s + "'");
}

GroupLayout layoutOf(const Checkpoint &ck, const std::string &module, const nlohmann::json &j)
{
    if (!j.is_object())
        fail(ck, module, "no layout in the metadata");
    GroupLayout L;
    L.granularity = granularityOf(ck, module, j.at("granularity").get<std::string>());
    L.rows = jsonInteger<std::int64_t>(j.at("rows"), "rows");
    L.cols = jsonInteger<std::int64_t>(j.at("cols"), "cols");
    L.group = jsonInteger<std::int64_t>(j.at("group"), "group");
    L.block = jsonInteger<std::int64_t>(j.at("block"), "block");
    L.axis = jsonInteger<int>(j.at("axis"), "axis");
    L.gridRows = jsonInteger<std::int64_t>(j.at("grid").at(0), "grid");
    L.gridCols = jsonInteger<std::int64_t>(j.at("grid").at(1), "grid");
    L.ragged = j.at("ragged").get<bool>();
    return L;
}

DType dtypeOf(const Checkpoint &ck, const std::string &module, const nlohmann::json &m, const char *key)
{
    const std::string s = m.at(key).get<std::string>();
    for (DType d : {DType::I8, DType::U8, DType::F8_E4M3, DType::F8_E5M2, DType::F4, DType::F32, DType::F16,
                    DType::BF16, DType::F8_E8M0})
        if (nameOf(d) == s)
            return d;
    fail(ck, module, std::string(key) + " '" + s + "' is not a dtype of the native layout");
}

Tensor part(const Checkpoint &ck, const std::string &module, const std::string &suffix, std::int64_t numel)
{
    const std::string name = module + suffix;
    if (!ck.find(name))
        fail(ck, module, "the part " + name + " is missing");
    Tensor t = ck.tensor(name);
    if (numel >= 0 && t.numel() != numel)
        fail(ck, module,
             name + " holds " + std::to_string(t.numel()) + " elements, " + std::to_string(numel) + " expected");
    return t;
}

std::vector<float> floats(const Tensor &t)
{
    std::vector<float> v(static_cast<std::size_t>(t.numel()));
    t.decodeTo(v);
    return v;
}

std::vector<std::int8_t> int8s(const Tensor &t)
{
    std::vector<std::int8_t> v(static_cast<std::size_t>(t.numel()));
    if (!v.empty())
        std::memcpy(v.data(), t.data(), v.size());
    return v;
}

CompensatorFactor factorOf(const Checkpoint &ck, const std::string &module, const nlohmann::json &j,
                           const std::string &suffix)
{
    CompensatorFactor f;
    f.rows = jsonInteger<std::int64_t>(j.at("rows"), "rows");
    f.cols = jsonInteger<std::int64_t>(j.at("cols"), "cols");
    f.format = j.at("format").get<std::string>();
    f.codeBits = jsonInteger<int>(j.at("code_bits"), "code_bits");
    f.group = jsonInteger<std::int64_t>(j.at("group"), "group");
    const Tensor t = part(ck, module, suffix, f.rows * f.cols);
    if (f.format == "fp16") {
        f.values = floats(t);
        return f;
    }
    const int kind = f.format == "int8"             ? milomath::kCompInt8
                     : f.format == "int3"           ? milomath::kCompInt3
                     : f.format == "milo-code-int3" ? milomath::kCompMiloCodeInt3
                                                    : -1;
    if (kind < 0 || f.group < 1)
        fail(ck, module, "compensator format '" + f.format + "' with group " + std::to_string(f.group));
    f.scaleDtype = dtypeOf(ck, module, j, "scale_dtype");
    f.codes = int8s(t);
    const std::int64_t n = f.rows * f.cols;
    f.scales = floats(part(ck, module, suffix + "_scale", (n + f.group - 1) / f.group));
    f.values.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        f.values[static_cast<std::size_t>(i)] = milomath::compensatorValue(
            kind, f.codes[static_cast<std::size_t>(i)], f.scales[static_cast<std::size_t>(i / f.group)]);
    return f;
}

/// The scheme shown by `info` (QuantScheme, the fields the toolkit readers fill).
QuantScheme schemeOf(const QuantizedTensor &q)
{
    QuantScheme s;
    s.method = q.method;
    s.bits = q.codeBits;
    s.scaleDtype = q.scaleDtype;
    s.scaleIsE8m0 = q.scaleDtype == DType::F8_E8M0;
    s.granularity = q.layout.granularity;
    s.groupSize = q.layout.group;
    s.blockRows = s.blockCols = q.layout.block;
    const bool packed = q.codeBits <= 4;
    if (q.codeDtype == DType::F4) {
        s.isFloat = true;
        s.element = "fp4_e2m1";
        s.packOrder = PackOrder::Fp4LowNibbleFirst;
    } else if (q.codeDtype == DType::F8_E4M3 || q.codeDtype == DType::F8_E5M2) {
        s.isFloat = true;
        s.element = q.codeDtype == DType::F8_E4M3 ? "fp8_e4m3" : "fp8_e5m2";
    } else {
        const bool u = q.codeDtype == DType::U8;
        s.element = (u ? "uint" : "int") + std::to_string(q.codeBits);
        s.symmetric = !u && q.zeros.empty();
        s.packOrder = packed ? PackOrder::NativeLowNibbleFirst : PackOrder::None;
    }
    s.globalScale = q.method == "nvfp4" || (q.method == "gptq" && q.spec.value("target", "") == "nvfp4");
    s.twoStage = q.method == "progressive";
    if (!q.zeroPoints.empty())
        s.notes.push_back(std::string("float zero points (") + std::string(nameOf(q.zeroPointDtype)) + ")");
    if (q.compU && q.rank > 0)
        s.notes.push_back("rank-" + std::to_string(q.rank) + " compensator U·V (" + q.compU->format + ")");
    return s;
}

} // namespace

bool isNativeCheckpoint(const Checkpoint &ck)
{
    return !nativeMeta(ck).is_null();
}

/// A layout read from the metadata must describe rows × cols = numel without overflow, and (when
/// the dequantizer indexes scales through it: every method but HQQ / MiLo, whose own grouping
/// is checked by their dequantizer) have exactly the scale grid its granularity and group give. A fuzzed
/// file reached out-of-bounds reads without this (docs/reliability.md).
void checkLayout(const Checkpoint &ck, const std::string &module, const GroupLayout &L, std::int64_t numel,
                 const std::string &what, bool indexed)
{
    std::int64_t cells = 0, groups = 0;
    if (L.rows < 0 || L.cols < 0 || L.gridRows < 1 || L.gridCols < 1 ||
        __builtin_mul_overflow(L.rows, L.cols, &cells) || __builtin_mul_overflow(L.gridRows, L.gridCols, &groups) ||
        cells != numel)
        fail(ck, module,
             what + " " + std::to_string(L.rows) + "x" + std::to_string(L.cols) + " (grid " +
                 std::to_string(L.gridRows) + "x" + std::to_string(L.gridCols) + ") does not describe the tensor's " +
                 std::to_string(numel) + " elements");
    if (!indexed || cells == 0)
        return;
    // The grid the layout's own parameters give (makeLayout's rule), exactly.
    bool ok = true;
    switch (L.granularity) {
    case Granularity::Tensor:
        ok = groups == 1;
        break;
    case Granularity::Channel:
        ok = (L.axis == 0 && groups == L.rows) || (L.axis == 1 && groups == L.cols);
        break;
    case Granularity::Group:
        ok = L.group >= 1 && L.gridRows == L.rows && L.gridCols == (L.cols + L.group - 1) / L.group;
        break;
    case Granularity::Block:
        ok = L.block >= 1 && L.gridRows == (L.rows + L.block - 1) / L.block &&
             L.gridCols == (L.cols + L.block - 1) / L.block;
        break;
    }
    if (!ok)
        fail(ck, module,
             what + ": its groups do not fit its scale grid of " + std::to_string(L.gridRows) + "x" +
                 std::to_string(L.gridCols));
}

/// What the dequantizer of the stored spec reads besides the codes and scales must be there.
void checkParts(const Checkpoint &ck, const std::string &module, const QuantizedTensor &q)
{
    if (!q.spec.is_object() || !q.spec.contains("method") || q.spec["method"] != q.method)
        fail(ck, module, "the spec's method is not the module's method '" + q.method + "'");
    if ((q.method == "progressive" || q.method == "nvfp4" ||
         (q.method == "gptq" && q.spec.value("target", "") == "nvfp4")) &&
        q.outerScales.empty())
        fail(ck, module, q.method + " without its outer scales (outer_layout)");
    if (q.method == "milo" && (q.compU || q.compV || q.rank > 0)) {
        const std::int64_t N = matrixView(q.shape).first, K = matrixView(q.shape).second;
        const auto fits = [](const std::optional<CompensatorFactor> &f, std::int64_t r, std::int64_t c) {
            return f && f->rows == r && f->cols == c && static_cast<std::int64_t>(f->values.size()) == r * c;
        };
        if (q.rank < 1 || !fits(q.compU, N, q.rank) || !fits(q.compV, q.rank, K))
            fail(ck, module,
                 "the compensators are not U [" + std::to_string(N) + ", rank] and V [rank, " + std::to_string(K) +
                     "] of rank " + std::to_string(q.rank));
    }
}

QuantizedTensor readNative(const Checkpoint &ck, const std::string &module)
{
    const nlohmann::json meta = nativeMeta(ck);
    const nlohmann::json &m = moduleMeta(ck, meta, module);
    try {
        QuantizedTensor q;
        q.method = m.at("method").get<std::string>();
        q.spec = m.at("spec");
        q.tensorName = module + ".weight";
        q.shape = jsonIntegers<std::int64_t>(m.at("shape"), "shape");
        const auto src = dtypeFromSafetensors(m.at("source_dtype").get<std::string>());
        if (!src)
            fail(ck, module, "source_dtype '" + m.at("source_dtype").get<std::string>() + "'");
        q.sourceDtype = *src;
        q.layout = layoutOf(ck, module, m.value("layout", nlohmann::json()));
        q.codeDtype = dtypeOf(ck, module, m, "code_dtype");
        q.codeBits = jsonInteger<int>(m.at("code_bits"), "code_bits");
        q.nonFiniteGroups =
            m.contains("nonfinite_groups") ? jsonInteger<std::int64_t>(m["nonfinite_groups"], "nonfinite_groups") : 0;
        const std::int64_t rows = q.layout.rows, cols = q.layout.cols;
        checkLayout(ck, module, q.layout, numelOf(q.shape), "layout", q.method != "hqq" && q.method != "milo");
        if (rows * cols != numelOf(q.shape))
            fail(ck, module,
                 "the layout " + std::to_string(rows) + "x" + std::to_string(cols) + " does not cover the shape " +
                     quantized_detail::shapeList(q.shape));
        // Codes: nibble pairs (element 2k low) sign-extended for INT, raw for UINT / FP4.
        const std::string codes = m.at("codes").get<std::string>();
        q.codes.resize(static_cast<std::size_t>(rows * cols));
        if (codes.ends_with("x2-low-nibble-first")) {
            const std::int64_t pc = (cols + 1) / 2;
            const Tensor t = part(ck, module, ".qs_codes", rows * pc);
            const bool sgn = codes.starts_with("int4");
            for (std::int64_t r = 0; r < rows; ++r)
                for (std::int64_t c = 0; c < cols; ++c) {
                    const auto b = std::to_integer<std::uint8_t>(t.data()[r * pc + c / 2]);
                    std::uint8_t nib = c % 2 ? b >> 4 : b & 0x0F;
                    if (sgn && (nib & 0x08))
                        nib = static_cast<std::uint8_t>(nib | 0xF0); // two's complement int8
                    q.codes[static_cast<std::size_t>(r * cols + c)] = nib;
                }
        } else {
            const Tensor t = part(ck, module, ".qs_codes", rows * cols);
            if (t.dtype() != q.codeDtype)
                fail(ck, module,
                     "qs_codes is " + std::string(nameOf(t.dtype())) + ", the metadata says " +
                         std::string(nameOf(q.codeDtype)));
            if (!q.codes.empty())
                std::memcpy(q.codes.data(), t.data(), q.codes.size());
        }
        const std::int64_t G = q.layout.groupCount();
        q.scaleDtype = dtypeOf(ck, module, m, "scale_dtype");
        q.scales = floats(part(ck, module, ".qs_scale", G));
        if (ck.find(module + ".qs_zero"))
            q.zeros = int8s(part(ck, module, ".qs_zero", G));
        if (ck.find(module + ".qs_zero_point")) {
            q.zeroPointDtype = dtypeOf(ck, module, m, "zero_point_dtype");
            q.zeroPoints = floats(part(ck, module, ".qs_zero_point", G));
        }
        if (m.contains("outer_layout")) {
            q.outerLayout = layoutOf(ck, module, m["outer_layout"]);
            checkLayout(ck, module, q.outerLayout, numelOf(q.shape), "outer_layout", true);
            q.outerScaleDtype = dtypeOf(ck, module, m, "outer_scale_dtype");
            const std::int64_t OG = q.outerLayout.groupCount();
            const bool global = q.outerLayout.granularity == Granularity::Tensor;
            q.outerScales = floats(part(ck, module, global ? ".qs_global" : ".qs_outer_scale", OG));
            if (ck.find(module + ".qs_outer_zero"))
                q.outerZeros = int8s(part(ck, module, ".qs_outer_zero", OG));
        }
        if (m.contains("compensator")) {
            const auto &c = m["compensator"];
            q.rank = jsonInteger<int>(c.at("rank"), "rank");
            q.requestedRank =
                c.contains("requested_rank") ? jsonInteger<int>(c["requested_rank"], "requested_rank") : q.rank;
            q.compU = factorOf(ck, module, c.at("u"), ".milo_U");
            q.compV = factorOf(ck, module, c.at("v"), ".milo_V");
        }
        q.chosenPass = m.contains("chosen_pass") ? jsonInteger<int>(m["chosen_pass"], "chosen_pass") : -1;
        if (m.contains("report"))
            q.report = m["report"];
        checkParts(ck, module, q);
        return q;
    } catch (const nlohmann::json::exception &e) {
        fail(ck, module, std::string("bad metadata: ") + e.what());
    } catch (const JsonIntegerError &e) {
        fail(ck, module, std::string("bad metadata: ") + e.what());
    }
}

void detectNativeModules(const Checkpoint &ck, Detection &det, bool strict)
{
    const nlohmann::json meta = nativeMeta(ck);
    if (meta.is_null() || !meta.contains("modules") || !meta["modules"].is_object())
        return;
    for (const auto &[module, mj] : meta["modules"].items()) {
        try {
            const QuantizedTensor q = readNative(ck, module);
            QuantizedModule m;
            m.module = module;
            m.name = module + ".weight";
            m.format = QuantFormat::QuantscopeNative;
            m.scheme = schemeOf(q);
            m.shape = q.shape;
            m.rows = q.layout.rows;
            m.cols = q.layout.cols;
            m.gridRows = q.layout.gridRows;
            m.gridCols = q.layout.gridCols;
            for (const char *sfx : {"qs_codes", "qs_scale", "qs_zero", "qs_zero_point", "qs_global", "qs_outer_scale",
                                    "qs_outer_zero", "milo_U", "milo_U_scale", "milo_V", "milo_V_scale"}) {
                const std::string name = module + "." + sfx;
                if (ck.find(name)) // roles as the readers name them: "codes", "scale", …
                    m.parts[std::string(sfx).starts_with("qs_") ? std::string(sfx).substr(3) : std::string(sfx)] = name;
            }
            quantized_detail::countHealth(m.scaleHealth, q.scales);
            det.modules.push_back(std::move(m));
        } catch (const FormatError &e) {
            if (strict)
                throw;
            det.problems.push_back({module, e.what()});
        }
    }
}

Tensor decodeNative(const Checkpoint &ck, const QuantizedModule &m)
{
    const QuantizedTensor q = readNative(ck, m.module);
    Tensor out = Tensor::zeros(DType::F32, q.shape);
    auto *o = reinterpret_cast<float *>(out.mutableData());
    makeQuantizer(q.spec)->dequantize(q, std::span<float>(o, static_cast<std::size_t>(out.numel())));
    return out;
}

Tensor nativeCodes(const Checkpoint &ck, const QuantizedModule &m)
{
    const QuantizedTensor q = readNative(ck, m.module);
    if (q.codeDtype == DType::F4 || q.codeDtype == DType::F8_E4M3 || q.codeDtype == DType::F8_E5M2) {
        if (q.codeDtype != DType::F4) {
            std::vector<std::byte> b(q.codes.size());
            if (!b.empty())
                std::memcpy(b.data(), q.codes.data(), b.size());
            return Tensor::fromBytes(q.codeDtype, q.shape, std::move(b));
        }
        // F4: pairs, element 2k in the low nibble (the DType's own packing).
        std::vector<std::byte> b((q.codes.size() + 1) / 2);
        for (std::size_t i = 0; i < q.codes.size(); ++i)
            b[i / 2] |= std::byte{static_cast<std::uint8_t>((q.codes[i] & 0x0F) << (i % 2 ? 4 : 0))};
        return Tensor::fromBytes(DType::F4, q.shape, std::move(b));
    }
    std::vector<std::byte> b(q.codes.size() * 4);
    for (std::size_t i = 0; i < q.codes.size(); ++i) {
        const std::int32_t v = q.codeDtype == DType::U8
                                   ? static_cast<std::int32_t>(q.codes[i])
                                   : static_cast<std::int32_t>(static_cast<std::int8_t>(q.codes[i]));
        std::memcpy(b.data() + 4 * i, &v, 4);
    }
    return Tensor::fromBytes(DType::I32, q.shape, std::move(b));
}

QuantParams nativeParams(const Checkpoint &ck, const QuantizedModule &m)
{
    const QuantizedTensor q = readNative(ck, m.module);
    QuantParams p;
    p.scales = q.scales;
    if (!q.zeroPoints.empty())
        p.zeroPoints = q.zeroPoints;
    else
        for (std::int8_t z : q.zeros)
            p.zeroPoints.push_back(static_cast<float>(z));
    if (q.outerScales.size() == 1)
        p.outer = q.method == "nvfp4" || (q.method == "gptq" && q.spec.value("target", "") == "nvfp4")
                      ? 1.0f / q.outerScales[0] // NVFP4's global scale divides
                      : q.outerScales[0];
    return p;
}

} // namespace quantscope
