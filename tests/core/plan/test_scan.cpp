// SPDX-License-Identifier: MIT
// The whole-checkpoint scan (scan/scan.h): which modules it covers (counted independently from
// the checkpoint's entries), each module's numbers against runQuantize on the lazily mapped
// tensor (the path `quantize` takes), ragged groups reported, and a scan stopped midway with a
// torn last line resuming to the report an uninterrupted scan writes (timing fields aside).
#include "scan/scan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <unistd.h>

#include "demo/demo.h"
#include "io/npy_writer.h"
#include "io/safetensors.h"
#include "results/channel_profile.h"
#include "results/session.h"
#include "numeric/moments.h"
#include "util/error.h"

using namespace quantscope;
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

fs::path tempDir(const std::string &name)
{
    const fs::path d = fs::path(::testing::TempDir()) / (name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

Tensor randomTensor(Shape shape, std::uint64_t seed)
{
    const auto n = static_cast<std::size_t>(numelOf(shape));
    std::vector<float> v(n);
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto &f : v) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        f = static_cast<float>(static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5);
    }
    // A few large values so that the kurtosis is not that of a uniform.
    v[3] = 9.0f;
    return Tensor::fromFloats(shape, v); // F32: the scan reads any dtype
}

/// A small checkpoint: three 2-D weights (one with K = 200, ragged for group 128), a norm and a
/// 3-D tensor that the scan must leave out.
fs::path smallCheckpoint(const std::string &name)
{
    const fs::path d = tempDir(name);
    writeSafetensors(d / "model.safetensors", {{"model.layers.0.self_attn.q_proj.weight", randomTensor({64, 256}, 1)},
                                               {"model.layers.0.self_attn.k_proj.weight", randomTensor({32, 256}, 2)},
                                               {"model.layers.0.mlp.down_proj.weight", randomTensor({48, 200}, 3)},
                                               {"model.layers.0.input_layernorm.weight", randomTensor({256}, 4)},
                                               {"model.layers.0.conv.weight", randomTensor({2, 4, 8}, 5)},
                                               {"model.layers.1.self_attn.q_proj.weight", randomTensor({64, 256}, 6)}});
    return d / "model.safetensors";
}

std::vector<ojson> readLines(const fs::path &p)
{
    std::ifstream in(p);
    std::vector<ojson> out;
    std::string s;
    while (std::getline(in, s))
        out.push_back(ojson::parse(s));
    return out;
}

std::string slurp(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST(Scan, CoversEvery2DWeightAndReportsRaggedGroups)
{
    const Checkpoint ck = Checkpoint::open(smallCheckpoint("qs_scan_cover"));
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    const ScanResult r = runScan(ck, o, CancelToken{});
    std::vector<std::string> expected;
    for (const auto &e : ck.entries())
        if (e.shape.size() == 2 && e.name.size() > 7 && e.name.ends_with(".weight"))
            expected.push_back(e.name);
    ASSERT_EQ(r.lines.size(), expected.size());
    EXPECT_EQ(r.scanned, 4);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(r.lines[i]["tensor"], expected[i]);
        EXPECT_EQ(r.lines[i]["status"], "scanned");
        ASSERT_EQ(r.lines[i]["runs"].size(), 1u);
        const bool ragged = r.lines[i]["shape"][1].get<int>() % 128 != 0;
        EXPECT_EQ(r.lines[i]["runs"][0]["ragged"], ragged) << expected[i];
        EXPECT_FALSE(r.lines[i]["runs"][0].contains("error"));
    }
}

