// SPDX-License-Identifier: MIT
// Calibration captures: the reader's validation (every way the file can lie), pairing with a
// checkpoint, and the output-aware error against a direct computation from the input rows.
#include "budget/budget.h"
#include "engine/job.h"
#include "export/checkpoint_writer.h"
#include "io/checkpoint.h"
#include "recipe/recipe.h"
#include "io/capture.h"
#include "io/safetensors.h"
#include "metrics/output_error.h"
#include "quant/quant_spec.h"
#include "safetensors_fixture.h"
#include "util/error.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>

using namespace quantscope;
using quantscope::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

/// Heavy-tailed input rows with two outlier channels (seeded), as activations look.
std::vector<float> activationRows(std::int64_t n, std::int64_t k, unsigned seed)
{
    std::mt19937 rng(seed);
    std::student_t_distribution<float> t(3.0f);
    std::vector<float> x(static_cast<std::size_t>(n * k));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < k; ++j)
            x[static_cast<std::size_t>(i * k + j)] = t(rng) * (j == 3 || j == k - 2 ? 20.0f : 1.0f);
    return x;
}

/// G = XᵀX / n in FP64 (rounded to FP32 once, as the bridge stores it).
std::vector<float> gramOf(const std::vector<float> &x, std::int64_t n, std::int64_t k)
{
    std::vector<float> g(static_cast<std::size_t>(k * k));
    for (std::int64_t a = 0; a < k; ++a)
        for (std::int64_t b = 0; b < k; ++b) {
            double s = 0;
            for (std::int64_t t = 0; t < n; ++t)
                s += static_cast<double>(x[static_cast<std::size_t>(t * k + a)]) *
                     x[static_cast<std::size_t>(t * k + b)];
            g[static_cast<std::size_t>(a * k + b)] = static_cast<float>(s / static_cast<double>(n));
        }
    return g;
}

struct CaptureSpec {
    std::int64_t n = 200, k = 16, outQ = 24, outO = 16;
    bool fullGram = true;
    std::string version = "1";
    std::string tokens; // "" = n
    std::optional<std::string> modulesJson;
    std::optional<std::string> attentionJson;
    DType statsDtype = DType::F32;
    bool dropDiag = false;
    std::int64_t gramRows = -1; // −1 = k
    std::int64_t kvHeads = 2;
};

