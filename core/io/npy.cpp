// SPDX-License-Identifier: MIT
// NumPy .npy reader (docs/formats.md "NumPy"); the decisions are listed in npy.h.
#include "io/npy.h"

#include <cstring>
#include <limits>
#include <optional>

#include "io/mapped_file.h"
#include "util/error.h"

namespace quantscope {

namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/// A Python literal as the header dict holds it (the subset NumPy writes).
struct PyValue {
    enum class Kind { Str, Bool, Int, None, Tuple, List, Dict } kind = Kind::None;
    std::string str;
    bool boolean = false;
    std::int64_t integer = 0;
    std::vector<PyValue> items; // Tuple, List; Dict: the values
    // Dict: the keys (strings), parallel to `items`. Not a vector of pairs: std::pair of an
    // incomplete type does not compile with clang 14 (the fuzz build).
    std::vector<std::string> keys;
};

/// Recursive-descent parser of Python literals; errors carry the offset inside the header.
class PyParser {
public:
    explicit PyParser(std::string_view s) : m_s(s) {}

    struct Failure {
        std::size_t pos;
        std::string what;
    };

    PyValue parseTop()
    {
        skipSpace();
        if (m_pos >= m_s.size() || m_s[m_pos] != '{')
            throw Failure{m_pos, "the header is not a Python dict (it must start with '{')"};
        PyValue v = parseValue(0);
        skipSpace();
        if (m_pos != m_s.size())
            throw Failure{m_pos, "unexpected text after the header dict"};
        return v;
    }

private:
    std::string_view m_s;
    std::size_t m_pos = 0;

