// SPDX-License-Identifier: MIT
// config.json and its quantization_config: the input is config.json beside a fixed valid
// compressed-tensors INT4 checkpoint (written once); the checkpoint opens (an unreadable config
// is a warning), detection reads the config against the tensors, and the doctor's structural
// pass reads it too.
#include "doctor/doctor.h"
#include "fuzz_common.h"
#include "io/checkpoint.h"
#include "io/quantized.h"
#include "io/safetensors.h"

#include <cstring>
#include <vector>

using namespace quantscope;

namespace {
Tensor bytesTensor(DType d, Shape s, const void *p, std::size_t n)
{
    std::vector<std::byte> b(n);
    std::memcpy(b.data(), p, n);
    return Tensor::fromBytes(d, std::move(s), std::move(b));
}

void writeModel(const std::filesystem::path &dir)
{
    static bool done = false;
    if (done)
        return;
    done = true;
    std::filesystem::create_directories(dir);
    const std::string mod = "model.layers.0.mlp.down_proj";
    const std::uint32_t packed[8] = {0x76543210u, 0xFEDCBA98u, 0x01234567u, 0x89ABCDEFu,
                                     0x11111111u, 0x88888888u, 0x0F0F0F0Fu, 0xF0F0F0F0u};
    const float scale[2] = {0.5f, 0.25f};
    const std::int64_t shape[2] = {2, 32};
    const float dense[4] = {1, 2, 3, 4};
    writeSafetensors(dir / "model.safetensors",
                     {{mod + ".weight_packed", bytesTensor(DType::I32, {2, 4}, packed, sizeof packed)},
                      {mod + ".weight_scale", bytesTensor(DType::F32, {2, 1}, scale, sizeof scale)},
                      {mod + ".weight_shape", bytesTensor(DType::I64, {2}, shape, sizeof shape)},
                      {"model.norm.weight", Tensor::fromFloats({4}, dense)}});
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto dir = qsfuzz::scratch() / "c";
    writeModel(dir);
    qsfuzz::writeFile("c/config.json", data, size);
    qsfuzz::refusalsOnly("config", [&] {
        const Checkpoint ck = Checkpoint::open(dir);
        (void)ck.quantizationConfig();
        DetectOptions lenient;
        lenient.strict = false;
        for (const auto &options : {DetectOptions{}, lenient}) {
            qsfuzz::refusalsOnly("config", [&] {
                const Detection det = detectQuantized(ck, options);
                for (const auto &m : det.modules)
                    qsfuzz::touch(decodeQuantized(ck, m));
            });
        }
    });
    qsfuzz::refusalsOnly("config", [&] { (void)runDoctor(dir).toJson(); });
    return 0;
}
