// SPDX-License-Identifier: MIT
// The whole-checkpoint scan against the rate of just reading the same files (issue 24), in one
// process: a sharded BF16 checkpoint (generated: --gb G of 4096×4096 Student-t tensors, 16 per
// shard; or --checkpoint PATH), first read once to warm the page cache, then
//  * read-only: every scanned weight pread into one host buffer — pinned (cudaHostAlloc) and
//    uploaded to the device (cudaMemcpy) in CUDA builds unless --device cpu;
//  * scan: runScan with INT4 g128 + FP8 E4M3 per tensor (--specs as the CLI takes them is not
//    parsed here: --fp8-off drops the FP8 spec) on --device, no report file; then the same
//    without the per-channel kurtosis summaries (a CPU pass the reader thread makes);
// each --repeats times (median), and writes $OUT/scan_bench.json with both rates and their ratio.
// The JSON's "stages" say where the last repeat's scans spent their time (reader: read, kurtosis;
// computing thread: waiting for the reader, the engine jobs and their runs).
// Usage: qs_bench_scan [--out DIR] [--gb G] [--layout square|llama] [--dir GEN_DIR] [--checkpoint PATH] [--device auto|cpu|gpu]
//                      [--repeats N] [--fp8-off] [--keep]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.h"
#include "engine/registry.h"
#include "io/safetensors.h"
#include "register.h"
#include "scan/scan.h"

#if defined(QS_BENCH_CUDA)
#include <cuda_runtime.h>
#endif

using namespace quantscope;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// One generated weight: its name and shape.
struct GenTensor {
    std::string name;
    std::int64_t rows, cols;
};

/// The tensors of `gb` GiB: "square" (4096×4096 q/o/up/down, 16 per shard) or "llama" (a
/// Llama-3-8B-like layer: q, o 4096×4096; k, v 1024×4096; gate, up 14336×4096; down 4096×14336;
/// shards of about 4 GiB as the published checkpoints have).
std::vector<std::vector<GenTensor>> plan(const std::string &layout, double gb)
{
    const double target = gb * static_cast<double>(1ull << 30);
    std::vector<std::vector<GenTensor>> shards(1);
    double total = 0, inShard = 0;
    if (layout == "llama") {
        const std::int64_t h = 4096, kv = 1024, f = 14336;
        const std::pair<const char *, std::pair<std::int64_t, std::int64_t>> layer[] = {
            {"self_attn.q_proj", {h, h}}, {"self_attn.k_proj", {kv, h}}, {"self_attn.v_proj", {kv, h}},
            {"self_attn.o_proj", {h, h}}, {"mlp.gate_proj", {f, h}},     {"mlp.up_proj", {f, h}},
            {"mlp.down_proj", {h, f}}};
        for (int l = 0; total < target; ++l)
            for (const auto &[proj, shape] : layer) {
                const double b = 2.0 * static_cast<double>(shape.first * shape.second);
                if (inShard + b > 4.0 * (1ull << 30)) {
                    shards.emplace_back();
                    inShard = 0;
                }
                shards.back().push_back(
                    {"model.layers." + std::to_string(l) + "." + proj + ".weight", shape.first, shape.second});
                inShard += b;
                total += b;
            }
        return shards;
    }
    const std::int64_t R = 4096, C = 4096, per = 16;
    const auto tensors = std::max<std::int64_t>(1, static_cast<std::int64_t>(target / (R * C * 2)));
    static const char *proj[] = {"self_attn.q_proj", "self_attn.o_proj", "mlp.up_proj", "mlp.down_proj"};
    for (std::int64_t t = 0; t < tensors; ++t) {
        if (static_cast<std::int64_t>(shards.back().size()) == per)
            shards.emplace_back();
        shards.back().push_back({"model.layers." + std::to_string(t / 4) + "." + proj[t % 4] + ".weight", R, C});
    }
    return shards;
}

