// SPDX-License-Identifier: MIT
// llama.cpp's block quantizers on the GPU against the CPU reference (docs/numerics.md "GGUF block
// types on the GPU"): for every type, with and without importance weights, on W stored as F32, BF16
// and F16, the device's blocks equal ggml::quantizeRows' byte for byte and Ŵ its decode bit for bit;
// through the backends the result (scales, Ŵ, block bytes) and the fused metrics equal the CPU's as
// the other GPU tests compare them; the refusals match. Data: tests/core/ggml_rows.h's seeded rows
// (heavy tails, an outlier column, an all-zero super-block, a block near GROUP_MAX_EPS, one-value and
// constant blocks, FP16-subnormal magnitudes), 37 rows so that the last thread block is partial.
#include "gpu_compare.h"

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "../core/ggml_rows.h"
#include "ggml/ggml_block_math.h"
#include "ggml/ggml_quantize.h"
#include "quant/gguf_quant.h"

namespace {

const char *const kTypes[] = {"q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"};
constexpr std::int64_t kRows = 37, kCols = 2048;

GgufQuantSpec specOf(const char *type, bool imatrix)
{
    return GgufQuantSpec::fromJson({{"method", "gguf"}, {"type", type}, {"imatrix", imatrix}});
}

bool isK(const char *type)
{
    return type[1] != '8' && type[3] == 'k';
}

std::shared_ptr<const Calibration> calibrationOf(const std::vector<float> &imp)
{
    auto c = std::make_shared<Calibration>();
    c->module = "test.module";
    c->source = "ggml_rows.h";
    c->k = static_cast<std::int64_t>(imp.size());
    c->tokens = 1;
    c->gramDiag.assign(imp.begin(), imp.end());
    return c;
}

} // namespace

TEST(GpuGgml, BlocksEqualTheCpuByteForByteForEveryTypeAndStorage)
{
    REQUIRE_GPU();
    std::string reason;
    auto engine = gpu::Engine::create(0, reason);
    ASSERT_TRUE(engine) << reason;
    const std::vector<float> x = test::ggmlRows(kRows, kCols, 4501);
    test::expectGgmlCornerCases(x, kRows, kCols);
    const std::vector<float> imp = test::ggmlImportance(kCols, 4502);
    int runs = 0;
    for (const DType dt : {DType::F32, DType::BF16, DType::F16}) {
        const Tensor w = makeTensor(x, kRows, kCols, dt);
        const Tensor wf = w.toF32().contiguous(); // what the CPU quantizes
        const auto *xf = reinterpret_cast<const float *>(wf.data());
        auto gw = engine->upload(w, "ggml rows");
        for (const char *type : kTypes) {
            for (const bool weighted : {false, true}) {
                if (weighted && !isK(type))
                    continue;
                const std::string label = std::string(type) + (weighted ? " imatrix " : " ") + std::string(nameOf(dt));
                const GgufQuantSpec spec = specOf(type, weighted);
                gpu::GgufDeviceOptions o;
                o.wantBlocks = true;
                o.wantDequantized = true;
                const gpu::GgufDeviceResult r =
                    engine->gguf(*gw, spec, weighted ? std::span<const float>(imp) : std::span<const float>(), o);
                const std::vector<std::byte> want =
                    ggml::quantizeRows(spec.type, xf, kRows, kCols, weighted ? imp.data() : nullptr);
                ASSERT_EQ(r.blocks.size(), want.size()) << label;
                const int V = ggml::blockmath::blockValues(static_cast<int>(spec.type));
                const int B = ggml::blockmath::blockBytes(static_cast<int>(spec.type));
                std::size_t blocksDiffer = 0;
                std::int64_t firstBlock = -1;
                for (std::size_t b = 0; b * B < want.size(); ++b)
                    if (std::memcmp(r.blocks.data() + b * B, want.data() + b * B, static_cast<std::size_t>(B)) != 0) {
                        ++blocksDiffer;
                        if (firstBlock < 0)
                            firstBlock = static_cast<std::int64_t>(b);
                    }
                EXPECT_EQ(blocksDiffer, 0u) << label << ": first differing block " << firstBlock << " (row "
                                            << firstBlock * V / kCols << ", column " << firstBlock * V % kCols << ")";
                std::vector<float> hat(static_cast<std::size_t>(kRows * kCols));
                ggml::decodeBlocks(spec.type, want.data(), want.size() / static_cast<std::size_t>(B), hat.data());
                ASSERT_EQ(r.quantized.dequantized.size(), hat.size()) << label;
                std::size_t hatDiffer = 0;
                for (std::size_t i = 0; i < hat.size(); ++i)
                    hatDiffer += !sameBits(r.quantized.dequantized[i], hat[i]);
                EXPECT_EQ(hatDiffer, 0u) << label << " Ŵ";
                EXPECT_EQ(r.quantized.blockBytes, want.size()) << label;
                ++runs;
            }
        }
    }
    EXPECT_EQ(runs, 3 * 15);
}

