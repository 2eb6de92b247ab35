// SPDX-License-Identifier: MIT
#include "demo/demo.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numbers>
#include <thread>

#include <nlohmann/json.hpp>

#include "io/mapped_file.h"
#include "io/npy_writer.h"
#include "io/safetensors.h"
#include "tensor/convert.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/hash.h"

namespace quantscope::demo {

namespace {

constexpr int kHidden = 1024;
constexpr int kHeads = 16;
constexpr int kKvHeads = 4;
constexpr int kHeadDim = kHidden / kHeads;
constexpr int kDenseInter = 2816;
constexpr int kExperts = 8;
constexpr int kMoeInter = 512;
constexpr int kSharedInter = 1024;
constexpr int kVocab = 2048;
constexpr float kInitStd = 0.02f;

/// xoshiro256** seeded through splitmix64: fast, reproducible on every platform.
class Rng {
public:
    explicit Rng(std::uint64_t seed)
    {
        for (auto &s : m_s) {
            seed += 0x9E3779B97F4A7C15ull;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            s = z ^ (z >> 31);
        }
    }
    std::uint64_t next()
    {
        const std::uint64_t r = rotl(m_s[1] * 5, 7) * 9;
        const std::uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return r;
    }
    /// Uniform in (0, 1).
    double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
    /// Two independent standard normals (Box–Muller).
    std::pair<double, double> normal2()
    {
        const double r = std::sqrt(-2.0 * std::log(uniform()));
        const double a = 2.0 * std::numbers::pi * uniform();
        return {r * std::cos(a), r * std::sin(a)};
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t m_s[4];
};

/// How one weight is drawn: a Gaussian scale mixture with log-normal scale exp(sigma·g), whose
/// excess kurtosis is 3·exp(4σ²) − 3, times per-input-channel outlier factors.
struct WeightRecipe {
    std::string name;
    std::int64_t rows = 0, cols = 0; // cols = 0: a 1-D vector
    double std = kInitStd;
    double logSigma = 0.0;        // 0: Gaussian
    std::vector<int> outlierCols; // input channels scaled by outlierScale
    double outlierScale = 1.0;
    double mean = 0.0; // norm gains sit around 1
};

WeightRecipe matrix(std::string name, std::int64_t rows, std::int64_t cols, double logSigma,
                    std::vector<int> outlierCols = {}, double outlierScale = 1.0)
{
    WeightRecipe r;
    r.name = std::move(name);
    r.rows = rows;
    r.cols = cols;
    r.logSigma = logSigma;
    r.outlierCols = std::move(outlierCols);
    r.outlierScale = outlierScale;
    return r;
}

/// An RMSNorm gain vector around 1.
WeightRecipe gain(std::string name)
{
    WeightRecipe r;
    r.name = std::move(name);
    r.rows = kHidden;
    r.std = 0.08;
    r.mean = 1.0;
    return r;
}

/// σ of the log-normal scale giving excess kurtosis k for the mixture alone.
double sigmaForKurtosis(double k)
{
    return std::sqrt(std::log(1.0 + k / 3.0) / 4.0);
}

Tensor generate(const WeightRecipe &r, std::uint64_t seed)
{
    const std::int64_t n = r.cols ? r.rows * r.cols : r.rows;
    Shape shape = r.cols ? Shape{r.rows, r.cols} : Shape{r.rows};
    Tensor t = Tensor::zeros(DType::BF16, shape);
    auto *out = reinterpret_cast<std::uint16_t *>(t.mutableData());
    Rng rng(seed ^ fnv1a64(r.name));
    // Normalise the mixture so the element std is r.std: E[s²] = exp(2σ²).
    const double norm = std::exp(-r.logSigma * r.logSigma);
    std::vector<float> colScale(static_cast<std::size_t>(std::max<std::int64_t>(r.cols, 1)), 1.0f);
    for (int c : r.outlierCols)
        colScale[static_cast<std::size_t>(c)] = static_cast<float>(r.outlierScale);
    for (std::int64_t i = 0; i < n; ++i) {
        auto [z, g] = rng.normal2();
        double x = z;
        if (r.logSigma > 0)
            x *= std::exp(r.logSigma * g) * std::sqrt(norm);
        const std::size_t col = r.cols ? static_cast<std::size_t>(i % r.cols) : 0;
        const float v = static_cast<float>(r.mean + r.std * x * colScale[col]);
        out[i] = floatToBf16(v);
    }
    return t;
}

std::vector<WeightRecipe> recipes()
{
    std::vector<WeightRecipe> list;
    const std::string L0 = "model.layers.0.", L1 = "model.layers.1.";
    const double kQk = sigmaForKurtosis(1.5); // with the ×4 outlier columns: ≈ 5 overall
    const double kDense = sigmaForKurtosis(1.0);
    const double kExpert = sigmaForKurtosis(0.5);
    const auto outliers = demoQkOutlierChannels();

    list.push_back(matrix("model.embed_tokens.weight", kVocab, kHidden, 0.0));
    for (const std::string &L : {L0, L1}) {
        list.push_back(gain(L + "input_layernorm.weight"));
        list.push_back(gain(L + "post_attention_layernorm.weight"));
        list.push_back(matrix(L + "self_attn.q_proj.weight", kHidden, kHidden, kQk, outliers, 4.0));
        list.push_back(matrix(L + "self_attn.k_proj.weight", kKvHeads * kHeadDim, kHidden, kQk, outliers, 4.0));
        list.push_back(matrix(L + "self_attn.v_proj.weight", kKvHeads * kHeadDim, kHidden, kDense));
        list.push_back(matrix(L + "self_attn.o_proj.weight", kHidden, kHidden, kDense));
    }
    list.push_back(matrix(L0 + "mlp.gate_proj.weight", kDenseInter, kHidden, kDense));
    list.push_back(matrix(L0 + "mlp.up_proj.weight", kDenseInter, kHidden, kDense));
    list.push_back(matrix(L0 + "mlp.down_proj.weight", kHidden, kDenseInter, kDense));
    list.push_back(matrix(L1 + "mlp.gate.weight", kExperts, kHidden, 0.0));
    for (int e = 0; e < kExperts; ++e) {
        const std::string E = L1 + "mlp.experts." + std::to_string(e) + ".";
        list.push_back(matrix(E + "gate_proj.weight", kMoeInter, kHidden, kExpert));
        list.push_back(matrix(E + "up_proj.weight", kMoeInter, kHidden, kExpert));
        list.push_back(matrix(E + "down_proj.weight", kHidden, kMoeInter, kExpert));
    }
    list.push_back(matrix(L1 + "mlp.shared_experts.gate_proj.weight", kSharedInter, kHidden, kDense));
    list.push_back(matrix(L1 + "mlp.shared_experts.up_proj.weight", kSharedInter, kHidden, kDense));
    list.push_back(matrix(L1 + "mlp.shared_experts.down_proj.weight", kHidden, kSharedInter, kDense));
    list.push_back(gain("model.norm.weight"));
    list.push_back(matrix("lm_head.weight", kVocab, kHidden, 0.0));
    return list;
}

} // namespace

std::vector<int> demoQkOutlierChannels()
{
    return {37, 211, 598, 903};
}
std::vector<int> demoActivationOutlierChannels()
{
    return {64, 517, 1000};
}

std::vector<std::pair<std::string, Tensor>> makeDemoWeights(std::uint64_t seed)
{
    const auto list = recipes();
    std::vector<std::pair<std::string, Tensor>> out(list.size());
    // Largest first so the two cores finish together.
    std::vector<std::size_t> order(list.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return list[a].rows * std::max<std::int64_t>(list[a].cols, 1) >
               list[b].rows * std::max<std::int64_t>(list[b].cols, 1);
    });
    parallelForEach(static_cast<std::int64_t>(order.size()), 0, [&](std::int64_t k) {
        const auto i = order[static_cast<std::size_t>(k)];
        out[i] = {list[i].name, generate(list[i], seed)};
    });
    return out;
}

Tensor makeDemoActivation(std::uint64_t seed)
{
    constexpr int M = 256, K = kHidden;
    Rng rng(seed ^ fnv1a64("activations"));
    std::vector<float> chan(K);
    for (int k = 0; k < K; ++k)
        chan[k] = static_cast<float>(std::exp(0.3 * rng.normal2().first)); // per-channel spread
    std::vector<float> x(static_cast<std::size_t>(M) * K);
    for (auto &v : x)
        v = static_cast<float>(rng.normal2().first);
    for (int m = 0; m < M; ++m)
        for (int k = 0; k < K; ++k)
            x[static_cast<std::size_t>(m) * K + k] *= chan[k];
    // Scale the outlier channels so that their absmax is exactly 50× the median channel absmax.
    std::vector<float> absmax(K, 0.0f);
    for (int m = 0; m < M; ++m)
        for (int k = 0; k < K; ++k)
            absmax[k] = std::max(absmax[k], std::abs(x[static_cast<std::size_t>(m) * K + k]));
    std::vector<float> sorted = absmax;
    std::nth_element(sorted.begin(), sorted.begin() + K / 2, sorted.end());
    const float median = sorted[K / 2];
    for (int c : demoActivationOutlierChannels()) {
        const float f = 50.0f * median / absmax[c];
        for (int m = 0; m < M; ++m)
            x[static_cast<std::size_t>(m) * K + c] *= f;
    }
    return Tensor::fromFloats({M, K}, x);
}

void writeDemoCheckpoint(const std::filesystem::path &dir, std::uint64_t seed)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw IoError("cannot create folder: " + ec.message(), Location{dir.string(), {}, {}});
    auto weights = makeDemoWeights(seed);
    const std::string shard1 = "model-00001-of-00002.safetensors";
    const std::string shard2 = "model-00002-of-00002.safetensors";
    std::vector<std::pair<std::string, Tensor>> a, b;
    nlohmann::ordered_json index;
    std::uint64_t total = 0;
    for (auto &[name, t] : weights) {
        const bool first = name.starts_with("model.embed_tokens") || name.starts_with("model.layers.0.");
        total += t.nbytes();
        index["weight_map"][name] = first ? shard1 : shard2;
        (first ? a : b).emplace_back(name, t);
    }
    index["metadata"]["total_size"] = total;
    const std::map<std::string, std::string> meta{
        {"format", "pt"}, {"quantscope", "demo checkpoint, seed " + std::to_string(seed) + ", generated in code"}};
    writeSafetensors(dir / shard1, a, meta);
    writeSafetensors(dir / shard2, b, meta);