    void skipSpace()
    {
        while (m_pos < m_s.size() &&
               (m_s[m_pos] == ' ' || m_s[m_pos] == '\t' || m_s[m_pos] == '\n' || m_s[m_pos] == '\r'))
            ++m_pos;
    }
    bool eat(char c)
    {
        skipSpace();
        if (m_pos < m_s.size() && m_s[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    [[noreturn]] void fail(const std::string &what) { throw Failure{m_pos, what}; }

    PyValue parseValue(int depth)
    {
        if (depth > 16)
            fail("the header nests too deeply");
        skipSpace();
        if (m_pos >= m_s.size())
            fail("the header dict ends early");
        const char c = m_s[m_pos];
        if (c == '{')
            return parseDict(depth);
        if (c == '(' || c == '[')
            return parseSeq(depth, c == '(' ? ')' : ']');
        if (c == '\'' || c == '"')
            return parseStr();
        if (c == '-' || (c >= '0' && c <= '9'))
            return parseInt();
        for (const auto &[word, kind, b] :
             {std::tuple{"True", PyValue::Kind::Bool, true}, std::tuple{"False", PyValue::Kind::Bool, false},
              std::tuple{"None", PyValue::Kind::None, false}}) {
            const std::string_view w(word);
            if (m_s.substr(m_pos, w.size()) == w) {
                m_pos += w.size();
                PyValue v;
                v.kind = kind;
                v.boolean = b;
                return v;
            }
        }
        fail(std::string("unexpected character '") + c + "' in the header dict");
    }

    PyValue parseDict(int depth)
    {
        PyValue v;
        v.kind = PyValue::Kind::Dict;
        ++m_pos; // '{'
        while (true) {
            if (eat('}'))
                return v;
            skipSpace();
            const std::size_t keyPos = m_pos;
            PyValue key = parseValue(depth + 1);
            if (key.kind != PyValue::Kind::Str)
                throw Failure{keyPos, "a header dict key is not a string"};
            if (!eat(':'))
                fail("expected ':' after a key in the header dict");
            PyValue val = parseValue(depth + 1);
            for (const auto &k : v.keys)
                if (k == key.str)
                    throw Failure{keyPos, "duplicate key '" + key.str + "' in the header dict"};
            v.keys.push_back(key.str);
            v.items.push_back(std::move(val));
            if (eat(','))
                continue;
            if (eat('}'))
                return v;
            fail("expected ',' or '}' in the header dict");
        }
    }

    PyValue parseSeq(int depth, char close)
    {
        PyValue v;
        v.kind = close == ')' ? PyValue::Kind::Tuple : PyValue::Kind::List;
        ++m_pos;
        while (true) {
            if (eat(close))
                return v;
            v.items.push_back(parseValue(depth + 1));
            if (eat(','))
                continue;
            if (eat(close))
                return v;
            fail(std::string("expected ',' or '") + close + "' in a sequence");
        }
    }

    PyValue parseStr()
    {
        const char q = m_s[m_pos++];
        PyValue v;
        v.kind = PyValue::Kind::Str;
        while (m_pos < m_s.size() && m_s[m_pos] != q) {
            if (m_s[m_pos] == '\\' && m_pos + 1 < m_s.size()) {
                v.str += m_s[m_pos + 1];
                m_pos += 2;
                continue;
            }
            v.str += m_s[m_pos++];
        }
        if (m_pos >= m_s.size())
            fail("unterminated string in the header dict");
        ++m_pos;
        return v;
    }

    PyValue parseInt()
    {
        const std::size_t start = m_pos;
        bool neg = false;
        if (m_s[m_pos] == '-') {
            neg = true;
            ++m_pos;
        }
        if (m_pos >= m_s.size() || m_s[m_pos] < '0' || m_s[m_pos] > '9')
            throw Failure{start, "malformed integer in the header dict"};
        std::uint64_t n = 0;
        while (m_pos < m_s.size() && m_s[m_pos] >= '0' && m_s[m_pos] <= '9') {
            const unsigned d = static_cast<unsigned>(m_s[m_pos] - '0');
            if (n > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - d) / 10)
                throw Failure{start, "integer in the header dict overflows 64 bits"};
            n = n * 10 + d;
            ++m_pos;
        }
        if (m_pos < m_s.size() && (m_s[m_pos] == 'L' || m_s[m_pos] == 'l'))
            ++m_pos; // Python 2 long suffix written by old NumPy
        PyValue v;
        v.kind = PyValue::Kind::Int;
        v.integer = neg ? -static_cast<std::int64_t>(n) : static_cast<std::int64_t>(n);
        return v;
    }
};

std::uint16_t rd16(const std::byte *p)
{
    return static_cast<std::uint16_t>(static_cast<unsigned>(p[0]) | static_cast<unsigned>(p[1]) << 8);
}
std::uint32_t rd32(const std::byte *p)
{
    return static_cast<std::uint32_t>(rd16(p)) | static_cast<std::uint32_t>(rd16(p + 2)) << 16;
}

/// Maps a descr string to a dtype; nullopt with a reason for what is refused.
std::optional<DType> descrToDType(const std::string &d, bool &bigEndian, std::string &why)
{
    bigEndian = false;
    if (d.size() < 2) {
        why = "unsupported dtype descr '" + d + "'";
        return std::nullopt;
    }
    std::size_t i = 0;
    char order = '=';
    if (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=') {
        order = d[0];
        i = 1;
    }
    if (i >= d.size()) {
        why = "unsupported dtype descr '" + d + "'";
        return std::nullopt;
    }
    const char kind = d[i];
    const std::string size = d.substr(i + 1);
    switch (kind) {
    case 'O':
        why = "object arrays (pickled Python objects, descr '" + d + "') are refused";
        return std::nullopt;
    case 'c':
        why = "complex arrays (descr '" + d + "') are refused";
        return std::nullopt;
    case 'U':
        why = "unicode string arrays (descr '" + d + "') are refused";
        return std::nullopt;
    case 'S':
    case 'a':
        why = "byte string arrays (descr '" + d + "') are refused";
        return std::nullopt;
    case 'V':
        why = "void/structured arrays (descr '" + d + "') are refused";
        return std::nullopt;
    case 'M':
    case 'm':
        why = "datetime/timedelta arrays (descr '" + d + "') are refused";
        return std::nullopt;
    default:
        break;
    }
    std::optional<DType> t;
    if (kind == 'f') {
        if (size == "2")
            t = DType::F16;
        else if (size == "4")
            t = DType::F32;
        else if (size == "8")
            t = DType::F64;
    } else if (kind == 'i') {
        if (size == "1")
            t = DType::I8;
        else if (size == "2")
            t = DType::I16;
        else if (size == "4")
            t = DType::I32;
        else if (size == "8")
            t = DType::I64;
    } else if (kind == 'u') {
        if (size == "1")
            t = DType::U8;
        else if (size == "2")
            t = DType::U16;
        else if (size == "4")
            t = DType::U32;
        else if (size == "8")
            t = DType::U64;
    } else if (kind == 'b' && size == "1") {
        t = DType::BOOL;
    }
    if (!t) {
        why = "unsupported dtype descr '" + d + "'";
        return std::nullopt;
    }
    bigEndian = order == '>' && bitsOf(*t) > 8;
    return t;
}

} // namespace

NpyHeader parseNpyHeader(const std::byte *bytes, std::uint64_t size, const std::string &file, std::uint64_t base,
                         const std::string &tensor, bool headerOnly)
{
    auto fail = [&](std::uint64_t at, const std::string &msg) -> void {
        throw FormatError(msg, Location{file, tensor, base + at});
    };
    NpyHeader h;
    if (size < 8 || std::memcmp(bytes, kMagic, 6) != 0)
        fail(0, "not a .npy array: the magic string \\x93NUMPY is missing");
    h.major = static_cast<int>(bytes[6]);
    h.minor = static_cast<int>(bytes[7]);
    if (h.major < 1 || h.major > 3 || h.minor != 0)
        fail(6, "unsupported .npy format version " + std::to_string(h.major) + "." + std::to_string(h.minor) +
                    " (1.0, 2.0 and 3.0 are read)");
    std::uint64_t hlen;
    if (h.major == 1) {
        if (size < 10)
            fail(8, "the header length field is cut off by the end of the data");
        hlen = rd16(bytes + 8);
        h.headerStart = 10;
    } else {
        if (size < 12)
            fail(8, "the header length field is cut off by the end of the data");
        hlen = rd32(bytes + 8);
        h.headerStart = 12;
    }
    if (hlen > size - h.headerStart)
        fail(8, "the header length " + std::to_string(hlen) + " runs past the end of the data (" +
                    std::to_string(size - h.headerStart) + " bytes follow the length field)");
    const std::string_view text(reinterpret_cast<const char *>(bytes + h.headerStart), hlen);
    if (h.major < 3) {
        for (std::size_t i = 0; i < text.size(); ++i)
            if (static_cast<unsigned char>(text[i]) >= 0x80)
                fail(h.headerStart + i, "non-ASCII byte in a version " + std::to_string(h.major) +
                                            ".0 header (only 3.0 headers are UTF-8)");
    }

    PyValue dict;
    try {
        dict = PyParser(text).parseTop();
    } catch (const PyParser::Failure &f) {
        fail(h.headerStart + f.pos, f.what);
    }
    const PyValue *descr = nullptr, *fortran = nullptr, *shape = nullptr;
    for (std::size_t i = 0; i < dict.keys.size(); ++i) {
        const std::string &k = dict.keys[i];
        const PyValue &v = dict.items[i];
        if (k == "descr")
            descr = &v;
        else if (k == "fortran_order")
            fortran = &v;
        else if (k == "shape")
            shape = &v;
        else
            fail(h.headerStart, "unexpected key '" + k +
                                    "' in the header dict (exactly descr, fortran_order and shape "
                                    "are allowed)");
    }
    if (!descr || !fortran || !shape)
        fail(h.headerStart, std::string("the header dict lacks the key '") +
                                (!descr     ? "descr"
                                 : !fortran ? "fortran_order"
                                            : "shape") +
                                "'");
    if (descr->kind == PyValue::Kind::List)
        fail(h.headerStart, "structured arrays (a list of fields as descr) are refused");
    if (descr->kind != PyValue::Kind::Str)
        fail(h.headerStart, "'descr' must be a dtype string");
    if (fortran->kind != PyValue::Kind::Bool)
        fail(h.headerStart, "'fortran_order' must be True or False");
    if (shape->kind != PyValue::Kind::Tuple)
        fail(h.headerStart, "'shape' must be a tuple of integers");
    h.descr = descr->str;
    h.fortranOrder = fortran->boolean;
    for (const PyValue &d : shape->items) {
        if (d.kind != PyValue::Kind::Int || d.integer < 0)
            fail(h.headerStart, "'shape' must be a tuple of non-negative integers");
        h.shape.push_back(d.integer);
    }
    std::string why;
    const auto dt = descrToDType(h.descr, h.bigEndian, why);
    if (!dt)
        fail(h.headerStart, why);
    h.dtype = *dt;

    std::int64_t numel = 0;
    try {
        numel = numelOf(h.shape);
    } catch (const FormatError &e) {
        fail(h.headerStart, e.message());
    }
    const auto item = static_cast<std::uint64_t>(bitsOf(h.dtype) / 8);
    if (static_cast<std::uint64_t>(numel) > std::numeric_limits<std::uint64_t>::max() / item)
        fail(h.headerStart, "the array's byte size overflows 64 bits");
    h.dataBytes = static_cast<std::uint64_t>(numel) * item;
    h.dataOffset = h.headerStart + hlen;
    if (!headerOnly && h.dataBytes > size - h.dataOffset)
        fail(h.dataOffset, "the data is shorter than the header says: shape " + shapeToString(h.shape) + " of '" +
                               h.descr + "' needs " + std::to_string(h.dataBytes) + " bytes, " +
                               std::to_string(size - h.dataOffset) + " are present");
    return h;
}

Tensor npyTensor(const NpyHeader &h, const std::byte *bytes, std::shared_ptr<const void> keepAlive)
{
    const std::byte *data = bytes + h.dataOffset;
    const std::size_t item = static_cast<std::size_t>(bitsOf(h.dtype) / 8);
    const Shape &shape = h.shape;
    // Fortran order stores the reversed shape in C order; a 2-D array becomes a transposed view.
    Shape stored = shape;
    if (h.fortranOrder)
        stored.assign(shape.rbegin(), shape.rend());

    Tensor t;
    const bool aligned = reinterpret_cast<std::uintptr_t>(data) % item == 0;
    if (!h.bigEndian && aligned) {
        t = Tensor::borrow(h.dtype, stored, data, std::move(keepAlive));
    } else {
        std::vector<std::byte> buf(static_cast<std::size_t>(h.dataBytes));
        if (!buf.empty())
            std::memcpy(buf.data(), data, buf.size());
        if (h.bigEndian)
            for (std::size_t i = 0; i + item <= buf.size(); i += item)
                for (std::size_t a = 0, b = item - 1; a < b; ++a, --b)
                    std::swap(buf[i + a], buf[i + b]);
        t = Tensor::fromBytes(h.dtype, stored, std::move(buf));
    }
    if (!h.fortranOrder || shape.size() < 2)
        return t;
    // The stored C-order array with its axes reversed: a view for 2-D, gathered into C order for
    // rank ≥ 3.
    const Tensor f = t.reversedAxes();
    return shape.size() == 2 ? f : f.contiguous();
}

NpyFile NpyFile::open(const std::filesystem::path &path, const ReadOptions &options)
{
    NpyFile f;
    f.m_path = path;
    auto map = MappedFile::open(path);
    f.m_base = map->data();
    const std::uint64_t size = map->size();
    f.m_header = parseNpyHeader(map->data(), size, path.string(), 0);
    const std::uint64_t end = f.m_header.dataOffset + f.m_header.dataBytes;
    if (end != size) {
        const std::string msg = std::to_string(size - end) + " trailing bytes after the array data (shape " +
                                shapeToString(f.m_header.shape) + " of '" + f.m_header.descr + "' ends at byte " +
                                std::to_string(end) + ")";
        if (!options.lenient)
            throw FormatError(msg + "; --lenient accepts them", Location{path.string(), {}, end});
        f.m_warnings.push_back(formatLocation(Location{path.string(), {}, end}, msg + " (ignored)"));
    }
    f.m_map = std::move(map);
    return f;
}

Tensor NpyFile::tensor() const
{
    return npyTensor(m_header, m_base, m_map);
}

Tensor readNpy(const std::filesystem::path &path, const ReadOptions &options)
{
    return NpyFile::open(path, options).tensor();
}

Shape activationMatrixShape(const Shape &shape)
{
    return matrixShape(shape);
}

Tensor activationMatrix(const Tensor &t)
{
    return t.contiguous().reshaped(matrixShape(t.shape()));
}

} // namespace quantscope
