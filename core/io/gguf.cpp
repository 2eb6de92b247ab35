// SPDX-License-Identifier: MIT
// GGUF reader: the layout of ggml's gguf.cpp (gguf_init_from_file_impl) and gguf-py's
// gguf_reader.py, with every length, count and offset checked against the file before it is
// used (docs/formats.md "GGUF").
#include "io/gguf.h"

#include "ggml/ggml_names.h"
#include "io/mapped_file.h"
#include "util/bus_guard.h"
#include "util/error.h"
#include "util/utf8.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <unordered_set>

namespace quantscope {

namespace {

constexpr std::uint32_t kTypeUint8 = 0, kTypeInt8 = 1, kTypeUint16 = 2, kTypeInt16 = 3, kTypeUint32 = 4, kTypeInt32 = 5,
                        kTypeFloat32 = 6, kTypeBool = 7, kTypeString = 8, kTypeArray = 9, kTypeUint64 = 10,
                        kTypeInt64 = 11, kTypeFloat64 = 12;
constexpr std::uint64_t kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

const char *valueTypeName(std::uint32_t t)
{
    static const char *names[] = {"UINT8", "INT8",   "UINT16", "INT16",  "UINT32", "INT32",  "FLOAT32",
                                  "BOOL",  "STRING", "ARRAY",  "UINT64", "INT64",  "FLOAT64"};
    return t <= kTypeFloat64 ? names[t] : "unknown";
}

/// Size of a fixed-size value type, 0 for STRING/ARRAY/unknown.
std::uint64_t fixedSize(std::uint32_t t)
{
    switch (t) {
    case kTypeUint8:
    case kTypeInt8:
    case kTypeBool:
        return 1;
    case kTypeUint16:
    case kTypeInt16:
        return 2;
    case kTypeUint32:
    case kTypeInt32:
    case kTypeFloat32:
        return 4;
    case kTypeUint64:
    case kTypeInt64:
    case kTypeFloat64:
        return 8;
    default:
        return 0;
    }
}

/// A cursor over the mapped bytes that refuses every read past the end.
class Cursor {
public:
    Cursor(const unsigned char *data, std::uint64_t size, std::string file)
        : m_data(data), m_size(size), m_file(std::move(file))
    {
    }

    std::uint64_t pos() const { return m_pos; }
    std::uint64_t left() const { return m_size - m_pos; }

    [[noreturn]] void fail(const std::string &msg, std::uint64_t at, const std::string &tensor = {}) const
    {
        throw FormatError(msg, Location{m_file, tensor, at});
    }

    void need(std::uint64_t n, const char *what, const std::string &tensor = {}) const
    {
        if (n > left())
            fail(std::string("the file ends inside ") + what + ": " + std::to_string(n) + " bytes needed at offset " +
                     std::to_string(m_pos) + ", " + std::to_string(left()) + " left (truncated?)",
                 m_pos, tensor);
    }

    template <typename T> T read(const char *what, const std::string &tensor = {})
    {
        need(sizeof(T), what, tensor);
        T v;
        std::memcpy(&v, m_data + m_pos, sizeof(T)); // GGUF is little-endian, as every host we build for
        m_pos += sizeof(T);
        return v;
    }

    std::string string(const char *what, const std::string &tensor = {})
    {
        const std::uint64_t at = m_pos;
        const auto n = read<std::uint64_t>(what, tensor);
        if (n > left())
            fail(std::string(what) + ": the string's length field says " + std::to_string(n) + " bytes, but only " +
                     std::to_string(left()) + " bytes follow in the file",
                 at, tensor);
        std::string s(reinterpret_cast<const char *>(m_data + m_pos), static_cast<std::size_t>(n));
        m_pos += n;
        return s;
    }

