// SPDX-License-Identifier: MIT
// The scan report file and its resume (scan_report.h).
#include "scan/scan_report.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

namespace quantscope {

namespace {

using ojson = nlohmann::ordered_json;
namespace fs = std::filesystem;

std::string deviceText(DeviceChoice d)
{
    return d == DeviceChoice::Cpu ? "cpu" : d == DeviceChoice::Gpu ? "gpu" : "auto";
}

} // namespace

ojson captureHeader(const Capture &capture)
{
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(capture.path()), ec);
    if (ec)
        p = capture.path();
    ojson c;
    c["path"] = p.string();
    c["model"] = capture.meta("model");
    c["input_sha256"] = capture.meta("input_sha256");
    c["tokens"] = capture.tokens();
    return c;
}

ojson scanHeader(const Checkpoint &ck, const ScanOptions &options)
{
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(ck.path()), ec);
    if (ec)
        p = ck.path();
    ojson h;
    h["quantscope_scan"] = 1;
    h["checkpoint"] = p.string();
    h["recipe_hash"] = options.recipe.hash();
    h["recipe"] = options.recipe.toJson();
    h["spectra"] = toString(options.spectra);
    h["spectrum_top"] = options.spectra == SpectraMode::Off ? 0 : options.spectrumTop;
    h["tau"] = options.tau;
    h["device"] = deviceText(options.device);
    h["channel_kurtosis"] = options.channelKurtosis;
    h["ranks"] = options.ranks; // of the run that started the report: not compared on resume
    if (options.capture)
        h["capture"] = captureHeader(*options.capture);
    return h;
}

ojson resumeKey(const ScanModule &m, const std::string &recipeHash)
{
    struct stat st {};
    ojson k;
    k["recipe"] = recipeHash;
    k["file"] = fs::path(m.file).filename().string();
    if (::stat(m.file.c_str(), &st) == 0) {
        k["size"] = static_cast<std::uint64_t>(st.st_size);
        k["mtime_ns"] = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    } else {
        k["size"] = nullptr;
        k["mtime_ns"] = nullptr;
    }
    return k;
}

ojson moduleLineStart(const ScanModule &m, const RecipeMatch &match, const Recipe &recipe)
{
    ojson line;
    line["module"] = m.module;
    line["tensor"] = m.tensor;
    line["status"] = match.matched() ? "scanned" : match.excluded ? "excluded" : "unmatched";
    line["why"] = match.why;
    line["rule"] = match.rule;
    line["rule_name"] = match.rule >= 0 ? recipe.rules[static_cast<std::size_t>(match.rule)].name : "";
    line["shape"] = m.shape;
    line["dtype"] = m.dtype;
    line["format"] = m.format;
    return line;
}

ReportWriter::ReportWriter(std::string path, ojson header) : m_path(std::move(path)), m_header(std::move(header))
{
}

ReportWriter::~ReportWriter()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

std::vector<ojson> ReportWriter::resume(const std::function<bool(std::size_t, const ojson &)> &keep)
{
    std::vector<ojson> kept;
    if (m_path.empty())
        return kept;
    m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0)
        throw IoError(std::string("cannot open the report: ") + std::strerror(errno), Location{m_path, {}, {}});
    // Read what is there.
    std::string text;
    {
        char buf[1 << 16];
        ssize_t n;
        while ((n = ::read(m_fd, buf, sizeof buf)) > 0)
            text.append(buf, static_cast<std::size_t>(n));
        if (n < 0)
            throw IoError(std::string("cannot read the report: ") + std::strerror(errno), Location{m_path, {}, {}});
    }
    std::size_t keepBytes = 0;
    const std::size_t headerEnd = text.find('\n');
    if (headerEnd != std::string::npos) {
        ojson h;
        try {
            h = ojson::parse(text.substr(0, headerEnd));
        } catch (const std::exception &) {
            throw FormatError("not a scan report (its first line is not JSON); remove it or choose another --out",
                              Location{m_path, {}, {}});
        }
        if (!h.is_object() || !h.contains("quantscope_scan"))
            throw FormatError("not a scan report (no \"quantscope_scan\" header); remove it or choose another --out",
                              Location{m_path, {}, {}});
        for (const auto &[k, v] : m_header.items())
            if (k != "ranks" && (!h.contains(k) || h[k] != v))
                throw FormatError("a report of another scan (its \"" + k +
                                      "\" differs); remove it or choose another --out to start afresh",
                                  Location{m_path, {}, {}});
        keepBytes = headerEnd + 1;
        std::size_t at = keepBytes;
        while (at < text.size()) {
            const std::size_t end = text.find('\n', at);
            if (end == std::string::npos)
                break; // torn last line
            ojson line;
            try {
                line = ojson::parse(text.substr(at, end - at));
            } catch (const std::exception &) {
                break;
            }
            if (!keep(kept.size(), line))
                break;
            kept.push_back(std::move(line));
            at = end + 1;
            keepBytes = at;
        }
    }
    if (::ftruncate(m_fd, static_cast<off_t>(keepBytes)) != 0 || ::lseek(m_fd, 0, SEEK_END) < 0)
        throw IoError(std::string("cannot truncate the report: ") + std::strerror(errno), Location{m_path, {}, {}});
    if (keepBytes == 0)
        append(m_header.dump() + "\n");
    else
        ::fsync(m_fd);
    return kept;
}

void ReportWriter::append(const std::string &bytes)
{
    if (m_path.empty())
        return;
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(m_fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw IoError(std::string("cannot write the report: ") + std::strerror(errno), Location{m_path, {}, {}});
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(m_fd) != 0)
        throw IoError(std::string("cannot fsync the report: ") + std::strerror(errno), Location{m_path, {}, {}});
}

void ReportWriter::write(const ojson &line)
{
    append(line.dump() + "\n");
}

void ReportWriter::writeTorn(const ojson &line)
{
    const std::string s = line.dump();
    append(s.substr(0, s.size() / 2));
}

} // namespace quantscope
