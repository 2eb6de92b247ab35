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
        EXPECT_EQ(rg.exitCode(), 0) << g.path() << dump(rg);
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