    void skip(std::uint64_t n, const char *what)
    {
        need(n, what);
        m_pos += n;
    }

private:
    const unsigned char *m_data;
    std::uint64_t m_size;
    std::uint64_t m_pos = 0;
    std::string m_file;
};

nlohmann::json readScalar(Cursor &c, std::uint32_t type, const char *what)
{
    switch (type) {
    case kTypeUint8:
        return c.read<std::uint8_t>(what);
    case kTypeInt8:
        return c.read<std::int8_t>(what);
    case kTypeUint16:
        return c.read<std::uint16_t>(what);
    case kTypeInt16:
        return c.read<std::int16_t>(what);
    case kTypeUint32:
        return c.read<std::uint32_t>(what);
    case kTypeInt32:
        return c.read<std::int32_t>(what);
    case kTypeFloat32:
        return c.read<float>(what);
    case kTypeBool: {
        const std::uint64_t at = c.pos();
        const auto b = c.read<std::uint8_t>(what);
        if (b > 1)
            c.fail(std::string(what) + ": a BOOL must be 0 or 1, not " + std::to_string(b), at);
        return b == 1;
    }
    case kTypeString:
        return utf8Safe(c.string(what));
    case kTypeUint64:
        return c.read<std::uint64_t>(what);
    case kTypeInt64:
        return c.read<std::int64_t>(what);
    case kTypeFloat64:
        return c.read<double>(what);
    default:
        return nullptr;
    }
}

std::string dimsText(const std::vector<std::uint64_t> &ne)
{
    std::string s = "[";
    for (std::size_t i = 0; i < ne.size(); ++i)
        s += (i ? ", " : "") + std::to_string(ne[i]);
    return s + "]";
}

} // namespace

DType ggufReadDType(ggml::Type t) noexcept
{
    switch (t) {
    case ggml::Type::F32:
        return DType::F32;
    case ggml::Type::F16:
        return DType::F16;
    case ggml::Type::BF16:
        return DType::BF16;
    case ggml::Type::F64:
        return DType::F64;
    case ggml::Type::I8:
        return DType::I8;
    case ggml::Type::I16:
        return DType::I16;
    case ggml::Type::I32:
        return DType::I32;
    case ggml::Type::I64:
        return DType::I64;
    default:
        return DType::F32;
    }
}

bool GgufFile::hasMagic(const std::filesystem::path &path) noexcept
{
    std::ifstream in(path, std::ios::binary);
    char m[4] = {};
    return in.read(m, 4) && std::memcmp(m, "GGUF", 4) == 0;
}

GgufFile GgufFile::open(const std::filesystem::path &path)
{
    GgufFile f;
    f.m_path = path;
    f.m_map = MappedFile::open(path);
    const std::string file = path.string();
    const std::uint64_t size = f.m_map->size();
    Cursor c(reinterpret_cast<const unsigned char *>(f.m_map->data()), size, file);

    // 1. Magic and version.
    if (size < 4)
        c.fail("the file is " + std::to_string(size) + " bytes, shorter than the 4-byte GGUF magic", 0);
    const auto magic = c.read<std::uint32_t>("the magic");
    if (std::memcmp(&magic, "GGUF", 4) != 0)
        c.fail("bad magic: a GGUF file starts with the bytes \"GGUF\"", 0);
    const std::uint64_t versionAt = c.pos();
    f.m_version = c.read<std::uint32_t>("the version");
    if (f.m_version == 1)
        c.fail("GGUF version 1 (32-bit counts, before August 2023) is not read; convert the file with a current "
               "llama.cpp",
               versionAt);
    if (f.m_version != 2 && f.m_version != 3)
        c.fail("unknown GGUF version " + std::to_string(f.m_version) + " (versions 2 and 3 are read)", versionAt);

    // 2. Counts: every tensor info takes at least 8 + 4 + 4 + 8 bytes, every key-value 8 + 4.
    const std::uint64_t countsAt = c.pos();
    const auto nTensors = c.read<std::uint64_t>("the tensor count");
    const auto nKv = c.read<std::uint64_t>("the metadata count");
    if (nTensors > size / 24)
        c.fail("the tensor count " + std::to_string(nTensors) + " cannot fit in a file of " + std::to_string(size) +
                   " bytes (each tensor info takes at least 24 bytes)",
               countsAt);
    if (nKv > size / 12)
        c.fail("the metadata count " + std::to_string(nKv) + " cannot fit in a file of " + std::to_string(size) +
                   " bytes (each key-value takes at least 12 bytes)",
               countsAt + 8);

    // 3. Metadata.
    std::unordered_set<std::string> keys;
    for (std::uint64_t i = 0; i < nKv; ++i) {
        GgufKeyValue kv;
        kv.offset = c.pos();
        kv.key = c.string("a metadata key");
        if (kv.key.empty())
            c.fail("metadata key " + std::to_string(i) + " is empty", kv.offset);
        if (!keys.insert(kv.key).second)
            c.fail("duplicate metadata key \"" + utf8Safe(kv.key) + "\"", kv.offset);
        const std::uint64_t typeAt = c.pos();
        kv.type = c.read<std::uint32_t>("a metadata value type");
        if (kv.type > kTypeFloat64)
            c.fail("metadata key \"" + utf8Safe(kv.key) + "\" has unknown value type " + std::to_string(kv.type),
                   typeAt);
        if (kv.type == kTypeArray) {
            const std::uint64_t atype = c.pos();
            kv.arrayType = c.read<std::uint32_t>("an array's element type");
            kv.arrayCount = c.read<std::uint64_t>("an array's length");
            if (kv.arrayType > kTypeFloat64 || kv.arrayType == kTypeArray)
                c.fail("metadata key \"" + utf8Safe(kv.key) + "\": array element type " + std::to_string(kv.arrayType) +
                           (kv.arrayType == kTypeArray ? " (nested arrays are not read)" : " is unknown"),
                       atype);
            const std::uint64_t minEach = kv.arrayType == kTypeString ? 8 : fixedSize(kv.arrayType);
            if (kv.arrayCount > c.left() / minEach)
                c.fail("metadata key \"" + utf8Safe(kv.key) + "\": an array of " + std::to_string(kv.arrayCount) + " " +
                           valueTypeName(kv.arrayType) + " cannot fit in the " + std::to_string(c.left()) +
                           " bytes left in the file",
                       atype + 4);
            const bool keep = kv.arrayCount <= kMaxArrayKept;
            kv.value = keep ? nlohmann::json::array() : nlohmann::json(nullptr);
            if (!keep && kv.arrayType != kTypeString) {
                c.skip(kv.arrayCount * minEach, "an array");
            } else {
                for (std::uint64_t k = 0; k < kv.arrayCount; ++k) {
                    nlohmann::json v = readScalar(c, kv.arrayType, "an array element");
                    if (keep)
                        kv.value.push_back(std::move(v));
                }
            }
        } else {
            kv.value = readScalar(c, kv.type, "a metadata value");
        }
        kv.end = c.pos();
        f.m_kv.push_back(std::move(kv));
    }
    if (const GgufKeyValue *a = f.find("general.alignment")) {
        if (a->type != kTypeUint32)
            c.fail(std::string("general.alignment must be a UINT32, not ") + valueTypeName(a->type), a->offset);
        const auto al = a->value.get<std::uint32_t>();
        if (al == 0 || (al & (al - 1)) != 0)
            c.fail("general.alignment " + std::to_string(al) + " is not a power of two", a->offset);
        f.m_alignment = al;
    }

    // 4. Tensor infos.
    std::unordered_set<std::string> names;
    for (std::uint64_t i = 0; i < nTensors; ++i) {
        GgufTensorInfo t;
        t.infoOffset = c.pos();
        t.name = c.string("a tensor name");
        const std::string name = utf8Safe(t.name);
        if (t.name.empty())
            c.fail("tensor " + std::to_string(i) + " has an empty name", t.infoOffset);
        if (t.name.size() >= 64) // GGML_MAX_NAME
            c.fail("the tensor name is " + std::to_string(t.name.size()) +
                       " bytes; ggml allows at most 63 (GGML_MAX_NAME − 1)",
                   t.infoOffset, name);
        if (!names.insert(t.name).second)
            c.fail("duplicate tensor name", t.infoOffset, name);
        const std::uint64_t dimsAt = c.pos();
        const auto nDims = c.read<std::uint32_t>("a tensor's dimension count", name);
        if (nDims > kMaxDims)
            c.fail("the tensor has " + std::to_string(nDims) + " dimensions; ggml allows at most " +
                       std::to_string(kMaxDims),
                   dimsAt, name);
        std::uint64_t numel = 1;
        for (std::uint32_t d = 0; d < nDims; ++d) {
            const std::uint64_t at = c.pos();
            const auto n = c.read<std::uint64_t>("a tensor's dimensions", name);
            if (n > kInt64Max)
                c.fail("dimension " + std::to_string(d) + " is " + std::to_string(n) +
                           ", more than a signed 64-bit integer holds",
                       at, name);
            t.ne.push_back(n);
            if (__builtin_mul_overflow(numel, n, &numel) || numel > kInt64Max)
                c.fail("the element count of dimensions " + dimsText(t.ne) + " overflows 63 bits", at, name);
        }
        const std::uint64_t typeAt = c.pos();
        const auto type = c.read<std::uint32_t>("a tensor's type", name);
        const ggml::TypeInfo *info = ggml::typeInfo(type);
        if (!info)
            c.fail("unknown ggml type " + std::to_string(type), typeAt, name);
        t.type = info->type;
        const std::uint64_t ne0 = t.ne.empty() ? 1 : t.ne[0];
        if (ne0 % static_cast<std::uint64_t>(info->blockSize) != 0)
            c.fail("the innermost dimension " + std::to_string(ne0) + " is not a multiple of " +
                       std::string(info->name) + "'s block size " + std::to_string(info->blockSize),
                   dimsAt, name);
        if (__builtin_mul_overflow(numel / static_cast<std::uint64_t>(info->blockSize),
                                   static_cast<std::uint64_t>(info->typeSize), &t.nbytes))
            c.fail("the size in bytes of " + dimsText(t.ne) + " " + std::string(info->name) + " overflows 64 bits",
                   dimsAt, name);
        const std::uint64_t offAt = c.pos();
        t.offset = c.read<std::uint64_t>("a tensor's data offset", name);
        if (t.offset % f.m_alignment != 0)
            c.fail("the data offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                       std::to_string(f.m_alignment),
                   offAt, name);
        f.m_tensors.push_back(std::move(t));
    }

    // 5. The data section starts at the next multiple of the alignment.
    const std::uint64_t end = c.pos();
    f.m_dataStart = (end + f.m_alignment - 1) / f.m_alignment * f.m_alignment;
    if (f.m_dataStart > size && !f.m_tensors.empty())
        c.fail("the file ends before the data section (at offset " + std::to_string(f.m_dataStart) + ")", end);
    const std::uint64_t dataSize = size >= f.m_dataStart ? size - f.m_dataStart : 0;

    // 6. Every tensor inside the data section, no two overlapping.
    std::vector<std::size_t> order(f.m_tensors.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return f.m_tensors[a].offset < f.m_tensors[b].offset; });
    const GgufTensorInfo *prev = nullptr;
    for (const std::size_t i : order) {
        const GgufTensorInfo &t = f.m_tensors[i];
        const std::string name = utf8Safe(t.name);
        if (t.offset > dataSize || t.nbytes > dataSize - t.offset)
            c.fail("the tensor's data [" + std::to_string(t.offset) + ", " + std::to_string(t.offset) + " + " +
                       std::to_string(t.nbytes) + ") lies beyond the end of the file (the data section holds " +
                       std::to_string(dataSize) + " bytes)",
                   t.infoOffset, name);
        if (prev && t.offset < prev->offset + prev->nbytes)
            c.fail("the tensor's data overlaps that of \"" + utf8Safe(prev->name) + "\"", f.m_dataStart + t.offset,
                   name);
        if (t.nbytes > 0)
            prev = &t;
    }

