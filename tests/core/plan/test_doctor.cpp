// SPDX-License-Identifier: MIT
// The checkpoint doctor (core/doctor/doctor.h) on a corpus generated here: each check has a file
// that triggers it (the finding names the tensor and, where one applies, the byte offset the test
// computed itself) and a healthy file that does not; the demo and stories260K are healthy; random
// corruptions of a valid file are each reported and none crashes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "demo/demo.h"
#include "doctor/doctor.h"
#include "quant/quantizer.h"
#include "tensor/convert.h"
#include "util/error.h"
#include "util/utf8.h"

using namespace quantscope;
namespace fs = std::filesystem;

namespace {

struct T {
    std::string name, dtype;
    std::vector<std::int64_t> shape;
    std::vector<std::uint8_t> bytes;
};

std::vector<std::uint8_t> f32(const std::vector<float> &v)
{
    std::vector<std::uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

std::vector<std::uint8_t> h16(const std::vector<float> &v, bool bf16)
{
    std::vector<std::uint8_t> b(v.size() * 2);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::uint16_t h = bf16 ? floatToBf16(v[i]) : floatToF16(v[i]);
        std::memcpy(b.data() + 2 * i, &h, 2);
    }
    return b;
}

std::vector<float> weights(std::size_t n, std::uint64_t seed, float scale = 0.02f)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> nd(0.0f, scale);
    std::vector<float> v(n);
    for (auto &x : v)
        x = nd(rng);
    return v;
}

/// Writes a safetensors file; returns each tensor's absolute data offset.
std::map<std::string, std::uint64_t> write(const fs::path &p, const std::vector<T> &ts)
{
    nlohmann::ordered_json h = nlohmann::ordered_json::object();
    std::uint64_t off = 0;
    for (const T &t : ts) {
        h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {off, off + t.bytes.size()}}};
        off += t.bytes.size();
    }
    std::string js = h.dump();
    while (js.size() % 8)
        js += ' ';
    std::ofstream f(p, std::ios::binary);
    const std::uint64_t n = js.size();
    f.write(reinterpret_cast<const char *>(&n), 8);
    f.write(js.data(), static_cast<std::streamsize>(js.size()));
    std::map<std::string, std::uint64_t> at;
    off = 8 + n;
    for (const T &t : ts) {
        f.write(reinterpret_cast<const char *>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
        at[t.name] = off;
        off += t.bytes.size();
    }
    return at;
}

fs::path fresh(const std::string &name)
{
    const fs::path d = fs::temp_directory_path() / ("qs_doctor_" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

const Finding *find(const DoctorReport &r, const std::string &check, const std::string &tensor, Severity s)
{
    for (const auto &f : r.findings)
        if (f.check == check && f.tensor == tensor && f.severity == s)
            return &f;
    return nullptr;
}

std::string dump(const DoctorReport &r)
{
    return r.toJson().dump(1);
}

std::vector<T> healthyTensors()
{
    return {{"model.layers.0.mlp.up_proj.weight", "BF16", {64, 128}, h16(weights(64 * 128, 1), true)},
            {"model.layers.0.mlp.down_proj.weight", "F16", {128, 64}, h16(weights(128 * 64, 2), false)},
            {"model.norm.weight", "F32", {64}, f32(std::vector<float>(64, 1.0f))}};
}

} // namespace

TEST(Doctor, HealthyFilesReportNothingAboveInfo)
{
    const fs::path d = fresh("healthy");
    write(d / "model.safetensors", healthyTensors());
    const DoctorReport r = runDoctor(d / "model.safetensors");
    EXPECT_EQ(r.exitCode(), 0) << dump(r);
    EXPECT_EQ(r.tensors, 3);
    const fs::path demo = fresh("demo");
    demo::writeDemoCheckpoint(demo);
    const DoctorReport rd = runDoctor(demo);
    EXPECT_EQ(rd.exitCode(), 0) << dump(rd);
    const fs::path stories = fs::path(QUANTSCOPE_SHARED_DATA) / "stories260K" / "model.safetensors";
    if (fs::exists(stories)) {
        const DoctorReport rs = runDoctor(stories);
        EXPECT_EQ(rs.exitCode(), 0) << dump(rs);
        EXPECT_TRUE(find(rs, "duplicates", "model.embed_tokens.weight", Severity::Info)) << dump(rs); // tied
    }
    EXPECT_THROW(runDoctor(d / "absent.safetensors"), IoError);
    // The toolkit-written goldens (compressed-tensors, Quark) are healthy.
    int goldens = 0;
    for (const auto &g : fs::directory_iterator(fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/interop/golden")) {
        if (!fs::exists(g.path() / "model.safetensors"))
            continue; // large goldens keep only their manifest
        const DoctorReport rg = runDoctor(g.path() / "model.safetensors");
        if (g.path().filename() == "ct_nvfp4a16_no_down_proj") {
            // Written without llm-compressor's fusing of NVFP4 global scales: q/k/v and gate/up
            // differ, which vLLM (one global scale per fused GEMM) decodes wrongly.
            for (const auto &f : rg.findings)
                if (f.severity != Severity::Info)
                    EXPECT_EQ(f.check, "fused") << dump(rg);
            EXPECT_EQ(rg.exitCode(), 4);
        } else {
            EXPECT_EQ(rg.exitCode(), 0) << g.path() << dump(rg);
        }
        ++goldens;
    }
    EXPECT_GT(goldens, 10);
    if (const char *m = std::getenv("QUANTSCOPE_MINILM"); m && *m && fs::exists(m)) {
        const DoctorReport rm = runDoctor(m);
        EXPECT_EQ(rm.exitCode(), 0) << dump(rm);
    }
}

TEST(Doctor, FileLevelLies)
{
    const fs::path d = fresh("files");
    auto at = write(d / "a.safetensors", healthyTensors());
    { // truncated: the last tensor runs past the end
        fs::resize_file(d / "a.safetensors", fs::file_size(d / "a.safetensors") - 10);
        const DoctorReport r = runDoctor(d / "a.safetensors");
        const Finding *f = find(r, "completeness", "model.norm.weight", Severity::Error);
        ASSERT_TRUE(f) << dump(r);
        EXPECT_EQ(*f->offset, at["model.norm.weight"]);
        EXPECT_NE(f->message.find("truncated"), std::string::npos);
        EXPECT_EQ(r.exitCode(), 4);
    }
    { // a git-LFS pointer
        std::ofstream(d / "b.safetensors") << "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n";
        const DoctorReport r = runDoctor(d / "b.safetensors");
        ASSERT_FALSE(r.findings.empty());
        EXPECT_NE(r.findings[0].message.find("git-LFS"), std::string::npos) << dump(r);
        EXPECT_EQ(r.exitCode(), 4);
    }
    { // header size larger than the file, and a header that is not JSON
        std::ofstream f(d / "c.safetensors", std::ios::binary);
        const std::uint64_t n = 1000;
        f.write(reinterpret_cast<const char *>(&n), 8);
        f << "{}";
        f.close();
        DoctorReport r = runDoctor(d / "c.safetensors");
        ASSERT_FALSE(r.findings.empty());
        EXPECT_EQ(r.findings[0].offset.value_or(99), 0u) << dump(r);
        std::ofstream g(d / "c2.safetensors", std::ios::binary);
        const std::uint64_t m = 8;
        g.write(reinterpret_cast<const char *>(&m), 8);
        g << "{not json";
        g.close();
        r = runDoctor(d / "c2.safetensors");
        ASSERT_FALSE(r.findings.empty());
        EXPECT_EQ(r.findings[0].offset.value_or(99), 8u) << dump(r);
        EXPECT_NE(r.findings[0].message.find("JSON"), std::string::npos);
    }
    { // byte count vs dtype·shape, overlapping tensors and a hole
        std::vector<T> ts = healthyTensors();
        ts[2].shape = {65};
        write(d / "d.safetensors", ts);
        DoctorReport r = runDoctor(d / "d.safetensors");
        EXPECT_TRUE(find(r, "completeness", "model.norm.weight", Severity::Error)) << dump(r);
        // Rewrite the header by hand: the second tensor starts inside the first; then a gap.
        nlohmann::ordered_json h;
        h["x.weight"] = {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {0, 16}}};
        h["y.weight"] = {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {8, 24}}};
        h["z.weight"] = {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {32, 40}}};
        std::string js = h.dump();
        std::ofstream f(d / "e.safetensors", std::ios::binary);
        const std::uint64_t n = js.size();
        f.write(reinterpret_cast<const char *>(&n), 8);
        f << js << std::string(40, '\0');
        f.close();
        r = runDoctor(d / "e.safetensors");
        const Finding *ov = find(r, "completeness", "y.weight", Severity::Error);
        ASSERT_TRUE(ov) << dump(r);
        EXPECT_EQ(*ov->offset, 8 + n + 8);
        EXPECT_TRUE(find(r, "completeness", "z.weight", Severity::Warning)) << dump(r); // the hole 24..32
    }
}

