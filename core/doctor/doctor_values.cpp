// SPDX-License-Identifier: MIT
// The doctor's value passes (doctor.h): scale health, dtype traps, KV-cache and activation scales,
// duplicated tensors, and the quantized modules as the strict reader sees them.
#include "doctor/doctor.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "io/checkpoint.h"
#include "io/mapped_file.h"
#include "io/quantized.h"
#include "recipe/recipe_check.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"
#include "util/error.h"
#include "util/hash.h"

namespace quantscope::doctor {

namespace {

void add(DoctorReport &r, Severity s, const char *check, const std::string &tensor, const std::string &file,
         std::optional<std::uint64_t> offset, std::string message)
{
    Finding f;
    f.severity = s;
    f.check = check;
    f.module = moduleOf(tensor);
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

bool endsWith(const std::string &s, const std::string &t)
{
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

bool isActivationScale(const std::string &name)
{
    const std::string p = lastPart(name);
    return p == "k_scale" || p == "v_scale" || p == "kv_scale" || p == "input_scale" || p == "output_scale";
}

bool isScale(const std::string &name)
{
    return lastPart(name).find("scale") != std::string::npos;
}

std::string fmt(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}

/// The reader's verdict on `ck`: its warnings, the modules it refuses, the scale health and
/// schemes of those it reads. `shown` is the path findings name (the checkpoint as given).
void readerVerdict(const Checkpoint &ck, const std::string &shown, const nlohmann::json &config, DoctorReport &r)
{
    for (const auto &w : ck.warnings())
        add(r, Severity::Warning, "quantized", {}, shown, std::nullopt, w);
    DetectOptions d;
    d.strict = false;
    const Detection det = detectQuantized(ck, d);
    for (const auto &pr : det.problems)
        add(r, Severity::Error, "quantized", pr.module + ".weight", {}, std::nullopt, pr.message);
    for (const auto &m : det.modules) {
        // Layout facts the reader handled (padding, defaults) are info; a module the config
        // ignores or excludes but that is stored quantized is a contradiction (warning).
        for (const auto &w : m.warnings)
            add(r, w.find("excludes/ignores") != std::string::npos ? Severity::Warning : Severity::Info, "quantized",
                m.name, {}, std::nullopt, w);
        if (m.scaleHealth.nan || m.scaleHealth.inf || m.scaleHealth.zero)
            add(r, Severity::Error, "scale-health", m.name, {}, std::nullopt,
                std::to_string(m.scaleHealth.nan) + " NaN, " + std::to_string(m.scaleHealth.inf) + " Inf and " +
                    std::to_string(m.scaleHealth.zero) + " zero scales of " + std::to_string(m.scaleHealth.total) +
                    " in this quantized module");
    }
    // Fusion groups (q/k/v of one attention, gate/up of one MLP, the experts of one layer)
    // whose members are stored with different schemes: serving engines fuse them into one GEMM.
    std::map<std::string, std::vector<const QuantizedModule *>> groups;
    for (const auto &m : det.modules)
        if (const std::string g = fusionGroupOf(m.module); !g.empty())
            groups[g].push_back(&m);
    for (const auto &[g, members] : groups)
        for (const QuantizedModule *m : members)
            if (m->scheme.toJson().dump() != members.front()->scheme.toJson().dump()) {
                add(r, Severity::Error, "fused", m->name, {}, std::nullopt,
                    m->module + " is stored as " + m->scheme.text() + " but " + members.front()->module +
                        " of the same fused group " + g + " as " + members.front()->scheme.text() +
                        ": vLLM fuses them into one GEMM with one scheme and refuses (or misreads) the mix");
                break;
            }
    const bool declared = config.is_object() && config.contains("quantization_config");
    if (declared && det.modules.empty() && det.problems.empty())
        add(r, Severity::Warning, "quantized", {}, shown, std::nullopt,
            "config.json declares a quantization_config but no tensor is stored quantized");
    if (!declared && !det.modules.empty())
        add(r, Severity::Info, "quantized", {}, shown, std::nullopt,
            std::to_string(det.modules.size()) +
                " quantized modules without a quantization_config: their layout was inferred from the tensors");
}

/// A folder in the temporary directory, removed with its files when this goes out of scope.
struct ScratchDir {
    std::filesystem::path dir;
    ScratchDir()
    {
        std::random_device rd;
        const auto base = std::filesystem::temp_directory_path();
        for (int k = 0; k < 16 && dir.empty(); ++k) {
            char name[48];
            std::snprintf(name, sizeof name, "quantscope-doctor-%08x%08x", rd(), rd());
            std::error_code ec;
            if (std::filesystem::create_directory(base / name, ec))
                dir = base / name;
        }
        if (dir.empty())
            throw IoError("cannot create a scratch folder", Location{base.string(), {}, {}});
    }
    ~ScratchDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    ScratchDir(const ScratchDir &) = delete;
    ScratchDir &operator=(const ScratchDir &) = delete;
};

/// Every occurrence of `from` in `s` replaced by `to`.
std::string replaceAll(std::string s, const std::string &from, const std::string &to)
{
    if (from.empty())
        return s;
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

/// Whether a tensor's last name part is a companion that only quantized modules have.
bool quantizedPart(const std::string &part)
{
    return part == "weight_packed" || part == "weight_scale" || part == "weight_scale_inv" ||
           part == "weight_zero_point" || part == "weight_global_scale" || part == "weight_shape" ||
           part == "weight_g_idx" || part.rfind("weight_scale_", 0) == 0 || part.rfind("weight_zero_point_", 0) == 0;
}

} // namespace

void checkValues(const std::vector<Shard> &shards, const nlohmann::json &, const DoctorOptions &o, DoctorReport &r,
                 const CancelToken *cancel)
{
    struct ActScale {
        std::string tensor, file;
        std::uint64_t offset;
        double value;
    };
    std::map<std::string, std::vector<ActScale>> actScales; // kind → per layer
    struct Seen {
        std::string name;
        const std::byte *data;
        std::uint64_t n;
    };
    std::map<std::tuple<std::string, std::vector<std::int64_t>, std::uint64_t>, std::vector<Seen>> byHash;
    std::vector<std::shared_ptr<const MappedFile>> keep;
    for (const Shard &sh : shards) {
        if (!sh.readable)
            continue;
        std::shared_ptr<const MappedFile> mf;
        try {
            mf = MappedFile::open(sh.file);
        } catch (const std::exception &e) {
            add(r, Severity::Error, "completeness", {}, sh.file.string(), std::nullopt,
                std::string("cannot be mapped: ") + e.what());
            continue;
        }
        keep.push_back(mf);
        for (const HeaderTensor &t : sh.tensors) {
            if (cancel)
                cancel->check();
            if (!t.valid || t.fileOffset + (t.end - t.begin) > mf->size())
                continue;
            const DType dt = *dtypeFromSafetensors(t.dtype);
            const std::byte *p = mf->data() + t.fileOffset;
            const std::uint64_t nb = t.end - t.begin;
            const std::string file = sh.file.string();
            // Duplicates (info): same dtype, shape and bytes.
            if (nb >= 64) {
                const std::uint64_t h =
                    fnv1a64(p, static_cast<std::size_t>(std::min<std::uint64_t>(nb, o.maxValueBytes)));
                auto &list = byHash[{t.dtype, t.shape, h}];
                for (const Seen &s : list)
                    if (s.n == nb && std::memcmp(s.data, p, static_cast<std::size_t>(nb)) == 0) {
                        add(r, Severity::Info, "duplicates", t.name, file, t.fileOffset,
                            "the same bytes as '" + s.name + "' (tied or duplicated weights)");
                        break;
                    }
                list.push_back({t.name, p, nb});
            }
            // FP8 E4M3 codes: 0x7F/0xFF are e4m3fn's NaN; many 0x80 (−0 in e4m3fn, NaN in e4m3fnuz)
            // or no |value| above 240 (e4m3fnuz's max) hint at the other variant.
            if (dt == DType::F8_E4M3 && nb > 0) {
                std::uint64_t nan = 0, negZero = 0, above240 = 0;
                const std::uint64_t n = std::min(nb, o.maxValueBytes);
                for (std::uint64_t i = 0; i < n; ++i) {
                    const auto c = static_cast<std::uint8_t>(p[i]);
                    nan += (c & 0x7F) == 0x7F;
                    negZero += c == 0x80;
                    above240 += (c & 0x7F) > 0x77; // |v| > 240
                }
                if (nan)
                    add(r, Severity::Error, "dtype", t.name, file, t.fileOffset,
                        std::to_string(nan) + " NaN codes (0x7F/0xFF) in an F8_E4M3 (e4m3fn) tensor");
                if (n >= 1024 && negZero * 100 > n && above240 == 0)
                    add(r, Severity::Warning, "dtype", t.name, file, t.fileOffset,
                        fmt(100.0 * static_cast<double>(negZero) / static_cast<double>(n)) +
                            " % of the codes are 0x80 and none exceeds 240: written as e4m3fnuz (where 0x80 is NaN) "
                            "but labelled F8_E4M3 (e4m3fn)?");
            }
            if (!isDecodable(dt) || (dt != DType::F16 && dt != DType::BF16 && dt != DType::F32 && dt != DType::F64 &&
                                     dt != DType::F8_E4M3 && dt != DType::F8_E8M0 && dt != DType::U8))
                continue;
            if (dt == DType::U8 && !isScale(t.name))
                continue;
            std::int64_t numel = 1;
            for (auto d : t.shape)
                numel *= d;
            const std::uint64_t cap = std::max<std::uint64_t>(1, o.maxValueBytes / std::max(1, bitsOf(dt) / 8));
            const std::int64_t take = std::min<std::int64_t>(numel, static_cast<std::int64_t>(cap));
            if (take <= 0)
                continue;
            std::vector<float> v(static_cast<std::size_t>(take));
            Tensor::borrow(dt, {take}, p, mf).decodeTo(v);
            if (isScale(t.name)) {
                std::int64_t nan = 0, inf = 0, zero = 0, sub = 0;
                for (float x : v) {
                    nan += std::isnan(x);
                    inf += std::isinf(x);
                    zero += x == 0.0f;
                    sub += x != 0.0f && std::fabs(x) < FLT_MIN;
                }
                const bool e8m0 = dt == DType::F8_E8M0 || dt == DType::U8;
                if (nan || inf)
                    add(r, Severity::Error, "scale-health", t.name, file, t.fileOffset,
                        std::to_string(nan) + " NaN and " + std::to_string(inf) + " Inf scales of " +
                            std::to_string(take) + (e8m0 ? " (E8M0 0xFF is NaN)" : "") +
                            ": every weight they scale decodes to NaN/Inf");
                if (zero)
                    add(r, Severity::Error, "scale-health", t.name, file, t.fileOffset,
                        std::to_string(zero) + " zero scales of " + std::to_string(take) +
                            ": their groups decode to 0 (or divide by zero where the scale is inverted)");
                if (sub)
                    add(r, Severity::Warning, "scale-health", t.name, file, t.fileOffset,
                        std::to_string(sub) + " subnormal scales: they flush to 0 on hardware that flushes denormals");
                if (dt == DType::F32 || dt == DType::F16 || dt == DType::BF16) {
                    // Values the usual FP8 scale dtype (E4M3 for NVFP4 block scales) cannot hold.
                    std::int64_t over = 0;
                    for (float x : v)
                        over += std::isfinite(x) && std::fabs(x) > 448.0f && endsWith(t.name, "weight_scale") &&
                                t.dtype != "F32";
                    if (over)
                        add(r, Severity::Warning, "scale-health", t.name, file, t.fileOffset,
                            std::to_string(over) + " scales above 448 cannot be cast to E4M3 (they become NaN)");
                }
                if (isActivationScale(t.name) && take == 1)
                    actScales[lastPart(t.name)].push_back({t.name, file, t.fileOffset, v[0]});
                continue;
            }
            // BF16 / F16 mislabels from the exponents: an F16 weight whose magnitudes sit almost
            // all in [0.5, 4) is BF16's bit pattern (sign, 0x3C-ish high byte) read as F16; a BF16
            // weight whose median magnitude is below 1e-10 is F16's read as BF16.
            if ((dt == DType::F16 || dt == DType::BF16) && take >= 4096 && lastPart(t.name) == "weight") {
                std::vector<float> a;
                a.reserve(v.size());
                std::int64_t mid = 0;
                for (float x : v)
                    if (std::isfinite(x) && x != 0.0f) {
                        a.push_back(std::fabs(x));
                        mid += std::fabs(x) >= 0.5f && std::fabs(x) < 4.0f;
                    }
                if (a.size() >= 1024) {
                    std::nth_element(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(a.size() / 2), a.end());
                    const float med = a[a.size() / 2];
                    const bool norm = t.name.find("norm") != std::string::npos;
                    if (dt == DType::F16 && !norm && mid * 100 > static_cast<std::int64_t>(a.size()) * 95)
                        add(r, Severity::Warning, "dtype", t.name, file, t.fileOffset,
                            "95 % of the values lie in [0.5, 4): BF16 bits labelled F16? (median |x| " + fmt(med) +
                                ")");
                    if (dt == DType::BF16 && med < 1e-10f)
                        add(r, Severity::Warning, "dtype", t.name, file, t.fileOffset,
                            "median |x| is " + fmt(med) + ": F16 bits labelled BF16?");
                }
            }
        }
    }
    for (const auto &[kind, list] : actScales) {
        std::size_t ones = 0;
        std::vector<double> vals;
        for (const auto &a : list) {
            ones += a.value == 1.0;
            vals.push_back(std::fabs(a.value));
        }
        if (ones == list.size())
            add(r, Severity::Info, "kv-scales", list.front().tensor, list.front().file, list.front().offset,
                "every " + kind + " (" + std::to_string(list.size()) + ") is 1.0: a placeholder, not calibrated?");
        if (vals.size() >= 4) {
            std::nth_element(vals.begin(), vals.begin() + static_cast<std::ptrdiff_t>(vals.size() / 2), vals.end());
            const double med = vals[vals.size() / 2];
            for (const auto &a : list)
                if (med > 0 && std::fabs(a.value) > 10.0 * med)
                    add(r, Severity::Warning, "kv-scales", a.tensor, a.file, a.offset,
                        kind + " " + fmt(a.value) + " is more than 10× the median of the layers (" + fmt(med) + ")");
        }
    }
}

void checkQuantized(const std::filesystem::path &path, const std::vector<Shard> &shards, const nlohmann::json &config,
                    DoctorReport &r)
{
    // Companions the toolkits always write next to a packed weight.
    std::map<std::string, std::map<std::string, std::string>> parts; // module → last part → file
    for (const Shard &sh : shards)
        for (const HeaderTensor &t : sh.tensors)
            parts[moduleOf(t.name)][lastPart(t.name)] = sh.file.string();
    for (const auto &entry : parts) {
        // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const std::string &module = entry.first;
        const auto &p = entry.second;
        auto has = [&](const char *s) { return p.count(s) != 0; };
        const std::string file = p.begin()->second;
        if (has("weight_packed") && !has("weight_scale"))
            add(r, Severity::Error, "quantized", module + ".weight_packed", file, std::nullopt,
                "a packed weight without weight_scale: it cannot be decoded");
        if (has("weight_packed") && !has("weight_shape") && !has("weight_global_scale"))
            add(r, Severity::Info, "quantized", module + ".weight_packed", file, std::nullopt,
                "a packed weight without weight_shape: the unpacked width is inferred from the config or the words");
        if (has("weight_scale") && !has("weight") && !has("weight_packed"))
            add(r, Severity::Error, "quantized", module + ".weight_scale", file, std::nullopt,
                "a weight scale without its weight");
        if (has("weight_zero_point") && !has("weight_scale"))
            add(r, Severity::Error, "quantized", module + ".weight_zero_point", file, std::nullopt,
                "a zero point without its scale");
    }
    // The strict reader's verdict per module (non-strict detection: every module's problem).
    bool anyBroken = false;
    for (const auto &f : r.findings)
        anyBroken |= f.severity == Severity::Error && f.check == "completeness";
    const std::string shown = path.string();
    if (!anyBroken) {
        try {
            readerVerdict(Checkpoint::open(path, ReadOptions{}), shown, config, r);
        } catch (const std::exception &e) {
            add(r, Severity::Error, "quantized", {}, shown, std::nullopt,
                std::string("the reader refuses the checkpoint: ") + e.what());
        }
        return;
    }
    // The reader refuses files with completeness errors whole (their findings say why). So that
    // one run still lists every module's problem, the verdict runs on a salvaged copy: the valid
    // tensors of the modules that look quantized (first copy of each name), in one scratch file
    // with the config beside it. Bounded: past kSalvageBytes the rest is said in one finding.
    constexpr std::uint64_t kSalvageBytes = 256ull << 20;
    std::set<std::string> quantizedModules;
    for (const Shard &sh : shards)
        for (const HeaderTensor &t : sh.tensors)
            if (quantizedPart(lastPart(t.name)))
                quantizedModules.insert(moduleOf(t.name));
    if (quantizedModules.empty())
        return;
    struct Pick {
        const Shard *shard;
        const HeaderTensor *t;
    };
    std::vector<Pick> picks;
    std::set<std::string> taken, skipped;
    std::uint64_t bytes = 0;
    for (const Shard &sh : shards)
        for (const HeaderTensor &t : sh.tensors) {
            if (!t.valid || !quantizedModules.count(moduleOf(t.name)) || !taken.insert(t.name).second)
                continue;
            if (bytes + (t.end - t.begin) > kSalvageBytes) {
                skipped.insert(moduleOf(t.name));
                continue;
            }
            bytes += t.end - t.begin;
            picks.push_back({&sh, &t});
        }
    std::erase_if(picks, [&](const Pick &p) { return skipped.count(moduleOf(p.t->name)) != 0; });
    if (!skipped.empty())
        add(r, Severity::Info, "quantized", {}, shown, std::nullopt,
            std::to_string(skipped.size()) + " quantized modules were not given to the reader (more than " +
                std::to_string(kSalvageBytes >> 20) +
                " MiB of valid tensors to salvage); fix the completeness "
                "errors and run again for their verdict");
    if (picks.empty())
        return;
    try {
        ScratchDir scratch;
        nlohmann::json header = nlohmann::json::object();
        std::map<std::string, std::string> meta;
        for (const Shard &sh : shards)
            for (const auto &[k, v] : sh.metadata)
                meta.emplace(k, v);
        if (!meta.empty())
            header["__metadata__"] = meta;
        std::uint64_t off = 0;
        for (const Pick &p : picks) {
            header[p.t->name] = {
                {"dtype", p.t->dtype}, {"shape", p.t->shape}, {"data_offsets", {off, off + (p.t->end - p.t->begin)}}};
            off += p.t->end - p.t->begin;
        }
        const std::string js = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        const std::filesystem::path out = scratch.dir / "model.safetensors";
        {
            std::ofstream f(out, std::ios::binary);
            const std::uint64_t n = js.size();
            char len[8];
            for (int i = 0; i < 8; ++i)
                len[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
            f.write(len, 8);
            f.write(js.data(), static_cast<std::streamsize>(js.size()));
            std::vector<char> buf;
            for (const Pick &p : picks) {
                std::ifstream in(p.shard->file, std::ios::binary);
                buf.resize(static_cast<std::size_t>(p.t->end - p.t->begin));
                in.seekg(static_cast<std::streamoff>(p.t->fileOffset));
                in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
                if (in.gcount() != static_cast<std::streamsize>(buf.size()))
                    throw IoError("cannot read the tensor's bytes",
                                  Location{p.shard->file.string(), p.t->name, p.t->fileOffset});
                f.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            }
            if (!f)
                throw IoError("cannot write the salvaged copy", Location{out.string(), {}, {}});
        }
        if (config.is_object())
            std::ofstream(scratch.dir / "config.json")
                << config.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        const std::size_t before = r.findings.size();
        readerVerdict(Checkpoint::open(scratch.dir, ReadOptions{}), shown, config, r);
        for (std::size_t i = before; i < r.findings.size(); ++i) {
            r.findings[i].message = replaceAll(r.findings[i].message, out.string(), shown);
            r.findings[i].message = replaceAll(r.findings[i].message, scratch.dir.string(), shown);
            if (r.findings[i].file == scratch.dir.string() || r.findings[i].file == out.string())
                r.findings[i].file = shown;
        }
        add(r, Severity::Info, "quantized", {}, shown, std::nullopt,
            "the files have completeness errors, so the reader's per-module verdict ran on the valid tensors of the " +
                std::to_string(quantizedModules.size() - skipped.size()) + " modules that look quantized");
    } catch (const std::exception &e) {
        add(r, Severity::Info, "quantized", {}, shown, std::nullopt,
            std::string("the reader's per-module verdict could not run on the valid tensors: ") + e.what());
    }
}

} // namespace quantscope::doctor
