// SPDX-License-Identifier: MIT
// safetensors: the 8-byte length, the JSON header, dtypes, shapes and data offsets. The input is
// one file, opened strict and lenient; every tensor the reader hands out is read whole.
#include "fuzz_common.h"
#include "io/safetensors.h"

using namespace quantscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto path = qsfuzz::writeFile("model.safetensors", data, size);
    for (const bool lenient : {false, true}) {
        qsfuzz::refusalsOnly("safetensors", [&] {
            ReadOptions o;
            o.lenient = lenient;
            o.maxHeaderBytes = 1 << 20;
            const SafetensorsFile f = SafetensorsFile::open(path, o);
            for (const auto &e : f.entries())
                qsfuzz::touch(f.tensor(e));
        });
    }
    return 0;
}
