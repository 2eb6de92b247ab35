#!/usr/bin/env python3
"""Write tests/data/model/stories260K-tokens.npy: int32 [16, 64] token ids sampled from the
stories260K model itself (it ships no tokenizer), so capture/eval tests have real model text.

Each row starts at BOS (id 1); every next token is drawn from softmax(logits) (temperature 1)
with one seeded torch.Generator, so the file is reproducible on a CPU with the same torch.

usage: make-stories-tokens.py [MODEL_DIR] [OUT]   (defaults: ../shared/data/stories260K,
                                                    tests/data/model/stories260K-tokens.npy)
"""

import os
import sys

import numpy as np
import torch
from transformers import AutoModelForCausalLM

ROWS, LENGTH, BOS, SEED = 16, 64, 1, 260


def sample(model_dir: str) -> np.ndarray:
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    gen = torch.Generator().manual_seed(SEED)
    ids = torch.full((ROWS, 1), BOS, dtype=torch.long)
    with torch.inference_mode():
        while ids.shape[1] < LENGTH:
            probs = torch.softmax(model(input_ids=ids, use_cache=False).logits[:, -1].float(), -1)
            ids = torch.cat([ids, torch.multinomial(probs, 1, generator=gen)], dim=1)
    return ids.numpy().astype(np.int32)


def main() -> None:
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    model_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, "..", "shared", "data", "stories260K")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(repo, "tests", "data", "model", "stories260K-tokens.npy")
    np.save(out, sample(model_dir))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