TEST(Doctor, ShardsAndIndex)
{
    const fs::path d = fresh("shards");
    const auto ts = healthyTensors();
    write(d / "model-00001-of-00002.safetensors", {ts[0], ts[1]});
    write(d / "model-00002-of-00002.safetensors",
          {ts[2],
           {"model.layers.0.mlp.up_proj.weight", "BF16", {64, 128}, h16(weights(64 * 128, 1), true)},
           {"extra.weight", "F32", {2}, f32({3, 4})}});
    write(d / "stray.safetensors", {{"stray.weight", "F32", {2}, f32({1, 2})}});
    nlohmann::json idx{{"metadata", {{"total_size", 1}}},
                       {"weight_map",
                        {{"model.layers.0.mlp.up_proj.weight", "model-00001-of-00002.safetensors"},
                         {"model.layers.0.mlp.down_proj.weight", "model-00001-of-00002.safetensors"},
                         {"model.norm.weight", "model-00002-of-00002.safetensors"},
                         {"model.layers.1.mlp.up_proj.weight", "model-00002-of-00002.safetensors"},
                         {"lm_head.weight", "model-00003-of-00003.safetensors"}}}};
    std::ofstream(d / "model.safetensors.index.json") << idx.dump();
    const DoctorReport r = runDoctor(d);
    EXPECT_EQ(r.exitCode(), 4);
    auto has = [&](Severity s, const std::string &needle) {
        for (const auto &f : r.findings)
            if (f.severity == s && f.message.find(needle) != std::string::npos)
                return true;
        return false;
    };
    EXPECT_TRUE(has(Severity::Error, "the shard is missing")) << dump(r);
    EXPECT_TRUE(has(Severity::Warning, "does not reference")) << dump(r); // stray
    EXPECT_TRUE(has(Severity::Error, "present in 2 shards")) << dump(r);  // up_proj twice
    EXPECT_TRUE(find(r, "completeness", "model.layers.1.mlp.up_proj.weight", Severity::Error)) << dump(r);
    EXPECT_TRUE(has(Severity::Warning, "metadata.total_size")) << dump(r);
    EXPECT_TRUE(find(r, "completeness", "extra.weight", Severity::Warning)) << dump(r); // not in the index
}

