// SPDX-License-Identifier: MIT
// Crash-safe writes, proven (docs/reliability.md "Crash-safe writes"; labels cli and slow): each
// writer — `quantize --save`, `decode --out`, `demo` and a session save (core's saveSessionFile,
// which the window's Save calls, driven by qs_session_writer) — runs in a child process that is
// killed with SIGKILL after N bytes (QUANTSCOPE_TEST_KILL_AFTER_BYTES, honoured by AtomicFile),
// for 20 random N between 0 and the bytes of a whole write. After each kill every target holds
// the old file or the complete new one, byte for byte; after the next (unkilled) write the target
// is the new file and no temporary file is left in its folder.
#include "cli_run.h"

#include "io/safetensors.h"
#include "results/session.h"
#include "tensor/tensor.h"

#include <csignal>
#include <cstdlib>
#include <map>
#include <random>
#include <sys/types.h>

namespace {

using namespace cli_test;
using quantscope::Tensor;

constexpr int kKills = 20;

struct Exit {
    bool killed = false; ///< by SIGKILL
    int rc = -1;         ///< exit status when not signalled
};

/// Runs `argv` (argv[0] the program) with QUANTSCOPE_TEST_KILL_AFTER_BYTES=killAfter when ≥ 0;
/// stdout and stderr go to /dev/null.
Exit spawn(const std::vector<std::string> &argv, long long killAfter)
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (killAfter >= 0)
            ::setenv("QUANTSCOPE_TEST_KILL_AFTER_BYTES", std::to_string(killAfter).c_str(), 1);
        else
            ::unsetenv("QUANTSCOPE_TEST_KILL_AFTER_BYTES");
        std::FILE *null = std::fopen("/dev/null", "w");
        if (null) {
            ::dup2(fileno(null), 1);
            ::dup2(fileno(null), 2);
        }
        std::vector<char *> args;
        for (const auto &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    Exit e;
    e.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    e.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return e;
}

std::vector<std::string> cli(std::vector<std::string> args)
{
    args.insert(args.begin(), QUANTSCOPE_CLI);
    return args;
}

using Files = std::map<std::string, std::string>; ///< file name → bytes

Files snapshot(const fs::path &dir, const std::vector<std::string> &names)
{
    Files f;
    for (const auto &n : names)
        if (fs::exists(dir / n))
            f[n] = slurp(dir / n);
    return f;
}

void restore(const fs::path &dir, const Files &f, const std::vector<std::string> &names)
{
    for (const auto &n : names)
        fs::remove(dir / n);
    for (const auto &[n, bytes] : f) {
        std::ofstream out(dir / n, std::ios::binary);
        out << bytes;
    }
}

std::vector<std::string> tempFiles(const fs::path &dir)
{
    std::vector<std::string> t;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp-") != std::string::npos)
            t.push_back(e.path().filename().string());
    return t;
}

/// One writer: `oldCmd` writes the old state of `names` in `dir`, `newCmd` the new one.
void provesCrashSafe(const std::string &what, const fs::path &dir, const std::vector<std::string> &names,
                     const std::vector<std::string> &oldCmd, const std::vector<std::string> &newCmd, unsigned seed)
{
    // The new state, and the bytes one whole write of it puts through AtomicFile.
    ASSERT_EQ(spawn(newCmd, -1).rc, 0) << what;
    const Files fresh = snapshot(dir, names);
    ASSERT_EQ(fresh.size(), names.size()) << what;
    long long total = 0;
    for (const auto &[n, bytes] : fresh)
        total += static_cast<long long>(bytes.size());
    ASSERT_EQ(spawn(oldCmd, -1).rc, 0) << what;
    const Files old = snapshot(dir, names);
    ASSERT_EQ(old.size(), names.size()) << what;
    ASSERT_NE(old, fresh) << what << ": the old and the new files must differ";

    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<long long> pick(0, total);
    for (int k = 0; k < kKills; ++k) {
        const long long n = k == 0 ? 0 : k == 1 ? total : pick(rng);
        SCOPED_TRACE(what + ": killed after " + std::to_string(n) + " of " + std::to_string(total) + " bytes");
        restore(dir, old, names);
        const Exit e = spawn(newCmd, n);
        ASSERT_TRUE(e.killed) << "the writer was not killed (rc " << e.rc << ")";
        for (const auto &name : names) {
            ASSERT_TRUE(fs::exists(dir / name)) << name << " is gone";
            const std::string now = slurp(dir / name);
            EXPECT_TRUE(now == old.at(name) || now == fresh.at(name))
                << name << " is neither the old file nor the new one (" << now.size() << " bytes; old "
                << old.at(name).size() << ", new " << fresh.at(name).size() << ")";
        }
        // The next write completes and leaves no temporary file, the killed one's included.
        ASSERT_EQ(spawn(newCmd, -1).rc, 0);
        EXPECT_EQ(snapshot(dir, names), fresh);
        EXPECT_EQ(tempFiles(dir), std::vector<std::string>{});
    }
}

fs::path freshDir(const std::string &name)
{
    const fs::path d = fs::path(::testing::TempDir()) / ("qs_crash_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

/// A small checkpoint of two 2-D weights written by the test itself.
fs::path smallCheckpoint(const fs::path &dir)
{
    std::mt19937 rng(7);
    std::normal_distribution<float> nd(0.0f, 0.05f);
    std::vector<float> a(384 * 256), b(256 * 384);
    for (auto &x : a)
        x = nd(rng);
    for (auto &x : b)
        x = nd(rng);
    fs::create_directories(dir);
    const fs::path p = dir / "model.safetensors";
    quantscope::writeSafetensors(p, {{"model.layers.0.mlp.up_proj.weight", Tensor::fromFloats({384, 256}, a)},
                                     {"model.layers.0.mlp.down_proj.weight", Tensor::fromFloats({256, 384}, b)}});
    return p;
}

const char *kUp = "model.layers.0.mlp.up_proj.weight";

} // namespace

TEST(CrashSafe, QuantizeSave)
{
    const fs::path d = freshDir("quantize");
    const fs::path ck = smallCheckpoint(d / ".." / d.filename().concat("_ck"));
    const std::string out = (d / "q.safetensors").string();
    provesCrashSafe("quantize --save", d, {"q.safetensors"},
                    cli({"quantize", ck.string(), "--tensor", kUp, "--method", "int", "--bits", "8", "--save", out}),
                    cli({"quantize", ck.string(), "--tensor", kUp, "--method", "int", "--bits", "4", "--save", out}),
                    1);
    fs::remove_all(d);
    fs::remove_all(ck.parent_path());
}

TEST(CrashSafe, DecodeOut)
{
    const fs::path d = freshDir("decode");
    const fs::path ck = smallCheckpoint(d / ".." / d.filename().concat("_ck"));
    // decode's write path is the same for a quantized module and a dense tensor (F32 → .npy).
    const std::string out = (d / "w.npy").string();
    provesCrashSafe("decode --out", d, {"w.npy"},
                    cli({"decode", ck.string(), "--tensor", "model.layers.0.mlp.down_proj.weight", "--out", out}),
                    cli({"decode", ck.string(), "--tensor", kUp, "--out", out}), 2);
    fs::remove_all(d);
    fs::remove_all(ck.parent_path());
}

TEST(CrashSafe, Demo)
{
    const fs::path d = freshDir("demo");
    provesCrashSafe("demo", d,
                    {"config.json", "model.safetensors.index.json", "model-00001-of-00002.safetensors",
                     "model-00002-of-00002.safetensors", "activations.npy"},
                    cli({"demo", d.string(), "--seed", "11"}), cli({"demo", d.string()}), 3);
    fs::remove_all(d);
}

TEST(CrashSafe, SessionSave)
{
    const fs::path d = freshDir("session");
    const std::string out = (d / "s.qscope").string();
    provesCrashSafe("session save", d, {"s.qscope"}, {QS_SESSION_WRITER, out, "1"}, {QS_SESSION_WRITER, out, "2"}, 4);
    // What survives is the second writer's whole session, as the window would open it: its
    // source, its three configurations and the job's outcomes for both tensors.
    const quantscope::Session back = quantscope::loadSessionFile(out);
    ASSERT_TRUE(back.checkpoint.has_value());
    EXPECT_EQ(back.checkpoint->path, "/models/seed-2");
    EXPECT_EQ(back.configs.size(), 3u);
    EXPECT_EQ(back.selected, (std::vector<std::string>{"a.weight", "b.weight"}));
    EXPECT_EQ(back.results.outcomes.size(), 6u);
    for (const auto &o : back.results.outcomes)
        EXPECT_TRUE(o.error.empty()) << o.error;
    fs::remove_all(d);
}