/// A capture of a two-module "model": q_proj and k_proj share one input (prefix q_proj),
/// o_proj has its own; one attention block. Returns the input rows of q_proj.
std::vector<float> writeCapture(const fs::path &path, const CaptureSpec &c = {})
{
    const std::vector<float> xq = activationRows(c.n, c.k, 1), xo = activationRows(c.n, c.k, 2);
    std::vector<std::pair<std::string, Tensor>> t;
    const auto stats = [&](const std::string &p, const std::vector<float> &x) {
        std::vector<float> diag(static_cast<std::size_t>(c.k)), amax(diag.size()), mn(diag.size(), 1e30f),
            mx(diag.size(), -1e30f);
        for (std::int64_t i = 0; i < c.n; ++i)
            for (std::int64_t j = 0; j < c.k; ++j) {
                const float v = x[static_cast<std::size_t>(i * c.k + j)];
                diag[static_cast<std::size_t>(j)] += v * v / static_cast<float>(c.n);
                amax[static_cast<std::size_t>(j)] = std::max(amax[static_cast<std::size_t>(j)], std::abs(v));
                mn[static_cast<std::size_t>(j)] = std::min(mn[static_cast<std::size_t>(j)], v);
                mx[static_cast<std::size_t>(j)] = std::max(mx[static_cast<std::size_t>(j)], v);
            }
        if (c.fullGram) {
            const std::int64_t rows = c.gramRows < 0 ? c.k : c.gramRows;
            std::vector<float> g = gramOf(x, c.n, c.k);
            g.resize(static_cast<std::size_t>(rows * c.k));
            Tensor gt = Tensor::fromFloats({rows, c.k}, g);
            if (c.statsDtype != DType::F32)
                gt = Tensor::zeros(c.statsDtype, {rows, c.k});
            t.emplace_back(p + ".input_gram", gt);
        }
        if (!c.dropDiag)
            t.emplace_back(p + ".input_gram_diag", Tensor::fromFloats({c.k}, diag));
        t.emplace_back(p + ".input_absmax", Tensor::fromFloats({c.k}, amax));
        t.emplace_back(p + ".input_min", Tensor::fromFloats({c.k}, mn));
        t.emplace_back(p + ".input_max", Tensor::fromFloats({c.k}, mx));
        t.emplace_back(
            p + ".input_sample",
            Tensor::fromFloats({8, c.k}, std::span<const float>(x.data(), static_cast<std::size_t>(8 * c.k))));
    };
    stats("m.attn.q_proj", xq);
    stats("m.attn.o_proj", xo);
    const std::vector<float> kv(static_cast<std::size_t>(c.kvHeads * 5 * 4), 0.5f),
        q(static_cast<std::size_t>(4 * 3 * 4));
    t.emplace_back("m.attn.k", Tensor::fromFloats({c.kvHeads, 5, 4}, kv));
    t.emplace_back("m.attn.v", Tensor::fromFloats({c.kvHeads, 5, 4}, kv));
    t.emplace_back("m.attn.q", Tensor::fromFloats({4, 3, 4}, q));
    const std::string k = std::to_string(c.k);
    std::map<std::string, std::string> meta = {
        {"format", "quantscope-capture"},
        {"version", c.version},
        {"tokens", c.tokens.empty() ? std::to_string(c.n) : c.tokens},
        {"samples", "4"},
        {"seq", std::to_string(c.n / 4)},
        {"model", "synthetic"},
        {"modules", c.modulesJson.value_or(
                        "{\"m.attn.q_proj\": {\"in_features\": " + k + ", \"out_features\": " + std::to_string(c.outQ) +
                        ", \"stats\": \"m.attn.q_proj\"}, \"m.attn.k_proj\": {\"in_features\": " + k +
                        ", \"out_features\": 8, \"stats\": \"m.attn.q_proj\"}, \"m.attn.o_proj\": {\"in_features\": " +
                        k + ", \"out_features\": " + std::to_string(c.outO) + ", \"stats\": \"m.attn.o_proj\"}}")},
        {"attention", c.attentionJson.value_or("{\"m.attn\": {\"layer\": 0, \"num_heads\": 4, \"num_kv_heads\": 2, "
                                               "\"head_dim\": 4, \"rope\": \"post\"}}")}};
    writeSafetensors(path, t, meta);
    return xq;
}

std::vector<float> weights(std::int64_t n, std::int64_t k, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, 0.05f);
    std::vector<float> w(static_cast<std::size_t>(n * k));
    for (float &v : w)
        v = d(rng);
    return w;
}

void expectRefused(const fs::path &p, const std::string &fragment)
{
    try {
        (void)Capture::open(p);
        ADD_FAILURE() << "accepted a capture that lies: expected '" << fragment << "'";
    } catch (const FormatError &e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(p.filename().string()), std::string::npos)
            << "names the file: " << e.what();
    }
}

} // namespace

TEST(Capture, OpensModulesSharedStatisticsAndAttention)
{
    ScratchDir dir;
    writeCapture(dir / "c.safetensors");
    ASSERT_TRUE(isCaptureFile(dir / "c.safetensors"));
    const Capture c = Capture::open(dir / "c.safetensors");
    EXPECT_EQ(c.tokens(), 200);
    ASSERT_EQ(c.modules().size(), 3u);
    EXPECT_EQ(c.module("m.attn.k_proj")->stats, "m.attn.q_proj");
    const InputStats s = c.inputStats("m.attn.k_proj");
    EXPECT_EQ(s.prefix, "m.attn.q_proj");
    ASSERT_TRUE(s.gram.has_value());
    EXPECT_EQ(s.gram->shape(), (Shape{16, 16}));
    EXPECT_GT(s.tensorAbsmax(), 20.0); // an outlier channel
    ASSERT_EQ(c.attention().size(), 1u);
    EXPECT_EQ(c.attentionTensor("m.attn", 'k')->shape(), (Shape{2, 5, 4}));
    EXPECT_EQ(c.attentionTensor("m.attn", 'q')->shape(), (Shape{4, 3, 4}));
    EXPECT_THROW((void)c.inputStats("m.attn.v_proj"), FormatError);
}