TEST(Doctor, ValueChecks)
{
    const fs::path d = fresh("values");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<T> ts = healthyTensors();
    ts.push_back({"model.layers.0.mlp.up_proj.weight_scale", "F32", {4}, f32({0.01f, nan, 0.0f, 1e-40f})});
    std::vector<std::uint8_t> fp8(4096);
    for (std::size_t i = 0; i < fp8.size(); ++i)
        fp8[i] = i % 10 == 0 ? 0x80 : static_cast<std::uint8_t>(i % 0x70);
    ts.push_back({"model.layers.1.mlp.gate_proj.weight", "F8_E4M3", {64, 64}, fp8});
    std::vector<std::uint8_t> nanCodes(64, 0x10);
    nanCodes[5] = 0x7F;
    ts.push_back({"model.layers.1.mlp.up_proj.weight", "F8_E4M3", {8, 8}, nanCodes});
    // BF16 bits labelled F16: write BF16 bytes, declare F16.
    ts.push_back({"model.layers.1.mlp.down_proj.weight", "F16", {64, 128}, h16(weights(64 * 128, 3), true)});
    for (int l = 0; l < 5; ++l) {
        ts.push_back({"model.layers." + std::to_string(l) + ".self_attn.k_scale", "F32", {}, f32({1.0f})});
        ts.push_back(
            {"model.layers." + std::to_string(l) + ".self_attn.v_scale", "F32", {}, f32({l == 3 ? 50.0f : 0.5f})});
    }
    ts.push_back(
        {"model.layers.1.self_attn.q_proj.weight", "BF16", {64, 128}, h16(weights(64 * 128, 1), true)}); // = up_proj 0
    ts.push_back({"model.layers.2.mlp.down_proj.weight_packed", "I32", {4, 4}, std::vector<std::uint8_t>(64, 1)});
    auto at = write(d / "model.safetensors", ts);
    const DoctorReport r = runDoctor(d / "model.safetensors");
    const Finding *f = find(r, "scale-health", "model.layers.0.mlp.up_proj.weight_scale", Severity::Error);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_EQ(*f->offset, at["model.layers.0.mlp.up_proj.weight_scale"]);
    EXPECT_EQ(f->module, "model.layers.0.mlp.up_proj");
    EXPECT_TRUE(find(r, "scale-health", "model.layers.0.mlp.up_proj.weight_scale", Severity::Warning)) << dump(r);
    EXPECT_TRUE(find(r, "dtype", "model.layers.1.mlp.gate_proj.weight", Severity::Warning)) << dump(r);
    EXPECT_TRUE(find(r, "dtype", "model.layers.1.mlp.up_proj.weight", Severity::Error)) << dump(r);
    EXPECT_TRUE(find(r, "dtype", "model.layers.1.mlp.down_proj.weight", Severity::Warning)) << dump(r);
    EXPECT_FALSE(find(r, "dtype", "model.layers.0.mlp.down_proj.weight", Severity::Warning)) << dump(r); // true F16
    EXPECT_TRUE(find(r, "kv-scales", "model.layers.0.self_attn.k_scale", Severity::Info)) << dump(r);
    EXPECT_TRUE(find(r, "kv-scales", "model.layers.3.self_attn.v_scale", Severity::Warning)) << dump(r);
    EXPECT_FALSE(find(r, "kv-scales", "model.layers.2.self_attn.v_scale", Severity::Warning)) << dump(r);
    EXPECT_TRUE(find(r, "duplicates", "model.layers.1.self_attn.q_proj.weight", Severity::Info)) << dump(r);
    EXPECT_TRUE(find(r, "quantized", "model.layers.2.mlp.down_proj.weight_packed", Severity::Error)) << dump(r);
    EXPECT_EQ(r.exitCode(), 4);
    const auto j = r.toJson();
    EXPECT_EQ(j["summary"]["errors"].get<std::size_t>(), r.count(Severity::Error));
    EXPECT_EQ(j["exit_code"], 4);
}

TEST(Doctor, QuantizedModulesAgainstTheirConfig)
{
    // A toolkit-written checkpoint whose config ignores two of its quantized modules.
    const fs::path src = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/interop/golden/ct_w4a16_channel_sym";
    const fs::path d = fresh("ignored");
    for (const char *f : {"model.safetensors", "config.json"})
        fs::copy_file(src / f, d / f);
    nlohmann::json cfg = nlohmann::json::parse(std::ifstream(d / "config.json"));
    cfg["quantization_config"]["ignore"].push_back("model.layers.0.mlp.down_proj");
    cfg["quantization_config"]["ignore"].push_back("re:.*layers\\.1\\.self_attn\\.q_proj");
    std::ofstream(d / "config.json") << cfg.dump();
    const DoctorReport r = runDoctor(d / "model.safetensors");
    EXPECT_TRUE(find(r, "quantized", "model.layers.0.mlp.down_proj.weight", Severity::Warning)) << dump(r);
    EXPECT_TRUE(find(r, "quantized", "model.layers.1.self_attn.q_proj.weight", Severity::Warning)) << dump(r);
    EXPECT_FALSE(find(r, "quantized", "model.layers.0.mlp.up_proj.weight", Severity::Warning)) << dump(r);
    EXPECT_EQ(r.exitCode(), 3);
    // A module whose scale is gone: the reader's non-strict detection reports it.
    const fs::path d2 = fresh("noscale");
    fs::copy_file(src / "config.json", d2 / "config.json");
    std::ifstream in(src / "model.safetensors", std::ios::binary);
    std::uint64_t n = 0;
    in.read(reinterpret_cast<char *>(&n), 8);
    std::string hs(static_cast<std::size_t>(n), '\0');
    in.read(hs.data(), static_cast<std::streamsize>(n));
    const std::string data((std::istreambuf_iterator<char>(in)), {});
    nlohmann::json h = nlohmann::json::parse(hs);
    std::vector<T> ts;
    for (auto it = h.begin(); it != h.end(); ++it) {
        if (it.key() == "__metadata__" || it.key() == "model.layers.0.mlp.gate_proj.weight_scale")
            continue;
        const auto b = (*it)["data_offsets"][0].get<std::size_t>(), e = (*it)["data_offsets"][1].get<std::size_t>();
        ts.push_back({it.key(), (*it)["dtype"], (*it)["shape"].get<std::vector<std::int64_t>>(),
                      std::vector<std::uint8_t>(data.begin() + static_cast<std::ptrdiff_t>(b),
                                                data.begin() + static_cast<std::ptrdiff_t>(e))});
    }
    write(d2 / "model.safetensors", ts);
    const DoctorReport r2 = runDoctor(d2 / "model.safetensors");
    EXPECT_TRUE(find(r2, "quantized", "model.layers.0.mlp.gate_proj.weight_packed", Severity::Error)) << dump(r2);
    EXPECT_EQ(r2.exitCode(), 4);
}

