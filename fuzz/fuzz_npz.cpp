// SPDX-License-Identifier: MIT
// NumPy .npz / ZIP: end of central directory, ZIP64 records and extra fields, local headers,
// stored and deflated members, data descriptors, CRC, and each member's .npy header; every array
// is read.
#include "fuzz_common.h"
#include "io/npz.h"

using namespace quantscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto path = qsfuzz::writeFile("arrays.npz", data, size);
    for (const bool lenient : {false, true}) {
        qsfuzz::refusalsOnly("npz", [&] {
            ReadOptions o;
            o.lenient = lenient;
            const NpzFile f = NpzFile::open(path, o);
            for (const auto &m : f.members())
                if (m.header.dataBytes <= qsfuzz::kMaxTensorBytes)
                    qsfuzz::touch(f.tensor(m.name));
        });
    }
    return 0;
}
