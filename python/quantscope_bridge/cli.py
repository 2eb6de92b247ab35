"""Command line: `python -m quantscope_bridge check|weights|capture|eval ...` (docs/bridge.md)."""

from __future__ import annotations

import argparse
import json
import time
import traceback
from typing import Any

from . import env
from .protocol import (EXIT_CANCELLED, EXIT_ERROR, BridgeError, Cancelled, claim_stdout,
                       commit_staged, emit, install_cancel_handlers, log, remove_staged,
                       staged_path)


class Parser(argparse.ArgumentParser):
    """Usage errors become protocol error events instead of argparse's own exit."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise BridgeError("input", f"{self.prog}: {message}")


def add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="HF model directory, a directory with one .gguf, or a .gguf file")
    p.add_argument("--gguf-file", help="the .gguf file inside MODEL")


def add_run_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="UTF-8 text, tokenized with the model's tokenizer")
    src.add_argument("--tokens", help=".npy of integer token ids, [N, L] or 1-D")
    p.add_argument("--samples", type=int, default=64)
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--device", choices=["cpu", "cuda", "auto"], default="cpu")
    p.add_argument("--dtype", choices=["float32", "bfloat16", "auto"], default="float32")
    p.add_argument("--batch", type=int, default=0,
                   help="samples per forward pass (default: as many as fit in 4096 tokens)")


def build_parser() -> Parser:
    parser = Parser(prog="quantscope_bridge")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = sub.add_parser("check", help="versions of the packages the bridge uses")
    p.add_argument("--need", default=",".join(env.BASE_PACKAGES))

    p = sub.add_parser("weights", help="every parameter as transformers loaded it")
    add_model_args(p)
    p.add_argument("--out", required=True)
    p.add_argument("--dtype", choices=["f32", "bf16"], default="f32")

    p = sub.add_parser("capture", help="activation statistics, K/V and queries")
    add_model_args(p)
    add_run_args(p)
    p.add_argument("--gram-max", type=int, default=8192)
    p.add_argument("--rows", type=int, default=256)
    p.add_argument("--kv-tokens", type=int, default=2048)
    p.add_argument("--q-rows", type=int, default=512)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)

    p = sub.add_parser("eval", help="KL, top-1 and perplexity of replaced weights")
    add_model_args(p)
    add_run_args(p)
    p.add_argument("--replace")
    p.add_argument("--per-layer", action="store_true")
    p.add_argument("--per-layer-samples", type=int, default=0, help="0 = all samples")
    p.add_argument("--out")
    return parser


def check_positive(args: argparse.Namespace, names: list[str]) -> None:
    for name in names:
        value = getattr(args, name)
        if value is not None and value < 1:
            raise BridgeError("input", f"--{name.replace('_', '-')} must be at least 1, not {value}")


# -- commands ------------------------------------------------------------------------------

def cmd_check(args: argparse.Namespace) -> int:
    return env.run_check([n.strip() for n in args.need.split(",") if n.strip()])


def start(command: str, src: Any, device: str, dtype: str) -> None:
    import torch
    import transformers

    emit("start", command=command, model=src.path, gguf_file=src.gguf_file or "", device=device,
         dtype=dtype, torch=torch.__version__, transformers=transformers.__version__)


def cmd_weights(args: argparse.Namespace) -> int:
    env.require(list(env.BASE_PACKAGES))
    import torch

    from . import model as M
    from .weights import write_weights

    src = M.resolve(args.model, args.gguf_file)
    t0 = time.perf_counter()
    start("weights", src, "cpu", "float32")
    model = M.load_model(src, "cpu", "float32")
    count = write_weights(model, src, args.out, torch.bfloat16 if args.dtype == "bf16" else torch.float32)
    emit("result", out=args.out, tensors=count, seconds=time.perf_counter() - t0)
    return 0


def prepare_run(args: argparse.Namespace, command: str) -> tuple[Any, Any, Any, str, str]:
    """Packages, model, tokens; emits `start`. Returns (source, model, tokens, device, dtype)."""
    env.require(list(env.BASE_PACKAGES))
    check_positive(args, ["samples", "seq"])
    if args.batch < 0:
        raise BridgeError("input", f"--batch must be 0 (automatic) or more, not {args.batch}")
    from . import model as M
    from . import tokens as T

    src = M.resolve(args.model, args.gguf_file)
    device = M.pick_device(args.device)
    dtype = M.pick_dtype(args.dtype, device)
    start(command, src, device, dtype)
    tokens = T.load(args.text, args.tokens, args.samples, args.seq, lambda: M.load_tokenizer(src))
    model = M.load_model(src, device, dtype)
    T.check_vocab(tokens, M.vocab_size(model))
    return src, model, tokens, device, dtype


def versions() -> dict[str, str]:
    import torch
    import transformers

    return {"torch": torch.__version__, "transformers": transformers.__version__}


def cmd_capture(args: argparse.Namespace) -> int:
    check_positive(args, ["gram_max", "rows", "kv_tokens", "q_rows"])
    src, model, tokens, device, dtype = prepare_run(args, "capture")
    from .capture import Capture, CaptureOptions, metadata, write

    opts = CaptureOptions(args.gram_max, args.rows, args.kv_tokens, args.q_rows, args.seed, args.batch)
    t0 = time.perf_counter()
    cap = Capture(model, tokens, opts)
    forward_seconds = cap.run()
    info = tokens.describe()
    meta = metadata(cap, {
        "format": "quantscope-capture", "version": "1", "model": src.path,
        "gguf_file": src.gguf_file or "", **info, "device": device, "dtype": dtype, **versions(),
        "gram_max": opts.gram_max, "rows": opts.rows, "kv_tokens": opts.kv_tokens,
        "seed": opts.seed})
    write(cap, args.out, meta)
    emit("result", out=args.out, modules=len(cap.linears), attention=len(cap.blocks),
         tokens=cap.n, samples=tokens.samples, seq=tokens.seq, stride=tokens.stride,
         input_sha256=tokens.sha256, seconds=time.perf_counter() - t0,
         forward_seconds=forward_seconds, bytes_stats=cap.bytes_stats())
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    src, model, tokens, device, dtype = prepare_run(args, "eval")
    from .evaluate import Evaluation, Swapper

    t0 = time.perf_counter()
    swapper = Swapper(model, args.replace)
    batch = args.batch or max(1, min(tokens.samples, 4096 // tokens.seq))
    evaluation = Evaluation(model, tokens, swapper, args.per_layer,
                            args.per_layer_samples or tokens.samples, batch)
    evaluation.run()
    info = tokens.describe()
    report = {
        "format": "quantscope-eval", "version": 1, "model": src.path,
        "gguf_file": src.gguf_file or "", **info, "device": device, "dtype": dtype,
        "seconds": time.perf_counter() - t0, "forward_seconds": evaluation.forward_seconds,
        **evaluation.report(),
    }
    if args.out:
        write_json(args.out, report)
    emit("result", **report)
    return 0


def write_json(out: str, report: dict[str, Any]) -> None:
    tmp = staged_path(out)
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, allow_nan=False)
            f.write("\n")
    except OSError as exc:
        raise BridgeError("io", f"{out}: cannot write: {exc}") from exc
    commit_staged(tmp, out)


COMMANDS = {"check": cmd_check, "weights": cmd_weights, "capture": cmd_capture, "eval": cmd_eval}


def main(argv: list[str] | None = None) -> int:
    claim_stdout()
    install_cancel_handlers()
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except BridgeError as exc:
        remove_staged()
        emit("error", kind=exc.kind, message=exc.message)
        return EXIT_ERROR
    except Cancelled:
        remove_staged()
        emit("cancelled")
        return EXIT_CANCELLED
    except MemoryError:
        remove_staged()
        emit("error", kind="internal", message="out of memory")
        return EXIT_ERROR
    except Exception as exc:
        log(traceback.format_exc())
        remove_staged()
        emit("error", kind="internal", message=f"{type(exc).__name__}: {exc}")
        return EXIT_ERROR
