// SPDX-License-Identifier: MIT
// safetensors reader and writer. The rules and their order follow the reference reader
// (docs/toolkits.md §1.3) plus docs/formats.md: strict by default, gaps and trailing bytes
// accepted with a warning in lenient mode, everything else always refused.
#include "io/safetensors.h"

#include "io/json_strict.h"
#include "io/mapped_file.h"
#include "util/error.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <unordered_set>

namespace quantscope {

namespace {

using io_detail::firstInvalidUtf8;
using io_detail::kMaxJsonDepth;

constexpr std::uint64_t kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

std::string hexByte(unsigned char b)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    return std::string("0x") + hex[b >> 4] + hex[b & 15];
}

std::string offsetsToString(std::uint64_t begin, std::uint64_t end)
{
    return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

std::string shapeText(const Shape &shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

/// One tensor entry as read from the header, before its span is checked.
struct RawEntry {
    std::string name;
    std::uint64_t keyPos = 0; ///< header-relative offset of the opening quote of its name
    std::optional<DType> dtype;
    Shape shape;
    std::vector<std::uint64_t> offsets;
    std::unordered_set<std::string> keys;
};

/// SAX consumer of the header. It refuses at the first wrong token (so no DOM of a hostile
/// header is ever built), detects duplicate keys at every level, and knows the byte offset of
/// every token through the counting input.
class HeaderSax {
public:
    using json = nlohmann::json;

    HeaderSax(std::string_view header, std::string file, const std::size_t *consumed)
        : m_text(header), m_file(std::move(file)), m_consumed(consumed)
    {
    }

    std::vector<RawEntry> entries;
    std::map<std::string, std::string> metadata;

    bool null() { wrongType("null"); }
    bool boolean(bool v) { wrongType(v ? "true" : "false"); }
    bool number_integer(json::number_integer_t v)
    {
        const auto pos = start();
        if (v < 0) {
            if (ctx() == Ctx::Shape)
                fail("shape entry " + std::to_string(v) + " is negative", pos, current().name);
            if (ctx() == Ctx::Offsets)
                fail("data_offsets entry " + std::to_string(v) + " is negative", pos, current().name);
            wrongType("a number");
        }
        return addInteger(static_cast<std::uint64_t>(v), pos);
    }
    bool number_unsigned(json::number_unsigned_t v) { return addInteger(v, start()); }
    bool number_float(json::number_float_t, const json::string_t &raw)
    {
        const auto pos = start();
        if (ctx() == Ctx::Shape || ctx() == Ctx::Offsets)
            fail(std::string(ctx() == Ctx::Shape ? "shape" : "data_offsets") + " entry " + raw +
                     " is not an integer that fits in 64 bits",
                 pos, current().name);
        wrongType("a number");
    }
    bool string(json::string_t &s)
    {
        const auto pos = start();
        if (ctx() == Ctx::Metadata) {
            metadata[m_metaKey] = std::move(s);
            return done();
        }
        if (ctx() == Ctx::Entry && m_entryKey == "dtype") {
            const auto dt = dtypeFromSafetensors(s);
            if (!dt || static_cast<int>(*dt) >= kSafetensorsDTypeCount)
                fail("unknown dtype \"" + s + "\": not one of the 22 safetensors dtypes", pos, current().name);
            current().dtype = *dt;
            return done();
        }
        wrongType("a string");
    }
    bool binary(json::binary_t &) { wrongType("binary data"); }

    bool start_object(std::size_t)
    {
        switch (ctx()) {
        case Ctx::Root:
            m_stack.push_back(Ctx::Top);
            return done();
        case Ctx::Top:
            if (m_key == "__metadata__") {
                m_stack.push_back(Ctx::Metadata);
            } else {
                RawEntry e;
                e.name = m_key;
                e.keyPos = m_keyPos;
                entries.push_back(std::move(e));
                m_stack.push_back(Ctx::Entry);
            }
            return done();
        default:
            wrongType("an object");
        }
    }
    bool key(json::string_t &k)
    {
        const auto pos = start();
        switch (ctx()) {
        case Ctx::Top:
            if (!m_topKeys.insert(k).second) {
                if (k == "__metadata__")
                    fail("duplicate key \"__metadata__\" in the header", pos);
                fail("duplicate key in the header: tensor names must be unique", pos, k);
            }
            m_key = k;
            m_keyPos = pos;
            break;
        case Ctx::Metadata:
            if (!m_metaKeys.insert(k).second)
                fail("duplicate key \"" + k + "\" in __metadata__", pos);
            m_metaKey = k;
            break;
        case Ctx::Entry:
            if (k != "dtype" && k != "shape" && k != "data_offsets")
                fail("unknown key \"" + k +
                         "\" in the tensor's entry (an entry has exactly \"dtype\", \"shape\" and "
                         "\"data_offsets\")",
                     pos, current().name);
            if (!current().keys.insert(k).second)
                fail("duplicate key \"" + k + "\" in the tensor's entry", pos, current().name);
            m_entryKey = k;
            break;
        default:
            break; // keys only occur in objects, and every object is one of the above
        }
        return done();
    }
    bool end_object()
    {
        if (ctx() == Ctx::Entry) {
            const RawEntry &e = current();
            for (const char *k : {"dtype", "shape", "data_offsets"})
                if (!e.keys.count(k))
                    fail(std::string("the tensor's entry has no \"") + k + "\"", 8 + e.keyPos, e.name, true);
        }
        m_stack.pop_back();
        return done();
    }
    bool start_array(std::size_t)
    {
        if (ctx() == Ctx::Entry && m_entryKey == "shape") {
            m_stack.push_back(Ctx::Shape);
            return done();
        }
        if (ctx() == Ctx::Entry && m_entryKey == "data_offsets") {
            m_stack.push_back(Ctx::Offsets);
            return done();
        }
        wrongType("an array");
    }
    bool end_array()
    {
        const auto pos = closer();
        if (ctx() == Ctx::Offsets && current().offsets.size() != 2)
            fail("data_offsets has " + std::to_string(current().offsets.size()) + " entries; it must be [BEGIN, END]",
                 pos, current().name);
        m_stack.pop_back();
        return done();
    }
    bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &ex)
    {
        fail("the header is not valid JSON: " + io_detail::jsonReason(ex), position > 0 ? position - 1 : 0);
    }

private:
    enum class Ctx { Root, Top, Metadata, Entry, Shape, Offsets };

    Ctx ctx() const { return m_stack.empty() ? Ctx::Root : m_stack.back(); }
    RawEntry &current() { return entries.back(); }

    /// Header-relative offset of the token the current callback is about.
    std::size_t start() const { return io_detail::tokenStart(m_text, m_prevEnd); }
    /// Header-relative offset of the ']' or '}' just read (it may have been read as the
    /// lookahead that ended a number, so it is the last consumed byte either way).
    std::size_t closer() const { return *m_consumed > 0 ? *m_consumed - 1 : 0; }
    bool done()
    {
        m_prevEnd = *m_consumed;
        return true;
    }

    bool addInteger(std::uint64_t v, std::size_t pos)
    {
        if (ctx() == Ctx::Shape) {
            if (v > kInt64Max)
                fail("shape entry " + std::to_string(v) + " does not fit in a signed 64-bit integer", pos,
                     current().name);
            current().shape.push_back(static_cast<std::int64_t>(v));
            return done();
        }
        if (ctx() == Ctx::Offsets) {
            if (current().offsets.size() >= 2)
                fail("data_offsets has more than two entries; it must be [BEGIN, END]", pos, current().name);
            current().offsets.push_back(v);
            return done();
        }
        wrongType("a number");
    }

    [[noreturn]] void wrongType(const std::string &what)
    {
        const auto pos = start();
        switch (ctx()) {
        case Ctx::Root:
            fail("the header must be a JSON object, not " + what, pos);
        case Ctx::Top:
            if (m_key == "__metadata__")
                fail("__metadata__ must be an object of string to string, not " + what, pos);
            fail("a tensor's entry must be a JSON object, not " + what, pos, m_key);
        case Ctx::Metadata:
            fail("__metadata__ value of key \"" + m_metaKey + "\" is " + what + "; metadata values must be strings",
                 pos);
        case Ctx::Entry:
            if (m_entryKey == "dtype")
                fail("\"dtype\" must be a string, not " + what, pos, current().name);
            if (m_entryKey == "shape")
                fail("\"shape\" must be an array of non-negative integers, not " + what, pos, current().name);
            fail("\"data_offsets\" must be an array of two non-negative integers, not " + what, pos, current().name);
        case Ctx::Shape:
            fail("shape entries must be non-negative integers, not " + what, pos, current().name);
        case Ctx::Offsets:
            fail("data_offsets entries must be non-negative integers, not " + what, pos, current().name);
        }
        fail("unexpected " + what, pos);
    }

    /// `pos` is header-relative unless `absolute`.
    [[noreturn]] void fail(const std::string &msg, std::uint64_t pos, const std::string &tensor = {},
                           bool absolute = false) const
    {
        throw FormatError(msg, Location{m_file, tensor, absolute ? pos : 8 + pos});
    }

    std::string_view m_text;
    std::string m_file;
    const std::size_t *m_consumed;
    std::size_t m_prevEnd = 0;
    std::vector<Ctx> m_stack;
    std::unordered_set<std::string> m_topKeys;
    std::unordered_set<std::string> m_metaKeys;
    std::string m_key; // current top-level key
    std::uint64_t m_keyPos = 0;
    std::string m_metaKey;  // current __metadata__ key
    std::string m_entryKey; // current key inside a tensor entry
};

bool checkedMul(std::uint64_t a, std::uint64_t b, std::uint64_t &out)
{
    return !__builtin_mul_overflow(a, b, &out);
}

void writeJsonString(std::string &out, const std::string &s)
{
    out += nlohmann::json(s).dump();
}

} // namespace

// ---- reader -------------------------------------------------------------------------------

SafetensorsFile SafetensorsFile::open(const std::filesystem::path &path, const ReadOptions &options)
{
    SafetensorsFile f;
    f.m_path = path;
    f.m_map = MappedFile::open(path);
    const std::string file = path.string();
    const std::uint64_t size = f.m_map->size();
    auto fail = [&](const std::string &msg, std::uint64_t offset, const std::string &tensor = {}) {
        throw FormatError(msg, Location{file, tensor, offset});
    };

    // 1. The 8-byte header length.
    if (size == 0)
        fail("the file is empty; a safetensors file starts with an 8-byte little-endian header "
             "length",
             0);
    if (size < 8)
        fail("the file is " + std::to_string(size) +
                 " bytes, shorter than the 8-byte header length every safetensors file starts with",
             0);
    const auto *bytes = reinterpret_cast<const unsigned char *>(f.m_map->data());
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | bytes[i];

    // 2. Header size limit.
    if (n > options.maxHeaderBytes)
        throw HeaderTooLargeError("the header length field says " + std::to_string(n) +
                                      " bytes, more than the limit of " + std::to_string(options.maxHeaderBytes) +
                                      " bytes",
                                  Location{file, {}, 0});
    // 3. Header inside the file (size ≥ 8 here, so size − 8 does not wrap).
    if (n > size - 8)
        fail("the header length field says " + std::to_string(n) + " bytes, but only " + std::to_string(size - 8) +
                 " bytes follow it in the file",
             0);
    f.m_dataStart = 8 + n;
    const std::string_view header(reinterpret_cast<const char *>(bytes + 8), static_cast<std::size_t>(n));

    // 4. UTF-8, a JSON object, bounded nesting, then the entries themselves.
    if (const auto bad = firstInvalidUtf8(header))
        fail("the header is not valid UTF-8 (byte " + hexByte(static_cast<unsigned char>(header[*bad])) + ")",
             8 + *bad);
    const auto first = header.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        fail("the header is empty; it must be a JSON object starting with '{'", 8);
    if (header[first] != '{')
        fail(std::string("the header must be a JSON object starting with '{', but its first "
                         "non-space byte is '") +
                 (std::isprint(static_cast<unsigned char>(header[first])) ? std::string(1, header[first])
                                                                          : std::string("?")) +
                 "' (" + hexByte(static_cast<unsigned char>(header[first])) + ")",
             8 + first);
    if (const auto deep = io_detail::firstTooDeep(header))
        fail("the header's JSON is nested deeper than " + std::to_string(kMaxJsonDepth) +
                 " levels (a valid header needs 3)",
             8 + *deep);

    std::size_t consumed = 0;
    HeaderSax sax(header, file, &consumed);
    const char *hb = header.data();
    const bool parsed = nlohmann::json::sax_parse(io_detail::CountingIterator(hb, hb, &consumed),
                                                  io_detail::CountingIterator(hb + header.size(), hb, &consumed), &sax,
                                                  nlohmann::json::input_format_t::json, /*strict=*/true);
    if (!parsed) // the handler throws on every error; this is only a safety net
        fail("the header is not valid JSON", 8 + consumed);
    f.m_metadata = std::move(sax.metadata);

    // 5–10. Each tensor's size, then the spans in offset order: contiguous from 0 to the end.
    const std::uint64_t dataSize = size - f.m_dataStart;
    std::vector<RawEntry> &raw = sax.entries;
    std::vector<std::size_t> order(raw.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::pair(raw[a].offsets[0], raw[a].offsets[1]) < std::pair(raw[b].offsets[0], raw[b].offsets[1]);
    });

