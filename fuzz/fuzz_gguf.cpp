// SPDX-License-Identifier: MIT
// GGUF: magic, version, counts, metadata of every value type, tensor infos, alignment and the
// data section. The input is one file; every tensor it lists is read (block types decoded).
#include "fuzz_common.h"
#include "io/gguf.h"

using namespace quantscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto path = qsfuzz::writeFile("model.gguf", data, size);
    qsfuzz::refusalsOnly("gguf", [&] {
        const GgufFile f = GgufFile::open(path);
        for (const auto &e : f.entries()) {
            (void)f.hfName(e.name);
            qsfuzz::refusalsOnly("gguf", [&] { qsfuzz::touch(f.tensor(e.name)); });
        }
    });
    return 0;
}
