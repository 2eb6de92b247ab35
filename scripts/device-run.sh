#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One command for the GPU machine: build headless (no Qt) with CUDA, run the `gpu` tests, then the
# GPU benchmark, the c-sweep benchmark, the floors benchmark and the PyTorch side on the same tensor,
# then the HQQ benchmark and the released `hqq` library on another; logs and JSON go under $OUT
# (machine.txt, ctest-gpu.log, cli-gpu.txt, ctest-cli.log, gpu_quant.json, gpu_quant.log,
# gpu_sweep.json, gpu_sweep.log, gpu_floor.json, gpu_floor.log, gpu_quant_torch.json,
# gpu_quant_torch.log, gpu_hqq.json, gpu_hqq.log, hqq_lib_bench.json, hqq_lib_bench.log,
# gpu_gemmlab.json, gpu_gemmlab.log, gemm_lab_torch.json, gemm_lab_torch.log; build.log only when
# the build fails).
# Prepare here first: scripts/vendor-deps.sh (GoogleTest, nlohmann, Eigen, zlib headers into the
# git-ignored .vendor/); then run with carry [".vendor"] (or carry a copy of the whole tree).
# Environment: QS_SKIP_TESTS=1, QS_SKIP_CLI=1, QS_SKIP_BENCH=1, QS_SKIP_SWEEP=1, QS_SKIP_FLOOR=1, QS_SKIP_TORCH=1,
# QS_TORCH_ARGS="--no-compile" (or "--no-sweep"), QS_SWEEP_ARGS="--no-verify",
# QS_CTEST_ARGS="-R Milo" (a subset of the GPU tests), QS_BENCH_ARGS="--repeats 100", QS_SKIP_HQQ=1 (HQQ benchmark and the released library's),
# QS_SKIP_SCAN=1 (the checkpoint scan against reading + uploading the same files), QS_SCAN_ARGS="--gb 2",
# QS_SKIP_SPECTRUM=1, QS_SKIP_MILO=1 (QS_SKIP_TORCH_MILO=1: ours only, QS_MILO_ARGS), QS_SKIP_GEMM=1, QS_SKIP_GEMMLAB=1 (the GEMM timing lab and PyTorch's GEMMs), QS_SKIP_HQQ_LIB=1 (the released library's only; it needs `pip install hqq`), QS_HQQ_ARGS="--no-verify".
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$src/out}"
mkdir -p "$OUT"
build="${QS_BUILD_DIR:-/tmp/qs-build-gpu}"
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader || true
  nvcc --version | tail -1
  cmake --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__)' 2>/dev/null || true
} | tee "$OUT/machine.txt"

t0=$(date +%s)
{
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQUANTSCOPE_BUILD_GUI=OFF \
    -DQUANTSCOPE_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DQUANTSCOPE_VENDOR_DIR="$src/.vendor" \
    -DQUANTSCOPE_SHARED_DATA="$src/.vendor/data" &&
  cmake --build "$build" -j "$(nproc)" --target quantscope_gpu_tests quantscope_gpu_math_tests qs_bench_gpu_quant qs_bench_gpu_sweep qs_bench_gpu_floor \
    qs_bench_gpu_hqq qs_bench_gpu_gemm qs_bench_gpu_spectrum qs_bench_gpu_milo qs_bench_gpu_gemmlab quantscope-cli quantscope_cli_tests
} > "$OUT/build.log" 2>&1 || { tail -60 "$OUT/build.log"; exit 1; }
rm -f "$OUT/build.log"
echo "build: $(( $(date +%s) - t0 ))s"

# Real weights carried in .vendor/data (scripts/vendor-deps.sh): stories260K through
# QUANTSCOPE_SHARED_DATA above, the all-MiniLM-L6-v2 subset through QUANTSCOPE_MINILM (the tests
# and the MiLo benchmark skip what is absent and say so).
minilm="$src/.vendor/data/minilm-l6-subset.safetensors"
if [[ ! -f "$minilm" && -f "$minilm.xz" ]]; then # carried compressed (scripts/vendor-deps.sh)
  minilm=/tmp/minilm-l6-subset.safetensors
  python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
    "$src/.vendor/data/minilm-l6-subset.safetensors.xz" "$minilm"
fi
if [[ -f "$minilm" ]]; then export QUANTSCOPE_MINILM="$minilm"; else echo "note: $minilm absent"; fi