TEST(Scan, NumbersEqualRunQuantizeOnTheMappedTensor)
{
    const Checkpoint ck = Checkpoint::open(smallCheckpoint("qs_scan_equal"));
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    o.threads = 3; // the reader's kurtosis over three row slices
    IntSpec i3;
    i3.bits = 3;
    i3.group = 64;
    const std::vector<QuantSpec> specs = {QuantSpec{IntSpec{}}, QuantSpec{Fp8Spec{}}, QuantSpec{i3}};
    o.recipe = Recipe::defaults().withSpecs(specs);
    const ScanResult r = runScan(ck, o, CancelToken{});
    ASSERT_EQ(r.lines.size(), 4u);
    for (const auto &line : r.lines) {
        const Tensor w = ck.tensor(line["tensor"].get<std::string>());
        ASSERT_EQ(line["runs"].size(), specs.size());
        for (std::size_t s = 0; s < specs.size(); ++s) {
            RunOptions ro;
            ro.device = DeviceChoice::Cpu;
            const QuantizeRun run = runQuantize(w, specs[s], ro);
            const auto &m = line["runs"][s]["metrics"];
            EXPECT_EQ(m["mse"].get<double>(), run.metrics->mse) << line["tensor"] << " spec " << s;
            EXPECT_EQ(m["max_abs_err"].get<double>(), run.metrics->maxAbsErr);
            EXPECT_EQ(m["rel_frobenius"].get<double>(), run.metrics->relFrobenius);
            EXPECT_EQ(m["err_p99"].get<double>(), run.metrics->errP99);
            EXPECT_EQ(m["bits_per_element"].get<double>(), run.quantized.bitsPerElement());
            EXPECT_EQ(m["bytes"].get<std::uint64_t>(), run.quantized.storedBytes());
            EXPECT_EQ(line["runs"][s]["spec"], ojson::parse(toJson(specs[s]).dump()));
        }
        // The tensor's excess kurtosis is that of its moments.
        const TensorStats st = computeStats(w);
        EXPECT_NEAR(line["kurtosis"]["tensor"].get<double>(), *st.excessKurtosis, 1e-9 * std::abs(*st.excessKurtosis));
        EXPECT_EQ(line["kurtosis"]["rows"]["count"], w.dim(0));
        // The channel summary: median and max of the per-row kurtosis, sorted here.
        std::vector<double> rows = computeChannelKurtosis(w).rows;
        std::erase_if(rows, [](double v) { return !std::isfinite(v); });
        std::sort(rows.begin(), rows.end());
        const std::size_t n = rows.size();
        const double median = n % 2 ? rows[n / 2] : 0.5 * (rows[n / 2 - 1] + rows[n / 2]);
        EXPECT_EQ(line["kurtosis"]["rows"]["median"].get<double>(), median);
        EXPECT_EQ(line["kurtosis"]["rows"]["max"].get<double>(), rows.back());
        // Columns: merged per-slice sums, equal to the serial ones within rounding.
        std::vector<double> cols = computeChannelKurtosis(w).columns;
        const auto argmax = line["kurtosis"]["columns"]["argmax"].get<std::size_t>();
        EXPECT_EQ(argmax, static_cast<std::size_t>(std::max_element(cols.begin(), cols.end()) - cols.begin()));
        EXPECT_NEAR(line["kurtosis"]["columns"]["max"].get<double>(), cols[argmax], 1e-12 * std::abs(cols[argmax]));
    }
    o.channelKurtosis = false;
    const ScanResult nk = runScan(ck, o, CancelToken{});
    EXPECT_TRUE(nk.lines[0]["kurtosis"]["rows"].is_null());
    EXPECT_EQ(withoutTiming(nk.lines[0]["runs"]), withoutTiming(r.lines[0]["runs"]));
}

TEST(Scan, RecipeExcludesAndUnmatchedModulesGetLinesWithoutRuns)
{
    const Checkpoint ck = Checkpoint::open(smallCheckpoint("qs_scan_recipe"));
    ojson j = {{"quantscope_recipe", 1},
               {"rules", {{{"patterns", {"*q_proj"}}, {"specs", {{{"method", "fp8"}}}}}}},
               {"exclude", {"model.layers.1.*"}}};
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    o.recipe = Recipe::fromJson(j);
    const ScanResult r = runScan(ck, o, CancelToken{});
    ASSERT_EQ(r.lines.size(), 4u);
    std::map<std::string, std::string> status;
    for (const auto &l : r.lines)
        status[l["module"]] = l["status"];
    EXPECT_EQ(status["model.layers.0.self_attn.q_proj"], "scanned");
    EXPECT_EQ(status["model.layers.0.self_attn.k_proj"], "unmatched");
    EXPECT_EQ(status["model.layers.1.self_attn.q_proj"], "excluded");
    EXPECT_EQ(r.scanned, 1);
    EXPECT_EQ(r.skipped, 3);
}