    for (std::size_t i = 0; i < f.m_tensors.size(); ++i) {
        const GgufTensorInfo &t = f.m_tensors[i];
        TensorEntry e;
        e.name = utf8Safe(t.name);
        e.dtype = ggufReadDType(t.type);
        for (auto it = t.ne.rbegin(); it != t.ne.rend(); ++it)
            e.shape.push_back(static_cast<std::int64_t>(*it));
        e.begin = t.offset;
        e.end = t.offset + t.nbytes;
        e.fileOffset = f.m_dataStart + t.offset;
        e.file = path;
        f.m_byName.emplace(e.name, i);
        f.m_entries.push_back(std::move(e));
    }
    return f;
}

const GgufKeyValue *GgufFile::find(std::string_view key) const noexcept
{
    for (const GgufKeyValue &kv : m_kv)
        if (kv.key == key)
            return &kv;
    return nullptr;
}

std::string GgufFile::stringValue(std::string_view key) const
{
    const GgufKeyValue *kv = find(key);
    return kv && kv->value.is_string() ? kv->value.get<std::string>() : std::string();
}

const GgufTensorInfo *GgufFile::tensorInfo(std::string_view name) const noexcept
{
    const auto it = m_byName.find(name);
    return it == m_byName.end() ? nullptr : &m_tensors[it->second];
}