rc_gpu=0
if [[ "${QS_SKIP_TESTS:-0}" != 1 ]]; then
  t0=$(date +%s)
  ctest --test-dir "$build" -L gpu --output-on-failure --timeout 300 ${QS_CTEST_ARGS:-} > "$OUT/ctest-gpu.log" 2>&1
  rc_gpu=$?
  grep -E "tests passed|tests failed|Failed|\*\*\*|SKIPPED" "$OUT/ctest-gpu.log" | tail -25
  echo "gpu tests: $(( $(date +%s) - t0 ))s rc=$rc_gpu"
fi

# The CLI on the GPU machine: what --version says the GPU runs (the engine's capability query),
# a quantization that runs there, and the CLI tests (their output goldens run with --device cpu).
rc_cli=0
if [[ "${QS_SKIP_CLI:-0}" != 1 ]]; then
  t0=$(date +%s)
  {
    "$build/app/cli/quantscope-cli" --version
    "$build/app/cli/quantscope-cli" demo /tmp/qs-demo > /dev/null &&
      "$build/app/cli/quantscope-cli" quantize /tmp/qs-demo --tensor model.layers.0.mlp.down_proj.weight \
        --method int --bits 4 --group 128 --device gpu
  } > "$OUT/cli-gpu.txt" 2>&1
  cat "$OUT/cli-gpu.txt"
  ctest --test-dir "$build" -L cli --output-on-failure -j "$(nproc)" > "$OUT/ctest-cli.log" 2>&1
  rc_cli=$?
  grep -E "tests passed|tests failed|Failed" "$OUT/ctest-cli.log" | tail -10
  echo "cli: $(( $(date +%s) - t0 ))s rc=$rc_cli"
fi

