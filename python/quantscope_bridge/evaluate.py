"""`eval`: the model with original weights (P) against the model with the --replace tensors
swapped in (Q): KL(P‖Q), top-1 agreement and perplexities, per sample and per replaced module."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import torch

from .protocol import BridgeError, progress
from .stats import mean_ci95
from .tokens import TokenInput


@dataclass
class SampleScore:
    kl: float
    top1: float
    nll_ref: float
    nll_q: float


class Swapper:
    """Copies replacement tensors into the model's parameters in place and back again."""

    def __init__(self, model: Any, path: str | None):
        self.params = dict(model.named_parameters(remove_duplicate=False))
        self.replacements: dict[str, torch.Tensor] = {}
        self.backup: dict[str, torch.Tensor] = {}
        if path is not None:
            self._load(path)

    def _load(self, path: str) -> None:
        from safetensors import SafetensorError, safe_open

        try:
            with safe_open(path, framework="pt") as f:
                names = list(f.keys())
                tensors = {n: f.get_tensor(n) for n in names}
        except (OSError, SafetensorError) as exc:
            raise BridgeError("io", f"{path}: cannot read the --replace file: {exc}") from exc
        order = {name: i for i, name in enumerate(self.params)}
        for name in sorted(tensors, key=lambda n: order.get(n, len(order))):
            self._add(path, name, tensors[name])

    def _add(self, path: str, name: str, tensor: torch.Tensor) -> None:
        param = self.params.get(name)
        if param is None:
            raise BridgeError("shape", f"{path}: tensor {name} is not a parameter of the model")
        if tuple(tensor.shape) != tuple(param.shape):
            raise BridgeError(
                "shape", f"{path}: tensor {name} has shape {list(tensor.shape)}, the model's "
                f"parameter has {list(param.shape)}")
        if not tensor.is_floating_point():
            raise BridgeError("shape", f"{path}: tensor {name} has dtype {tensor.dtype}, not a float")
        self.replacements[name] = tensor.to(device=param.device, dtype=param.dtype)
        self.backup[name] = param.detach().clone()

    @property
    def names(self) -> list[str]:
        return list(self.replacements)

    def swap_in(self, names: list[str]) -> None:
        with torch.no_grad():
            for n in names:
                self.params[n].copy_(self.replacements[n])

    def swap_out(self, names: list[str]) -> None:
        with torch.no_grad():
            for n in names:
                self.params[n].copy_(self.backup[n])


def log_probs(model: Any, ids: torch.Tensor) -> torch.Tensor:
    with torch.inference_mode():
        logits = model(input_ids=ids, use_cache=False).logits
        return torch.log_softmax(logits.float(), dim=-1)


def compare(lp: torch.Tensor, lq: torch.Tensor) -> tuple[list[float], list[float]]:
    """Per sample of a batch [B, L, V]: the mean over positions of KL(P‖Q) in nats (each
    position's sum over the vocabulary accumulated in float64), and the top-1 agreement. One
    host transfer per batch, not per sample."""
    kl = torch.sum(lp.exp() * (lp - lq), dim=-1, dtype=torch.float64).mean(-1)
    top1 = (lp.argmax(-1) == lq.argmax(-1)).double().mean(-1)
    return kl.tolist(), top1.tolist()


def nll(lp: torch.Tensor, ids: torch.Tensor) -> list[float]:
    """Per sample of a batch: the mean NLL of the next real token (positions 0..L-2 predict 1..L-1)."""
    picked = lp[:, :-1].gather(-1, ids[:, 1:, None]).squeeze(-1)
    return (-picked.double().mean(-1)).tolist()


@dataclass
class Evaluation:
    model: Any
    tokens: TokenInput
    swapper: Swapper
    per_layer: bool
    per_layer_samples: int
    batch: int
    scores: list[SampleScore] = field(default_factory=list)
    layer_kl: dict[str, list[float]] = field(default_factory=dict)
    layer_top1: dict[str, list[float]] = field(default_factory=dict)
    forward_seconds: float = 0.0

    def layer_tensors(self) -> list[str]:
        return [n for n in self.swapper.names if n.endswith(".weight")] if self.per_layer else []

    def _forward(self, ids: torch.Tensor, names: list[str]) -> torch.Tensor:
        t0 = time.perf_counter()
        self.swapper.swap_in(names)
        try:
            return log_probs(self.model, ids)
        finally:
            self.swapper.swap_out(names)
            self.forward_seconds += time.perf_counter() - t0

    def _score_batch(self, ids: torch.Tensor, start: int) -> None:
        lp = self._forward(ids, [])
        lq = self._forward(ids, self.swapper.names)
        kls, top1s = compare(lp, lq)
        for kl, top1, ref, q in zip(kls, top1s, nll(lp, ids), nll(lq, ids)):
            self.scores.append(SampleScore(kl, top1, ref, q))
        del lq
        rows = max(0, min(ids.shape[0], self.per_layer_samples - start))
        for name in self.layer_tensors() if rows else []:
            kls, top1s = compare(lp[:rows], self._forward(ids[:rows], [name]))
            self.layer_kl.setdefault(name, []).extend(kls)
            self.layer_top1.setdefault(name, []).extend(top1s)

    def run(self) -> None:
        device = next(self.model.parameters()).device
        ids = torch.from_numpy(self.tokens.ids)
        total = self.tokens.samples
        for start in range(0, total, self.batch):
            self._score_batch(ids[start:start + self.batch].to(device), start)
            done = min(start + self.batch, total)
            progress(done, total, f"sample {done}/{total}")

    def report(self) -> dict[str, Any]:
        s = self.scores
        return {
            "replaced": self.swapper.names,
            "reference": {"ppl": math.exp(math.fsum(x.nll_ref for x in s) / len(s))},
            "quantized": {"ppl": math.exp(math.fsum(x.nll_q for x in s) / len(s))},
            "kl": mean_ci95([x.kl for x in s]),
            "top1": mean_ci95([x.top1 for x in s]),
            "per_sample": [vars(x) for x in s],
            "per_layer": [
                {"module": n[: -len(".weight")], "tensor": n,
                 "kl": math.fsum(self.layer_kl[n]) / len(self.layer_kl[n]),
                 "top1": math.fsum(self.layer_top1[n]) / len(self.layer_top1[n])}
                for n in self.layer_tensors()
            ],
        }
