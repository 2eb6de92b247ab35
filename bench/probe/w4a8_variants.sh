#!/usr/bin/env bash
# Builds of the streaming W4A8 kernel with measurement switches against each other (issue 43, W4A8-INT8
# M ≤ 16 ≤ 15 µs; docs/perf.md "Fused W4A8 GEMM (issue 43)"): each variant LABEL=FLAGS compiles
# gpu/kernels/gemm/gemm_w4a8_stream.cu with FLAGS, links it into w4a8_stream_harness and runs it (its
# warps × split × chunks sweep at M ∈ {1, 8, 16}, INT8 and E4M3). Prints ptxas's registers and spills
# of the 4-warp instances per variant, then the best time of each variant per (format, M) over the
# 4-warp configurations and over all configurations.
# Usage: bench/probe/w4a8_variants.sh OUTDIR [LABEL=FLAGS ...]
#   the default variants: the launch-bounds minimum QS_W4A8_STREAM_MIN_BLOCKS_4W = 0 (as built: 118
#   registers, 4 blocks an SM), 5, 6 and 8 (at most 102, 85 and 64 registers) — the tenth session's
#   register-cap run; e.g. `bench/probe/w4a8_variants.sh /tmp/xa base= xahead=-DQS_W4A8_X_AHEAD=1`
#   times X̂ loaded a step ahead against the product's build. FLAGS "@FILE" builds FILE in place of
#   the kernel's source (e.g. `git show HEAD~1:gpu/kernels/gemm/gemm_w4a8_stream.cu > /tmp/old.cu`,
#   then `old=@/tmp/old.cu new=`): an earlier version against the tree's, run one after the other
#   like every variant (never two sweeps on the GPU at once); "@FILE FLAGS" builds FILE with FLAGS. QS_PROBE_GROUP=G sets the group.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/qs-variants}
shift || true
variants=("$@")
if ((${#variants[@]} == 0)); then
  variants=(min0=-DQS_W4A8_STREAM_MIN_BLOCKS_4W=0 min5=-DQS_W4A8_STREAM_MIN_BLOCKS_4W=5
            min6=-DQS_W4A8_STREAM_MIN_BLOCKS_4W=6 min8=-DQS_W4A8_STREAM_MIN_BLOCKS_4W=8)
fi
labels=()
for v in "${variants[@]}"; do labels+=("${v%%=*}"); done
mkdir -p "$out/common"
flags="-lineinfo -O3 -std=c++17 -arch=sm_90 -Icore -Igpu/kernels -Igpu/kernels/gemm -Igpu --expt-relaxed-constexpr"
for f in gemm_w4a16 gemm_w4a16_small gemm_w4a16_tiled gemm_w4a16_stream gemm_w4a16_cutlass gemm_w4a16_cutlass_shuffled gemm_w4a8; do
  nvcc $flags -c "gpu/kernels/gemm/$f.cu" -o "$out/common/$f.o" &
done
nvcc $flags -c bench/probe/w4a8_stream_harness.cu -o "$out/common/harness.o" &
g++ -std=c++20 -O2 -Icore -c core/util/error.cpp -o "$out/common/error.o" &
wait
for v in "${variants[@]}"; do
  label=${v%%=*} vflags=${v#*=} src=gpu/kernels/gemm/gemm_w4a8_stream.cu
  if [[ $vflags == @* ]]; then
    # the earlier source beside the tree's, so that its includes resolve the same way; words after
    # the file are flags for it ("LABEL=@FILE -DX=1")
    src=gpu/kernels/gemm/.variant_$label.cu
    file=${vflags%% *}
    cp "${file#@}" "$src"
    if [[ $vflags == *" "* ]]; then vflags=${vflags#* }; else vflags=; fi
  fi
  # shellcheck disable=SC2086 # FLAGS are words
  nvcc $flags $vflags -Xptxas -v -c "$src" -o "$out/stream_$label.o" 2>"$out/ptxas_$label.txt" &
  # the warpgroup kernel (sm_90a only), with the same FLAGS
  # shellcheck disable=SC2086
  nvcc ${flags/-arch=sm_90/-gencode arch=compute_90a,code=sm_90a} -DQS_W4A8_WGMMA=1 $vflags -Xptxas -v \
    -c gpu/kernels/gemm/gemm_w4a8_wgmma.cu -o "$out/wgmma_$label.o" 2>"$out/ptxas_wg_$label.txt" &
done
wait
rm -f gpu/kernels/gemm/.variant_*.cu
for label in "${labels[@]}"; do
  nvcc -arch=sm_90 "$out"/common/*.o "$out/stream_$label.o" "$out/wgmma_$label.o" -o "$out/harness_$label"
  # ptxas on the 4-warp instances (stream8Kernel<…, 4>): registers and spills, the distinct values
  echo "$label: $(grep -A2 'stream8Kernel.*Li4EEEv' "$out/ptxas_$label.txt" | grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | sort | uniq -c | tr '\n' ';')"
done
for label in "${labels[@]}"; do
  "$out/harness_$label" >"$out/run_$label.log" 2>&1 || echo "harness_$label failed: $(tail -2 "$out/run_$label.log")"
done
python3 - "$out" "${labels[@]}" <<'PY'
import re, sys, os
out, labels = sys.argv[1], sys.argv[2:]
rows = {}
for lab in labels:
    fmt = m = None
    for line in open(os.path.join(out, f"run_{lab}.log")):
        h = re.match(r"== (INT8|E4M3) M (\d+)", line)
        if h:
            fmt, m = h.group(1), int(h.group(2))
            continue
        s = re.match(r"\s+sweep stream warps (\d+) split (\d+) \(asked \d+\) U (\d+) (\w+): ([\d.]+) us", line)
        if s and fmt:
            w, us = int(s.group(1)), float(s.group(5))
            key = (fmt, f"{m}wg" if s.group(4).endswith("_wg") else m, lab)
            best4, bestAll = rows.get(key, (1e9, 1e9))
            rows[key] = (min(best4, us) if w == 4 else best4, min(bestAll, us))
print("format  M   " + "   ".join(f"{lab} (4 warps / all)" for lab in labels))
for fmt in ("INT8", "E4M3"):
    for m in (1, 8, 16, "16wg"):
        cells = []
        for lab in labels:
            b4, ba = rows.get((fmt, m, lab), (float("nan"), float("nan")))
            cells.append(f"{b4:6.2f} / {ba:6.2f}")
        print(f"{fmt:5} {m:>4}   " + "   ".join(cells))
PY
