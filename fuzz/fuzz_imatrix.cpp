// SPDX-License-Identifier: MIT
// Importance matrices for the GGUF export: llama.cpp's legacy imatrix.dat (entry count, names,
// call and value counts, values, the optional trailer) and its imatrix GGUF (in_sum2 / counts and
// their metadata). The input is the imatrix file; it is read against examples/tiny-q4_k.gguf and
// then planned into an export of that model (the weights' sizes checked against its tensors).
#include "export/gguf_export.h"
#include "fuzz_common.h"
#include "io/gguf.h"

using namespace quantscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const GgufFile model = GgufFile::open(QS_FUZZ_IMATRIX_MODEL);
    const auto path = qsfuzz::writeFile("imatrix.dat", data, size);
    qsfuzz::refusalsOnly("imatrix", [&] {
        const Imatrix im = loadImatrix(path, model);
        for (const auto &[name, w] : im.weights)
            for (const float x : w)
                (void)x;
        GgufExportOptions o;
        o.mix.fileType = ggml::FileType::Q4_K_M;
        o.allowRequantize = true;
        o.imatrix = path;
        (void)planGgufExport(QS_FUZZ_IMATRIX_MODEL, o);
    });
    return 0;
}
