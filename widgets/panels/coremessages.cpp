// SPDX-License-Identifier: MIT
#include "coremessages.h"
#include "coremessages_tables.h"

#include <QCoreApplication>
#include <QHash>
#include <QMutex>
#include <QRegularExpression>

#include <algorithm>
#include <optional>
#include <vector>

namespace quantscope::coremessages {

namespace {

/// Every message of the quantize job's path core/ can send to the window, as core composes it:
/// the fixed text with %1… where core inserts a value. Enumerated from the throw, note, warning
/// and step statements of core/quant, core/engine, core/metrics, core/numeric (SVD, Hadamard),
/// core/results (the Overview's note), core/util/error.cpp, core/budget, core/compare, core/kv and
/// core/sim, and the Health view's MoE grid findings; the other folders' patterns are in
/// coremessages_tables.h. tst_coremessages scans the sources and fails on a message text that is
/// in no table.
const char *const kPatterns[] = {
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "profiling %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "profiling channels of %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spectrum of %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "done"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "unknown error"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cancelled"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "activation %1: %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "activation has %1 channels, the weight %2 input channels: not paired"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "activation not available"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "not in the capture %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "absmax of the loaded tensor"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GPU failed (%1)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GPU failed (%1): computed on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: computed on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "computed on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "empty tensor: computed on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the engine returned no metrics"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "out of memory"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "channel kurtosis of %1 on the device: %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "device must be auto, cpu or gpu, not '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GPU requested but unavailable (%1)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GPU requested but unavailable (%1): computed on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "GPU requested but this build's GPU backend has no KV lab: computed on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the GPU does not sweep this tensor: computed on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the device failed (%1)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "roofline: %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "roofline not cached: %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM lab not run on %1 (%2)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no device kernel"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no device linear algebra"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no GEMM lab on this backend"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no device channel moments"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no output-aware error on this backend"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "built without a GPU backend"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no %1 GPU found"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "an %1 GPU is present, but its driver is missing or older than this "
                                                  "build's %2 runtime: install or update the %3 driver"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "an %1 GPU is present, but its driver is missing or older than this "
                                                  "build's %2 runtime (%3): install or update the %4 driver"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "an %1 GPU is present, but it did not start"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "an %1 GPU is present, but it did not start (%2)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "Ŵ has %1 elements, W has %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "output-aware error: %1 values are not %2 rows of K = %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "output-aware error: the weight is %1 but the Gram is for K = %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spectrum: the matrix has %1 elements, not %2x%3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spectrum: tau must be in (0, 1]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spectrum: the matrix holds NaN/Inf at element %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "Hadamard rotation size must be a power of two ≥ 2, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "Hadamard rotation of size %1 needs K divisible by it; K = %2 is not"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the bidiagonal singular value iteration did not converge"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "all singular values are computed for min(N, K) ≤ %1 only (here %2); ask for the top k instead"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "top-k spectrum needs k ≥ 1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "power iterations and oversampling must be ≥ 0"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "svd_lowrank needs q ≥ 1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "group %1 is longer than a row (%2 elements): each row is one short "
                                                  "group, so this is not the group size it says"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "block %1 is longer than a row (%2 elements): each row is one short "
                                                  "group, so this is not the block size it says"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "channel moment sums of unequal lengths"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "rowRelativeErrors: W and its dequantized values differ in size"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "tensor '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "byte %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "static activation scale must be a positive number, got '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "activation quantization '%1' unknown (int8-token, fp8-token, fp8-tensor, static[:S])"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot quantize %1 activations"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "awq quantizes per tensor, per output channel or per group along K"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "awq computes in FP32 with round(x/s) + z (compressed-tensors)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "awq n_grid must be 2..1000 (3 or more with duo_scaling on, 4 with both), got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "awq: no grid point gave a finite loss (NaN/Inf in the weight or the sample)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "awq: %1 has %2 input features, the capture's %3 %4"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "awq: the capture %1 holds no sample of %2's input rows, which AWQ's "
                                                  "loss is measured on (capture again with rows > 0)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "awq: %1 holds NaN/Inf (first at element %2); AWQ needs finite weights"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "awq: %1 lacks its smoothing scales (one per input column)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "c must be in [1e-6, 16], got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "rotate must be 0 or a power of two in 2..65536, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the c grid needs 0 < lo < hi and step > 0"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the c grid has more than a million points"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "group size must be ≥ 1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot sweep %1 data"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "gguf %1: rows of K = %2 are not a whole number of blocks of %3 (llama.cpp quantizes along K; "
                      "pick a type with blocks of 32, or another tensor)"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "gguf imatrix needs the module's inputs and none were paired with %1: capture them first (quantscope-cli "
        "capture MODEL --tokens FILE.npy --out CAP.safetensors) and pass --capture CAP.safetensors"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 needs the module's inputs and none were paired with %2: capture them first (quantscope-cli "
                      "capture MODEL --tokens FILE.npy --out CAP.safetensors) and pass --capture CAP.safetensors"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "gguf imatrix: the capture's %1 has %2 input channels, the weight %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "gguf: Ŵ is kept with the result; this one has none"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "this tensor"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "gptq quantizes per tensor, per output channel or per group along K, not %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "gptq computes in FP32 with round(x/s) + z (compressed-tensors)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "gptq block_size must be 1..1048576, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "gptq dampening must be a finite fraction ≥ 0"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "gptq target %1 is symmetric: the fp8 format has no zero point"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "gptq target %1 is symmetric: compressed-tensors refuses asymmetric FP4"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "gptq target %1 has %2-bit codes, not bits %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "gptq target %1 takes its scales and rounding from the format (compressed-tensors'); scale_rule, "
                      "rounding, scale_dtype and eps are the int target's"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "gptq target %1 quantizes per tensor or per output channel (the fp8 format has no groups)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "gptq target %1 quantizes per group along K, not %2"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "gptq target %1 has groups of 32 (compressed-tensors makes E8M0 scales only for group 32), not %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the capture %1 holds only the diagonal of %2's input Gram and no row sample: GPTQ needs XᵀX "
                      "(capture again with a larger gram bound, or with a row sample)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "gptq: %1 has %2 input features, the capture's %3 %4"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "gptq: %1 holds NaN/Inf (first at element %2); GPTQ needs finite weights"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "bits must be 2..8, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "group size must be ≥ 1, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "hqq-lib needs a group size that is a multiple of 8 (the library asserts it), got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "HQQ axis must be 0 or 1, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "iters must be 1..1000, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "HQQ needs numel divisible by the group size: numel = %1, group = %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "HQQ dequantize: codes, scales and zero points do not match the group size"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "passes must be 0..1000, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "rank must be ≥ 0, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "compensator_group must be ≥ 1, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "seed must be ≥ 0, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "power_iters must be 0..100, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "MiLo needs a finite tensor (the SVD of the residual is undefined with NaN/Inf)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "an NVFP4 result needs its global scale"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "a progressive stage must be an \"int\" or \"fp8\" spec, got \"%1\""),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spec field '%1' must be a spec object"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "a spec needs a \"method\" string (%1)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "unknown quantization method '%1' (known: %2)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot quantize %1 data"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "K = %1 is not divisible by the group size %2 (strict: ragged groups refused)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "block size must be ≥ 1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "shape %1x%2 is not divisible by the block size %3 (strict: ragged blocks refused)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "block size must be ≥ 1, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "channel axis must be 0 or 1, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "scale_rule 'max' applies to symmetric quantization only"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "FP8 granularity must be tensor, channel or block"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "a %1 spec must be a JSON object"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "unknown field '%1' in a %2 spec"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spec method is %1, expected \"%2\""),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spec field '%1' must be an integer"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spec field '%1' is %2, out of range"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spec field '%1' must be true or false"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spec field '%1' must be a number"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spec field '%1' must be a string"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "spec field '%1' is '%2', expected %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "group size must be in 1..%1, got %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the CPU backend was handed a tensor of another device"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "all options (the reference implementation)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "--objective must be auto, weight or output, not '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight error, as asked"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight error: the scan had no capture"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "%1 module(s) have runs without an output-aware error (%2): the capture lacks them or the scan had none"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "--objective output: %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight error: %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the scan's capture"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "output-aware error on the capture %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "not a scan report (its first line has no \"quantscope_scan\")"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "a module line lacks \"module\" or \"status\""),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "module '%1' has no shape"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the weights give no weight for module '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no candidate %1 can store"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: no run with metrics"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot open the scan report"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "line %1 is not JSON (a torn line of an unfinished scan? resume the scan first)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the scan report is empty"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot open the weights file"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weights must be an object {\"module\": weight}"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the weight of '%1' is not a finite number ≥ 0"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "a choice needs one candidate per module"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "module '%1' has no candidate %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no module has candidates to choose from"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "module '%1' has no candidates"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "module '%1' has more than 65535 candidates"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "module '%1' has a candidate with a non-finite error"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "budget too small: the smallest candidate of every module needs %1 "
                                                  "bytes (%2 MB), the budget is %3 bytes (%4 MB)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "budget: %1 (every other module)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 must be a positive decimal number, not '%2'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 has more significant digits than a budget can use: '%2'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 is larger than 2^64 - 1 bytes"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the budget in MB"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the budget in bits per weight"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the fused modules %1 (%2 members) share no spec with measurements: a serving engine needs one "
                      "scheme for all of them; scan them with the same specs"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the sweep needs a 2-D weight"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no rotated points: %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "not a format sweep: %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "not run"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "compare takes two checkpoints or two scan reports; this one is a checkpoint and the other is not"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "compare takes two checkpoints or two scan reports; this one is a scan report and the other is not"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the two sides' weights differ in shape: %1 vs %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the reference has no module of this name"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the reference's weight differs in shape: %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no module of this name"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "line %1 of the scan report is not a JSON object"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "not a scan report (no quantscope_scan header)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "line %1 of the scan report names no module"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "empty scan report"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "not scanned (%1)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "--reference applies to checkpoints; a scan report carries its errors already"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the reports name different checkpoints: %1 and %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 modules were scanned on neither side (excluded or unmatched)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "delta error (A - B)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "error A"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "error B"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "codes differing"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no reference: W is B's reconstruction"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the sphere codebook needs d ≥ 3, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "a codebook has 16 levels"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 of %2 head %3 holds %4 at token %5: the lab needs finite caches"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the queries"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "K and V must be [heads, tokens, head_dim]; K is %1, V %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "K %1 and V %2 disagree"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "K/V shape %1 has an empty dimension"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "queries %1 must be [heads, queries, %2]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "query heads (%1) must be a positive multiple of the KV heads (%2)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 queries but only %2 keys: query i needs the keys up to position i"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "shape differs from the first layer's (K/V %1×%2×%3, queries %4×%5)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: no K/V cache in the capture; skipped"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the capture holds no K/V cache (capture with --kv-tokens > 0)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "no queries in the capture: attention-score and output errors are omitted"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the capture holds pre-RoPE queries: score errors use them as stored"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "metadata `seq` is '%1': expected a positive integer (tokens per sequence)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "no K/V arrays: expected tensors `k` and `v` (or `keys`, `values`) of [layers, heads, tokens, "
                      "head_dim], or per-layer `<prefix>.k` and `<prefix>.v` [heads, tokens, head_dim]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "no queries in the file: attention-score and output errors are omitted"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 is %2: expected [layers, heads, tokens, head_dim] or [heads, tokens, head_dim]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "k, v and q disagree on the number of layers (k %1, v %2%3)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no layers"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "layer %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no queries: attention-score and output errors are omitted"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "no K/V arrays: the .npz needs arrays `k` and `v` (or `keys`, `values`), optionally `q` (or "
                      "`queries`), each [layers, heads, tokens, head_dim] or [heads, tokens, head_dim]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "a K/V .npy holds one array [2, layers, heads, tokens, head_dim] (K then V); this one is %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "not a K/V file: the KV lab reads a capture or a .safetensors, .npz or .npy file"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no layers to study"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "head_dim %1 is odd: no Walsh–Hadamard rotation exists for it, so "
                                                  "the rotated schemes, the c sweep and the codebooks cannot run"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "head_dim %1 is not a power of two: the rotation works in blocks of %2 (the theoretical codebook "
                      "assumes a rotation over all %3 channels)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the device failed (%1): the rest computed on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the c grid needs lo > 0 and at least two points"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "attention errors use %1 of the %2 captured queries per head, evenly spaced (--score-queries)"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "KV scheme '%1': %2 (accepted: bf16, fp8, fp8-head, fp8-vllm, fp8-unit, codebook, codebook-layer, "
        "codebook-shared, codebook-norot, constopt[:c=C|c=fit][,unrounded], mxfp4, nvfp4, int4)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "unknown scheme"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "only constopt takes options"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "c must be a number in (0, 10), got '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "unknown constopt option '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "head_dim %1 is odd: the %2 scheme needs a Walsh–Hadamard rotation over a power-of-two block"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the codebook scheme needs 16 levels"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "unknown GEMM format '%1' (bf16, fp8, fp8-rowwise, int8, w4a16, w4a8-int8, w4a8-fp8, "
                      "w8a8-fp8, mxfp4, nvfp4 or w3a16-milo)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM format '%1' given twice"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "M sweep: '%1' is not an integer in [1, 1048576]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench: no format"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench: empty M sweep"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench: M must be ≥ 1, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench: N and K must be in [1, 1048576], got %1×%2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench: at least 20 repeats, got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench: warm-up must be ≥ 0"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench: experts must be in [1, 1024], got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "GEMM bench: the W4 group size must be even and divide K = %1 (0: per channel), got %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench: MoE mode (experts > 1) times bf16 and fp8 only, not %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "GEMM bench: the INT4 paths need an even K (two codes a byte), K = %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench: %1 needs K a multiple of its block (%2), K = %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "GEMM bench: w3a16-milo needs K a multiple of 256 and a rank in [0, 256], got K = %1, rank %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "GEMM bench on the CPU: %1 experts of %2×%3 need more than 2 GiB of FP32 weights"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench on the GPU: %1 needs K a multiple of 16, K = %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "Eigen FP32 GEMM standing in for the requested formats"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: GPU only"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "MoE: %1 experts, one GEMM each (no batched launch on the CPU)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 repeats (capped at %2 s)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "CPU GEMM produced a non-finite value"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench result: bound '%1' is neither memory nor compute"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench result: bf16_paired_us is negative"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM bench result: %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM peaks: copy_gbps must be positive"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM peaks: the %1 peak must be positive"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM peaks: %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 peak to %2 M=%3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "copy GB/s to %1 M=%2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "raised to the points that beat the measured ceiling (%1): their operands stay in cache, which "
                      "the large copy and the peak GEMMs do not"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "above the measured ceiling (operands in cache): the ceiling was raised to it"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cached (%1)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "GEMM peaks cache: no path (neither XDG_CONFIG_HOME nor HOME is set)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM peaks cache: cannot write %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM peaks cache: cannot rename to %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cpu: %1 threads, Eigen %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "CPU copy check failed"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "memcpy of 64 MiB (best of 5; read + write bytes); FP32 Eigen GEMM best of 1024³, 2048³"),
    // The CPU's roofline per memory level (issue 43).
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "GEMM peaks: memory level %1 needs a positive GB/s"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "cache-resident (%1): X, W and Y (%2 KiB) fit in %3; its ceiling %4 GB/s"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1 GB/s to %2 M=%3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "CPU bandwidth check failed"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "per memory level the better of a memcpy (read + write bytes) and a read at a working set of "
        "%1 (best of 5 trials, DRAM of 10; one thread); FP32 Eigen GEMM best of 256³, 512³, 1024³, 2048³"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "activation K = %1 (shape %2) does not match the weight's K = %3 (shape %4)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the quantized weight does not match the weight's shape"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot decode %1 activations"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "a two-stage weight with an asymmetric first stage has no low-precision GEMM path"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "W·A8-int8 needs integer weight codes (method int, or progressive with an int stage 2); got %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "method %1 has no FP8 GEMM path"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "E5M2 weights have no FP8 E4M3 GEMM path"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "INT%1 weight codes are not exact in E4M3 (use int8-token activations)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: activations quantized on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: the GEMM computed on the CPU"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the weight's scale runs differ between rows"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "measured"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "MoE scale health, %1 layers × %2 experts (per layer, one mark per expert: '.' healthy, 'X' "
                      "NaN/Inf/zero scales, '?' no scale, '-' absent), %3 bad: %4"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "layer %1, expert %2: %3 of %4 scales are NaN, Inf or zero (first in %5)"),
};

/// This file's table and the folders' tables (coremessages_tables.h).
const std::vector<const char *> &allPatterns()
{
    static const std::vector<const char *> all = [] {
        std::vector<const char *> out(std::begin(kPatterns), std::end(kPatterns));
        for (const auto table :
             {tables::readers(), tables::quantized(), tables::writers(), tables::ggml(), tables::checks()})
            out.insert(out.end(), table.begin(), table.end());
        return out;
    }();
    return all;
}

struct Pattern {
    const char *english;
    QRegularExpression re;
    QList<int> places; ///< the placeholder number of each capture, in order
    qsizetype fixed;   ///< letters of fixed text: the longer patterns are tried first
    QString head;      ///< the fixed text before the first placeholder (a message starts with it)
    QString tail;      ///< the fixed text after the last placeholder (a message ends with it)
};

const std::vector<Pattern> &compiled()
{
    static const std::vector<Pattern> all = [] {
        std::vector<Pattern> out;
        static const QRegularExpression slot(QStringLiteral("%(\\d)"));
        for (const char *english : allPatterns()) {
            const QString text = QString::fromUtf8(english);
            Pattern p{english, {}, {}, 0, {}, {}};
            QString re;
            qsizetype at = 0;
            for (auto it = slot.globalMatch(text); it.hasNext();) {
                const auto m = it.next();
                re += QRegularExpression::escape(text.mid(at, m.capturedStart() - at)) + QStringLiteral("(.+?)");
                p.places << m.captured(1).toInt();
                at = m.capturedEnd();
            }
            re += QRegularExpression::escape(text.mid(at));
            p.re = QRegularExpression(QRegularExpression::anchoredPattern(re));
            p.re.optimize();
            p.head = p.places.isEmpty() ? text : text.left(text.indexOf(QLatin1Char('%')));
            p.tail = p.places.isEmpty() ? text : text.mid(at);
            p.fixed = text.size() - 2 * p.places.size();
            out.push_back(std::move(p));
        }
        std::stable_sort(out.begin(), out.end(), [](const Pattern &a, const Pattern &b) { return a.fixed > b.fixed; });
        return out;
    }();
    return all;
}

std::optional<QString> translate(const QString &s, int depth);

/// `s` matched by one pattern as a whole.
std::optional<QString> whole(const QString &s, int depth)
{
    for (const auto &p : compiled()) {
        // Most patterns fail on their first or last words: no regular expression for those.
        if (!s.startsWith(p.head) || !s.endsWith(p.tail))
            continue;
        const auto m = p.re.match(s);
        if (!m.hasMatch())
            continue;
        QStringList args(10);
        for (qsizetype i = 0; i < p.places.size(); ++i) {
            const QString arg = m.captured(static_cast<int>(i) + 1);
            args[p.places[i]] = depth < 4 ? translate(arg, depth + 1).value_or(arg) : arg;
        }
        const QString form = QCoreApplication::translate("quantscope::CoreMessages", p.english);
        // One pass over the translated form: a value holding "%1" stays as it is.
        static const QRegularExpression slot(QStringLiteral("%(\\d)"));
        QString out;
        qsizetype at = 0;
        for (auto it = slot.globalMatch(form); it.hasNext();) {
            const auto x = it.next();
            out += form.mid(at, x.capturedStart() - at) + args[x.captured(1).toInt()];
            at = x.capturedEnd();
        }
        return out + form.mid(at);
    }
    return std::nullopt;
}

std::optional<QString> translate(const QString &s, int depth)
{
    if (s.isEmpty())
        return s;
    if (auto w = whole(s, depth))
        return w;
    // Notes joined by core ("<note>; <note>"): each on its own.
    if (s.contains(QLatin1String("; "))) {
        const auto parts = s.split(QStringLiteral("; "));
        QStringList out;
        for (const auto &part : parts) {
            const auto t = translate(part, depth);
            if (!t)
                break;
            out << *t;
        }
        if (out.size() == parts.size())
            return out.join(QStringLiteral("; "));
    }
    // "<where>: <message>" (formatLocation's "file: tensor 'x': byte N: ", a configuration's or a
    // module's name): the message translated, the location's words too, the names as they are.
    for (qsizetype i = s.indexOf(QLatin1String(": ")); i > 0; i = s.indexOf(QLatin1String(": "), i + 2)) {
        const auto tail = translate(s.mid(i + 2), depth);
        if (!tail)
            continue;
        QStringList head = s.left(i).split(QStringLiteral(": "));
        for (auto &h : head)
            h = whole(h, depth).value_or(h);
        return head.join(QStringLiteral(": ")) + QStringLiteral(": ") + *tail;
    }
    // A description listed with ", " (a quantized layout's scheme: "INT4 sym, group 128 along K,
    // c-t packing, BF16 scales"): every part known, or a name without a word ("FP8 E4M3").
    if (s.contains(QLatin1String(", "))) {
        static const QRegularExpression word(QStringLiteral("[a-z]{3}"));
        QStringList out;
        // Split outside brackets ("transposed [K, N/8]" is one part).
        QStringList parts{QString()};
        int nesting = 0;
        for (qsizetype i = 0; i < s.size(); ++i) {
            const QChar c = s[i];
            nesting += (c == QLatin1Char('[') || c == QLatin1Char('(')) ? 1 : 0;
            nesting -= (c == QLatin1Char(']') || c == QLatin1Char(')')) ? 1 : 0;
            if (nesting == 0 && c == QLatin1Char(',') && i + 1 < s.size() && s[i + 1] == QLatin1Char(' ')) {
                parts << QString();
                ++i;
            } else {
                parts.last() += c;
            }
        }
        for (const auto &part : parts) {
            if (auto t = whole(part, depth))
                out << *t;
            else if (!part.contains(word))
                out << part;
            else
                return std::nullopt;
        }
        return out.join(QStringLiteral(", "));
    }
    return std::nullopt;
}

} // namespace

QString translated(const QString &english)
{
    // The views ask again for the same notes (a model's rows, a progress line): remembered per
    // UI language, which the translation of a known word tells apart.
    static QMutex mutex;
    static QHash<QString, QString> cache;
    static QString language;
    const QString now = QCoreApplication::translate("quantscope::CoreMessages", "cancelled");
    {
        const QMutexLocker lock(&mutex);
        if (now != language) {
            cache.clear();
            language = now;
        }
        if (const auto it = cache.constFind(english); it != cache.constEnd())
            return *it;
    }
    QString out = translate(english, 0).value_or(english);
    const QMutexLocker lock(&mutex);
    if (now == language) {
        if (cache.size() > 4096)
            cache.clear();
        cache.insert(english, out);
    }
    return out;
}

QString translated(const std::string &english)
{
    return translated(QString::fromStdString(english));
}

bool known(const QString &english)
{
    return translate(english, 0).has_value();
}

QStringList patterns()
{
    QStringList out;
    for (const char *english : allPatterns())
        out << QString::fromUtf8(english);
    return out;
}

} // namespace quantscope::coremessages
