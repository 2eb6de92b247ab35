"""`weights`: every parameter as transformers loaded it (GGUF dequantized), as safetensors."""

from __future__ import annotations

from typing import Any

import torch

from .model import ModelSource, gguf_weight_type
from .protocol import BridgeError, commit_staged, staged_path


def unique_state_dict(model: Any, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    """state_dict() names; a tensor tied to an earlier one (same storage) is written once."""
    out: dict[str, torch.Tensor] = {}
    seen: set[tuple[int, tuple[int, ...]]] = set()
    for name, tensor in model.state_dict().items():
        key = (tensor.data_ptr(), tuple(tensor.shape))
        if key in seen:
            continue
        seen.add(key)
        out[name] = tensor.detach().to("cpu", dtype if tensor.is_floating_point() else tensor.dtype)
        out[name] = out[name].contiguous()
    return out


def weights_metadata(src: ModelSource) -> dict[str, str]:
    meta = {"format": "quantscope-weights", "model": src.path, "gguf_file": src.gguf_file or ""}
    if src.gguf_path:
        meta["note"] = f"dequantized from GGUF {gguf_weight_type(src.gguf_path)} by transformers"
    return meta


def write_weights(model: Any, src: ModelSource, out: str, dtype: torch.dtype) -> int:
    from safetensors.torch import save_file

    tensors = unique_state_dict(model, dtype)
    tmp = staged_path(out)
    try:
        save_file(tensors, tmp, metadata=weights_metadata(src))
    except OSError as exc:
        raise BridgeError("io", f"{out}: cannot write: {exc}") from exc
    commit_staged(tmp, out)
    return len(tensors)
