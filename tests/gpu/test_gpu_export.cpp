// SPDX-License-Identifier: MIT
// Checkpoint exports on the GPU (core/export/checkpoint_writer.h quantizes through runQuantize):
// the files written with --device gpu equal, byte for byte, those written on the CPU — INT4
// groups, FP8 per channel, and NVFP4 with one global scale per fused group (the tensorAmax path
// of the GPU pipeline). Skips without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <unistd.h>

#include "engine/registry.h"
#include "export/checkpoint_writer.h"
#include "io/safetensors.h"
#include "register.h"

using namespace quantscope;
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

const bool kGpuRegisteredExport = (registerGpuBackends(), true);

void writeSmallLlama(const fs::path &dir)
{
    fs::create_directories(dir);
    std::mt19937 rng(5);
    std::student_t_distribution<float> t(4.0f);
    std::vector<std::pair<std::string, Tensor>> tensors;
    auto add = [&](const std::string &name, Shape s) {
        std::vector<float> v(static_cast<std::size_t>(s[0] * (s.size() > 1 ? s[1] : 1)));
        for (auto &x : v)
            x = 0.02f * t(rng);
        tensors.emplace_back(name, Tensor::fromFloats(s, v));
    };
    for (int l = 0; l < 2; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        for (const char *m : {"q_proj", "k_proj", "v_proj", "o_proj"})
            add(p + "self_attn." + m + ".weight", {256, 256});
        add(p + "mlp.gate_proj.weight", {512, 256});
        add(p + "mlp.up_proj.weight", {512, 256});
        add(p + "mlp.down_proj.weight", {256, 512});
        add(p + "input_layernorm.weight", {256});
    }
    writeSafetensors(dir / "model.safetensors", tensors);
}

} // namespace

TEST(GpuExport, FilesWrittenOnTheGpuEqualTheCpusByteForByte)
{
    if (!BackendRegistry::instance().gpu())
        GTEST_SKIP() << "no GPU: " << BackendRegistry::instance().gpuUnavailableReason();
    const fs::path dir = fs::path(::testing::TempDir()) / ("qs_gpu_export_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    writeSmallLlama(dir / "in");
    const std::vector<ojson> specs{{{"method", "int"}, {"bits", 4}, {"group", 32}, {"symmetric", false}},
                                   {{"method", "fp8"}, {"granularity", "channel"}},
                                   {{"method", "nvfp4"}}};
    for (const ojson &spec : specs) {
        SCOPED_TRACE(spec.dump());
        const Recipe r = Recipe::fromJson(
            ojson{{"quantscope_recipe", 1}, {"rules", ojson::array({{{"patterns", {"*"}}, {"specs", {spec}}}})}});
        CheckpointExportControl cpu, gpu;
        cpu.device = DeviceChoice::Cpu;
        gpu.device = DeviceChoice::Gpu;
        fs::remove_all(dir / "cpu");
        fs::remove_all(dir / "gpu");
        const auto a = exportCheckpoint((dir / "in").string(), r, ExportFormat::CompressedTensors,
                                        (dir / "cpu").string(), {}, cpu);
        const auto b = exportCheckpoint((dir / "in").string(), r, ExportFormat::CompressedTensors,
                                        (dir / "gpu").string(), {}, gpu);
        EXPECT_EQ(a.device, "cpu");
        EXPECT_NE(b.device, "cpu") << "the export did not run on the GPU";
        EXPECT_EQ(a.quantized.size(), 14u);
        EXPECT_EQ(a.quantized, b.quantized);
        const SafetensorsFile fa = SafetensorsFile::open(dir / "cpu" / "model.safetensors");
        const SafetensorsFile fb = SafetensorsFile::open(dir / "gpu" / "model.safetensors");
        ASSERT_EQ(fa.entries().size(), fb.entries().size());
        for (const auto &e : fa.entries()) {
            const Tensor ta = fa.tensor(e.name), tb = fb.tensor(e.name);
            ASSERT_EQ(ta.nbytes(), tb.nbytes()) << e.name;
            EXPECT_EQ(std::memcmp(ta.data(), tb.data(), ta.nbytes()), 0) << e.name;
        }
    }
    fs::remove_all(dir);
}