TEST(Capture, RefusesEveryLie)
{
    ScratchDir dir;
    const auto lie = [&](const std::string &name, CaptureSpec spec, const std::string &fragment) {
        const fs::path p = dir / (name + ".safetensors");
        writeCapture(p, spec);
        expectRefused(p, fragment);
    };
    CaptureSpec s;
    s.version = "2";
    lie("version", s, "version '2' is not supported");
    s = {};
    s.tokens = "12x";
    lie("tokens_text", s, "'tokens' must be a positive integer");
    s = {};
    s.tokens = "0";
    lie("tokens_zero", s, "'tokens' must be a positive integer");
    s = {};
    s.modulesJson = "{not json";
    lie("modules_json", s, "'modules' is not JSON");
    s = {};
    s.modulesJson = "[1, 2]";
    lie("modules_array", s, "must be a JSON object");
    s = {};
    s.modulesJson = "{}";
    lie("modules_empty", s, "lists no module");
    s = {};
    s.modulesJson = R"({"m.attn.q_proj": {"in_features": -3, "out_features": 4}})";
    lie("in_features", s, "'in_features' must be a positive integer");
    s = {};
    s.modulesJson = R"({"m.attn.q_proj": {"in_features": 16, "out_features": 4},
                        "m.attn.k_proj": {"in_features": 8, "out_features": 4, "stats": "m.attn.q_proj"}})";
    lie("shared_k", s, "disagree on in_features");
    s = {};
    s.modulesJson = R"({"m.attn.v_proj": {"in_features": 16, "out_features": 4}})";
    lie("missing_stats", s, "lacks this statistics tensor");
    s = {};
    s.dropDiag = true;
    lie("no_diag", s, "lacks this statistics tensor");
    s = {};
    s.gramRows = 15;
    lie("gram_shape", s, "expected 16x16");
    s = {};
    s.statsDtype = DType::F16;
    lie("gram_dtype", s, "must be F32, not F16");
    s = {};
    s.kvHeads = 3;
    lie("kv_heads", s, "expected 2x-1x4");
    s = {};
    s.attentionJson = R"({"m.attn": {"layer": 0, "num_heads": 4, "num_kv_heads": 2, "head_dim": 4, "rope": "x"}})";
    lie("rope", s, "rope must be");

    // Not a capture at all: a plain safetensors file.
    const fs::path plain = dir / "plain.safetensors";
    writeSafetensors(plain, {{"w", Tensor::fromFloats({2}, std::vector<float>{1, 2})}});
    EXPECT_FALSE(isCaptureFile(plain));
    expectRefused(plain, "not a Quantscope capture");
    EXPECT_FALSE(isCaptureFile(dir / "absent.safetensors"));
}

TEST(Capture, PairsByModuleNameAndShape)
{
    ScratchDir dir;
    writeCapture(dir / "c.safetensors");
    const Capture c = Capture::open(dir / "c.safetensors");
    const CapturePairing p = pairCapture({{"m.attn.q_proj.weight", {24, 16}},
                                          {"m.attn.k_proj.weight", {8, 32}}, // K disagrees
                                          {"m.mlp.up_proj.weight", {32, 16}},
                                          {"m.norm.weight", {16}}},
                                         c);
    EXPECT_EQ(p.matched, (std::vector<std::string>{"m.attn.q_proj"}));
    ASSERT_EQ(p.mismatched.size(), 1u);
    EXPECT_NE(p.mismatched[0].find("8x32"), std::string::npos);
    EXPECT_EQ(p.onlyCheckpoint, (std::vector<std::string>{"m.mlp.up_proj"}));
    EXPECT_EQ(p.onlyCapture, (std::vector<std::string>{"m.attn.o_proj"}));
    EXPECT_THROW(checkCaptureShape(c, "m.attn.k_proj", {8, 32}), FormatError);
    EXPECT_NO_THROW(checkCaptureShape(c, "m.attn.k_proj", {8, 16}));
    EXPECT_EQ(moduleOfWeight("a.b.weight"), "a.b");
    EXPECT_EQ(moduleOfWeight("a.b.bias"), "");
}