fs::path generate(const fs::path &dir, double gb, const std::string &layout)
{
    const auto shards = plan(layout, gb);
    fs::create_directories(dir);
    nlohmann::json index;
    index["metadata"] = nlohmann::json::object();
    std::uint64_t seed = 42;
    for (std::size_t s = 0; s < shards.size(); ++s) {
        char shard[64];
        std::snprintf(shard, sizeof shard, "model-%05zu-of-%05zu.safetensors", s + 1, shards.size());
        std::vector<std::pair<std::string, Tensor>> ts;
        for (const auto &g : shards[s]) {
            if (!fs::exists(dir / shard))
                ts.emplace_back(g.name, Tensor::fromBytes(DType::BF16, {g.rows, g.cols},
                                                          bench::studentTBf16(g.rows * g.cols, seed)));
            ++seed;
            index["weight_map"][g.name] = shard;
        }
        if (!fs::exists(dir / shard))
            writeSafetensors(dir / shard, ts);
    }
    std::ofstream(dir / "model.safetensors.index.json") << index.dump(1);
    return dir;
}

void preadAll(const TensorEntry &e, std::byte *into)
{
    const int fd = ::open(e.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error("cannot open " + e.file.string());
    std::uint64_t done = 0;
    while (done < e.nbytes()) {
        const ssize_t n = ::pread(fd, into + done, e.nbytes() - done, static_cast<off_t>(e.fileOffset + done));
        if (n <= 0) {
            ::close(fd);
            throw std::runtime_error("read failed: " + e.file.string());
        }
        done += static_cast<std::uint64_t>(n);
    }
    ::close(fd);
}

} // namespace

int main(int argc, char **argv)
{
    registerGpuBackends();
    std::string out = ".", device = "auto", checkpoint, layout = "square";
    fs::path dir = "/tmp/qs_scan_bench";
    double gb = 2;
    int repeats = 1;
    bool fp8 = true, keep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (a == "--out")
            out = next();
        else if (a == "--gb")
            gb = std::stod(next());
        else if (a == "--layout")
            layout = next();
        else if (a == "--dir")
            dir = next();
        else if (a == "--checkpoint")
            checkpoint = next();
        else if (a == "--device")
            device = next();
        else if (a == "--repeats")
            repeats = std::max(1, std::stoi(next()));
        else if (a == "--fp8-off")
            fp8 = false;
        else if (a == "--keep")
            keep = true;
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 2;
        }
    }
    const auto tg = Clock::now();
    const fs::path path = checkpoint.empty() ? generate(dir, gb, layout) : fs::path(checkpoint);
    const double genSeconds = secondsSince(tg);
    const Checkpoint ck = Checkpoint::open(path);
    const std::vector<ScanModule> modules = listScanModules(ck);
    std::uint64_t bytes = 0, largest = 0;
    for (const auto &m : modules)
        if (m.quantized < 0) {
            bytes += m.readBytes;
            largest = std::max(largest, m.readBytes);
        }

    ScanOptions so;
    so.device = parseDeviceChoice(device);
    std::vector<QuantSpec> specs = {QuantSpec{IntSpec{}}};
    if (fp8)
        specs.push_back(QuantSpec{Fp8Spec{}});
    so.recipe = Recipe::defaults().withSpecs(specs);

    // Host buffer (pinned where a device takes the upload) and a device buffer.
    bool upload = false;
    std::byte *host = nullptr;
    std::vector<std::byte> plain;
#if defined(QS_BENCH_CUDA)
    void *dev = nullptr;
    if (so.device != DeviceChoice::Cpu && BackendRegistry::instance().gpu() &&
        cudaHostAlloc(reinterpret_cast<void **>(&host), largest, cudaHostAllocDefault) == cudaSuccess &&
        cudaMalloc(&dev, largest) == cudaSuccess)
        upload = true;