    std::uint64_t prevEnd = 0;
    const RawEntry *prev = nullptr;
    for (const std::size_t i : order) {
        const RawEntry &e = raw[i];
        const std::uint64_t begin = e.offsets[0], end = e.offsets[1];
        const std::uint64_t keyAt = 8 + e.keyPos;
        // Absolute offset of the span when it lies in the file, else where the header names it.
        const std::uint64_t at = begin <= dataSize ? f.m_dataStart + begin : keyAt;
        const std::string offs = offsetsToString(begin, end);

        if (end < begin)
            fail("data_offsets " + offs + " are reversed: END is before BEGIN", at, e.name);

        std::uint64_t numel = 1;
        for (const std::int64_t d : e.shape)
            if (!checkedMul(numel, static_cast<std::uint64_t>(d), numel) || numel > kInt64Max)
                fail("the element count of shape " + shapeText(e.shape) + " overflows 64 bits", keyAt, e.name);
        const int bits = bitsOf(*e.dtype);
        std::uint64_t nbits = 0;
        if (!checkedMul(numel, static_cast<std::uint64_t>(bits), nbits))
            fail("the size in bits of " + std::to_string(numel) + " elements of " + std::string(nameOf(*e.dtype)) +
                     " overflows 64 bits",
                 keyAt, e.name);
        if (nbits % 8 != 0)
            fail("misaligned sub-byte span: " + std::to_string(numel) + " elements of " +
                     std::string(nameOf(*e.dtype)) + " (" + std::to_string(bits) + " bits each) are " +
                     std::to_string(nbits) + " bits, not a whole number of bytes",
                 at, e.name);
        if (end - begin != nbits / 8)
            fail("data_offsets " + offs + " span " + std::to_string(end - begin) + " bytes, but " +
                     std::to_string(numel) + " elements of " + std::string(nameOf(*e.dtype)) + " with shape " +
                     shapeText(e.shape) + " need " + std::to_string(nbits / 8),
                 at, e.name);
        if (end > dataSize)
            fail("data_offsets " + offs + " reach past the end of the data, which is " + std::to_string(dataSize) +
                     " bytes (file of " + std::to_string(size) + " bytes, data from byte " +
                     std::to_string(f.m_dataStart) + "); the file is truncated or the offsets are wrong",
                 at, e.name);
        if (begin < prevEnd)
            fail("data_offsets " + offs + " overlap tensor '" + prev->name + "' (data_offsets " +
                     offsetsToString(prev->offsets[0], prev->offsets[1]) + ")",
                 at, e.name);
        if (begin > prevEnd) {
            const std::string msg =
                "gap of " + std::to_string(begin - prevEnd) + " bytes before this tensor: data bytes [" +
                std::to_string(prevEnd) + ", " + std::to_string(begin) + ") belong to no tensor" +
                (prev ? " (previous tensor '" + prev->name + "' ends at " + std::to_string(prevEnd) + ")"
                      : std::string(" (the first tensor must start at 0)"));
            if (!options.lenient)
                fail(msg + "; spans must follow each other without holes (open in lenient mode to "
                           "accept)",
                     f.m_dataStart + prevEnd, e.name);
            f.m_warnings.push_back(formatLocation(Location{file, e.name, f.m_dataStart + prevEnd}, msg));
        }
        prevEnd = end;
        prev = &e;
    }
    if (prevEnd < dataSize) {
        const std::string msg = std::to_string(dataSize - prevEnd) +
                                " trailing bytes after the last tensor (tensor data ends at byte " +
                                std::to_string(f.m_dataStart + prevEnd) + ", the file at " + std::to_string(size) + ")";
        if (!options.lenient)
            fail(msg + "; the data must end where the last tensor ends (open in lenient mode to "
                       "accept)",
                 f.m_dataStart + prevEnd);
        f.m_warnings.push_back(formatLocation(Location{file, {}, f.m_dataStart + prevEnd}, msg));
    }