// tr(ΔW G ΔWᵀ) is E‖ΔW x‖² over the captured rows: computed here straight from the rows, with no
// Gram at all. The Gram is stored in FP32, so the two agree to FP32's relative precision.
TEST(OutputError, EqualsTheMeanSquaredOutputErrorOverTheRows)
{
    ScratchDir dir;
    const std::int64_t n = 200, k = 16, rows = 24;
    const std::vector<float> x = writeCapture(dir / "c.safetensors");
    const Capture c = Capture::open(dir / "c.safetensors");
    const GramMatrix g = gramMatrixOf(c.inputStats("m.attn.q_proj"), c.tokens());
    const std::vector<float> w = weights(rows, k, 7);
    std::vector<float> wHat = w;
    for (std::size_t i = 0; i < wHat.size(); ++i)
        wHat[i] = std::round(w[i] * 16.0f) / 16.0f; // a coarse quantizer
    double direct = 0, directRef = 0;
    for (std::int64_t t = 0; t < n; ++t)
        for (std::int64_t r = 0; r < rows; ++r) {
            double y = 0, yRef = 0;
            for (std::int64_t j = 0; j < k; ++j) {
                const double xj = x[static_cast<std::size_t>(t * k + j)];
                y += (static_cast<double>(w[static_cast<std::size_t>(r * k + j)]) -
                      wHat[static_cast<std::size_t>(r * k + j)]) *
                     xj;
                yRef += static_cast<double>(w[static_cast<std::size_t>(r * k + j)]) * xj;
            }
            direct += y * y / static_cast<double>(n);
            directRef += yRef * yRef / static_cast<double>(n);
        }
    const Tensor wt = Tensor::fromFloats({rows, k}, w);
    const double ref = gramReference(wt, g);
    const OutputError e = outputError(wt, wHat, g, ref);
    EXPECT_NEAR(e.error, direct, 1e-6 * direct);
    EXPECT_NEAR(ref, directRef, 1e-6 * directRef);
    EXPECT_NEAR(e.relative, direct / directRef, 1e-5 * direct / directRef);
    EXPECT_FALSE(e.diagonal);
    EXPECT_EQ(e.tokens, n);
    // Thread count does not change a bit.
    EXPECT_EQ(outputError(wt, wHat, g, ref, 1).error, outputError(wt, wHat, g, ref, 3).error);
    // Ŵ = W: no error.
    EXPECT_EQ(outputError(wt, w, g, ref).error, 0.0);
}

TEST(OutputError, DiagonalGramIsTheChannelWeightedSquaredError)
{
    ScratchDir dir;
    CaptureSpec spec;
    spec.fullGram = false;
    writeCapture(dir / "c.safetensors", spec);
    const Capture c = Capture::open(dir / "c.safetensors");
    const InputStats s = c.inputStats("m.attn.o_proj");
    EXPECT_FALSE(s.gram.has_value());
    const GramMatrix g = gramMatrixOf(s, c.tokens());
    ASSERT_TRUE(g.diagonal);
    const std::vector<float> w = weights(16, 16, 3);
    std::vector<float> wHat(w.size());
    for (std::size_t i = 0; i < w.size(); ++i)
        wHat[i] = w[i] * 0.9f;
    double expect = 0;
    for (std::int64_t r = 0; r < 16;
         ++r) { // each row's term, then the rows in order (docs/numerics.md "Output-aware error")
        double row = 0;
        for (std::int64_t j = 0; j < 16; ++j) {
            const double d = static_cast<double>(w[static_cast<std::size_t>(r * 16 + j)]) -
                             wHat[static_cast<std::size_t>(r * 16 + j)];
            row += d * d * s.gramDiag.at(j);
        }
        expect += row;
    }
    const Tensor wt = Tensor::fromFloats({16, 16}, w);
    const OutputError e = outputError(wt, wHat, g, gramReference(wt, g));
    EXPECT_DOUBLE_EQ(e.error, expect);
    EXPECT_TRUE(e.diagonal);
    EXPECT_THROW((void)outputError(Tensor::fromFloats({2, 8}, std::vector<float>(16)), std::vector<float>(16), g, 1.0),
                 UnsupportedError);
}

