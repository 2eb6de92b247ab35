"""Tests of the Python bridge (python/quantscope_bridge) on the real stories260K model.

Run from the repository root with the interpreter that has torch + transformers:
    python -m unittest discover tests/python
Without torch/transformers/safetensors/numpy or without ../shared/data/stories260K the model
tests skip (exit 0) and say why; the statistics tests run with any Python 3.10+.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
STORIES = REPO.parent / "shared" / "data" / "stories260K"
TOKENS = REPO / "tests" / "data" / "model" / "stories260K-tokens.npy"
TEXT = REPO / "tests" / "data" / "text" / "alice-ch1-4.txt"


def skip_reason() -> str | None:
    absent = [p for p in ("torch", "transformers", "safetensors", "numpy")
              if importlib.util.find_spec(p) is None]
    if absent:
        return f"{sys.executable} lacks {', '.join(absent)}"
    if not (STORIES / "model.safetensors").is_file():
        return f"{STORIES} is absent (the real model data lives in ../shared/data)"
    return None


SKIP = skip_reason()
if SKIP:
    print(f"test_bridge: skipping the model tests: {SKIP}", file=sys.stderr)


def bridge(*args: str, timeout: float = 300) -> tuple[int, list[dict]]:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    proc = subprocess.run([sys.executable, "-m", "quantscope_bridge", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()]


class StudentT(unittest.TestCase):
    def test_quantiles_match_tables(self):
        from quantscope_bridge.stats import mean_ci95, t_quantile_two_sided

        for dof, t975 in ((1, 12.7062), (2, 4.3027), (5, 2.5706), (9, 2.2622), (30, 2.0423),
                          (63, 1.9983), (1000, 1.9623)):
            self.assertAlmostEqual(t_quantile_two_sided(0.95, dof), t975, places=4)
        ci = mean_ci95([1.0, 2.0, 3.0])["ci95"]
        self.assertAlmostEqual(ci[1] - 2.0, 4.3027 * (1 / 3) ** 0.5, places=4)


@unittest.skipIf(SKIP, SKIP)
class Bridge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import numpy as np

        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.tokens2 = cls.dir / "two.npy"
        np.save(cls.tokens2, np.load(TOKENS)[:2])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_error(self, kind: str, rc: int, events: list[dict], *words: str) -> None:
        self.assertEqual(rc, 2, events)
        self.assertEqual(events[-1]["event"], "error", events)
        self.assertEqual(events[-1]["kind"], kind, events[-1])
        for word in words:
            self.assertIn(word, events[-1]["message"])

    def load_model(self):
        import torch
        from transformers import AutoModelForCausalLM

        return AutoModelForCausalLM.from_pretrained(STORIES, dtype=torch.float32).eval()

    def hooked_inputs(self, model, ids):
        """Every Linear's input rows (float64) of one forward, and the cache."""
        import torch

        inputs, handles = {}, []
        for name, module in model.named_modules():
            if isinstance(module, torch.nn.Linear):
                def hook(mod, args, name=name):
                    inputs[name] = args[0].reshape(-1, args[0].shape[-1]).double().numpy()
                handles.append(module.register_forward_pre_hook(hook))
        with torch.inference_mode():
            out = model(input_ids=ids, use_cache=True)
        for h in handles:
            h.remove()
        return inputs, out.cache

    # -- capture ---------------------------------------------------------------------------
    def test_capture_matches_direct_computation(self):
        import numpy as np
        import torch
        from safetensors import safe_open

        out = self.dir / "cap.safetensors"
        rc, events = bridge("capture", str(STORIES), "--tokens", str(self.tokens2), "--rows", "16",
                            "--kv-tokens", "100", "--q-rows", "20", "--out", str(out))
        self.assertEqual(rc, 0, events)
        self.assertEqual([e["event"] for e in events][0], "start")
        self.assertEqual(events[-1]["tokens"], 128)
        model = self.load_model()
        ids = torch.from_numpy(np.load(self.tokens2)).long()
        inputs, cache = self.hooked_inputs(model, ids)
        with safe_open(out, "np") as f:
            meta = f.metadata()
            modules = json.loads(meta["modules"])
            attention = json.loads(meta["attention"])
            t = {k: f.get_tensor(k).astype(np.float64) for k in f.keys()}
        self.assertEqual(meta["format"], "quantscope-capture")
        self.assertEqual(list(modules), list(inputs))
        # The memory bound (docs/bridge.md "Memory bound"): the accumulators the result reports.
        bound = 0
        for prefix in {m["stats"] for m in modules.values()}:
            k = t[f"{prefix}.input_gram_diag"].shape[0]
            rows = t[f"{prefix}.input_sample"].shape[0]
            bound += 8 * k * k + 8 * k + rows * (4 * k + 8)
        for attn, a in attention.items():
            bound += 4 * a["head_dim"] * (2 * a["num_kv_heads"] * t[f"{attn}.k"].shape[1]
                                          + a["num_heads"] * t[f"{attn}.q"].shape[1])
        self.assertEqual(events[-1]["bytes_stats"], bound)
        for name, x in inputs.items():
            prefix = modules[name]["stats"]
            gram = x.T @ x / x.shape[0]
            rel = np.linalg.norm(t[f"{prefix}.input_gram"] - gram) / np.linalg.norm(gram)
            self.assertLess(rel, 1e-6, name)
            np.testing.assert_allclose(t[f"{prefix}.input_gram_diag"], np.diag(gram), rtol=1e-6)
            np.testing.assert_array_equal(t[f"{prefix}.input_min"], x.min(0).astype(np.float32))
            np.testing.assert_array_equal(t[f"{prefix}.input_max"], x.max(0).astype(np.float32))
            np.testing.assert_array_equal(t[f"{prefix}.input_absmax"],
                                          np.abs(x).max(0).astype(np.float32))
            sample = t[f"{prefix}.input_sample"]
            self.assertEqual(sample.shape, (16, x.shape[1]))
            for row in sample:  # every kept row is one of the inputs
                self.assertTrue((np.abs(x - row).max(1) == 0).any(), name)
        for i in range(5):
            layer = f"model.layers.{i}"
            for proj in ("q_proj", "k_proj", "v_proj"):
                self.assertEqual(modules[f"{layer}.self_attn.{proj}"]["stats"], f"{layer}.self_attn.q_proj")
            for proj in ("gate_proj", "up_proj"):
                self.assertEqual(modules[f"{layer}.mlp.{proj}"]["stats"], f"{layer}.mlp.gate_proj")
            for own in ("self_attn.o_proj", "mlp.down_proj"):
                self.assertEqual(modules[f"{layer}.{own}"]["stats"], f"{layer}.{own}")
            attn = f"{layer}.self_attn"
            self.assertEqual(attention[attn], {"layer": i, "num_heads": 8, "num_kv_heads": 4,
                                               "head_dim": 8, "rope": "post"})
            self.assertEqual(t[f"{attn}.k"].shape, (4, 100, 8))
            self.assertEqual(t[f"{attn}.v"].shape, (4, 100, 8))
            self.assertEqual(t[f"{attn}.q"].shape, (8, 20, 8))
            keys = torch.cat([cache.layers[i].keys[0], cache.layers[i].keys[1, :, :36]], 1)
            np.testing.assert_array_equal(t[f"{attn}.k"], keys.double().numpy())
            self.check_attention_output(t, attn, inputs[f"{attn}.o_proj"][:20])

    def check_attention_output(self, t, attn, o_input):
        """softmax(q kᵀ/√d) v from the stored post-RoPE q, k, v must give o_proj's input."""
        import numpy as np

        q, k, v = t[f"{attn}.q"], t[f"{attn}.k"][:, :20], t[f"{attn}.v"][:, :20]
        heads = []
        for h in range(8):
            s = q[h] @ k[h // 2].T / np.sqrt(8) + np.triu(np.full((20, 20), -np.inf), 1)
            p = np.exp(s - s.max(1, keepdims=True))
            heads.append(p / p.sum(1, keepdims=True) @ v[h // 2])
        np.testing.assert_allclose(np.concatenate(heads, 1), o_input, atol=1e-5)

    def test_cancel_leaves_no_file(self):
        import numpy as np

        many = self.dir / "many.npy"
        np.save(many, np.tile(np.load(TOKENS), (200, 1)))
        out = self.dir / "cancelled.safetensors"
        env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
        cmd = [sys.executable, "-m", "quantscope_bridge", "capture", str(STORIES), "--tokens",
               str(many), "--samples", "3200", "--batch", "1", "--out", str(out)]
        with subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) as proc:
            for line in proc.stdout:
                if json.loads(line)["event"] == "progress":
                    proc.send_signal(signal.SIGTERM)
                    break
            rest = proc.stdout.read()
            self.assertEqual(proc.wait(timeout=60), 130)
        self.assertEqual(json.loads(rest.splitlines()[-1]), {"event": "cancelled"})
        self.assertEqual([p.name for p in self.dir.iterdir() if p.name.startswith("cancelled")], [])

    # -- eval ------------------------------------------------------------------------------
    def test_eval_without_replace_is_exact(self):
        report = self.dir / "eval.json"
        rc, events = bridge("eval", str(STORIES), "--tokens", str(TOKENS), "--samples", "4",
                            "--out", str(report))
        self.assertEqual(rc, 0, events)
        result = events[-1]
        self.assertEqual(result["replaced"], [])
        self.assertEqual(result["kl"]["mean"], 0.0)
        self.assertEqual(result["top1"]["mean"], 1.0)
        self.assertEqual(result["reference"]["ppl"], result["quantized"]["ppl"])
        self.assertEqual(json.loads(report.read_text())["kl"], result["kl"])

    def test_eval_per_layer_isolates_the_perturbed_tensor(self):
        import torch
        from safetensors.torch import save_file

        model = self.load_model()
        state = model.state_dict()
        noise = torch.Generator().manual_seed(1)
        down = "model.layers.2.mlp.down_proj.weight"
        same = "model.layers.0.self_attn.q_proj.weight"
        replace = self.dir / "perturbed.safetensors"
        save_file({down: state[down] + 0.05 * torch.randn(state[down].shape, generator=noise),
                   same: state[same].to(torch.bfloat16).float()}, str(replace))
        rc, events = bridge("eval", str(STORIES), "--tokens", str(TOKENS), "--samples", "6",
                            "--replace", str(replace), "--per-layer", "--per-layer-samples", "3")
        self.assertEqual(rc, 0, events)
        result = events[-1]
        self.assertEqual(result["replaced"], [same, down])
        self.assertGreater(result["kl"]["mean"], 0)
        lo, hi = result["kl"]["ci95"]
        self.assertTrue(lo <= result["kl"]["mean"] <= hi)
        self.assertEqual(len(result["per_sample"]), 6)
        per_layer = {e["module"]: e["kl"] for e in result["per_layer"]}
        self.assertGreater(per_layer["model.layers.2.mlp.down_proj"], 0)
        # q_proj's replacement is its own BF16 rounding: tiny but not zero; down_proj dominates.
        self.assertLess(per_layer["model.layers.0.self_attn.q_proj"],
                        1e-3 * per_layer["model.layers.2.mlp.down_proj"])
        exact = self.dir / "exact.safetensors"
        save_file({down: state[down] + 0.05, same: state[same].clone()}, str(exact))
        rc, events = bridge("eval", str(STORIES), "--tokens", str(TOKENS), "--samples", "2",
                            "--replace", str(exact), "--per-layer")
        per_layer = {e["module"]: e["kl"] for e in events[-1]["per_layer"]}
        self.assertEqual(per_layer["model.layers.0.self_attn.q_proj"], 0.0)
        self.assertGreater(per_layer["model.layers.2.mlp.down_proj"], 0.0)

    # -- weights ---------------------------------------------------------------------------
    def test_weights_writes_each_tied_tensor_once(self):
        from safetensors import safe_open

        out = self.dir / "w.safetensors"
        rc, events = bridge("weights", str(STORIES), "--out", str(out))
        self.assertEqual(rc, 0, events)
        with safe_open(out, "np") as f:
            names = list(f.keys())
            self.assertEqual(f.metadata()["format"], "quantscope-weights")
        self.assertIn("model.embed_tokens.weight", names)
        self.assertNotIn("lm_head.weight", names)  # tied to the embedding
        self.assertEqual(events[-1]["tensors"], len(names))

    # -- errors ----------------------------------------------------------------------------
    def test_error_kinds(self):
        import numpy as np
        import torch
        from safetensors.torch import save_file

        run = ("capture", str(STORIES), "--out", str(self.dir / "never.safetensors"))
        missing = self.dir / "missing.npy"
        self.assert_error("input", *bridge(*run, "--tokens", str(missing)), str(missing))
        floats = self.dir / "floats.npy"
        np.save(floats, np.load(TOKENS).astype(np.float32))
        self.assert_error("input", *bridge(*run, "--tokens", str(floats)), "integer", str(floats))
        big = self.dir / "big.npy"
        np.save(big, np.full((2, 8), 512, dtype=np.int64))
        self.assert_error("input", *bridge(*run, "--tokens", str(big)), "512", "vocabulary")
        self.assert_error("tokenizer", *bridge(*run, "--text", str(TEXT)), "--tokens")
        self.assert_error("load", *bridge("capture", str(self.dir / "nomodel"), "--tokens",
                                          str(TOKENS), "--out", str(self.dir / "x")), "nomodel")
        name = "model.layers.0.mlp.down_proj.weight"
        wrong = self.dir / "wrong.safetensors"
        save_file({name: torch.zeros(172, 64)}, str(wrong))
        ev = ("eval", str(STORIES), "--tokens", str(TOKENS), "--samples", "1", "--replace")
        self.assert_error("shape", *bridge(*ev, str(wrong)), name, "[172, 64]", "[64, 172]")
        unknown = self.dir / "unknown.safetensors"
        save_file({"model.layers.9.mlp.down_proj.weight": torch.zeros(64, 172)}, str(unknown))
        self.assert_error("shape", *bridge(*ev, str(unknown)), "model.layers.9.mlp.down_proj.weight")
        self.assertFalse((self.dir / "never.safetensors").exists())


if __name__ == "__main__":
    unittest.main()