tensor=/tmp/qs_bench_w_bf16.bin
if [[ "${QS_SKIP_BENCH:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_quant" --out "$OUT" --tensor-out "$tensor" ${QS_BENCH_ARGS:-} > "$OUT/gpu_quant.log" 2>&1 \
    || echo "qs_bench_gpu_quant failed"
  cat "$OUT/gpu_quant.log"
  echo "bench: $(( $(date +%s) - t0 ))s"
fi
if [[ "${QS_SKIP_SWEEP:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_sweep" --out "$OUT" ${QS_BENCH_ARGS:-} ${QS_SWEEP_ARGS:-} > "$OUT/gpu_sweep.log" 2>&1 \
    || echo "qs_bench_gpu_sweep failed"
  cat "$OUT/gpu_sweep.log"
  echo "sweep: $(( $(date +%s) - t0 ))s"
fi
if [[ "${QS_SKIP_FLOOR:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_floor" --out "$OUT" > "$OUT/gpu_floor.log" 2>&1 || echo "qs_bench_gpu_floor failed"
  cat "$OUT/gpu_floor.log"
  echo "floor: $(( $(date +%s) - t0 ))s"
fi
if [[ "${QS_SKIP_TORCH:-0}" != 1 && -f "$tensor" ]]; then
  t0=$(date +%s)
  PYTHONUNBUFFERED=1 TORCHINDUCTOR_COMPILE_THREADS="$(nproc)" \
    python3 "$src/bench/gpu_quant_torch.py" --out "$OUT" --tensor "$tensor" ${QS_TORCH_ARGS:-} \
    > "$OUT/gpu_quant_torch.log" 2>&1 || echo "gpu_quant_torch.py failed"
  grep -v Warning "$OUT/gpu_quant_torch.log" | tail -20
  echo "torch: $(( $(date +%s) - t0 ))s"
fi
# Residual spectra on the device (issue 20) and the PyTorch ways on the same residual.
if [[ "${QS_SKIP_SPECTRUM:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_spectrum" --out "$OUT" --tensor-out /tmp/qs_bench_residual_f32.bin > "$OUT/gpu_spectrum.log" 2>&1 \
    || echo "qs_bench_gpu_spectrum failed"
  cat "$OUT/gpu_spectrum.log"
  python3 "$src/bench/spectrum_torch.py" --out "$OUT" --tensor /tmp/qs_bench_residual_f32.bin > "$OUT/spectrum_torch.log" 2>&1 \
    || echo "spectrum_torch.py failed"
  cat "$OUT/spectrum_torch.log"
  echo "spectrum bench: $(( $(date +%s) - t0 ))s"
fi
# The paired GEMM simulation (issue 19) and PyTorch's matmul of the same shapes.
# MiLo (issue 20): ours (20 passes, ranks 32 and 512) on the Student-t tensor and the MiniLM
# matrices, then the PyTorch loop written from the contract on the same tensors.
if [[ "${QS_SKIP_MILO:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_milo" --out "$OUT" --tensor-out /tmp/qs_bench_milo_bf16.bin ${QS_MILO_ARGS:-} \
    > "$OUT/gpu_milo.log" 2>&1 || echo "qs_bench_gpu_milo failed"
  cat "$OUT/gpu_milo.log"
  if [[ "${QS_SKIP_TORCH_MILO:-0}" != 1 ]]; then
    python3 "$src/bench/milo_torch.py" --out "$OUT" --tensor /tmp/qs_bench_milo_bf16.bin > "$OUT/milo_torch.log" 2>&1 \
      || echo "milo_torch.py failed"
    cat "$OUT/milo_torch.log"
  fi
  echo "milo bench: $(( $(date +%s) - t0 ))s"
fi
if [[ "${QS_SKIP_GEMM:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_gemm" --out "$OUT" > "$OUT/gpu_gemm_sim.log" 2>&1 || echo "qs_bench_gpu_gemm failed"
  cat "$OUT/gpu_gemm_sim.log"
  python3 "$src/bench/gemm_torch.py" --out "$OUT" > "$OUT/gemm_torch.log" 2>&1 || echo "gemm_torch.py failed"
  cat "$OUT/gemm_torch.log"
  echo "gemm bench: $(( $(date +%s) - t0 ))s"
fi
# The GEMM timing lab (issue 21): ours through cuBLASLt, then PyTorch's GEMMs in the same run on the
# same GPU (gpu_gemmlab.json, gemm_lab_torch.json with the comparison and the bar).
if [[ "${QS_SKIP_GEMMLAB:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_gemmlab" --out "$OUT" > "$OUT/gpu_gemmlab.log" 2>&1 || echo "qs_bench_gpu_gemmlab failed"
  cat "$OUT/gpu_gemmlab.log"
  python3 "$src/bench/gemm_lab_torch.py" --out "$OUT" --ours "$OUT/gpu_gemmlab.json" > "$OUT/gemm_lab_torch.log" 2>&1 \
    || echo "gemm_lab_torch.py failed"
  cat "$OUT/gemm_lab_torch.log"
  echo "gemm lab bench: $(( $(date +%s) - t0 ))s"
fi
# HQQ (issue 19): ours on a 4096×14336 BF16 tensor, then the released `hqq` package on the same
# tensor and settings (skipped with a line saying so when `import hqq` fails).
hqq_tensor=/tmp/qs_bench_hqq_bf16.bin
if [[ "${QS_SKIP_HQQ:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_hqq" --out "$OUT" --tensor-out "$hqq_tensor" ${QS_HQQ_ARGS:-} > "$OUT/gpu_hqq.log" 2>&1 \
    || echo "qs_bench_gpu_hqq failed"
  cat "$OUT/gpu_hqq.log"
  echo "hqq bench: $(( $(date +%s) - t0 ))s"
  if [[ "${QS_SKIP_HQQ_LIB:-0}" != 1 && -f "$hqq_tensor" ]]; then
    if python3 -c 'import hqq' > /dev/null 2>&1; then
      t0=$(date +%s)
      PYTHONUNBUFFERED=1 python3 "$src/bench/hqq_lib_bench.py" --out "$OUT" --tensor "$hqq_tensor" \
        > "$OUT/hqq_lib_bench.log" 2>&1 || echo "hqq_lib_bench.py failed"
      grep -v Warning "$OUT/hqq_lib_bench.log" | tail -10
      echo "hqq library bench: $(( $(date +%s) - t0 ))s"
    else
      echo "hqq library bench skipped: 'import hqq' fails (pip install hqq on this machine first)"
    fi
  fi
fi
# The whole-checkpoint scan (issue 24): a generated 2 GiB sharded BF16 checkpoint read into pinned
# memory and uploaded vs scanned with INT4 g128 + FP8 on the GPU, then the same on the CPU, one
# process each (scan_bench.json, scan_bench_cpu.json; the bar: GPU scan ≥ 80 % of the read rate).
if [[ "${QS_SKIP_SCAN:-0}" != 1 ]]; then
  t0=$(date +%s)
  if cmake --build "$build" -j "$(nproc)" --target qs_bench_scan > "$OUT/scan_bench_build.log" 2>&1; then
    "$build/bench/qs_bench_scan" --out "$OUT" --device gpu --repeats 3 --keep ${QS_SCAN_ARGS:-} > "$OUT/scan_bench.log" 2>&1 \
      || echo "qs_bench_scan failed"
    cat "$OUT/scan_bench.log"
    mkdir -p "$OUT/scan_cpu"
    "$build/bench/qs_bench_scan" --out "$OUT/scan_cpu" --device cpu ${QS_SCAN_ARGS:-} > "$OUT/scan_bench_cpu.log" 2>&1 \
      || echo "qs_bench_scan --device cpu failed"
    mv -f "$OUT/scan_cpu/scan_bench.json" "$OUT/scan_bench_cpu.json" 2>/dev/null; rmdir "$OUT/scan_cpu" 2>/dev/null
    cat "$OUT/scan_bench_cpu.log"
  else
    tail -30 "$OUT/scan_bench_build.log"
  fi
  echo "scan bench: $(( $(date +%s) - t0 ))s"
fi
# The scan over MPI ranks (issue 25, docs/cluster.md): the scan bench's checkpoint (generated
# again in /tmp/qs_scan_mpi, QS_SCAN_ARGS applies) scanned with INT4 g128 + FP8 on the GPU by
# one process, by 1 rank and by 2 ranks sharing the GPU under mpirun, each summary with its per-rank timeline (scan_mpi_np{0,1,2}.json; np0 is no mpirun).
# Needs a build with MPI (`quantscope-cli --version`: "MPI: … (built)") and mpirun on PATH or in
# QS_MPIRUN; QS_SKIP_MPI=1 skips it.
if [[ "${QS_SKIP_MPI:-0}" != 1 ]]; then
  mpirun_bin="${QS_MPIRUN:-$(command -v mpirun || true)}"
  cli="$build/app/cli/quantscope-cli"
  if [[ -z "$mpirun_bin" ]] || ! "$cli" --version | grep -q '^MPI: .*(built)'; then
    echo "mpi scan skipped: $("$cli" --version | grep '^MPI:'), mpirun: ${mpirun_bin:-not found}"
  elif ! { cmake --build "$build" -j "$(nproc)" --target qs_bench_scan > "$OUT/scan_mpi_build.log" 2>&1 &&
            "$build/bench/qs_bench_scan" --out "$OUT/scan_mpi_gen" --dir /tmp/qs_scan_mpi --device gpu --keep \
              ${QS_SCAN_ARGS:-} > "$OUT/scan_mpi_gen.log" 2>&1; }; then
    echo "mpi scan skipped: generating its checkpoint failed"; tail -20 "$OUT/scan_mpi_build.log" "$OUT/scan_mpi_gen.log"
  else
    for np in 0 1 2; do
      rm -f "$OUT/scan_mpi_np$np.jsonl" "$OUT/scan_mpi_np$np.jsonl.pending"
      launch=()
      if (( np > 0 )); then launch=("$mpirun_bin" --allow-run-as-root --oversubscribe -np "$np"); fi
      t0=$(date +%s)
      "${launch[@]}" "$cli" scan /tmp/qs_scan_mpi --specs int,fp8 --device gpu --quiet \
        --out "$OUT/scan_mpi_np$np.jsonl" --json > "$OUT/scan_mpi_np$np.json" 2> "$OUT/scan_mpi_np$np.log" \
        || { echo "mpi scan np=$np failed"; tail -20 "$OUT/scan_mpi_np$np.log"; }
      echo "mpi scan np=$np: $(( $(date +%s) - t0 ))s"
      grep -E '"(seconds|scan_mb_per_s|ranks)"' "$OUT/scan_mpi_np$np.json"
    done
  fi
fi
if [[ "${QS_NCU:-0}" == 1 ]]; then
  # Nsight Compute on the headline case's two big kernels (stall reasons, throughput, occupancy).
  ncu_bin="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || true)"
  if [[ -n "$ncu_bin" ]]; then
    t0=$(date +%s)
    # QS_NCU_KERNELS (regex) and QS_NCU_CASES (space-separated bench cases) pick what is profiled.
    for c in ${QS_NCU_CASES:-int4_asym_g128}; do
      "$ncu_bin" -k "regex:${QS_NCU_KERNELS:-kIntFast|kGroupsY|kValueHist|kLutCodes}" --launch-count "${QS_NCU_COUNT:-3}" \
        --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats \
        --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio" \
        "$build/bench/qs_bench_gpu_quant" --only "$c" --repeats 1 --warmup 0 --no-verify \
        > "$OUT/ncu-$c.txt" 2>&1 || echo "ncu failed"
      grep -E "^  [a-zA-Z_]+.*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Executed Ipc A|Issue Slots Busy|No Eligible" "$OUT/ncu-$c.txt" | head -60
    done
    echo "ncu: $(( $(date +%s) - t0 ))s"
  else
    echo "ncu not found"
  fi
fi
echo "gpu tests rc=$rc_gpu cli tests rc=$rc_cli"
exit $(( rc_gpu | rc_cli ))
