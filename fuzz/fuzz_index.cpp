// SPDX-License-Identifier: MIT
// The sharded index (model.safetensors.index.json): the input is the index, beside two small
// valid shards written once; the checkpoint opens through it and every tensor is read.
#include "fuzz_common.h"
#include "io/checkpoint.h"
#include "io/safetensors.h"

using namespace quantscope;

namespace {
void writeShards()
{
    static bool done = false;
    if (done)
        return;
    done = true;
    const float a[6] = {1, 2, 3, 4, 5, 6};
    const float b[4] = {-1, 0.5f, 2, 8};
    const auto dir = qsfuzz::scratch() / "shards";
    std::filesystem::create_directories(dir);
    writeSafetensors(dir / "model-00001-of-00002.safetensors", {{"model.embed.weight", Tensor::fromFloats({2, 3}, a)}});
    writeSafetensors(dir / "model-00002-of-00002.safetensors",
                     {{"model.layers.0.mlp.down_proj.weight", Tensor::fromFloats({2, 2}, b)},
                      {"lm_head.weight", Tensor::fromFloats({1, 4}, b)}});
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    writeShards();
    const auto index = qsfuzz::writeFile("shards/model.safetensors.index.json", data, size);
    qsfuzz::refusalsOnly("index", [&] {
        const Checkpoint ck = Checkpoint::open(index.parent_path());
        for (const auto &e : ck.entries())
            qsfuzz::touch(ck.tensor(e.name));
    });
    return 0;
}