TEST(Doctor, RandomCorruptionsAreReportedAndNeverCrash)
{
    const fs::path d = fresh("fuzz");
    write(d / "ok.safetensors", healthyTensors());
    std::ifstream in(d / "ok.safetensors", std::ios::binary);
    const std::string good((std::istreambuf_iterator<char>(in)), {});
    std::mt19937_64 rng(7);
    int reported = 0;
    for (int k = 0; k < 300; ++k) {
        std::string b = good;
        const int kind = k % 3;
        if (kind == 0) { // flip bytes in the header
            for (int i = 0; i < 3; ++i)
                b[8 + rng() % 300] = static_cast<char>(rng());
        } else if (kind == 1) { // truncate anywhere
            b.resize(rng() % b.size());
        } else { // a random header size
            const std::uint64_t n = rng() % (b.size() * 2);
            std::memcpy(b.data(), &n, 8);
        }
        if (b == good)
            continue;
        std::ofstream(d / "bad.safetensors", std::ios::binary) << b;
        const DoctorReport r = runDoctor(d / "bad.safetensors");
        reported += r.exitCode() >= 3;
    }
    EXPECT_GT(reported, 250);
}

TEST(Utf8Safe, KeepsValidTextAndEscapesEveryOtherByteVisibly)
{
    EXPECT_EQ(utf8Safe("model.layers.0.weight"), "model.layers.0.weight");
    EXPECT_EQ(utf8Safe("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"); // é € 😀
    EXPECT_EQ(utf8Safe("a\xff"
                       "b"),
              "a\\xFFb");
    EXPECT_EQ(utf8Safe("\x80"), "\\x80");                            // a lone continuation byte
    EXPECT_EQ(utf8Safe("\xc3"), "\\xC3");                            // cut off
    EXPECT_EQ(utf8Safe("\xc0\xaf"), "\\xC0\\xAF");                   // overlong '/'
    EXPECT_EQ(utf8Safe("\xed\xa0\x80"), "\\xED\\xA0\\x80");          // a surrogate
    EXPECT_EQ(utf8Safe("\xf4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80"); // above U+10FFFF
    EXPECT_EQ(utf8Safe("\xe2\x82"
                       "x\xc3\xa9"),
              "\\xE2\\x82x\xc3\xa9");
    EXPECT_TRUE(isValidUtf8(utf8Safe(std::string("\x00\xfe\xc3", 3))));
    std::mt19937_64 rng(3);
    for (int k = 0; k < 2000; ++k) {
        std::string s(rng() % 12, '\0');
        for (auto &c : s)
            c = static_cast<char>(rng());
        const std::string t = utf8Safe(s);
        EXPECT_TRUE(isValidUtf8(t));
        EXPECT_NO_THROW((void)nlohmann::json(t).dump());
    }
}

TEST(Doctor, HeaderBytesThatAreNotUtf8NeverBreakTheJsonReport)
{
    // Names, dtypes and metadata with bytes that are not UTF-8 (the header parser quotes them),
    // and an odd but valid dtype the finding quotes as read.
    const fs::path d = fresh("utf8");
    const std::vector<std::string> headers = {
        "{\"w\xff.weight\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
        "{\"w.weight\":{\"dtype\":\"F\xc3(\",\"shape\":[1],\"data_offsets\":[0,4]}}",
        "{\"__metadata__\":{\"k\":\"\x80\"},\"w.weight\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
        "{\"w.weight\":{\"dtype\":\"F\\u00ff\",\"shape\":[1],\"data_offsets\":[0,4]}}",
    };
    for (const std::string &h : headers) {
        {
            std::ofstream f(d / "m.safetensors", std::ios::binary);
            const std::uint64_t n = h.size();
            f.write(reinterpret_cast<const char *>(&n), 8);
            f << h << std::string(4, '\0');
        }
        const DoctorReport r = runDoctor(d / "m.safetensors");
        EXPECT_EQ(r.exitCode(), 4) << h;
        std::string text;
        ASSERT_NO_THROW(text = r.toJson().dump()) << h;
        EXPECT_EQ(nlohmann::json::parse(text)["exit_code"], 4);
    }
    // A finding built by hand with raw bytes (what a future check might quote) is escaped too.
    DoctorReport r;
    r.path = "ckpt\xfe";
    r.findings.push_back({Severity::Error, "dtype", "m\xff", "m\xff.weight", "f\xc3", std::nullopt, "bad \x80 byte"});
    const nlohmann::json j = nlohmann::json::parse(r.toJson().dump());
    EXPECT_EQ(j["path"], "ckpt\\xFE");
    EXPECT_EQ(j["findings"][0]["tensor"], "m\\xFF.weight");
    EXPECT_EQ(j["findings"][0]["message"], "bad \\x80 byte");
}

TEST(Doctor, MutatedExportHeadersAlwaysGiveAJsonReport)
{
    // A real small export (a compressed-tensors golden) with 1–4 header bytes replaced, one of
    // them at least by a byte ≥ 0x80 (never valid UTF-8 inside the ASCII header): every run of
    // the report path gives a report that dumps as JSON and says 3 or 4, never an exception.
    const fs::path src = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/interop/golden/ct_w4a16_group4_sym";
    const fs::path d = fresh("mutate");
    fs::copy_file(src / "config.json", d / "config.json");
    std::ifstream in(src / "model.safetensors", std::ios::binary);
    const std::string good((std::istreambuf_iterator<char>(in)), {});
    std::uint64_t n = 0;
    std::memcpy(&n, good.data(), 8);
    ASSERT_GT(n, 64u);
    std::mt19937_64 rng(150);
    int quoted = 0;
    for (int k = 0; k < 150; ++k) {
        std::string b = good;
        const int count = 1 + static_cast<int>(rng() % 4);
        for (int i = 0; i < count; ++i) {
            const std::size_t at = 8 + rng() % n;
            b[at] = static_cast<char>(i == 0 ? 0x80 + rng() % 0x80 : rng() % 256);
        }
        std::ofstream(d / "model.safetensors", std::ios::binary) << b;
        DoctorReport r;
        ASSERT_NO_THROW(r = runDoctor(d / "model.safetensors")) << k;
        std::string text;
        ASSERT_NO_THROW(text = r.toJson().dump()) << k;
        const nlohmann::json j = nlohmann::json::parse(text);
        EXPECT_TRUE(r.exitCode() == 3 || r.exitCode() == 4) << k << ' ' << text;
        EXPECT_EQ(j["exit_code"], r.exitCode());
        quoted += text.find("\\\\x") != std::string::npos;
    }
    EXPECT_GT(quoted, 0); // the parser's message quotes the bytes, escaped
}

namespace {

std::vector<std::uint8_t> bytesOf(std::size_t n, std::uint8_t v)
{
    return std::vector<std::uint8_t>(n, v);
}

/// An INT8 channel module: I8 codes [n, k] and F32 scales [n, 1].
void int8Module(std::vector<T> &ts, const std::string &m, std::int64_t n, std::int64_t k, float scale = 0.01f)
{
    ts.push_back({m + ".weight", "I8", {n, k}, bytesOf(static_cast<std::size_t>(n * k), 3)});
    ts.push_back({m + ".weight_scale", "F32", {n, 1}, f32(std::vector<float>(static_cast<std::size_t>(n), scale))});
}

void writeConfig(const fs::path &d, const nlohmann::json &qc, bool tied = false)
{
    nlohmann::json cfg{{"architectures", {"LlamaForCausalLM"}}, {"tie_word_embeddings", tied}};
    if (!qc.is_null())
        cfg["quantization_config"] = qc;
    std::ofstream(d / "config.json") << cfg.dump();
}

nlohmann::json ctConfig(nlohmann::json weights, nlohmann::json inputs = nullptr, nlohmann::json targets = {"Linear"},
                        nlohmann::json ignore = {"lm_head"})
{
    return {
        {"quant_method", "compressed-tensors"},
        {"format", "int-quantized"},
        {"ignore", ignore},
        {"config_groups", {{"group_0", {{"targets", targets}, {"weights", weights}, {"input_activations", inputs}}}}}};
}

const nlohmann::json kInt8Channel = {
    {"num_bits", 8}, {"type", "int"}, {"strategy", "channel"}, {"symmetric", true}, {"dynamic", false}};

bool hasCheck(const DoctorReport &r, const std::string &check, const std::string &module, Severity s)
{
    for (const auto &f : r.findings)
        if (f.check == check && (module.empty() || f.module == module) && f.severity == s)
            return true;
    return false;
}

} // namespace

TEST(DoctorChecks, StaticInputAndKvScalesDeclaredByTheConfig)
{
    const fs::path d = fresh("static");
    const nlohmann::json staticIn = {{"num_bits", 8}, {"type", "int"}, {"strategy", "tensor"}, {"dynamic", false}};
    auto build = [&](bool complete) {
        std::vector<T> ts;
        for (int l = 0; l < 2; ++l) {
            const std::string a = "model.layers." + std::to_string(l) + ".self_attn";
            for (const char *p : {".q_proj", ".k_proj", ".v_proj"}) {
                int8Module(ts, a + p, 8, 16);
                if (complete || l == 0)
                    ts.push_back({a + p + ".input_scale", "F32", {}, f32({0.1f})});
            }
            ts.push_back({a + ".k_scale", "F32", {}, f32({0.2f})});
            if (complete || l == 0)
                ts.push_back({a + ".v_scale", "F32", {}, f32({0.2f})});
        }
        write(d / "model.safetensors", ts);
    };
    nlohmann::json qc = ctConfig(kInt8Channel, staticIn);
    qc["kv_cache_scheme"] = {{"num_bits", 8}, {"type", "float"}, {"strategy", "tensor"}, {"dynamic", false}};
    writeConfig(d, qc);
    build(false);
    DoctorReport r = runDoctor(d);
    const Finding *f = find(r, "static-scales", "model.layers.1.self_attn.k_proj.input_scale", Severity::Error);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_NE(f->message.find("declares static input scales but model.layers.1.self_attn.k_proj has no input_scale"),
              std::string::npos);
    EXPECT_TRUE(find(r, "static-scales", "model.layers.1.self_attn.v_scale", Severity::Error)) << dump(r);
    EXPECT_FALSE(find(r, "static-scales", "model.layers.0.self_attn.k_proj.input_scale", Severity::Error));
    EXPECT_FALSE(find(r, "static-scales", "model.layers.1.self_attn.k_scale", Severity::Error));
    build(true);
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "static-scales", {}, Severity::Error)) << dump(r);
    // Dynamic inputs need no input_scale.
    writeConfig(d, ctConfig(kInt8Channel, {{"num_bits", 8}, {"type", "int"}, {"dynamic", true}}));
    build(false);
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "static-scales", {}, Severity::Error)) << dump(r);
    // Quark: input_tensors with is_dynamic false.
    nlohmann::json quark{{"quant_method", "quark"},
                         {"exclude", {"lm_head"}},
                         {"global_quant_config",
                          {{"weight", {{"dtype", "int8"}, {"qscheme", "per_channel"}, {"symmetric", true}}},
                           {"input_tensors", {{"dtype", "int8"}, {"qscheme", "per_tensor"}, {"is_dynamic", false}}}}},
                         {"kv_cache_quant_config", {{"*k_proj", {{"output_tensors", {{"dtype", "fp8_e4m3"}}}}}}}};
    writeConfig(d, quark);
    build(false);
    r = runDoctor(d);
    EXPECT_TRUE(find(r, "static-scales", "model.layers.1.self_attn.q_proj.input_scale", Severity::Error)) << dump(r);
    EXPECT_TRUE(find(r, "static-scales", "model.layers.1.self_attn.v_scale", Severity::Error)) << dump(r);
    build(true);
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "static-scales", {}, Severity::Error)) << dump(r);
}

