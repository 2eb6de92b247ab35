// SPDX-License-Identifier: MIT
// The scan over MPI ranks (scan_mpi.h). Messages on MPI_COMM_WORLD: a worker sends READY once
// per slot (kSlots: one module computing, one being read ahead), then RESULT for each module it
// was given ({"i", "line"} or {"i", "error"}), each one also a request for the next; rank 0
// answers ASSIGN with a module index, -1 to stop, and the worker then sends its TIMELINE. A
// worker reads its next module on a thread of its own while it computes the current one. Only
// each rank's main thread calls MPI (MPI_THREAD_FUNNELED); rank 0's second thread computes like
// a worker.
#include "scan_mpi.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "scan/scan_report.h"
#include "util/error.h"

namespace quantscope::cli {

namespace {

using ojson = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

enum Tag : int { kReady = 1, kAssign = 2, kResult = 3, kTimeline = 4 };
/// Modules a rank holds at once: the one it computes and the one it reads meanwhile (a rank that
/// read, then computed, left its GPU idle half the time: 1.66× for 2 ranks on 2 H100s).
constexpr int kSlots = 2;

/// A module given to this rank, its read running ahead on its own thread.
struct Pending {
    std::size_t i = 0;
    std::future<std::shared_ptr<Loaded>> read;
};

Pending startRead(const ScanSession &s, std::size_t i)
{
    Pending p;
    p.i = i;
    p.read = std::async(std::launch::async, [&s, i] { return s.read(i, CancelToken{}); });
    return p;
}

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

const char *env(const char *name)
{
    const char *v = std::getenv(name);
    return v && *v ? v : nullptr;
}

void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int n = 0;
        MPI_Error_string(rc, text, &n);
        throw IoError(std::string("MPI ") + what + " failed: " + std::string(text, static_cast<std::size_t>(n)) +
                      " (a rank died? resume the report with any number of ranks)");
    }
}

void sendText(const std::string &s, int to, int tag)
{
    check(MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD), "send");
}

