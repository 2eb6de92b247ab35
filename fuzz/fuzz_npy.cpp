// SPDX-License-Identifier: MIT
// NumPy .npy: magic, version, header length, the header dict (descr, fortran_order, shape) and
// the data's extent; opened strict and lenient and read whole.
#include "fuzz_common.h"
#include "io/npy.h"

using namespace quantscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto path = qsfuzz::writeFile("array.npy", data, size);
    for (const bool lenient : {false, true}) {
        qsfuzz::refusalsOnly("npy", [&] {
            ReadOptions o;
            o.lenient = lenient;
            qsfuzz::touch(readNpy(path, o));
        });
    }
    return 0;
}