TEST(DoctorChecks, ModulesTheConfigQuantizesButStoresDense)
{
    const fs::path d = fresh("dense");
    std::vector<T> ts;
    int8Module(ts, "model.layers.0.self_attn.q_proj", 8, 16);
    ts.push_back({"model.layers.0.mlp.down_proj.weight", "BF16", {8, 16}, h16(weights(128, 4), true)});
    ts.push_back({"model.layers.0.mlp.gate.weight", "BF16", {4, 16}, h16(weights(64, 5), true)});
    ts.push_back({"lm_head.weight", "BF16", {32, 16}, h16(weights(512, 6), true)});
    ts.push_back({"model.embed_tokens.weight", "BF16", {32, 16}, h16(weights(512, 7), true)});
    write(d / "model.safetensors", ts);
    // Linear targets, ignore wins: lm_head by name, the router by a re.match (prefix) regex.
    writeConfig(d, ctConfig(kInt8Channel, nullptr, {"Linear"}, {"lm_head", "re:.*mlp\\.gate"}));
    DoctorReport r = runDoctor(d);
    const Finding *f = find(r, "ignore", "model.layers.0.mlp.down_proj.weight", Severity::Warning);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_NE(f->message.find("stored dense (BF16)"), std::string::npos);
    EXPECT_FALSE(find(r, "ignore", "model.layers.0.mlp.gate.weight", Severity::Warning)) << dump(r);
    EXPECT_FALSE(find(r, "ignore", "lm_head.weight", Severity::Warning)) << dump(r);
    EXPECT_FALSE(find(r, "ignore", "model.embed_tokens.weight", Severity::Warning)) << dump(r);
    // `re:` targets match from the start (re.match), not the whole name.
    writeConfig(d, ctConfig(kInt8Channel, nullptr, {"re:model\\.layers\\.0\\.self_attn"}));
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "ignore", {}, Severity::Warning)) << dump(r); // down_proj is not targeted
    writeConfig(d, ctConfig(kInt8Channel, nullptr, {"re:model\\.layers\\.0\\.mlp\\.down"}));
    r = runDoctor(d);
    EXPECT_TRUE(find(r, "ignore", "model.layers.0.mlp.down_proj.weight", Severity::Warning)) << dump(r);
    // Quark: exclude (fnmatch) first, then layer_quant_config, else global_quant_config.
    nlohmann::json quark{
        {"quant_method", "quark"},
        {"exclude", {"lm_head", "*mlp.gate"}},
        {"layer_quant_config", {{"*down_proj", {{"weight", nullptr}}}}},
        {"global_quant_config", {{"weight", {{"dtype", "int8"}, {"qscheme", "per_channel"}, {"symmetric", true}}}}}};
    writeConfig(d, quark);
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "ignore", {}, Severity::Warning)) << dump(r); // down_proj: weight null
    quark["layer_quant_config"] = nlohmann::json::object();
    writeConfig(d, quark);
    r = runDoctor(d);
    EXPECT_TRUE(find(r, "ignore", "model.layers.0.mlp.down_proj.weight", Severity::Warning)) << dump(r);
    EXPECT_FALSE(find(r, "ignore", "model.layers.0.mlp.gate.weight", Severity::Warning)) << dump(r);
}