TEST(GpuGgml, ResultAndMetricsEqualTheCpuThroughTheBackends)
{
    REQUIRE_GPU();
    const Backend &cpu = BackendRegistry::instance().cpu();
    EXPECT_TRUE(gpu->supports(QuantSpec{specOf("q4_k", true)}).supported);
    const std::vector<float> x = test::ggmlRows(kRows, kCols, 4503);
    const auto cal = calibrationOf(test::ggmlImportance(kCols, 4504));
    const Tensor w = makeTensor(x, kRows, kCols, DType::BF16);
    for (const char *type : kTypes) {
        for (const bool weighted : {false, true}) {
            if (weighted && !isK(type))
                continue;
            const std::string label = std::string(type) + (weighted ? " imatrix" : "");
            const QuantSpec spec{specOf(type, weighted)};
            QuantizeOptions qo;
            qo.tensorName = "ggml rows";
            qo.wantDequantized = true;
            qo.calibration = cal;
            const MeasuredRun c = cpu.quantizeMeasured(*cpu.upload(w, label), spec, qo, ErrorMetricsOptions{}, {});
            const MeasuredRun g = gpu->quantizeMeasured(*gpu->upload(w, label), spec, qo, ErrorMetricsOptions{}, {});
            expectQuantized(g.quantized, c.quantized, label);
            expectMetrics(g.metrics, c.metrics, label);
            EXPECT_EQ(g.quantized.method, "gguf") << label;
            EXPECT_EQ(g.quantized.blockBytes, c.quantized.blockBytes) << label;
            EXPECT_EQ(g.quantized.shape, c.quantized.shape) << label;
            EXPECT_EQ(g.quantized.layout.group, c.quantized.layout.group) << label;
            // The plain quantize path (no metrics) gives the same result.
            const QuantizedTensor gq = gpu->quantize(*gpu->upload(w, label), spec, qo, nullptr);
            expectQuantized(gq, c.quantized, label + " (quantize)");
        }
    }
}

TEST(GpuGgml, RefusalsMatchTheCpu)
{
    REQUIRE_GPU();
    const Backend &cpu = BackendRegistry::instance().cpu();
    const std::vector<float> x = test::ggmlRows(8, 512 + 96, 4505); // K = 608: not whole super-blocks
    const Tensor w = makeTensor(x, 8, 608, DType::F32);
    QuantizeOptions qo;
    qo.tensorName = "ragged";
    for (const Backend *b : {&cpu, gpu}) {
        EXPECT_THROW((void)b->quantize(*b->upload(w, "ragged"), QuantSpec{specOf("q4_k", false)}, qo, nullptr),
                     UnsupportedError)
            << b->info().id;
        // Without a capture, imatrix names what to run first.
        const std::vector<float> y = test::ggmlRows(8, 512, 4506);
        const Tensor v = makeTensor(y, 8, 512, DType::F32);
        try {
            (void)b->quantize(*b->upload(v, "no capture"), QuantSpec{specOf("q4_k", true)}, qo, nullptr);
            ADD_FAILURE() << b->info().id << ": imatrix without a capture was accepted";
        } catch (const UnsupportedError &e) {
            EXPECT_NE(std::string(e.what()).find("capture"), std::string::npos) << e.what();
        }
    }
}
