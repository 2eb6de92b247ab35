// SPDX-License-Identifier: MIT
#include "io/mapped_file.h"

#include "util/bus_guard.h"
#include "util/error.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <signal.h>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <random>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace quantscope {

namespace {

[[noreturn]] void throwErrno(const std::filesystem::path &file, const std::string &what, int err)
{
    throw IoError(what + ": " + std::strerror(err), Location{file.string(), {}, {}});
}

/// close() that retries nothing (POSIX leaves the descriptor state unspecified after EINTR, and
/// on Linux it is always released) and reports the first real error.
int closeFd(int fd) noexcept
{
    const int rc = ::close(fd);
    return (rc == 0 || errno == EINTR) ? 0 : errno;
}

/// Test hook of the crash-safety test (docs/reliability.md "Crash-safe writes"): with
/// QUANTSCOPE_TEST_KILL_AFTER_BYTES=N in the environment, the process kills itself with SIGKILL
/// once N bytes in all have gone through AtomicFile::write — in the middle of a write (or right
/// after the last one, before the rename), where a crash or a kill -9 could stop it. Unset
/// (always, outside that test) it costs one branch per write. Returns how many of `size` bytes to
/// write before the kill, or -1: write them all, no kill.
long long bytesBeforeKill(std::size_t size) noexcept
{
    static const long long limit = [] {
        const char *v = std::getenv("QUANTSCOPE_TEST_KILL_AFTER_BYTES");
        return v && *v ? std::atoll(v) : -1LL;
    }();
    static std::atomic<long long> written{0};
    if (limit < 0)
        return -1;
    const long long before = written.fetch_add(static_cast<long long>(size));
    const long long left = limit - before;
    if (left > static_cast<long long>(size))
        return -1;
    return left < 0 ? 0 : left;
}

/// Removes the temp files that writers of `target` killed before their rename left behind
/// (".NAME.tmp-PID-XXXXXX" whose PID is no live process). Another process writing the same
/// target now keeps its temp file; a reused PID only delays the cleanup to a later write.
void removeStaleTemps(const std::filesystem::path &dir, const std::string &name) noexcept
{
    const std::string prefix = "." + name + ".tmp-";
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string f = e.path().filename().string();
        if (f.size() <= prefix.size() || f.compare(0, prefix.size(), prefix) != 0)
            continue;
        const std::string rest = f.substr(prefix.size());
        const auto dash = rest.find('-');
        if (dash == std::string::npos || dash == 0 || rest.size() - dash - 1 != 6 ||
            rest.find_first_not_of("0123456789") != dash)
            continue;
        const long pid = std::atol(rest.substr(0, dash).c_str());
        if (pid <= 0 || pid == ::getpid())
            continue;
        if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            ::unlink(e.path().c_str());
    }
}

[[noreturn]] void killSelf() noexcept
{
    ::raise(SIGKILL);
    std::abort();
}

} // namespace

// ---- MappedFile ---------------------------------------------------------------------------

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path &path)
{
    int fd;
    do {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        throwErrno(path, "cannot open the file", errno);

    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        closeFd(fd);
        throwErrno(path, "cannot stat the file", err);
    }
    if (!S_ISREG(st.st_mode)) {
        closeFd(fd);
        throw IoError("not a regular file", Location{path.string(), {}, {}});
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > std::numeric_limits<std::size_t>::max()) {
        closeFd(fd);
        throw IoError("the file is too large to map on this system", Location{path.string(), {}, {}});
    }

    std::shared_ptr<MappedFile> file(new MappedFile());
    file->m_path = path;
    file->m_size = size;
    if (size > 0) {
        // No MAP_POPULATE: pages are faulted in when a tensor is read, so opening a 100 GB
        // checkpoint costs only its headers.
        void *p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            closeFd(fd);
            throwErrno(path, "cannot map the file", err);
        }
        file->m_data = static_cast<const std::byte *>(p);
        // A truncation by another process while mapped: an error naming the file, not SIGBUS.
        busguard::registerMapping(p, size, path.string());
    }
    // The mapping keeps its own reference to the file; the descriptor is not needed any more.
    closeFd(fd);
    return file;
}