TEST(DoctorChecks, EffectiveBitsAgainstTheDeclaredScheme)
{
    const fs::path d = fresh("bits");
    std::vector<T> ts;
    int8Module(ts, "model.layers.0.mlp.up_proj", 8, 16);
    write(d / "model.safetensors", ts);
    nlohmann::json w4 = kInt8Channel;
    w4["num_bits"] = 4;
    writeConfig(d, ctConfig(w4));
    DoctorReport r = runDoctor(d);
    const Finding *f = find(r, "bits", "model.layers.0.mlp.up_proj.weight", Severity::Warning);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_NE(f->message.find("declares 4-bit"), std::string::npos) << f->message;
    EXPECT_NE(f->message.find("stores 8 bits"), std::string::npos) << f->message;
    writeConfig(d, ctConfig(kInt8Channel));
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "bits", {}, Severity::Warning)) << dump(r);
}

TEST(DoctorChecks, ScalesThatACastCollapsed)
{
    const fs::path d = fresh("cast");
    auto build = [&](bool bad) {
        std::vector<T> ts;
        // NVFP4: FP4 pairs [4, 8] (K = 16), one E4M3 scale per row; row 2 has all-zero codes.
        std::vector<std::uint8_t> codes(32, 0x21);
        std::fill(codes.begin() + 16, codes.begin() + 24, 0x00);
        std::vector<std::uint8_t> s4 = {floatToE4m3(0.5f), floatToE4m3(0.5f), 0x00, floatToE4m3(0.5f)};
        if (bad)
            s4[1] = 0x00;
        ts.push_back({"model.layers.0.mlp.up_proj.weight_packed", "U8", {4, 8}, codes});
        ts.push_back({"model.layers.0.mlp.up_proj.weight_scale", "F8_E4M3", {4, 1}, s4});
        ts.push_back({"model.layers.0.mlp.up_proj.weight_global_scale", "F32", {1}, f32({100.0f})});
        // MXFP4: FP4 pairs [4, 16] (K = 32), one E8M0 (U8) scale per row.
        std::vector<std::uint8_t> s8 = {120, 121, 122, 123};
        if (bad)
            s8[0] = 0;
        ts.push_back({"model.layers.0.mlp.down_proj.weight_packed", "U8", {4, 16}, bytesOf(64, 0x11)});
        ts.push_back({"model.layers.0.mlp.down_proj.weight_scale", "U8", {4, 1}, s8});
        write(d / "model.safetensors", ts);
    };
    build(true);
    DoctorReport r = runDoctor(d);
    const Finding *f = find(r, "scale-cast", "model.layers.0.mlp.up_proj.weight_scale", Severity::Error);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_EQ(f->message.rfind("1 of 4 F8_E4M3 scales are 0", 0), 0u) << f->message; // row 2's codes are 0
    f = find(r, "scale-cast", "model.layers.0.mlp.down_proj.weight_scale", Severity::Error);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_NE(f->message.find("2^-127"), std::string::npos) << f->message;
    build(false);
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "scale-cast", {}, Severity::Error)) << dump(r);
}

