// SPDX-License-Identifier: MIT
// The quantized-module readers (compressed-tensors pack-quantized / int / float / FP8 block /
// NVFP4 / MXFP4, DeepSeek FP8 block, Quark real_quantized): the input is config.json, the line
// "#QSFUZZ#", then the bytes of model.safetensors (no separator: the whole input is the
// safetensors file and there is no config). Detection runs strict and collecting; every module
// found is unpacked, its parameters read and decoded.
#include "fuzz_common.h"
#include "io/checkpoint.h"
#include "io/quantized.h"

#include <string_view>

using namespace quantscope;

namespace {
constexpr std::string_view kSeparator = "\n#QSFUZZ#\n";

void decodeAll(const Checkpoint &ck, const Detection &det)
{
    for (const auto &m : det.modules) {
        if (numelOf(m.shape) * 4 > static_cast<std::int64_t>(qsfuzz::kMaxTensorBytes))
            continue;
        qsfuzz::refusalsOnly("quantized", [&] { qsfuzz::touch(quantizedCodes(ck, m)); });
        qsfuzz::refusalsOnly("quantized", [&] { (void)quantizedParams(ck, m); });
        qsfuzz::refusalsOnly("quantized", [&] { qsfuzz::touch(decodeQuantized(ck, m)); });
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    qsfuzz::clearScratch();
    const std::string_view in(reinterpret_cast<const char *>(data), size);
    const auto cut = in.find(kSeparator);
    if (cut != std::string_view::npos) {
        qsfuzz::writeFile("q/config.json", in.substr(0, cut));
        qsfuzz::writeFile("q/model.safetensors", in.substr(cut + kSeparator.size()));
    } else {
        qsfuzz::writeFile("q/model.safetensors", in);
    }
    const auto dir = qsfuzz::scratch() / "q";
    qsfuzz::refusalsOnly("quantized", [&] {
        const Checkpoint ck = Checkpoint::open(dir);
        qsfuzz::refusalsOnly("quantized", [&] { decodeAll(ck, detectQuantized(ck)); });
        DetectOptions lenient;
        lenient.strict = false;
        decodeAll(ck, detectQuantized(ck, lenient));
    });
    return 0;
}
