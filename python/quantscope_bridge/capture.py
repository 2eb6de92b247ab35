"""`capture`: per-Linear input statistics, K/V caches and post-RoPE queries of one model run
over the calibration tokens, written as one safetensors file.

Statistics are updated inside forward hooks, one batch at a time; no activation outlives its
forward pass (see docs/bridge.md, "Memory bound").
"""

from __future__ import annotations

import json
import sys
import time
import weakref
import zlib
from dataclasses import dataclass, field
from typing import Any

import torch

from .protocol import BridgeError, commit_staged, log, progress, staged_path
from .tokens import TokenInput


@dataclass
class CaptureOptions:
    gram_max: int = 8192
    rows: int = 256
    kv_tokens: int = 2048
    q_rows: int = 512
    seed: int = 0
    batch: int = 0  # samples per forward; 0 = as many as fit in 4096 tokens


class InputStats:
    """Running statistics of the rows x (length K) a Linear receives."""

    def __init__(self, k: int, with_gram: bool, rows: int, device: torch.device):
        self.k = k
        self.count = 0
        self.gram = torch.zeros(k, k, dtype=torch.float64, device=device) if with_gram else None
        # With a Gram, its diagonal is the sum of squares; without, a separate FP64 sum.
        self.sq: torch.Tensor | None = None if with_gram else torch.zeros(k, dtype=torch.float64, device=device)
        self.min = torch.full((k,), float("inf"), dtype=torch.float32, device=device)
        self.max = torch.full((k,), float("-inf"), dtype=torch.float32, device=device)
        self.rows_wanted = rows
        self.sample = torch.empty(0, k, dtype=torch.float32, device=device)
        self.sample_keys = torch.empty(0, dtype=torch.float64, device=device)

    def update(self, x: torch.Tensor, keys: torch.Tensor) -> None:
        """x: [M, K] float32; keys: [M] uniform random keys of these rows (sampling)."""
        self.count += x.shape[0]
        if self.gram is not None:
            self.gram += x.t() @ x  # FP32 matmul, FP64 accumulation
        else:
            self.sq += torch.sum(x * x, dim=0, dtype=torch.float64)
        lo, hi = torch.aminmax(x, dim=0)
        torch.minimum(self.min, lo, out=self.min)
        torch.maximum(self.max, hi, out=self.max)
        self._keep_rows(x, keys)

    def _keep_rows(self, x: torch.Tensor, keys: torch.Tensor) -> None:
        """Keep the rows with the smallest keys: a uniform sample without replacement."""
        all_keys = torch.cat([self.sample_keys, keys])
        keep = min(self.rows_wanted, all_keys.shape[0])
        order = torch.topk(all_keys, keep, largest=False, sorted=True).indices
        old = self.sample_keys.shape[0]
        from_old = order < old
        rows = torch.empty(keep, self.k, dtype=torch.float32, device=x.device)
        rows[from_old] = self.sample[order[from_old]]
        rows[~from_old] = x[order[~from_old] - old]
        self.sample = rows
        self.sample_keys = all_keys[order]

    def tensors(self, prefix: str) -> dict[str, torch.Tensor]:
        n = max(self.count, 1)
        out = {}
        if self.gram is not None:
            out[f"{prefix}.input_gram"] = (self.gram / n).float()
        sq = self.gram.diagonal() if self.gram is not None else self.sq
        out[f"{prefix}.input_gram_diag"] = (sq / n).float()
        out[f"{prefix}.input_absmax"] = torch.maximum(-self.min, self.max)
        out[f"{prefix}.input_min"] = self.min
        out[f"{prefix}.input_max"] = self.max
        out[f"{prefix}.input_sample"] = self.sample
        return out

    def nbytes(self) -> int:
        parts = [self.gram if self.gram is not None else self.sq,
                 self.min, self.max, self.sample, self.sample_keys]
        return sum(t.numel() * t.element_size() for t in parts)


