// SPDX-License-Identifier: MIT
#include "util/subprocess.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"

extern char **environ;

namespace quantscope {

namespace {

/// A pipe whose ends close when it goes out of scope.
struct Pipe {
    int fd[2] = {-1, -1};
    Pipe()
    {
        if (::pipe2(fd, O_CLOEXEC) != 0)
            throw IoError(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    ~Pipe()
    {
        closeEnd(0);
        closeEnd(1);
    }
    void closeEnd(int i)
    {
        if (fd[i] >= 0)
            ::close(fd[i]);
        fd[i] = -1;
    }
    Pipe(const Pipe &) = delete;
    Pipe &operator=(const Pipe &) = delete;
};

/// Splits what arrives on a descriptor into lines.
struct LineReader {
    std::string pending;
    const std::function<void(const std::string &)> *sink;
    void feed(const char *data, std::size_t n)
    {
        pending.append(data, n);
        std::size_t at = 0;
        for (std::size_t nl; (nl = pending.find('\n', at)) != std::string::npos; at = nl + 1)
            if (*sink)
                (*sink)(pending.substr(at, nl - at));
        pending.erase(0, at);
    }
    void flush()
    {
        if (!pending.empty() && *sink)
            (*sink)(pending);
        pending.clear();
    }
};

std::vector<std::string> environment(const std::map<std::string, std::string> &extra)
{
    std::vector<std::string> env;
    for (char **e = environ; e && *e; ++e) {
        const std::string kv(*e);
        const std::string key = kv.substr(0, kv.find('='));
        if (!extra.contains(key))
            env.push_back(kv);
    }
    for (const auto &[k, v] : extra)
        env.push_back(k + "=" + v);
    return env;
}

std::vector<char *> pointers(std::vector<std::string> &strings)
{
    std::vector<char *> p;
    for (auto &s : strings)
        p.push_back(s.data());
    p.push_back(nullptr);
    return p;
}

} // namespace

SubprocessResult runSubprocess(const std::vector<std::string> &argv, const SubprocessOptions &options,
                               const std::function<void(const std::string &line)> &onStdout,
                               const std::function<void(const std::string &line)> &onStderr, const CancelToken *cancel)
{
    if (argv.empty())
        throw IoError("no program to run");
    Pipe out, err;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
    std::vector<std::string> args = argv;
    std::vector<std::string> env = environment(options.env);
    std::vector<char *> argp = pointers(args), envp = pointers(env);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, args[0].c_str(), &actions, nullptr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        throw IoError("cannot start '" + argv[0] + "': " + std::strerror(rc));
    out.closeEnd(1);
    err.closeEnd(1);

    LineReader outLines{{}, &onStdout}, errLines{{}, &onStderr};
    SubprocessResult result;
    bool termSent = false;
    std::chrono::steady_clock::time_point termAt;
    int open = 2;
    char buf[65536];
    while (open > 0) {
        if (cancel && cancel->cancelled() && !termSent) {
            ::kill(pid, SIGTERM);
            termSent = true;
            termAt = std::chrono::steady_clock::now();
            result.cancelled = true;
        }
        if (termSent &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - termAt).count() > options.killGraceSeconds)
            ::kill(pid, SIGKILL);
        pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
        const int n = ::poll(fds, 2, 100);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2 && n > 0; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                (i == 0 ? outLines : errLines).feed(buf, static_cast<std::size_t>(got));
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                (i == 0 ? out : err).closeEnd(0);
                --open;
            }
        }
    }
    outLines.flush();
    errLines.flush();
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return result;
}

} // namespace quantscope
