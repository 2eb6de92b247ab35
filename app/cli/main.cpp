// SPDX-License-Identifier: MIT
// quantscope-cli: everything but the plots, as JSON for scripts. Exit codes: 0 success,
// 1 refused input or failed work (message on stderr), 2 usage error.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "scan_mpi.h"
#include "engine/registry.h"
#include "register.h"
#include "io/safetensors.h"
#include "util/error.h"

namespace quantscope::cli {

bool Args::flag(const std::string &name)
{
    bool found = false;
    for (auto it = m_args.begin(); it != m_args.end();) {
        if (*it == name) {
            it = m_args.erase(it);
            found = true;
        } else {
            ++it;
        }
    }
    return found;
}

bool Args::has(const std::string &name) const
{
    for (const auto &a : m_args)
        if (a == name || a.rfind(name + "=", 0) == 0)
            return true;
    return false;
}

std::optional<std::string> Args::value(const std::string &name)
{
    auto all = values(name);
    if (all.empty())
        return std::nullopt;
    return all.back();
}

std::vector<std::string> Args::values(const std::string &name)
{
    std::vector<std::string> out;
    for (auto it = m_args.begin(); it != m_args.end();) {
        if (*it == name) {
            if (it + 1 == m_args.end())
                throw UsageError(name + " needs a value");
            out.push_back(*(it + 1));
            it = m_args.erase(it, it + 2);
        } else if (it->rfind(name + "=", 0) == 0) {
            out.push_back(it->substr(name.size() + 1));
            it = m_args.erase(it);
        } else {
            ++it;
        }
    }
    return out;
}

std::int64_t toInt(const std::string &opt, const std::string &v)
{
    try {
        std::size_t used = 0;
        const long long x = std::stoll(v, &used);
        if (used == v.size())
            return x;
    } catch (const std::exception &) {
    }
    throw UsageError(opt + " needs an integer, got '" + v + "'");
}

double toReal(const std::string &opt, const std::string &v)
{
    try {
        std::size_t used = 0;
        const double x = std::stod(v, &used);
        if (used == v.size())
            return x;
    } catch (const std::exception &) {
    }
    throw UsageError(opt + " needs a number, got '" + v + "'");
}

DeviceChoice takeDeviceOption(Args &args)
{
    const auto d = args.value("--device");
    if (!d)
        return DeviceChoice::Auto;
    try {
        return parseDeviceChoice(*d);
    } catch (const Error &) {
        throw UsageError("--device must be auto, cpu or gpu");
    }
}

std::vector<std::string> Args::positionals()
{
    for (const auto &a : m_args)
        if (a.size() > 2 && a.rfind("--", 0) == 0)
            throw UsageError("unknown option " + a);
    return m_args;
}

} // namespace quantscope::cli

