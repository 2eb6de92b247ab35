"""The line protocol on stdout, error kinds, staged output files and Cancel.

Every event is one JSON object on one line of the real stdout, flushed at once. Everything
else (Python warnings, transformers' progress bars, C-level prints) goes to stderr, because
`claim_stdout` moves file descriptor 1 onto stderr and keeps a private copy for events.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
from typing import Any, TextIO

ERROR_KINDS = ("missing-package", "load", "tokenizer", "input", "shape", "io", "internal")
EXIT_ERROR = 2
EXIT_CANCELLED = 130

_events: TextIO = sys.stdout
_staged: set[str] = set()


class BridgeError(Exception):
    """A refusal the caller can act on; `kind` is one of ERROR_KINDS."""

    def __init__(self, kind: str, message: str):
        assert kind in ERROR_KINDS, kind
        super().__init__(message)
        self.kind = kind
        self.message = message


class Cancelled(BaseException):
    """Raised from the SIGTERM/SIGINT handler; BaseException so library code cannot swallow it."""


def claim_stdout() -> None:
    """Keep fd 1 for events only; route every other write to stdout onto stderr."""
    global _events
    sys.stdout.flush()
    _events = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr


def _finite(value: Any) -> Any:
    """JSON has no NaN/Inf: write them as null so every line parses strictly."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def emit(event: str, **fields: Any) -> None:
    line = json.dumps(_finite({"event": event, **fields}), ensure_ascii=False, allow_nan=False)
    _events.write(line + "\n")
    _events.flush()


def progress(done: int, total: int, what: str) -> None:
    emit("progress", done=done, total=total, what=what)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def staged_path(out: str) -> str:
    """The temporary name an output is written under until `commit_staged` renames it."""
    tmp = f"{out}.tmp-{os.getpid()}"
    _staged.add(tmp)
    return tmp


def commit_staged(tmp: str, out: str) -> None:
    """Rename the finished file into place, with the permissions a new file gets (umask)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, out)
    _staged.discard(tmp)


def remove_staged() -> None:
    for tmp in list(_staged):
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        _staged.discard(tmp)


def _on_signal(signum: int, frame: Any) -> None:
    # Ignore repeats so cleanup cannot itself be interrupted.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise Cancelled()


def install_cancel_handlers() -> None:
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
