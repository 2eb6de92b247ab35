// SPDX-License-Identifier: MIT
// Core's message patterns of core/export: the checkpoint, compressed-tensors, Quark, FP8 block and
// GGUF writers, the imatrix and the Hugging Face to GGUF converter (coremessages.h; tst_coremessages
// checks the sources against them).
#include "coremessages_tables.h"

#include <QCoreApplication>

namespace quantscope::coremessages::tables {

namespace {

const char *const kPatterns[] = {
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "weight %1 of '%2' is not finite"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the file ends inside %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the entry count"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the entry count is %1 (at least 1)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the entry count %1 cannot fit in %2 bytes"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "an entry's name length"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "entry %1's name length %2 is outside the file"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "entry %1's name is not UTF-8"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "an entry's call count"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "an entry's value count"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "'%1' has a negative call count %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "'%1' claims %2 values, %3 fit in the rest of the file"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "'%1' appears twice"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the chunk count"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the dataset name's length"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "an imatrix GGUF needs imatrix.datasets, imatrix.chunk_count and imatrix.chunk_size"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "'%1' has no '%2.counts'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "'%1': in_sum2 and counts must be F32"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "'%1': counts [1, %2] do not fit in_sum2 [%3, %4]"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "a GGUF imatrix holds NAME.in_sum2 / NAME.counts tensors; this file has none"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "imatrix: the capture's '%1' has %2 input channels, tensor '%3' has %4"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "imatrix: no module of the capture pairs with a tensor of '%1' (paired by HF name; architecture '%2')"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "'%1' is a Quantscope capture, not llama.cpp's imatrix: pair it with "
                                                  "--capture (and imatrix=true in the gguf spec)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the importance matrix holds %1 weights for '%2', the tensor's rows have %3 columns"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the importance matrix has no entry for this tensor (looked up as %1 among its %2 entries)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: method 'awq' — its checkpoint needs 1/s* folded into the op before the module (an RMSNorm "
                      "weight, up_proj's or v_proj's rows), which this per-module writer does not do; export the "
                      "recipe for llm-compressor (AWQModifier) or quantize with gptq or int"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: method '%2' — Quark's real_quantized checkpoint layout written here holds INT4 per output "
                      "channel or per group along K, and ProgressiveSpec FP8 per tensor → INT4 per channel"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "K = %1 is not a multiple of group %2 — Quark's PerGroup observer raises \"not divisible by "
                      "group_size\"; choose a group that divides K or exclude the module"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: INT %2 scales — the %3 writer stores INT per group or per output channel"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: compressed-tensors format %2 — the checkpoint writer stores pack-quantized (INT), "
                      "float-quantized (FP8) and nvfp4-pack-quantized"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "K = %1 is not a multiple of group %2 — compressed-tensors 0.20 raises \"tensor column shape "
                      "must be divisble by the given group_size\" (quantization/lifecycle/forward_helpers.py) when it "
                      "quantizes or decompresses such groups; choose a group that divides K or exclude the module"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "FP8 blocks of %1 do not tile it — vLLM's block kernels need K a multiple of the block and "
                      "ragged blocks load with wrong weights; exclude the module or use per-channel FP8"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "K is not a multiple of NVFP4's 16-element groups"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "%1: the FP8 block layout holds FP8 E4M3 per square block (method fp8, granularity block); this is %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "FP8 blocks of %1 do not tile it — transformers' FineGrainedFP8 refuses it (\"not divisible by "
                      "scale grid\"); exclude the module or choose a block that divides both dimensions"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: the FP8 block layout holds FP8 E4M3 block results"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "dense (not quantized)"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "'%1' is a config format; checkpoints are written as quark, compressed-tensors, fp8-block or quantscope"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "activations fp8-static: the %1 layout stores no input scales"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "activations fp8-static: static input scales come from calibration data, and this export has "
                      "none — a checkpoint that declares them without `input_scale` tensors loads with NaN outputs "
                      "(transformers) or is refused (Quark). Give a capture of the model's activations (--capture "
                      "CAP.safetensors, from quantscope-cli capture), use --activations fp8-dynamic, or export the "
                      "recipe as an llm-compressor recipe or a Quark script, which calibrate"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: kept dense by default — %2 (--no-default-excludes quantizes it)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: kept dense by default — %2 (--no-default-excludes and a rule naming it quantize it)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: %2 gives %3 specs (candidates a scan compares); an export needs the one chosen"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "an embedding — %1 quantizes Linear layers; exclude it"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the recipe quantizes no module of %1 (after the default exclusions): nothing would be exported"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the recipe quantizes no module of %1: nothing would be exported"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: the capture %2 holds no inputs of this module, so it has no static input scale"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: its captured inputs are not finite — no static input scale can be derived"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: its captured inputs are all zero — no static input scale can be derived"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "fused group %1: %2 is %3 but %4 is %5 — serving engines (vLLM, SGLang) fuse these into one "
                      "layer with one scheme and refuse the checkpoint; give the group one spec"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: the recipe gives %2 but %3 would read the written config as %4 — the config cannot express "
                      "this precedence; refusing rather than writing a checkpoint the toolkit reads differently"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "%1: the recipe gives %2 (%3) but %4 would read the written config as %5 — the config cannot express this "
        "precedence; refusing rather than writing a checkpoint the toolkit reads differently"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "wrote %1"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "lm_head is quantized: config.json's tie_word_embeddings set to false (transformers would "
                      "otherwise tie it back to the dense embeddings)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "re-read: %1 is not detected as quantized in the written file"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "re-read: %1 decodes to other values than the quantizer's Ŵ"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "re-read: %1 stores %2 bits per code, declared %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "re-read: %1 reads back as quantized, but the recipe keeps it dense"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "re-read: %1 stores the spec %2, the recipe gives %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "per-tensor min-max (max |x| / 448) over the capture %1 (%2 tokens, input sha256 %3)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the output folder exists and is not empty"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot create the output folder"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "no input tensor %1 for the output tensor %2"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot rename the written checkpoint into place"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "compressed-tensors INT format '%1' — pack-quantized or int-quantized"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: rounding half_away — compressed-tensors rounds half to even"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: E8M0 scales — compressed-tensors' integer schemes store float scales"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: channel axis 1 — compressed-tensors' channel strategy is per output row"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: FP8 E5M2 — compressed-tensors' float8 is E4M3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: NVFP4 group %2 — compressed-tensors' NVFP4 has 16-element groups"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: MXFP4 group %2 — compressed-tensors' MXFP4 has 32-element blocks"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: method '%2' — %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "MiLo's low-rank compensators (milo_U, milo_V) have no compressed-tensors scheme"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "HQQ's float zero points have no compressed-tensors scheme (its zero points are integers)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "compressed-tensors has no two-stage (ProgressiveSpec) scheme; export it to Quark"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "constOpt's fixed-constant codebook has no compressed-tensors scheme"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "%1: FP8 activations with %2 %3-bit weights — this exporter writes FP8 activations for FP8 weights only"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 has %2 specs (candidates a scan compares); an export needs the one chosen"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1 comes after the catch-all %2 and wins no module; remove it or move it first"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "the recipe has no rule: a compressed-tensors config needs at least one config group"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "compressed-tensors' kv_cache_scheme"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: INT%2 — this exporter writes Quark's int4 and int8 dtypes only"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: rounding half_away — Quark rounds half to even (round_method half_even)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: scale dtype %2 — Quark's integer specs here store float32 scales (scale_type float)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: integer block scales — Quark has no 2-D block scheme for integers"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: FP8 block scales — this exporter writes Quark FP8 per tensor or per channel only"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "Quark has no such scheme"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "MiLo's low-rank compensators (milo_U, milo_V) have no place in a Quark config"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "HQQ's float zero points and optimised scales have no Quark scheme"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "constOpt's fixed-constant codebook has no Quark scheme"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "this exporter does not write Quark's FP4 schemes yet"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: regex '%2' — Quark matches fnmatch patterns only; write the rule in the fnmatch dialect"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "the recipe has no catch-all rule ('*'): Quark quantizes every module the exclude list does not name with "
        "global_quant_config — end the rules with '*' or exclude the modules no rule should quantize"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "layer '%1'"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "Quark's kv_cache_quant_config"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "kv_cache: Quark gives every '%1' module one layer config; the recipe quantizes them differently (%2)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "the catch-all rule"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: the Quark script writes FP8E4M3PerTensorSpec, Int4PerChannelSpec and Int4PerGroupSpec (and "
                      "their ProgressiveSpec); use --format quark for this spec"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "kv_cache: %1 states one KV-cache scheme for every attention layer; the recipe gives layers different schemes "
        "(boundary %2, %3 range(s)) — keep the boundary layers quantized or export without kv_cache"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "kv_cache: %1 states one scheme for K and V; the recipe has K %2, V %3"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "kv_cache: fp8-head — %1's KV cache is FP8 per tensor"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "kv_cache: %1 is a vLLM run-time setting (--kv-cache-dtype fp8), not a checkpoint config; use "
                      "fp8 (calibrated amax/448) to write k_scale/v_scale"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "kv_cache: %1 is a vLLM run-time setting (--kv-cache-dtype fp8 --calculate-kv-scales), not a "
                      "checkpoint config; use fp8 (calibrated amax/448) to write k_scale/v_scale"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "kv_cache: %1 — %2 and vLLM read an FP8 KV cache only (num_bits 8, "
                                                  "type float); a 4-bit or BF16 KV cache has no config to state it"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "rule '%1': llm-compressor runs one GPTQModifier, and the recipe's "
                                                  "gptq specs differ in block_size, dampening or actorder"),
    QT_TRANSLATE_NOOP(
        "quantscope::CoreMessages",
        "rule '%1': llm-compressor runs one AWQModifier, and the recipe's awq specs differ in n_grid or duo_scaling"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "pack method '%1' is not one of Quark's: reorder, order"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "a Quantscope recipe holds weight specs only; activations '%1' cannot be written to it"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "unknown export format"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot write the export"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "writing the export failed"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "cannot rename the export into place"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: compressed-tensors float-quantized holds FP8 E4M3 (this is %2)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: the pack-quantized writer takes INT group or per-output-channel results"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: the result holds no codes"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "Quark pack_method '%1': 'reorder' or 'order' is written"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: Quark's real_quantized INT4 layout holds INT4 per output channel or per group along K, and "
                      "ProgressiveSpec FP8 → INT4 per channel (this is %2, %3 bits, %4)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: ProgressiveSpec is written with one FP8 per-tensor stage-1 scale"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages", "%1: the layout has one scheme per checkpoint — give one catch-all "
                                                  "rule ('*') with one FP8 block spec and no overrides"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: the FP8 block layout holds FP8 E4M3 per square block (method fp8, granularity block)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: activations fp8-static — the layout keeps no input scales (dynamic only)"),
    QT_TRANSLATE_NOOP("quantscope::CoreMessages",
                      "%1: exclude '%2' is a %3 pattern; modules_to_not_convert takes exact module names"),
};

} // namespace

std::span<const char *const> writers()
{
    return kPatterns;
}

} // namespace quantscope::coremessages::tables