#endif
    if (!upload) {
        plain.resize(largest);
        host = plain.data();
    }
    auto readOnly = [&] {
        const auto t0 = Clock::now();
        for (const auto &m : modules) {
            if (m.quantized >= 0)
                continue;
            const TensorEntry &e = *ck.find(m.tensor);
            preadAll(e, host);
#if defined(QS_BENCH_CUDA)
            if (upload)
                cudaMemcpy(dev, host, e.nbytes(), cudaMemcpyHostToDevice);
#endif
        }
        return secondsSince(t0);
    };
    readOnly(); // warm the page cache: both passes below read from it
    // Peak RSS from here on (not the generation's): writing 5 to clear_refs resets VmHWM.
    std::ofstream("/proc/self/clear_refs") << "5";
    const std::uint64_t baseline = currentRssBytes(); // the libraries, the GPU runtime, the buffers above
    std::vector<double> readTimes, scanTimes, scanNoKurtTimes;
    nlohmann::ordered_json stages; // where the last repeat's scans spent their time
    auto stagesOf = [](const ScanResult &r) {
        nlohmann::ordered_json t;
        t["wall_s"] = r.seconds;
        t["reader_read_s"] = r.readSeconds;
        t["reader_channel_kurtosis_s"] = r.kurtosisSeconds;
        t["compute_wait_for_reader_s"] = r.waitSeconds;
        t["compute_jobs_s"] = r.jobSeconds;
        t["compute_runs_s"] = r.runsSeconds;
        t["compute_job_outside_runs_s"] = r.jobSeconds - r.runsSeconds;
        return t;
    };
    std::uint64_t peak = 0;
    std::string scanDevice;
    for (int r = 0; r < repeats; ++r) {
        readTimes.push_back(readOnly());
        const auto t0 = Clock::now();
        const ScanResult res = runScan(ck, so, CancelToken{});
        scanTimes.push_back(secondsSince(t0));
        peak = peakRssBytes();
        // The same without the per-channel kurtosis pass (a CPU pass on the reader thread).
        ScanOptions nk = so;
        nk.channelKurtosis = false;
        const auto t1 = Clock::now();
        const ScanResult resNk = runScan(ck, nk, CancelToken{});
        scanNoKurtTimes.push_back(secondsSince(t1));
        stages["scan"] = stagesOf(res);
        stages["scan_no_channel_kurtosis"] = stagesOf(resNk);
        if (!res.lines.empty() && res.lines.front().contains("runs") && !res.lines.front()["runs"].empty())
            scanDevice = res.lines.front()["runs"][0].value("device", "");
    }
#if defined(QS_BENCH_CUDA)
    if (upload) {
        cudaFreeHost(host);
        cudaFree(dev);
    }
#endif
    const double tr = bench::summarize(readTimes).median, ts = bench::summarize(scanTimes).median;
    nlohmann::ordered_json j;
    j["bench"] = "scan";
    j["date"] = bench::utcNow();
    j["compute_device"] = describeComputeDevice();
    j["checkpoint"] = path.string();
    j["generated_seconds"] = checkpoint.empty() ? genSeconds : 0.0;
    j["modules"] = modules.size();
    j["bytes"] = bytes;
    j["specs"] = fp8 ? "int4 g128 sym + fp8 e4m3 per tensor" : "int4 g128 sym";
    j["device"] = device;
    j["scan_device"] = scanDevice;
    j["read_only_pinned_upload"] = upload;
    j["read_only_seconds"] = tr;
    j["read_only_gb_per_s"] = static_cast<double>(bytes) / tr / 1e9;
    j["scan_seconds"] = ts;
    j["scan_gb_per_s"] = static_cast<double>(bytes) / ts / 1e9;
    j["scan_over_read_only"] = tr / ts;
    const double tn = bench::summarize(scanNoKurtTimes).median;
    j["scan_no_channel_kurtosis_seconds"] = tn;
    j["scan_no_channel_kurtosis_gb_per_s"] = static_cast<double>(bytes) / tn / 1e9;
    j["scan_no_channel_kurtosis_over_read_only"] = tr / tn;
    j["stages"] = stages;
    j["layout"] = layout;
    j["peak_rss_bytes"] = peak;
    j["baseline_rss_bytes"] = baseline;
    j["memory_bound_bytes"] = baseline + 2 * 2 * largest + (256ull << 20); // + 2 × FP32 bytes (BF16 stored) + 256 MB
    j["repeats"] = repeats;
    fs::create_directories(out);
    std::ofstream(fs::path(out) / "scan_bench.json") << j.dump(1) << '\n';
    std::printf("%s\n", j.dump(1).c_str());
    if (checkpoint.empty() && !keep)
        fs::remove_all(dir);
    return 0;
}
