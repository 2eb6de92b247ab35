"""Token input: a .npy of ids or a UTF-8 text tokenized by the model's tokenizer, cut into
N samples of L tokens."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .protocol import BridgeError


@dataclass
class TokenInput:
    ids: np.ndarray  # int64 [samples, seq]
    path: str
    sha256: str
    stride: int  # tokens between the starts of consecutive samples

    @property
    def samples(self) -> int:
        return int(self.ids.shape[0])

    @property
    def seq(self) -> int:
        return int(self.ids.shape[1])

    def describe(self) -> dict[str, Any]:
        return {
            "input": self.path,
            "input_sha256": self.sha256,
            "samples": self.samples,
            "seq": self.seq,
            "tokens": self.samples * self.seq,
            "stride": self.stride,
        }


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise BridgeError("input", f"{path}: cannot read: {exc.strerror}") from exc
    return digest.hexdigest()


def windows(stream: np.ndarray, samples: int, seq: int, path: str) -> tuple[np.ndarray, int]:
    """N windows of L tokens. Consecutive when the stream is long enough; otherwise they
    overlap with the even stride floor((T - L) / (N - 1))."""
    total = int(stream.shape[0])
    if total < seq:
        raise BridgeError("input", f"{path}: {total} tokens, fewer than one sample of {seq}")
    if total >= samples * seq or samples == 1:
        stride = seq
    else:
        stride = (total - seq) // (samples - 1)
        if stride == 0:
            raise BridgeError(
                "input",
                f"{path}: {total} tokens cannot give {samples} distinct samples of {seq}; "
                "lower --samples or --seq",
            )
    starts = [i * stride for i in range(samples)]
    return np.stack([stream[s : s + seq] for s in starts]), stride


def from_npy(path: str, samples: int, seq: int) -> TokenInput:
    sha = file_sha256(path)
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise BridgeError("input", f"{path}: not a readable .npy file: {exc}") from exc
    if not np.issubdtype(arr.dtype, np.integer):
        raise BridgeError("input", f"{path}: token ids must be an integer dtype, not {arr.dtype}")
    if arr.ndim == 2:
        if arr.shape[0] == 0 or arr.shape[1] == 0:
            raise BridgeError("input", f"{path}: empty token array of shape {list(arr.shape)}")
        ids, stride = arr[:samples], int(arr.shape[1])
    elif arr.ndim == 1:
        ids, stride = windows(arr, samples, seq, path)
    else:
        raise BridgeError("input", f"{path}: token ids must be 1-D or [N, L], not {list(arr.shape)}")
    return TokenInput(np.ascontiguousarray(ids, dtype=np.int64), path, sha, stride)


def from_text(path: str, samples: int, seq: int, tokenizer_factory: Callable[[], Any]) -> TokenInput:
    """The tokenizer is made only after the file proved readable."""
    sha = file_sha256(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as exc:
        raise BridgeError("input", f"{path}: not UTF-8 text: {exc}") from exc
    if not text.strip():
        raise BridgeError("input", f"{path}: the text is empty")
    stream = tokenize(text, tokenizer_factory())
    ids, stride = windows(stream, samples, seq, path)
    return TokenInput(ids.astype(np.int64), path, sha, stride)


def tokenize(text: str, tokenizer: Any) -> np.ndarray:
    """No special tokens, except the model's BOS once at the start when the tokenizer adds it
    by default."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    bos = tokenizer.bos_token_id
    probe = tokenizer("a")["input_ids"]
    if bos is not None and probe and probe[0] == bos:
        ids = [bos] + ids
    return np.asarray(ids, dtype=np.int64)


def check_vocab(tokens: TokenInput, vocab: int) -> None:
    bad = (tokens.ids < 0) | (tokens.ids >= vocab)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise BridgeError(
            "input",
            f"{tokens.path}: token id {int(tokens.ids[row, col])} at sample {row}, position {col} "
            f"is outside the model's vocabulary [0, {vocab})",
        )


def load(text: str | None, npy: str | None, samples: int, seq: int,
         tokenizer_factory: Callable[[], Any]) -> TokenInput:
    if npy is not None:
        return from_npy(npy, samples, seq)
    assert text is not None
    return from_text(text, samples, seq, tokenizer_factory)