TEST(DoctorChecks, MoeLayerExpertGridOfScaleHealth)
{
    const fs::path d = fresh("moe");
    auto build = [&](bool bad) {
        std::vector<T> ts;
        for (int l = 0; l < 2; ++l)
            for (int e = 0; e < 4; ++e) {
                const std::string m =
                    "model.layers." + std::to_string(l) + ".mlp.experts." + std::to_string(e) + ".gate_proj";
                int8Module(ts, m, 4, 8);
                if (bad && l == 1 && e == 2)
                    ts.back().bytes = f32({0.01f, std::numeric_limits<float>::quiet_NaN(), 0.01f, 0.01f});
            }
        write(d / "model.safetensors", ts);
    };
    build(true);
    DoctorReport r = runDoctor(d);
    EXPECT_TRUE(hasCheck(r, "moe-grid", "model.layers.1.mlp.experts.2.gate_proj", Severity::Error)) << dump(r);
    const Finding *grid = nullptr;
    for (const auto &f : r.findings)
        if (f.check == "moe-grid" && f.severity == Severity::Info)
            grid = &f;
    ASSERT_TRUE(grid) << dump(r);
    EXPECT_NE(grid->message.find("2 layers × 4 experts"), std::string::npos) << grid->message;
    EXPECT_NE(grid->message.find("L0:.... L1:..X."), std::string::npos) << grid->message;
    build(false);
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "moe-grid", {}, Severity::Error)) << dump(r);
    EXPECT_TRUE(hasCheck(r, "moe-grid", {}, Severity::Info)) << dump(r);
}

TEST(DoctorChecks, FusedGroupsShareOneNvfp4GlobalScale)
{
    const fs::path d = fresh("fused");
    auto build = [&](float kGlobal) {
        std::vector<T> ts;
        for (const char *p : {"q_proj", "k_proj", "v_proj"}) {
            const std::string m = std::string("model.layers.0.self_attn.") + p;
            ts.push_back({m + ".weight_packed", "U8", {4, 8}, bytesOf(32, 0x22)});
            ts.push_back({m + ".weight_scale", "F8_E4M3", {4, 1}, bytesOf(4, floatToE4m3(0.5f))});
            ts.push_back(
                {m + ".weight_global_scale", "F32", {1}, f32({std::string(p) == "k_proj" ? kGlobal : 100.0f})});
        }
        write(d / "model.safetensors", ts);
    };
    build(50.0f);
    DoctorReport r = runDoctor(d);
    const Finding *f = find(r, "fused", "model.layers.0.self_attn.k_proj.weight_global_scale", Severity::Error);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_NE(f->message.find("vLLM"), std::string::npos);
    build(100.0f);
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "fused", {}, Severity::Error)) << dump(r);
}

TEST(DoctorChecks, QuantizedLmHeadWithTiedEmbeddings)
{
    const fs::path d = fresh("tied");
    std::vector<T> ts;
    ts.push_back({"model.embed_tokens.weight", "BF16", {32, 16}, h16(weights(512, 7), true)});
    int8Module(ts, "lm_head", 32, 16);
    write(d / "model.safetensors", ts);
    writeConfig(d, ctConfig(kInt8Channel, nullptr, {"Linear"}, nlohmann::json::array()), true);
    DoctorReport r = runDoctor(d);
    const Finding *f = find(r, "tied-lm-head", "lm_head.weight", Severity::Error);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_NE(f->message.find("tie_word_embeddings: true"), std::string::npos);
    writeConfig(d, ctConfig(kInt8Channel, nullptr, {"Linear"}, nlohmann::json::array()), false);
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "tied-lm-head", {}, Severity::Error)) << dump(r);
}

TEST(DoctorChecks, GroupsAndBlocksTheLoadersRefuse)
{
    const fs::path d = fresh("groups");
    const nlohmann::json g32 = {{"num_bits", 8}, {"type", "int"}, {"strategy", "group"}, {"group_size", 32}};
    auto build = [&](std::int64_t k) {
        std::vector<T> ts;
        ts.push_back({"model.layers.0.mlp.up_proj.weight", "I8", {4, k}, bytesOf(static_cast<std::size_t>(4 * k), 1)});
        const std::int64_t groups = (k + 31) / 32;
        ts.push_back({"model.layers.0.mlp.up_proj.weight_scale",
                      "F32",
                      {4, groups},
                      f32(std::vector<float>(static_cast<std::size_t>(4 * groups), 0.01f))});
        write(d / "model.safetensors", ts);
    };
    writeConfig(d, ctConfig(g32));
    build(48);
    DoctorReport r = runDoctor(d);
    const Finding *f = find(r, "loader-groups", "model.layers.0.mlp.up_proj.weight", Severity::Error);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_NE(f->message.find("K = 48"), std::string::npos) << f->message;
    EXPECT_NE(f->message.find("group_size 32"), std::string::npos) << f->message;
    EXPECT_NE(f->message.find("tensor column shape must be divisible by the given group_size"), std::string::npos);
    build(64);
    r = runDoctor(d);
    EXPECT_FALSE(hasCheck(r, "loader-groups", {}, Severity::Error)) << dump(r);
    // FP8 block scales (DeepSeek-V3 layout) on a weight that is not whole blocks.
    const fs::path d2 = fresh("blocks");
    auto buildFp8 = [&](std::int64_t n) {
        const std::int64_t rb = (n + 127) / 128;
        write(d2 / "model.safetensors", {{"model.layers.0.mlp.up_proj.weight",
                                          "F8_E4M3",
                                          {n, 256},
                                          bytesOf(static_cast<std::size_t>(n * 256), 0x30)},
                                         {"model.layers.0.mlp.up_proj.weight_scale_inv",
                                          "F32",
                                          {rb, 2},
                                          f32(std::vector<float>(static_cast<std::size_t>(rb * 2), 0.01f))}});
    };
    writeConfig(d2, {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}}, {"activation_scheme", "dynamic"}});
    buildFp8(200);
    r = runDoctor(d2);
    f = find(r, "loader-groups", "model.layers.0.mlp.up_proj.weight", Severity::Error);
    ASSERT_TRUE(f) << dump(r);
    EXPECT_NE(f->message.find("not divisible by scale grid"), std::string::npos) << f->message;
    buildFp8(256);
    r = runDoctor(d2);
    EXPECT_FALSE(hasCheck(r, "loader-groups", {}, Severity::Error)) << dump(r);
}