std::string GgufFile::hfName(std::string_view name) const
{
    return ggml::hfName(architecture(), name);
}

std::span<const std::byte> GgufFile::rawKeyValue(const GgufKeyValue &kv) const
{
    if (kv.end < kv.offset || kv.end > m_map->size())
        throw FormatError("metadata key \"" + utf8Safe(kv.key) + "\" lies outside the file",
                          Location{m_path.string(), {}, kv.offset});
    return {m_map->data() + kv.offset, static_cast<std::size_t>(kv.end - kv.offset)};
}

Tensor GgufFile::rawBytes(std::string_view name) const
{
    const auto it = m_byName.find(name);
    if (it == m_byName.end())
        throw FormatError("no such tensor in the file", Location{m_path.string(), std::string(name), {}});
    const TensorEntry &e = m_entries[it->second];
    return Tensor::borrow(DType::U8, {static_cast<std::int64_t>(e.nbytes())}, m_map->data() + e.fileOffset, m_map);
}

Tensor GgufFile::tensor(std::string_view name) const
{
    const auto it = m_byName.find(name);
    if (it == m_byName.end())
        throw FormatError("no such tensor in the file", Location{m_path.string(), std::string(name), {}});
    const GgufTensorInfo &t = m_tensors[it->second];
    const TensorEntry &e = m_entries[it->second];
    const ggml::TypeInfo *info = ggml::typeInfo(static_cast<std::uint32_t>(t.type));
    if (info->blockSize == 1 && t.type != ggml::Type::F16 && t.type != ggml::Type::BF16 && t.type != ggml::Type::F32)
        return Tensor::borrow(e.dtype, e.shape, m_map->data() + e.fileOffset, m_map); // F64, I8…I64
    if (t.type == ggml::Type::F32 || t.type == ggml::Type::F16 || t.type == ggml::Type::BF16)
        return Tensor::borrow(ggufReadDType(t.type), e.shape, m_map->data() + e.fileOffset, m_map);
    if (!info->decodes)
        throw UnsupportedError("the ggml type " + std::string(info->name) +
                                   " is not decoded to FP32 (not in "
                                   "gguf.quants.dequantize)",
                               Location{m_path.string(), e.name, e.fileOffset});
    Tensor out = Tensor::zeros(DType::F32, e.shape);
    float *y = reinterpret_cast<float *>(out.mutableData());
    const std::byte *src = m_map->data() + e.fileOffset;
    const std::size_t nblocks = static_cast<std::size_t>(t.nbytes / static_cast<std::uint64_t>(info->typeSize));
    const ggml::Type type = t.type;
    busguard::guarded([&] { ggml::decodeBlocks(type, src, nblocks, y); });
    return out;
}

} // namespace quantscope