MappedFile::~MappedFile()
{
    busguard::unregisterMapping(m_data);
    if (m_data != nullptr)
        ::munmap(const_cast<std::byte *>(m_data), static_cast<std::size_t>(m_size));
}

// ---- AtomicFile ---------------------------------------------------------------------------

AtomicFile::AtomicFile(std::filesystem::path target) : m_target(std::move(target))
{
    std::filesystem::path dir = m_target.parent_path();
    if (dir.empty())
        dir = ".";
    const std::string name = m_target.filename().string();
    if (name.empty() || name == "." || name == "..")
        throw IoError("not a file path", Location{m_target.string(), {}, {}});

    // Not mkstemp(): it creates the file with mode 0600, and the result should get the usual
    // 0666 & ~umask like any other new file. O_EXCL gives the same no-clobber guarantee.
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    thread_local std::mt19937_64 rng{std::random_device{}() ^ static_cast<std::uint64_t>(::getpid()) << 32};
    std::uniform_int_distribution<std::size_t> pick(0, sizeof(kAlphabet) - 2);
    int lastErr = 0;
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string suffix(6, 'X');
        for (char &c : suffix)
            c = kAlphabet[pick(rng)];
        std::filesystem::path temp = dir / ("." + name + ".tmp-" + std::to_string(::getpid()) + "-" + suffix);
        int fd;
        do {
            fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        } while (fd < 0 && errno == EINTR);
        if (fd >= 0) {
            m_fd = fd;
            m_temp = std::move(temp);
            break;
        }
        lastErr = errno;
        if (lastErr != EEXIST)
            break;
    }
    if (m_fd < 0)
        throwErrno(m_target, "cannot create a temporary file in folder '" + dir.string() + "'", lastErr);

    // Replacing an existing file keeps its permissions.
    struct stat st {};
    if (::stat(m_target.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        (void)::fchmod(m_fd, st.st_mode & 07777);
}

AtomicFile::~AtomicFile()
{
    if (m_fd >= 0)
        closeFd(m_fd);
    if (!m_committed && !m_temp.empty())
        ::unlink(m_temp.c_str());
}

void AtomicFile::write(const void *data, std::size_t size)
{
    if (m_fd < 0)
        throw IoError("write after commit", Location{m_target.string(), {}, {}});
    const auto *p = static_cast<const char *>(data);
    const long long beforeKill = bytesBeforeKill(size);
    if (beforeKill >= 0)
        size = static_cast<std::size_t>(beforeKill);
    while (size > 0) {
        const ssize_t n = ::write(m_fd, p, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throwErrno(m_target, "cannot write temporary file '" + m_temp.string() + "'", errno);
        }
        if (n == 0)
            throw IoError("cannot write temporary file '" + m_temp.string() + "': no progress",
                          Location{m_target.string(), {}, {}});
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    if (beforeKill >= 0)
        killSelf();
}

void AtomicFile::commit()
{
    if (m_committed)
        return;
    if (m_fd < 0)
        throw IoError("commit of a file that failed earlier", Location{m_target.string(), {}, {}});

    int rc;
    do {
        rc = ::fsync(m_fd);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0)
        throwErrno(m_target, "cannot flush temporary file '" + m_temp.string() + "'", errno);
    const int fd = m_fd;
    m_fd = -1;
    if (const int err = closeFd(fd); err != 0)
        throwErrno(m_target, "cannot close temporary file '" + m_temp.string() + "'", err);

    if (::rename(m_temp.c_str(), m_target.c_str()) != 0)
        throwErrno(m_target, "cannot rename '" + m_temp.string() + "' over the target", errno);
    m_committed = true;

    std::filesystem::path dir = m_target.parent_path();
    if (dir.empty())
        dir = ".";
    removeStaleTemps(dir, m_target.filename().string());

    // Make the rename itself durable. Some file systems cannot fsync a folder (EINVAL); the data
    // is then as durable as that file system allows, which is not an error of ours.
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        do {
            rc = ::fsync(dfd);
        } while (rc != 0 && errno == EINTR);
        const int err = rc != 0 ? errno : 0;
        closeFd(dfd);
        if (err != 0 && err != EINVAL && err != ENOTSUP)
            throwErrno(m_target, "cannot flush folder '" + dir.string() + "'", err);
    }
}

} // namespace quantscope