TEST(DoctorChecks, NumpyFilesAreArraysNotCorruptCheckpoints)
{
    const fs::path data = fs::path(QUANTSCOPE_TEST_DATA) / "npy";
    for (const char *name : {"c_f4.npy", "fortran3d_f4.npy", "empty_f4.npy", "stored.npz", "deflated.npz"}) {
        const DoctorReport r = runDoctor(data / name);
        EXPECT_EQ(r.exitCode(), 0) << name << dump(r);
        ASSERT_EQ(r.findings.size(), 1u) << name << dump(r);
        EXPECT_NE(r.findings[0].message.find("not a safetensors checkpoint"), std::string::npos);
    }
    // An array of a kind the readers refuse by name is no corruption either.
    DoctorReport r = runDoctor(data / "object.npy");
    EXPECT_EQ(r.exitCode(), 3) << dump(r);
    // Corrupt ones are errors: truncated data, a broken magic, a header length past the end.
    const fs::path d = fresh("npy");
    std::ifstream in(data / "c_f4.npy", std::ios::binary);
    const std::string good((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(d / "cut.npy", std::ios::binary) << good.substr(0, good.size() - 3);
    std::ofstream(d / "magic.npy", std::ios::binary) << "\x93NUMPX" << good.substr(6);
    std::string longHeader = good;
    longHeader[8] = '\xff';
    longHeader[9] = '\x7f';
    std::ofstream(d / "header.npy", std::ios::binary) << longHeader;
    for (const char *name : {"cut.npy", "magic.npy", "header.npy"}) {
        r = runDoctor(d / name);
        EXPECT_EQ(r.exitCode(), 4) << name << dump(r);
        EXPECT_TRUE(hasCheck(r, "completeness", {}, Severity::Error)) << name;
        EXPECT_NE(r.findings[0].message.find("corrupt NumPy"), std::string::npos) << name << dump(r);
    }
}

TEST(DoctorChecks, PerModuleChecksRunDespiteCompletenessErrors)
{
    // One run lists all problems: a header entry with an unknown dtype (a completeness error that
    // makes the reader refuse the file) and a module whose scale is gone (the reader's verdict,
    // which now runs on the valid tensors).
    const fs::path src = fs::path(QUANTSCOPE_SOURCE_DIR) / "tests/interop/golden/ct_w4a16_channel_sym";
    const fs::path d = fresh("together");
    fs::copy_file(src / "config.json", d / "config.json");
    std::ifstream in(src / "model.safetensors", std::ios::binary);
    std::uint64_t n = 0;
    in.read(reinterpret_cast<char *>(&n), 8);
    std::string hs(static_cast<std::size_t>(n), '\0');
    in.read(hs.data(), static_cast<std::streamsize>(n));
    const std::string data((std::istreambuf_iterator<char>(in)), {});
    nlohmann::json h = nlohmann::json::parse(hs);
    std::vector<T> ts;
    for (auto it = h.begin(); it != h.end(); ++it) {
        if (it.key() == "__metadata__" || it.key() == "model.layers.0.mlp.gate_proj.weight_scale")
            continue;
        const auto b = (*it)["data_offsets"][0].get<std::size_t>(), e = (*it)["data_offsets"][1].get<std::size_t>();
        ts.push_back({it.key(), (*it)["dtype"], (*it)["shape"].get<std::vector<std::int64_t>>(),
                      std::vector<std::uint8_t>(data.begin() + static_cast<std::ptrdiff_t>(b),
                                                data.begin() + static_cast<std::ptrdiff_t>(e))});
    }
    ts.push_back({"model.layers.9.broken.weight", "X99", {2}, bytesOf(8, 0)});
    write(d / "model.safetensors", ts);
    const DoctorReport r = runDoctor(d / "model.safetensors");
    EXPECT_TRUE(find(r, "completeness", "model.layers.9.broken.weight", Severity::Error)) << dump(r);
    EXPECT_TRUE(find(r, "quantized", "model.layers.0.mlp.gate_proj.weight_packed", Severity::Error)) << dump(r);
    EXPECT_TRUE(find(r, "quantized", "model.layers.0.mlp.gate_proj.weight", Severity::Error)) << dump(r);
    EXPECT_FALSE(find(r, "quantized", "model.layers.0.mlp.up_proj.weight", Severity::Error)) << dump(r);
    for (const auto &f : r.findings) // the scratch copy is never named
        EXPECT_EQ(f.message.find("quantscope-doctor-"), std::string::npos) << f.message;
}

TEST(QuantizedTensorSize, ElementsComeFromTheShapeWhenTheCodesWereNotAskedFor)
{
    // A GPU run without its codes (QuantizeOptions::wantCodes = false) keeps its sizes.
    QuantizedTensor q;
    q.shape = {64, 128};
    q.codeBits = 4;
    q.scales.assign(64, 1.0f);
    q.scaleDtype = DType::F16;
    EXPECT_EQ(q.numel(), 64 * 128);
    EXPECT_EQ(q.storedBytes(), (64u * 128u * 4u + 64u * 16u) / 8u);
    EXPECT_DOUBLE_EQ(q.bitsPerElement(), 4.0 + 64.0 * 16.0 / (64.0 * 128.0));
    q.codes.assign(64 * 128, 0);
    EXPECT_EQ(q.numel(), 64 * 128);
}