TEST(Scan, StoppedMidwayResumesToTheUninterruptedReport)
{
    const fs::path model = smallCheckpoint("qs_scan_resume");
    const Checkpoint ck = Checkpoint::open(model);
    const fs::path dir = model.parent_path();
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    o.spectra = SpectraMode::Counts;
    o.spectrumTop = 8;
    o.recipe = Recipe::defaults().withSpecs({QuantSpec{IntSpec{}}, QuantSpec{Fp8Spec{}}});
    o.prefetchBytes = 1; // one module ahead at most: the queue waits
    o.reportPath = (dir / "full.jsonl").string();
    const ScanResult full = runScan(ck, o, CancelToken{});
    EXPECT_EQ(full.resumed, 0);

    o.reportPath = (dir / "cut.jsonl").string();
    o.stopAfter = 2;
    const ScanResult cut = runScan(ck, o, CancelToken{});
    EXPECT_TRUE(cut.stoppedEarly);
    const std::string torn = slurp(dir / "cut.jsonl");
    ASSERT_FALSE(torn.empty());
    EXPECT_NE(torn.back(), '\n'); // the torn half line is there

    o.stopAfter = -1;
    const ScanResult resumed = runScan(ck, o, CancelToken{});
    EXPECT_EQ(resumed.resumed, 2);
    EXPECT_EQ(resumed.scanned, 2);
    const auto a = readLines(dir / "full.jsonl"), b = readLines(dir / "cut.jsonl");
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.size(), 5u); // header + 4 modules
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(withoutTiming(a[i]).dump(), withoutTiming(b[i]).dump()) << "line " << i;
    EXPECT_TRUE(b[1]["runs"][0].contains("spectrum"));

    // A complete report resumes to itself without computing anything.
    const ScanResult again = runScan(ck, o, CancelToken{});
    EXPECT_EQ(again.resumed, 4);
    EXPECT_EQ(again.scanned, 0);

    // A changed file (size or mtime) invalidates the lines of its modules.
    fs::last_write_time(model, fs::last_write_time(model) + std::chrono::seconds(5));
    const ScanResult changed = runScan(ck, o, CancelToken{});
    EXPECT_EQ(changed.resumed, 0);
    EXPECT_EQ(changed.scanned, 4);

    // Another recipe's report is refused, not mixed.
    ScanOptions other = o;
    other.recipe = Recipe::defaults();
    try {
        runScan(ck, other, CancelToken{});
        FAIL() << "another scan's report was resumed";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find("cut.jsonl"), std::string::npos) << e.what();
    }
}

TEST(Scan, DemoCheckpointWithQuantizedAndDenseWeights)
{
    const fs::path d = tempDir("qs_scan_demo");
    demo::writeDemoCheckpoint(d);
    const Checkpoint ck = Checkpoint::open(d);
    int twoD = 0;
    for (const auto &e : ck.entries())
        twoD += e.shape.size() == 2 && e.name.ends_with(".weight");
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    ojson j = {
        {"quantscope_recipe", 1},
        {"rules", {{{"patterns", {"*experts.0.*", "*layers.0.self_attn.q_proj"}}, {"specs", {{{"method", "int"}}}}}}}};
    o.recipe = Recipe::fromJson(j); // a few modules keep the test quick
    const ScanResult r = runScan(ck, o, CancelToken{});
    EXPECT_EQ(static_cast<int>(r.lines.size()), twoD);
    EXPECT_EQ(r.scanned, 4);
    EXPECT_EQ(r.errors, 0);
}

TEST(Scan, ReportLinesRoundTripThroughTheSessionFile)
{
    const Checkpoint ck = Checkpoint::open(smallCheckpoint("qs_scan_session"));
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    Session s;
    s.scanLines = runScan(ck, o, CancelToken{}).lines;
    const Session back = sessionFromJson(nlohmann::json::parse(sessionToJson(s).dump()));
    ASSERT_EQ(back.scanLines.size(), s.scanLines.size());
    for (std::size_t i = 0; i < s.scanLines.size(); ++i)
        EXPECT_EQ(nlohmann::json::parse(back.scanLines[i].dump()), nlohmann::json::parse(s.scanLines[i].dump()));
    // A session without a scan has no "scan" key, and reads back without lines.
    EXPECT_FALSE(sessionToJson(Session{}).contains("scan"));
    EXPECT_TRUE(sessionFromJson(sessionToJson(Session{})).scanLines.empty());
}

TEST(Scan, NumPyArrayNamedLikeAWeight)
{
    const fs::path d = tempDir("qs_scan_npy");
    const Tensor w = randomTensor({16, 96}, 9);
    writeNpy(d / "model.layers.0.mlp.up_proj.weight.npy", w);
    const Checkpoint ck = Checkpoint::open(d / "model.layers.0.mlp.up_proj.weight.npy");
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    const ScanResult r = runScan(ck, o, CancelToken{});
    ASSERT_EQ(r.lines.size(), 1u);
    RunOptions ro;
    ro.device = DeviceChoice::Cpu;
    const QuantizeRun run = runQuantize(ck.tensor("model.layers.0.mlp.up_proj.weight"), QuantSpec{IntSpec{}}, ro);
    EXPECT_EQ(r.lines[0]["runs"][0]["metrics"]["mse"].get<double>(), run.metrics->mse);
}