    f.m_entries.reserve(raw.size());
    for (RawEntry &e : raw) {
        TensorEntry t;
        t.name = std::move(e.name);
        t.dtype = *e.dtype;
        t.shape = std::move(e.shape);
        t.begin = e.offsets[0];
        t.end = e.offsets[1];
        t.fileOffset = f.m_dataStart + t.begin;
        t.file = path;
        f.m_index.emplace(t.name, f.m_entries.size());
        f.m_entries.push_back(std::move(t));
    }
    return f;
}

const TensorEntry *SafetensorsFile::find(std::string_view name) const noexcept
{
    const auto it = m_index.find(std::string(name));
    return it == m_index.end() ? nullptr : &m_entries[it->second];
}

Tensor SafetensorsFile::tensor(std::string_view name) const
{
    const TensorEntry *e = find(name);
    if (e == nullptr)
        throw FormatError("no such tensor in the file", Location{m_path.string(), std::string(name), {}});
    return tensor(*e);
}

Tensor SafetensorsFile::tensor(const TensorEntry &entry) const
{
    // Entries of another file would point anywhere in this mapping: refuse what does not fit.
    if (entry.fileOffset < m_dataStart || entry.fileOffset > fileSize() ||
        entry.nbytes() > fileSize() - entry.fileOffset)
        throw FormatError("the tensor's span lies outside this file",
                          Location{m_path.string(), entry.name, entry.fileOffset});
    return Tensor::borrow(entry.dtype, entry.shape, m_map->data() + entry.fileOffset, m_map);
}