TEST(OutputError, TheJobAddsItToEachRunOfACapturedModule)
{
    ScratchDir dir;
    writeCapture(dir / "c.safetensors");
    auto c = std::make_shared<const Capture>(Capture::open(dir / "c.safetensors"));
    const std::vector<float> w = weights(24, 16, 11);
    QuantizeJobRequest req;
    req.tensors = {"m.attn.q_proj.weight", "m.mlp.up_proj.weight"};
    req.specs = {JobSpec::typed("int4", parseQuantSpec({{"method", "int"}, {"bits", 4}, {"group", 8}})),
                 JobSpec::typed("int8", parseQuantSpec({{"method", "int"}, {"bits", 8}, {"group", 8}}))};
    req.device = DeviceChoice::Cpu;
    req.capture = c;
    req.keepQuantized = true;
    TensorSource src;
    src.weight = [&](const std::string &) { return Tensor::fromFloats({24, 16}, w); };
    const QuantizeJobResult r = runQuantizeJob(req, src, CancelToken());
    ASSERT_EQ(r.outcomes.size(), 4u);
    const GramMatrix g = gramMatrixOf(c->inputStats("m.attn.q_proj"), c->tokens());
    const Tensor wt = Tensor::fromFloats({24, 16}, w);
    for (int i = 0; i < 2; ++i) {
        const QuantizeOutcome &o = r.outcomes[static_cast<std::size_t>(i)];
        ASSERT_TRUE(o.ok()) << o.error;
        ASSERT_TRUE(o.outputError.has_value());
        const OutputError e = outputError(wt, o.quantized->dequantized, g, gramReference(wt, g));
        EXPECT_EQ(o.outputError->error, e.error);
    }
    EXPECT_LT(r.outcomes[1].outputError->error, r.outcomes[0].outputError->error); // 8 bits beat 4
    EXPECT_FALSE(r.outcomes[2].outputError.has_value());                           // up_proj is not in the capture
    EXPECT_NE(r.tensors[1].captureNote.find("not in the capture"), std::string::npos);
}

TEST(OutputError, BudgetMinimisesItWhenTheScanHadACapture)
{
    auto spec = [](int bits) { return toJson(parseQuantSpec({{"method", "int"}, {"bits", bits}, {"group", 64}})); };
    // Module a has small weight error but a large output error (its inputs are large); b the reverse.
    std::vector<nlohmann::json> lines;
    for (const char *m : {"a", "b"}) {
        nlohmann::json l = {{"module", m}, {"status", "scanned"}, {"shape", {64, 128}}};
        for (int bits : {4, 8}) {
            const double mse = std::ldexp(1.0, -2 * bits) * (m[0] == 'a' ? 1 : 4);
            const double out = mse * 8192 * (m[0] == 'a' ? 100 : 1);
            l["runs"].push_back(
                {{"spec", spec(bits)},
                 {"metrics", {{"mse", mse}, {"bytes", 64 * 128 * bits / 8}, {"output_error", {{"error", out}}}}}});
        }
        lines.push_back(l);
    }
    nlohmann::json header = {{"quantscope_scan", 1}, {"checkpoint", "/x"}, {"capture", {{"path", "/c"}}}};
    const std::uint64_t budget = 64 * 128 / 2 + 64 * 128; // one module at 8 bits
    BudgetProblem p = budgetProblemFromLines(header, lines);
    EXPECT_EQ(p.objective, "output");
    EXPECT_EQ(solveBudget(p.modules, budget).choice, (std::vector<int>{1, 0})); // a gets 8 bits
    BudgetProblemOptions weightOnly;
    weightOnly.objective = BudgetObjective::Weight;
    p = budgetProblemFromLines(header, lines, nullptr, "report", weightOnly);
    EXPECT_EQ(p.objective, "weight");
    EXPECT_EQ(solveBudget(p.modules, budget).choice, (std::vector<int>{0, 1})); // b gets 8 bits

    // Without a capture in the header: weight error. A run lacking the output error: weight error
    // with a note under auto, refused when output is asked for.
    header.erase("capture");
    EXPECT_EQ(budgetProblemFromLines(header, lines).objective, "weight");
    header["capture"] = {{"path", "/c"}};
    lines[1]["runs"][0]["metrics"].erase("output_error");
    p = budgetProblemFromLines(header, lines);
    EXPECT_EQ(p.objective, "weight");
    EXPECT_NE(p.objectiveNote.find("b"), std::string::npos);
    BudgetProblemOptions outputOnly;
    outputOnly.objective = BudgetObjective::Output;
    EXPECT_THROW((void)budgetProblemFromLines(header, lines, nullptr, "report", outputOnly), UnsupportedError);
    EXPECT_THROW((void)parseBudgetObjective("loss"), UnsupportedError);
}