@dataclass
class AttentionBlock:
    name: str
    module: Any
    layer: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    rope: str = "post"
    keys: list[torch.Tensor] = field(default_factory=list)
    values: list[torch.Tensor] = field(default_factory=list)
    queries: list[torch.Tensor] = field(default_factory=list)
    kv_have: int = 0
    q_have: int = 0
    q_proj_out: torch.Tensor | None = None

    def describe(self) -> dict[str, Any]:
        return {"layer": self.layer, "num_heads": self.num_heads,
                "num_kv_heads": self.num_kv_heads, "head_dim": self.head_dim, "rope": self.rope}


def find_attention_blocks(model: Any) -> list[AttentionBlock]:
    """An attention block is a module with q_proj, k_proj and v_proj Linear children. Its layer
    index is its `layer_idx` attribute (the index the KV cache uses), else its ordinal."""
    blocks = []
    config = model.config
    for name, module in model.named_modules():
        projs = [getattr(module, p, None) for p in ("q_proj", "k_proj", "v_proj")]
        if not all(isinstance(p, torch.nn.Linear) for p in projs):
            continue
        head_dim = getattr(module, "head_dim", None) or getattr(config, "head_dim", None) \
            or config.hidden_size // config.num_attention_heads
        layer = getattr(module, "layer_idx", None)
        blocks.append(AttentionBlock(
            name=name, module=module, layer=len(blocks) if layer is None else int(layer),
            num_heads=projs[0].out_features // head_dim,
            num_kv_heads=projs[1].out_features // head_dim, head_dim=head_dim))
    return blocks


def rope_function(module: Any) -> Any:
    """The model's own apply_rotary_pos_emb, from the module that defines its attention class."""
    return getattr(sys.modules.get(type(module).__module__), "apply_rotary_pos_emb", None)


class Capture:
    def __init__(self, model: Any, tokens: TokenInput, opts: CaptureOptions):
        self.model = model
        self.tokens = tokens
        self.opts = opts
        self.device = next(model.parameters()).device
        self.n = tokens.samples * tokens.seq
        self.kv_target = min(opts.kv_tokens, self.n)
        self.q_target = min(opts.q_rows, self.n)
        self.linears = [(n, m) for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)]
        self.names = {id(m): n for n, m in self.linears}
        self.prefix: dict[str, str] = {}  # module -> stats prefix, fixed by the first forward
        self.stats: dict[str, InputStats] = {}
        self.blocks = find_attention_blocks(model)
        self.forward_index = 0
        self.seen: dict[tuple, tuple[Any, str]] = {}
        self.batch_keys: torch.Tensor | None = None
        self.keygen = torch.Generator().manual_seed(opts.seed)
        self.own_keygens: dict[str, torch.Generator] = {}
        self.handles: list[Any] = []
        self.restore: list[Any] = []

    # -- Linear inputs -------------------------------------------------------------------
    def _input_key(self, x: torch.Tensor) -> tuple:
        return (x.data_ptr(), tuple(x.shape), tuple(x.stride()), x.dtype)

    def _owner(self, name: str, x: torch.Tensor) -> str | None:
        """The stats prefix to update for this call, or None when the same input tensor was
        already counted in this forward (q/k/v, gate/up)."""
        key = self._input_key(x)
        hit = self.seen.get(key)
        first = hit[1] if hit is not None and hit[0]() is x else None
        if first is None:
            self.seen[key] = (weakref.ref(x), name)
        if self.forward_index == 0:
            self.prefix[name] = first or name
        elif self.prefix.get(name) != (first or name):
            raise BridgeError(
                "internal",
                f"{name}: its input shared a tensor with {self.prefix.get(name)} in the first "
                f"forward but not in forward {self.forward_index + 1}; stats prefixes would be wrong")
        return None if first else name

    def _row_keys(self, name: str, rows: int) -> torch.Tensor:
        """Sampling keys: the batch's shared keys when the module sees every token (so all such
        modules keep the same token positions), else keys of its own."""
        assert self.batch_keys is not None
        if rows == self.batch_keys.shape[0]:
            return self.batch_keys
        gen = self.own_keygens.setdefault(
            name, torch.Generator().manual_seed(self.opts.seed ^ zlib.crc32(name.encode())))
        return torch.rand(rows, generator=gen, dtype=torch.float64).to(self.device)

    def _linear_hook(self, module: Any, args: tuple, kwargs: dict) -> None:
        x = args[0] if args else kwargs["input"]
        name = self.names[id(module)]
        owner = self._owner(name, x)
        if owner is None:
            return
        flat = x.detach().reshape(-1, x.shape[-1]).float()
        stats = self.stats.get(owner)
        if stats is None:
            stats = InputStats(flat.shape[1], flat.shape[1] <= self.opts.gram_max,
                               self.opts.rows, self.device)
            self.stats[owner] = stats
        stats.update(flat, self._row_keys(owner, flat.shape[0]))

    # -- queries ---------------------------------------------------------------------------
    def _q_proj_hook(self, block: AttentionBlock):
        def hook(module: Any, args: tuple, output: torch.Tensor) -> None:
            block.q_proj_out = output.detach()
        return hook

    def _attention_hook(self, block: AttentionBlock):
        rope = rope_function(block.module)

        def hook(module: Any, args: tuple, kwargs: dict, output: Any) -> None:
            q, block.q_proj_out = block.q_proj_out, None
            if q is None or block.q_have >= self.q_target:
                return
            b, length = q.shape[0], q.shape[1]
            q = q.reshape(b, length, -1, block.head_dim)
            q_norm = getattr(module, "q_norm", None)
            if q_norm is not None:
                q = q_norm(q)
            q = q.transpose(1, 2)  # [B, H, L, d]
            pos = kwargs.get("position_embeddings", args[1] if len(args) > 1 else None)
            q = self._apply_rope(block, rope, q, pos)
            self._take(block.queries, q, self.q_target - block.q_have)
            block.q_have = min(self.q_target, block.q_have + b * length)
        return hook

    def _apply_rope(self, block: AttentionBlock, rope: Any, q: torch.Tensor, pos: Any):
        if rope is None or not (isinstance(pos, tuple) and len(pos) == 2):
            block.rope = "pre"
            return q
        try:
            return rope(q, q, pos[0], pos[1])[0]
        except Exception as exc:  # a model whose rope has another signature
            log(f"{block.name}: storing pre-RoPE queries ({exc})")
            block.rope = "pre"
            return q

    @staticmethod
    def _take(parts: list[torch.Tensor], x: torch.Tensor, want: int) -> None:
        """Append the first `want` positions of [B, H, L, d], samples in order, as [H, t, d]."""
        for row in x:
            if want <= 0:
                return
            part = row[:, :want].float().cpu()
            parts.append(part)
            want -= part.shape[1]

    # -- keys and values ---------------------------------------------------------------------
    def _collect_kv(self, cache: Any) -> None:
        for block in self.blocks:
            keys, values = cache_layer(cache, block.layer)
            want = self.kv_target - block.kv_have
            self._take(block.keys, keys, want)
            self._take(block.values, values, want)
            block.kv_have = min(self.kv_target, block.kv_have + keys.shape[0] * keys.shape[2])

    # -- the run -----------------------------------------------------------------------------
    def _install_hooks(self) -> None:
        for _, module in self.linears:
            self.handles.append(module.register_forward_pre_hook(self._linear_hook, with_kwargs=True))
        for block in self.blocks:
            self.handles.append(block.module.q_proj.register_forward_hook(self._q_proj_hook(block)))
            self.handles.append(block.module.register_forward_hook(
                self._attention_hook(block), with_kwargs=True))
        self._skip_logits()

    def _skip_logits(self) -> None:
        """Capture needs the output layer's input, not its output: its matmul (a fifth of
        SmolLM2-135M's forward) is replaced by a zero-stride tensor of the right shape. Its
        pre-hook, which takes the statistics, still runs."""
        head = self.model.get_output_embeddings()
        if not isinstance(head, torch.nn.Linear):
            return

        def no_logits(x: torch.Tensor) -> torch.Tensor:
            return x.new_zeros(()).expand(*x.shape[:-1], head.out_features)

        head.forward = no_logits
        self.restore.append(lambda: delattr(head, "forward"))

    def _remove_hooks(self) -> None:
        for handle in self.handles:
            handle.remove()
        self.handles.clear()
        for undo in self.restore:
            undo()
        self.restore.clear()

    def batch_size(self) -> int:
        if self.opts.batch > 0:
            return self.opts.batch
        return max(1, min(self.tokens.samples, 4096 // self.tokens.seq))

    def run(self) -> float:
        """All forward passes; returns the seconds spent in them."""
        ids = torch.from_numpy(self.tokens.ids)
        total, step = self.tokens.samples, self.batch_size()
        forward_seconds = 0.0
        self._install_hooks()
        try:
            for start in range(0, total, step):
                batch = ids[start:start + step].to(self.device)
                self.batch_keys = torch.rand(batch.numel(), generator=self.keygen,
                                             dtype=torch.float64).to(self.device)
                self.seen.clear()
                need_kv = any(b.kv_have < self.kv_target for b in self.blocks)
                t0 = time.perf_counter()
                with torch.inference_mode():
                    out = self.model(input_ids=batch, use_cache=need_kv)
                    if need_kv:
                        self._collect_kv(output_cache(out))
                del out
                forward_seconds += time.perf_counter() - t0
                self.forward_index += 1
                done = min(start + step, total)
                progress(done, total, f"sample {done}/{total}")
        finally:
            self._remove_hooks()
            self.seen.clear()
        return forward_seconds

    # -- the file ----------------------------------------------------------------------------
    def modules_json(self) -> dict[str, Any]:
        out = {}
        for name, module in self.linears:
            prefix = self.prefix.get(name)
            if prefix is None:
                raise BridgeError("internal", f"{name}: the Linear was never called in a forward")
            out[name] = {"in_features": module.in_features, "out_features": module.out_features,
                         "stats": prefix, "tokens": self.stats[prefix].count}
        return out

    def tensors(self) -> dict[str, torch.Tensor]:
        out: dict[str, torch.Tensor] = {}
        for prefix, stats in self.stats.items():
            out.update(stats.tensors(prefix))
        for block in self.blocks:
            out[f"{block.name}.k"] = torch.cat(block.keys, dim=1)
            out[f"{block.name}.v"] = torch.cat(block.values, dim=1)
            out[f"{block.name}.q"] = torch.cat(block.queries, dim=1)
        return {k: v.detach().float().cpu().contiguous() for k, v in out.items()}

    def bytes_stats(self) -> int:
        total = sum(s.nbytes() for s in self.stats.values())
        for b in self.blocks:
            total += 4 * b.head_dim * (2 * b.num_kv_heads * self.kv_target + b.num_heads * self.q_target)
        return total


def output_cache(out: Any) -> Any:
    """The KV cache a forward returned: `cache` in transformers 5.x, `past_key_values` before."""
    cache = getattr(out, "cache", None)
    return cache if cache is not None else out.past_key_values


def cache_layer(cache: Any, layer: int) -> tuple[torch.Tensor, torch.Tensor]:
    """[B, Hkv, L, d] keys and values of one layer (post-RoPE, as the cache holds them)."""
    if hasattr(cache, "layers"):
        return cache.layers[layer].keys, cache.layers[layer].values
    return cache.key_cache[layer], cache.value_cache[layer]


def write(cap: Capture, out: str, metadata: dict[str, str]) -> None:
    from safetensors.torch import save_file

    tmp = staged_path(out)
    try:
        save_file(cap.tensors(), tmp, metadata=metadata)
    except OSError as exc:
        raise BridgeError("io", f"{out}: cannot write: {exc}") from exc
    commit_staged(tmp, out)


def metadata(cap: Capture, base: dict[str, Any]) -> dict[str, str]:
    meta = {k: str(v) for k, v in base.items()}
    meta["modules"] = json.dumps(cap.modules_json())
    meta["attention"] = json.dumps({b.name: b.describe() for b in cap.blocks})
    return meta