std::uint64_t SafetensorsFile::fileSize() const noexcept
{
    return m_map ? m_map->size() : 0;
}

// ---- writer -------------------------------------------------------------------------------

void writeSafetensors(const std::filesystem::path &path, const std::vector<std::pair<std::string, Tensor>> &tensors,
                      const std::map<std::string, std::string> &metadata)
{
    const std::string file = path.string();
    auto where = [&](const std::string &tensor = {}) { return Location{file, tensor, {}}; };

    // Everything is checked before the temporary file exists, so a refused write leaves no trace.
    std::unordered_set<std::string_view> seen;
    std::vector<std::uint64_t> sizes;
    sizes.reserve(tensors.size());
    for (const auto &[name, t] : tensors) {
        if (name.empty())
            throw FormatError("a tensor name is empty", where());
        if (name == "__metadata__")
            throw FormatError("\"__metadata__\" is reserved and cannot name a tensor", where(name));
        if (firstInvalidUtf8(name))
            throw FormatError("the tensor name is not valid UTF-8", where(name));
        if (!seen.insert(name).second)
            throw FormatError("the tensor name occurs twice; names must be unique", where(name));
        if (static_cast<int>(t.dtype()) >= kSafetensorsDTypeCount)
            throw UnsupportedError("dtype " + std::string(nameOf(t.dtype())) + " has no safetensors equivalent",
                                   where(name));
        if (!t.valid())
            throw FormatError("the tensor has no data", where(name));
        const int bits = bitsOf(t.dtype());
        std::uint64_t nbits = 0;
        if (!checkedMul(static_cast<std::uint64_t>(t.numel()), static_cast<std::uint64_t>(bits), nbits))
            throw FormatError("the tensor's size in bits overflows 64 bits", where(name));
        if (nbits % 8 != 0)
            throw FormatError("misaligned sub-byte span: " + std::to_string(t.numel()) + " elements of " +
                                  std::string(nameOf(t.dtype())) + " are not a whole number of bytes",
                              where(name));
        if (!t.isContiguous() && bits % 8 != 0)
            throw UnsupportedError("a strided view of a sub-byte dtype cannot be written", where(name));
        sizes.push_back(nbits / 8);
    }
    for (const auto &[k, v] : metadata)
        if (firstInvalidUtf8(k) || firstInvalidUtf8(v))
            throw FormatError("__metadata__ entry \"" + k + "\" is not valid UTF-8", where());

    std::string header = "{";
    if (!metadata.empty()) {
        header += "\"__metadata__\":{";
        bool firstKey = true;
        for (const auto &[k, v] : metadata) {
            if (!firstKey)
                header += ',';
            firstKey = false;
            writeJsonString(header, k);
            header += ':';
            writeJsonString(header, v);
        }
        header += '}';
    }
    std::uint64_t offset = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const auto &[name, t] = tensors[i];
        if (header.size() > 1)
            header += ',';
        writeJsonString(header, name);
        header += ":{\"dtype\":\"";
        header += nameOf(t.dtype());
        header += "\",\"shape\":[";
        for (int d = 0; d < t.rank(); ++d)
            header += (d ? "," : "") + std::to_string(t.dim(d));
        header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + sizes[i]) + "]}";
        offset += sizes[i];
    }
    header += '}';
    // Pad so the data starts 8-byte aligned, as the reference writer does.
    header.append((8 - header.size() % 8) % 8, ' ');

    AtomicFile out(path);
    unsigned char len[8];
    for (int i = 0; i < 8; ++i)
        len[i] = static_cast<unsigned char>(static_cast<std::uint64_t>(header.size()) >> (8 * i));
    out.write(len, sizeof len);
    out.write(header.data(), header.size());

    constexpr std::size_t kChunk = std::size_t{1} << 20;
    std::vector<std::byte> buf;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const Tensor &t = tensors[i].second;
        if (sizes[i] == 0)
            continue;
        if (t.isContiguous()) {
            out.write(t.data(), static_cast<std::size_t>(sizes[i]));
            continue;
        }
        // Strided view of a byte-sized dtype: gather element by element in row-major order.
        const auto esz = static_cast<std::size_t>(bitsOf(t.dtype()) / 8);
        const int rank = t.rank();
        const auto &shape = t.shape();
        const auto &strides = t.strides();
        std::vector<std::int64_t> idx(static_cast<std::size_t>(rank), 0);
        std::int64_t elemOffset = 0; // Σ idx[d]·strides[d], kept up to date incrementally
        buf.clear();
        buf.reserve(std::min<std::size_t>(kChunk, static_cast<std::size_t>(sizes[i])));
        for (std::int64_t k = 0; k < t.numel(); ++k) {
            const std::byte *src = t.data() + elemOffset * static_cast<std::int64_t>(esz);
            buf.insert(buf.end(), src, src + esz);
            if (buf.size() >= kChunk) {
                out.write(buf.data(), buf.size());
                buf.clear();
            }
            for (int d = rank - 1; d >= 0; --d) {
                const auto ud = static_cast<std::size_t>(d);
                if (++idx[ud] < shape[ud]) {
                    elemOffset += strides[ud];
                    break;
                }
                elemOffset -= (shape[ud] - 1) * strides[ud];
                idx[ud] = 0;
            }
        }
        out.write(buf.data(), buf.size());
    }
    out.commit();
}

} // namespace quantscope
