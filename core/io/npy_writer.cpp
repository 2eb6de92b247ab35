// SPDX-License-Identifier: MIT
#include "io/npy_writer.h"

#include <cstring>
#include <string>
#include <vector>

#include "io/mapped_file.h"
#include "util/error.h"

namespace quantscope {

std::string npyDescr(DType t)
{
    switch (t) {
    case DType::F64:
        return "<f8";
    case DType::F32:
        return "<f4";
    case DType::F16:
        return "<f2";
    case DType::I8:
        return "|i1";
    case DType::U8:
        return "|u1";
    case DType::BOOL:
        return "|b1";
    case DType::I16:
        return "<i2";
    case DType::U16:
        return "<u2";
    case DType::I32:
        return "<i4";
    case DType::U32:
        return "<u4";
    case DType::I64:
        return "<i8";
    case DType::U64:
        return "<u8";
    default:
        throw UnsupportedError("NumPy has no dtype for " + std::string(nameOf(t)));
    }
}

void writeNpy(const std::filesystem::path &path, const Tensor &t)
{
    std::string descr;
    try {
        descr = npyDescr(t.dtype());
    } catch (const Error &e) {
        throw UnsupportedError(e.message(), Location{path.string(), {}, {}});
    }
    // Python tuple syntax: (), (n,), (a, b).
    std::string shape = "(";
    for (std::size_t i = 0; i < t.shape().size(); ++i)
        shape += (i ? ", " : "") + std::to_string(t.shape()[i]);
    shape += t.shape().size() == 1 ? ",)" : ")";
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Magic (6) + version (2) + header length (2) + dict + padding + '\n' is a multiple of 64.
    const std::size_t unpadded = 10 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    std::string head = "\x93NUMPY";
    head += '\x01';
    head += '\x00';
    const auto hlen = static_cast<std::uint16_t>(dict.size());
    head += static_cast<char>(hlen & 0xFF);
    head += static_cast<char>(hlen >> 8);
    head += dict;

    AtomicFile out(path);
    out.write(head.data(), head.size());
    const Tensor c = t.contiguous(); // a strided view is gathered in logical order
    out.write(c.data(), c.nbytes());
    out.commit();
}

} // namespace quantscope