namespace {

const char *kUsage = R"(Usage: quantscope-cli COMMAND [OPTIONS]

Commands:
  info PATH [--tensor NAME]... [--stats [--per-channel]] [--lenient] [--json]
                       list the tensors of a checkpoint (.safetensors, sharded
                       folder, .npy, .npz), quantized modules with their scheme
  quantize PATH --tensor NAME --method int|fp8|hqq|milo|mxfp4|nvfp4|progressive|constopt [options]
           [--activation [FILE:]NAME --act-quant KIND] [--save OUT.safetensors] [--per-channel] [--json]
                       quantize one tensor; metrics, percentiles, histograms, paired GEMM
  spectrum PATH --tensor NAME [quantizer options] [--top K] [--power-iters P] [--tau T] [--json]
                       singular values of the residual W − Ŵ (of W without a quantizer)
  sweep-c PATH --tensor NAME [--group G] [--rotate D] [--encoder pow2|unrounded]
           [--grid LO:HI:STEP] [--json]
                       constOpt MSE(c), c*, Lloyd–Max / INT4 / MXFP4 references
  decode PATH --tensor MODULE_OR_NAME --out OUT.safetensors|OUT.npy [--json]
                       write a quantized module (or any tensor) decoded to FP32
  gemm-bench (--shape N,K | --tensor NAME PATH) [--m-sweep LIST] [--formats LIST] [--experts E] [--repeats R] [--json]
                       time BF16/FP8/INT8 GEMMs of one weight shape over M (the GPU's
                       cuBLASLt; the CPU times Eigen FP32 GEMMs instead)
  scan PATH [--recipe R.json] [--specs A,B,...] [--spectra off|counts|top-k]
           [--out REPORT.jsonl] [--json]
                       every 2-D weight through a recipe's specs; JSON lines, resumable
  recipe check R.json [--checkpoint PATH] [--json]
                       how a recipe resolves each module; unmatched, unused, overlaps, warnings
  export --recipe R.json --format quark|quark-script|compressed-tensors|llm-compressor|quantscope
         [--activations none|fp8-dynamic|fp8-static] [--pack-method reorder|order] [OUT]
         [--checkpoint PATH --out-dir DIR]  (compressed-tensors pack-quantized checkpoint)
                       the recipe as a toolkit's config (stdout without OUT); refuses what
                       the target cannot express
  doctor PATH [--json] every problem of a checkpoint in one report: completeness, quantized
                       modules, scale health, dtype traps, KV scales, duplicates
                       (exit 0 healthy, 3 warnings, 4 errors)
  compare A B [--reference ORIG] [--json]
                       two checkpoints (or two scan reports) module by module: codes
                       that differ, scale ratios, scheme, Ŵ difference, error vs ORIG
  demo OUT_DIR         write the built-in demo checkpoint (2 shards, index, config, activations)

quantize, spectrum, sweep-c, gemm-bench and scan show a progress line with the time left on stderr when
it is a terminal; --quiet silences it. --device auto|cpu|gpu picks where they compute.

Options:
  --version            print version and the compute device
  --help               this text

Documentation: docs/cli.md
)";

} // namespace

int main(int argc, char **argv)
{
    using namespace quantscope;
    registerGpuBackends();
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string cmd = args.front();
    args.erase(args.begin());
    try {
        if (cmd == "--version" || cmd == "version") {
            std::printf("quantscope-cli %s\nGPU backends built: %s\nCompute device: %s\nMPI: %s\n",
                        QUANTSCOPE_VERSION, builtGpuBackends().c_str(),
                        describeComputeDevice().c_str(), cli::mpiDescription().c_str());
            // What each device runs itself, per method (the engine's capability query).
            const auto &reg = BackendRegistry::instance();
            if (const Backend *gpu = reg.gpu()) {
                std::printf("On the GPU:\n");
                for (const auto &m : gpu->capabilities())
                    std::printf("  %-12s %s\n", m.method.c_str(), m.options.c_str());
            }
            return 0;
        }
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (cmd == "info")
            return cli::runInfo(cli::Args(args));
        if (cmd == "quantize")
            return cli::runQuantize(cli::Args(args));
        if (cmd == "spectrum")
            return cli::runSpectrum(cli::Args(args));
        if (cmd == "decode")
            return cli::runDecode(cli::Args(args));
        if (cmd == "sweep-c")
            return cli::runSweepC(cli::Args(args));
        if (cmd == "gemm-bench")
            return cli::runGemmBench(cli::Args(args));
        if (cmd == "scan")
            return cli::runScanCommand(cli::Args(args));
        if (cmd == "recipe")
            return cli::runRecipeCommand(cli::Args(args));
        if (cmd == "demo")
            return cli::runDemo(cli::Args(args));
        if (cmd == "doctor")
            return cli::runDoctor(cli::Args(args));
        if (cmd == "compare")
            return cli::runCompare(cli::Args(args));
        if (cmd == "export")
            return cli::runExport(cli::Args(args));
        std::fprintf(stderr, "quantscope-cli: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
        return 2;
    } catch (const cli::UsageError &e) {
        std::fprintf(stderr, "quantscope-cli %s: %s\n", cmd.c_str(), e.what());
        return 2;
    } catch (const HeaderTooLargeError &e) {
        // The action the user can take, in the CLI's terms.
        std::fprintf(stderr, "quantscope-cli %s: error: %s%s\n", cmd.c_str(), e.what(),
                     cmd == "info" ? "; if the file is genuine, raise the limit with --max-header-bytes N"
                                   : "");
        return 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "quantscope-cli %s: error: %s\n", cmd.c_str(), e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "quantscope-cli %s: error: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}
