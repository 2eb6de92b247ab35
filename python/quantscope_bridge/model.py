"""Finding, loading and placing the model (and its tokenizer) through transformers."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import Any

from . import env
from .protocol import BridgeError, log


@dataclass
class ModelSource:
    path: str  # what the user passed
    directory: str  # what from_pretrained gets
    gguf_file: str | None  # file name inside `directory`, or None

    @property
    def gguf_path(self) -> str | None:
        return os.path.join(self.directory, self.gguf_file) if self.gguf_file else None


def resolve(model: str, gguf_file: str | None) -> ModelSource:
    """MODEL is an HF directory, a directory with exactly one .gguf, or a .gguf file path."""
    if os.path.isfile(model) and model.lower().endswith(".gguf"):
        return ModelSource(model, os.path.dirname(os.path.abspath(model)), os.path.basename(model))
    if not os.path.isdir(model):
        raise BridgeError("load", f"{model}: no such model directory or .gguf file")
    if gguf_file:
        if not os.path.isfile(os.path.join(model, gguf_file)):
            raise BridgeError("load", f"{model}: has no file {gguf_file} (--gguf-file)")
        return ModelSource(model, model, gguf_file)
    names = os.listdir(model)
    ggufs = sorted(n for n in names if n.lower().endswith(".gguf"))
    has_safetensors = any(n.endswith(".safetensors") for n in names)
    if len(ggufs) == 1 and not has_safetensors:
        return ModelSource(model, model, ggufs[0])
    return ModelSource(model, model, None)


def pick_device(requested: str) -> str:
    import torch

    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cuda" and not torch.cuda.is_available():
        raise BridgeError("load", "--device cuda: torch reports no CUDA device")
    return requested


def pick_dtype(requested: str, device: str) -> str:
    if requested == "auto":
        return "bfloat16" if device == "cuda" else "float32"
    return requested


def load_model(src: ModelSource, device: str, dtype: str) -> Any:
    if src.gguf_file:
        env.require(["gguf"])
    import torch
    from transformers import AutoModelForCausalLM

    log(f"loading {src.path} ({dtype} on {device})")
    try:
        model = AutoModelForCausalLM.from_pretrained(
            src.directory, gguf_file=src.gguf_file, dtype=getattr(torch, dtype)
        )
    except Exception as exc:  # transformers raises many types; all mean "cannot load"
        raise BridgeError("load", f"{src.path}: transformers cannot load the model: {exc}") from exc
    model.to(device)
    model.eval()
    return model


def load_tokenizer(src: ModelSource) -> Any:
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(src.directory, gguf_file=src.gguf_file)
    except Exception as exc:
        raise BridgeError(
            "tokenizer",
            f"{src.path}: the model has no usable tokenizer ({exc}); pass token ids with --tokens",
        ) from exc


def gguf_weight_type(path: str) -> str:
    """The quantization type most of the file's 2-D tensors are stored in (e.g. Q4_1)."""
    from gguf import GGUFReader

    reader = GGUFReader(path)
    types = Counter(t.tensor_type.name for t in reader.tensors if len(t.shape) == 2)
    return types.most_common(1)[0][0] if types else "unknown"


def vocab_size(model: Any) -> int:
    return int(model.get_input_embeddings().num_embeddings)