// fp8-static exports take each module's input scale from the capture: max |x| / 448, in the shape
// each toolkit's loader gives a per-tensor scale ([1] compressed-tensors, [] Quark).
TEST(Capture, StaticInputScalesOfAnExportComeFromTheCapture)
{
    ScratchDir dir;
    writeCapture(dir / "c.safetensors");
    auto capture = std::make_shared<const Capture>(Capture::open(dir / "c.safetensors"));
    fs::create_directories(dir / "in");
    const std::vector<std::pair<std::string, Tensor>> in{
        {"m.attn.q_proj.weight", Tensor::fromFloats({24, 16}, weights(24, 16, 1))},
        {"m.attn.o_proj.weight", Tensor::fromFloats({16, 16}, weights(16, 16, 2))}};
    writeSafetensors(dir / "in" / "model.safetensors", in);
    const auto recipe = [](nlohmann::ordered_json spec) {
        return Recipe::fromJson(nlohmann::ordered_json{
            {"quantscope_recipe", 1},
            {"rules",
             {{{"patterns", {"*"}}, {"dialect", "fnmatch"}, {"specs", nlohmann::ordered_json::array({spec})}}}}});
    };
    ExportOptions opt;
    opt.activations = ActivationScheme::Fp8Static;
    CheckpointExportControl control;
    const std::string input = (dir / "in" / "model.safetensors").string();
    const nlohmann::ordered_json fp8 = {{"method", "fp8"}, {"granularity", "channel"}};
    // No capture: refused, nothing written.
    EXPECT_THROW(
        exportCheckpoint(input, recipe(fp8), ExportFormat::CompressedTensors, (dir / "ct").string(), opt, control),
        UnsupportedError);
    EXPECT_FALSE(fs::exists(dir / "ct"));
    control.capture = capture;
    struct Case {
        ExportFormat format;
        nlohmann::ordered_json spec;
        Shape shape;
    };
    for (const Case &c : {Case{ExportFormat::CompressedTensors, fp8, {1}},
                          Case{ExportFormat::Quark, {{"method", "int"}, {"bits", 4}, {"group", 8}}, {}}}) {
        const fs::path out = dir / std::string(toString(c.format));
        (void)exportCheckpoint(input, recipe(c.spec), c.format, out.string(), opt, control);
        const Checkpoint back = Checkpoint::open(out);
        for (const char *m : {"m.attn.q_proj", "m.attn.o_proj"}) {
            const Tensor s = back.tensor(std::string(m) + ".input_scale");
            EXPECT_EQ(s.dtype(), DType::F32);
            EXPECT_EQ(s.shape(), c.shape) << m;
            EXPECT_EQ(static_cast<float>(s.at(0)), static_cast<float>(capture->inputStats(m).tensorAbsmax()) / 448.0f)
                << m;
        }
        EXPECT_NE(back.metadataValue("quantscope.input_scales").find("c.safetensors"), std::string::npos);
        EXPECT_EQ(back.config()["quantization_config"].dump().find("\"dynamic\":true"), std::string::npos);
    }
    // A module the capture lacks has no static scale: refused naming it.
    writeSafetensors(dir / "in" / "model.safetensors",
                     {{"m.attn.q_proj.weight", Tensor::fromFloats({24, 16}, weights(24, 16, 1))},
                      {"m.mlp.up_proj.weight", Tensor::fromFloats({16, 16}, weights(16, 16, 2))}});
    try {
        (void)exportCheckpoint(input, recipe(fp8), ExportFormat::CompressedTensors, (dir / "ct2").string(), opt,
                               control);
        ADD_FAILURE() << "exported without a static scale for m.mlp.up_proj";
    } catch (const UnsupportedError &e) {
        EXPECT_NE(std::string(e.what()).find("m.mlp.up_proj"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir / "ct2"));
}