TEST(Scan, QuantizedModulesAreDecodedThenScanned)
{
    // A compressed-tensors pack-quantized INT4 module (4 × 32, group 32; codes packed here by
    // hand: value + 8, element i in bits 4i..4i+3 of its word) beside a dense weight.
    const fs::path d = tempDir("qs_scan_ct");
    const std::string mod = "model.layers.0.mlp.down_proj";
    std::vector<std::uint32_t> words(4 * 4, 0u);
    for (int r = 0; r < 4; ++r)
        for (int i = 0; i < 32; ++i)
            words[static_cast<std::size_t>(r * 4 + i / 8)] |= static_cast<std::uint32_t>((i * 7 + r) % 16)
                                                              << (4 * (i % 8));
    Tensor packed = Tensor::zeros(DType::I32, {4, 4});
    std::memcpy(packed.mutableData(), words.data(), words.size() * 4);
    Tensor shape = Tensor::zeros(DType::I64, {2});
    const std::int64_t dims[2] = {4, 32};
    std::memcpy(shape.mutableData(), dims, sizeof dims);
    const std::vector<float> scales = {0.5f, 0.25f, 1.0f, 2.0f};
    writeSafetensors(d / "model.safetensors", {{mod + ".weight_packed", packed},
                                               {mod + ".weight_scale", Tensor::fromFloats({4, 1}, scales)},
                                               {mod + ".weight_shape", shape},
                                               {"model.layers.0.mlp.up_proj.weight", randomTensor({32, 128}, 11)}});
    std::ofstream(d / "config.json")
        << R"({"model_type": "llama", "quantization_config": {"quant_method": "compressed-tensors",
        "format": "pack-quantized", "quantization_status": "compressed", "ignore": ["lm_head"],
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
        "symmetric": true, "group_size": 32, "strategy": "group"}, "input_activations": null,
        "output_activations": null, "format": "pack-quantized"}}}})";
    const Checkpoint ck = Checkpoint::open(d / "model.safetensors");
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    o.recipe = Recipe::defaults().withSpecs({QuantSpec{Fp8Spec{}}});
    const ScanResult r = runScan(ck, o, CancelToken{});
    ASSERT_EQ(r.lines.size(), 2u);
    const auto &q = r.lines[0]["module"] == mod ? r.lines[0] : r.lines[1];
    EXPECT_EQ(q["format"], "compressed-tensors/pack-quantized");
    EXPECT_EQ(q["shape"], ojson::array({4, 32}));
    // The decoded weight is (code − 8) · scale of its row: built here from the codes.
    std::vector<float> w(4 * 32);
    for (int row = 0; row < 4; ++row)
        for (int i = 0; i < 32; ++i)
            w[static_cast<std::size_t>(row * 32 + i)] =
                static_cast<float>((i * 7 + row) % 16 - 8) * scales[static_cast<std::size_t>(row)];
    RunOptions ro;
    ro.device = DeviceChoice::Cpu;
    const QuantizeRun run = runQuantize(Tensor::fromFloats({4, 32}, w), QuantSpec{Fp8Spec{}}, ro);
    EXPECT_EQ(q["runs"][0]["metrics"]["mse"].get<double>(), run.metrics->mse);
    EXPECT_EQ(q["runs"][0]["metrics"]["max_abs_err"].get<double>(), run.metrics->maxAbsErr);
}

TEST(Scan, ReadBuffersOfGrowingAndShrinkingSizesKeepEveryModuleIntact)
{
    // Modules of several sizes above the 2 MiB buffer grain, in an order that makes the reader
    // reuse, outgrow and drop its recycled buffers: every line still equals runQuantize on the
    // mapped tensor, and the per-row kurtosis count equals the rows.
    const fs::path d = tempDir("qs_scan_buffers");
    const std::vector<Shape> shapes = {{64, 256},    {700, 1024}, {1400, 1024}, {64, 256},
                                       {2100, 1024}, {700, 1024}, {1400, 1024}};
    std::vector<std::pair<std::string, Tensor>> ts;
    for (std::size_t i = 0; i < shapes.size(); ++i)
        ts.emplace_back("model.layers." + std::to_string(i) + ".mlp.up_proj.weight", randomTensor(shapes[i], 40 + i));
    writeSafetensors(d / "model.safetensors", ts);
    const Checkpoint ck = Checkpoint::open(d / "model.safetensors");
    ScanOptions o;
    o.device = DeviceChoice::Cpu;
    o.threads = 2;
    o.prefetchBytes = 1; // one module ahead at most, whatever its size
    const ScanResult r = runScan(ck, o, CancelToken{});
    ASSERT_EQ(r.lines.size(), shapes.size());
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const auto &line = r.lines[i];
        ASSERT_EQ(line["status"], "scanned") << line.dump();
        const Tensor w = ck.tensor(line["tensor"].get<std::string>());
        RunOptions ro;
        ro.device = DeviceChoice::Cpu;
        const QuantizeRun run = runQuantize(w, QuantSpec{IntSpec{}}, ro);
        EXPECT_EQ(line["runs"][0]["metrics"]["mse"].get<double>(), run.metrics->mse) << i;
        EXPECT_EQ(line["kurtosis"]["rows"]["count"], shapes[i][0]) << i;
    }
}