    // The weight_map is conventionally sorted by name.
    nlohmann::ordered_json sortedIndex;
    sortedIndex["metadata"] = index["metadata"];
    std::map<std::string, std::string> wm;
    for (auto &[k, v] : index["weight_map"].items())
        wm[k] = v.get<std::string>();
    for (auto &[k, v] : wm)
        sortedIndex["weight_map"][k] = v;

    auto writeText = [](const std::filesystem::path &p, const std::string &text) {
        AtomicFile f(p);
        f.write(text.data(), text.size());
        f.commit();
    };
    writeText(dir / "model.safetensors.index.json", sortedIndex.dump(2) + "\n");

    nlohmann::ordered_json cfg;
    cfg["architectures"] = {"QuantscopeDemoMoeForCausalLM"};
    cfg["model_type"] = "quantscope_demo_moe";
    cfg["hidden_size"] = kHidden;
    cfg["intermediate_size"] = kDenseInter;
    cfg["moe_intermediate_size"] = kMoeInter;
    cfg["shared_expert_intermediate_size"] = kSharedInter;
    cfg["num_hidden_layers"] = 2;
    cfg["first_k_dense_replace"] = 1;
    cfg["num_attention_heads"] = kHeads;
    cfg["num_key_value_heads"] = kKvHeads;
    cfg["head_dim"] = kHeadDim;
    cfg["n_routed_experts"] = kExperts;
    cfg["num_experts_per_tok"] = 2;
    cfg["vocab_size"] = kVocab;
    cfg["torch_dtype"] = "bfloat16";
    cfg["tie_word_embeddings"] = false;
    cfg["quantscope_demo"] = {{"seed", seed},
                              {"qk_outlier_input_channels", demoQkOutlierChannels()},
                              {"activation_outlier_channels", demoActivationOutlierChannels()}};
    writeText(dir / "config.json", cfg.dump(2) + "\n");
    writeNpy(dir / "activations.npy", makeDemoActivation(seed));
}

std::filesystem::path ensureDemoCheckpoint()
{
    std::filesystem::path base;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        base = xdg;
    else if (const char *home = std::getenv("HOME"); home && *home)
        base = std::filesystem::path(home) / ".cache";
    else
        base = std::filesystem::temp_directory_path();
    const auto dir = base / "quantscope" / ("demo-" + std::string(QUANTSCOPE_VERSION));
    // The activation file is written last: its presence marks a complete demo.
    if (std::filesystem::exists(dir / "activations.npy") &&
        std::filesystem::exists(dir / "model.safetensors.index.json"))
        return dir;
    writeDemoCheckpoint(dir);
    return dir;
}

} // namespace quantscope::demo