std::string recvText(int from, int tag, MPI_Status *status = nullptr)
{
    MPI_Status st;
    check(MPI_Probe(from, tag, MPI_COMM_WORLD, &st), "probe");
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string s(static_cast<std::size_t>(n), '\0');
    check(MPI_Recv(s.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
    if (status)
        *status = st;
    return s;
}

/// One module on this rank, with the test hooks: QUANTSCOPE_SCAN_FAIL_MODULE=name fails that
/// module on rank QUANTSCOPE_SCAN_FAIL_RANK (default 1; "all": on every rank); QUANTSCOPE_SCAN_KILL_RANK=r with
/// QUANTSCOPE_SCAN_KILL_AFTER=n kills rank r (SIGKILL) when it is given its (n+1)-th module.
std::string computeMessage(const ScanSession &s, Pending &p, int rank, RankTimeline &t)
{
    const std::size_t i = p.i;
    ojson msg;
    msg["i"] = i;
    const char *killRank = env("QUANTSCOPE_SCAN_KILL_RANK");
    const char *killAfter = env("QUANTSCOPE_SCAN_KILL_AFTER");
    if (killRank && std::atoi(killRank) == rank && t.modules >= (killAfter ? std::atoi(killAfter) : 0))
        std::raise(SIGKILL);
    try {
        const char *failModule = env("QUANTSCOPE_SCAN_FAIL_MODULE");
        const char *failRank = env("QUANTSCOPE_SCAN_FAIL_RANK");
        const bool failHere = failRank ? (std::string(failRank) == "all" || std::atoi(failRank) == rank) : rank == 1;
        if (failModule && s.modules()[i].module == failModule && failHere)
            throw Error("test hook QUANTSCOPE_SCAN_FAIL_MODULE: " + std::string(failModule) + " fails on rank " +
                        std::to_string(rank));
        // The read ran ahead; waiting for it is idle time (its own time is the timeline's read).
        const auto w = Clock::now();
        std::shared_ptr<Loaded> l = p.read.get();
        t.idleSeconds += secondsSince(w);
        ojson line = s.computeRead(i, std::move(l), CancelToken{}, t);
        // Host memory ran out on this rank (a GPU's out of memory already falls back to the CPU
        // in the engine): another rank may have room.
        for (const auto &run : line.value("runs", ojson::array()))
            if (run.value("error", "") == "out of memory")
                throw Error("out of memory");
        msg["line"] = std::move(line);
    } catch (const std::exception &e) {
        msg["error"] = e.what();
    }
    return msg.dump();
}

/// Rank 0's own worker thread: takes the indices the coordinator gives it (up to kSlots), starts
/// each one's read at once and computes them in order.
class LocalWorker {
public:
    explicit LocalWorker(const ScanSession &s) : m_session(s)
    {
        m_timeline.rank = 0;
        m_thread = std::thread([this] { run(); });
    }
    ~LocalWorker() { stop(); }
    void give(std::size_t i)
    {
        const std::lock_guard lock(m_mutex);
        m_tasks.push_back(i);
        m_cv.notify_all();
    }
    std::optional<std::string> result()
    {
        const std::lock_guard lock(m_mutex);
        if (m_results.empty())
            return std::nullopt;
        auto r = std::move(m_results.front());
        m_results.pop_front();
        return r;
    }
    RankTimeline stop()
    {
        {
            const std::lock_guard lock(m_mutex);
            m_stop = true;
            m_cv.notify_all();
        }
        if (m_thread.joinable())
            m_thread.join();
        return m_timeline;
    }

private:
    void run()
    {
        const auto t0 = Clock::now();
        std::deque<Pending> pending;
        while (true) {
            {
                const auto w = Clock::now();
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [&] { return m_stop || !m_tasks.empty() || !pending.empty(); });
                if (pending.empty())
                    m_timeline.idleSeconds += secondsSince(w);
                while (!m_tasks.empty()) {
                    pending.push_back(startRead(m_session, m_tasks.front()));
                    m_tasks.pop_front();
                }
                if (pending.empty())
                    break; // stopped with nothing left
            }
            Pending p = std::move(pending.front());
            pending.pop_front();
            std::string msg = computeMessage(m_session, p, 0, m_timeline);
            const std::lock_guard lock(m_mutex);
            m_results.push_back(std::move(msg));
        }
        m_timeline.wallSeconds = secondsSince(t0);
    }

    const ScanSession &m_session;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::size_t> m_tasks;
    std::deque<std::string> m_results;
    bool m_stop = false;
    RankTimeline m_timeline;
    std::thread m_thread;
};

void runWorker(const ScanSession &s, int rank)
{
    RankTimeline t;
    t.rank = rank;
    const auto t0 = Clock::now();
    for (int k = 0; k < kSlots; ++k)
        sendText("", 0, kReady);
    std::deque<Pending> pending;
    bool stop = false;
    // One assignment: blocking when nothing is pending, else only one that has arrived.
    auto receive = [&](bool block) {
        if (!block) {
            int flag = 0;
            check(MPI_Iprobe(0, kAssign, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), "probe");
            if (!flag)
                return false;
        }
        long long i = -1;
        check(MPI_Recv(&i, 1, MPI_LONG_LONG, 0, kAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
        if (i < 0) {
            stop = true;
            return false;
        }
        pending.push_back(startRead(s, static_cast<std::size_t>(i)));
        return true;
    };
    while (true) {
        while (!stop && static_cast<int>(pending.size()) < kSlots) {
            const bool block = pending.empty();
            const auto w = Clock::now();
            const bool got = receive(block);
            if (block)
                t.idleSeconds += secondsSince(w);
            if (!got)
                break;
        }
        if (pending.empty()) {
            if (stop)
                break;
            continue;
        }
        Pending p = std::move(pending.front());
        pending.pop_front();
        sendText(computeMessage(s, p, rank, t), 0, kResult);
    }
    t.wallSeconds = secondsSince(t0);
    sendText(t.toJson().dump(), 0, kTimeline);
}

/// Rank 0: hands out modules to whoever asks, takes the results back in any order.
DistributedScan coordinate(ScanSession &s, int size)
{
    DistributedScan out;
    out.ranks = size;
    std::deque<std::size_t> queue;
    for (const auto i : s.open())
        queue.push_back(i);
    std::map<std::size_t, std::set<int>> failedOn; // module -> ranks it failed on
    std::map<std::size_t, std::string> lastError;
    std::multimap<int, std::size_t> inFlight; // rank -> its modules
    std::map<int, int> idle;                  // rank -> free slots
    LocalWorker local(s);
    idle[0] = kSlots;
    int stopped = 0; // remote ranks sent their timeline
    std::vector<RankTimeline> timeline(static_cast<std::size_t>(size));
    std::set<int> told;

    auto dispatch = [&] {
        for (auto &[r, free] : idle) {
            while (free > 0) {
                const int rank = r;
                auto pick = std::find_if(queue.begin(), queue.end(),
                                         [&](std::size_t i) { return !failedOn[i].contains(rank); });
                if (pick == queue.end())
                    break;
                const std::size_t i = *pick;
                queue.erase(pick);
                inFlight.emplace(rank, i);
                --free;
                if (rank == 0) {
                    local.give(i);
                } else {
                    const long long v = static_cast<long long>(i);
                    check(MPI_Send(&v, 1, MPI_LONG_LONG, rank, kAssign, MPI_COMM_WORLD), "send");
                }
            }
        }
        // Nothing left anyone here may take: the ranks with free slots stop.
        if (inFlight.empty())
            for (const auto &[r, free] : idle)
                if (r != 0 && free > 0 && !told.contains(r)) {
                    const long long v = -1;
                    check(MPI_Send(&v, 1, MPI_LONG_LONG, r, kAssign, MPI_COMM_WORLD), "send");
                    told.insert(r);
                }
    };
    auto onResult = [&](int rank, const std::string &text) {
        const auto msg = ojson::parse(text);
        const std::size_t i = msg["i"].get<std::size_t>();
        for (auto [a, b] = inFlight.equal_range(rank); a != b; ++a)
            if (a->second == i) {
                inFlight.erase(a);
                break;
            }
        ++idle[rank];
        if (!msg.contains("error")) {
            s.commit(i, msg["line"], rank);
            return;
        }
        const std::string why = msg["error"].get<std::string>();
        std::fprintf(stderr, "warning: rank %d failed on %s: %s\n", rank, s.modules()[i].module.c_str(), why.c_str());
        failedOn[i].insert(rank);
        if (static_cast<int>(failedOn[i].size()) < size) {
            queue.push_front(i); // another rank redoes it
            ++out.reassigned;
        } else {
            s.commit(i, s.errorLine(i, "failed on every rank: " + why), rank);
        }
    };

    dispatch();
    while (stopped < size - 1 || !queue.empty() || !inFlight.empty()) {
        bool busy = false;
        int flag = 0;
        MPI_Status st;
        check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "probe");
        if (flag) {
            busy = true;
            const std::string text = recvText(st.MPI_SOURCE, st.MPI_TAG);
            if (st.MPI_TAG == kReady)
                ++idle[st.MPI_SOURCE];
            else if (st.MPI_TAG == kResult)
                onResult(st.MPI_SOURCE, text);
            else if (st.MPI_TAG == kTimeline) {
                timeline[static_cast<std::size_t>(st.MPI_SOURCE)] = RankTimeline::fromJson(nlohmann::json::parse(text));
                ++stopped;
            }
        }
        while (auto r = local.result()) {
            busy = true;
            onResult(0, *r);
        }
        dispatch();
        if (!busy)
            std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    timeline[0] = local.stop();
    out.result = s.finish();
    out.result.bytesRead = 0;
    out.result.readSeconds = 0;
    for (const auto &t : timeline) {
        out.result.bytesRead += t.bytesRead;
        out.result.readSeconds += t.readSeconds;
    }
    out.timeline = std::move(timeline);
    if (!s.complete())
        throw Error("the MPI scan ended with modules left; resume the report");
    return out;
}

} // namespace

std::string mpiDescription()
{
#ifdef OMPI_MAJOR_VERSION
    return "OpenMPI " + std::to_string(OMPI_MAJOR_VERSION) + "." + std::to_string(OMPI_MINOR_VERSION) + "." +
           std::to_string(OMPI_RELEASE_VERSION) + " (built)";
#else
    return "MPI " + std::to_string(MPI_VERSION) + "." + std::to_string(MPI_SUBVERSION) + " (built)";
#endif
}

bool launchedByMpirun()
{
    return env("OMPI_COMM_WORLD_SIZE") || env("PMI_SIZE") || env("PMIX_RANK");
}

void pinRankDevice()
{
    const char *pin = env("QUANTSCOPE_MPI_PIN");
    if (pin && std::string(pin) == "0")
        return;
    const char *local = env("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!local)
        local = env("MPI_LOCALRANKID");
    if (!local)
        local = env("SLURM_LOCALID");
    if (!local)
        return;
    std::vector<std::string> gpus;
    if (const char *visible = env("CUDA_VISIBLE_DEVICES")) {
        std::string v = visible;
        std::size_t at = 0;
        while (at <= v.size()) {
            const auto comma = v.find(',', at);
            const std::string item = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
            if (!item.empty())
                gpus.push_back(item);
            if (comma == std::string::npos)
                break;
            at = comma + 1;
        }
    } else {
        std::error_code ec;
        std::size_t n = 0;
        for (auto it = std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec);
             !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
            ++n;
        for (std::size_t g = 0; g < n; ++g)
            gpus.push_back(std::to_string(g));
    }
    if (gpus.empty())
        return;
    const std::string mine = gpus[static_cast<std::size_t>(std::atoi(local)) % gpus.size()];
    ::setenv("CUDA_VISIBLE_DEVICES", mine.c_str(), 1);
    ::setenv("HIP_VISIBLE_DEVICES", mine.c_str(), 1);
}

DistributedScan runMpiScan(const Checkpoint &ck, const ScanOptions &options, const ScanProgress &progress)
{
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ScanOptions o = options;
    o.ranks = size;
    DistributedScan out;
    try {
        ScanSession s(ck, o, rank == 0 ? progress : ScanProgress{});
        if (rank == 0) {
            out = coordinate(s, size);
        } else {
            runWorker(s, rank);
            out.writer = false;
            out.ranks = size;
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: rank %d of %d: %s\n", rank, size, e.what());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return out;
}

} // namespace quantscope::cli
