#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seed inputs of the fuzz targets (docs/reliability.md), standard library only: small valid
files of every layout the readers take, written into OUT/<target>/. make-corpora.sh adds the
files it takes from the demo, stories260K, the test fixtures and a scan.

Usage: make_seeds.py OUT [STORIES_DIR]
"""
import io
import json
import os
import struct
import sys
import zipfile

SEP = b"\n#QSFUZZ#\n"  # fuzz_quantized.cpp: config.json, this line, model.safetensors
MOD = "model.layers.0.mlp.down_proj"


def st_bytes(tensors, metadata=None):
    """safetensors bytes of [(name, dtype, shape, raw bytes)]."""
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def f32(*v):
    return struct.pack("<%df" % len(v), *v)


def i32(*v):
    return struct.pack("<%dI" % len(v), *v)


def i64(*v):
    return struct.pack("<%dq" % len(v), *v)


def bf16(*v):
    return b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", x))[0])[2:] for x in v)


def write(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def ct_config(weights, fmt="pack-quantized"):
    return {"model_type": "llama", "quantization_config": {
        "quant_method": "compressed-tensors", "format": fmt, "quantization_status": "compressed",
        "ignore": ["lm_head"], "config_groups": {"group_0": {
            "targets": ["Linear"], "weights": weights, "input_activations": None,
            "output_activations": None, "format": fmt}}}}


def quantized_seeds(out):
    """(name, config or None, safetensors bytes) of each layout the readers decode."""
    seeds = []
    words = [0x76543210, 0xFEDCBA98, 0x01234567, 0x89ABCDEF]
    seeds.append(("ct_int4_group", ct_config({"num_bits": 4, "type": "int", "symmetric": True,
                                              "group_size": 32, "strategy": "group"}),
                  st_bytes([(MOD + ".weight_packed", "I32", [1, 4], i32(*words)),
                            (MOD + ".weight_scale", "F32", [1, 1], f32(0.5)),
                            (MOD + ".weight_shape", "I64", [2], i64(1, 32))])))
    seeds.append(("ct_int4_asym_gidx", ct_config({"num_bits": 4, "type": "int", "symmetric": False,
                                                  "group_size": 16, "strategy": "group", "actorder": "group"}),
                  st_bytes([(MOD + ".weight_packed", "I32", [2, 4], i32(*(words + words))),
                            (MOD + ".weight_scale", "F32", [2, 2], f32(0.5, 1, 2, 4)),
                            (MOD + ".weight_zero_point", "I32", [1, 2], i32(0x88, 0x77)),
                            (MOD + ".weight_g_idx", "I32", [32], i32(*([0] * 16 + [1] * 16))),
                            (MOD + ".weight_shape", "I64", [2], i64(2, 32))])))
    seeds.append(("ct_int8_channel", ct_config({"num_bits": 8, "type": "int", "symmetric": True,
                                                "strategy": "channel"}, "int-quantized"),
                  st_bytes([(MOD + ".weight", "I8", [2, 4], bytes([1, 255, 127, 128, 0, 5, 6, 7])),
                            (MOD + ".weight_scale", "F32", [2, 1], f32(0.1, 0.2))])))
    seeds.append(("ct_fp8_block", ct_config({"num_bits": 8, "type": "float", "symmetric": True,
                                             "strategy": "block", "block_structure": [2, 2]}, "float-quantized"),
                  st_bytes([(MOD + ".weight", "F8_E4M3", [3, 4], bytes(range(0x30, 0x3C))),
                            (MOD + ".weight_scale", "F32", [2, 2], f32(1, 2, 4, 8))])))
    seeds.append(("ct_nvfp4", ct_config({"num_bits": 4, "type": "float", "symmetric": True, "group_size": 16,
                                         "strategy": "tensor_group", "scale_dtype": "torch.float8_e4m3fn"},
                                        "nvfp4-pack-quantized"),
                  st_bytes([(MOD + ".weight_packed", "U8", [1, 8], bytes([0x92] * 8)),
                            (MOD + ".weight_scale", "F8_E4M3", [1, 1], bytes([0x30])),
                            (MOD + ".weight_global_scale", "F32", [1], f32(2.0))])))
    seeds.append(("ct_mxfp4_noconfig", None,
                  st_bytes([(MOD + ".weight_packed", "U8", [2, 32], bytes(range(64))),
                            (MOD + ".weight_scale", "U8", [2, 2], bytes([127, 129, 120, 255]))])))
    seeds.append(("deepseek_fp8_block", {"quantization_config": {"quant_method": "fp8", "fmt": "e4m3",
                                                                 "activation_scheme": "dynamic",
                                                                 "weight_block_size": [1, 4]}},
                  st_bytes([(MOD + ".weight", "F8_E4M3", [3, 5], bytes(range(0x20, 0x2F))),
                            (MOD + ".weight_scale_inv", "F32", [3, 2], f32(0.5, 1.5, 2, 4, -1, 3))])))
    for method, word in (("order", 0x76543210), ("reorder", 0x75316420)):
        seeds.append(("quark_" + method, {"quantization_config": {
            "quant_method": "quark", "global_quant_config": {"weight": {
                "dtype": "int4", "qscheme": "per_channel", "ch_axis": 0, "symmetric": True}},
            "export": {"pack_method": method, "weight_format": "real_quantized"}}},
            st_bytes([(MOD + ".weight", "I32", [1, 1], i32(word)), (MOD + ".weight_scale", "F32", [1], f32(2.0))])))
    seeds.append(("quark_w4a8_two_stage", {"hidden_size": 16, "quantization_config": {
        "quant_method": "quark", "global_quant_config": {"weight": [
            {"dtype": "fp8_e4m3", "qscheme": "per_tensor", "symmetric": True},
            {"dtype": "int4", "qscheme": "per_channel", "ch_axis": 0, "symmetric": True}]},
        "export": {"pack_method": "reorder", "weight_format": "real_quantized"}}},
        st_bytes([(MOD + ".weight", "I32", [2, 2], i32(*words)),
                  (MOD + ".weight_scale", "F32", [], f32(0.25)),
                  (MOD + ".weight_scale_2", "F32", [2], f32(1.5, 3))])))
    for name, config, st in seeds:
        write(out, "quantized", name, (json.dumps(config).encode() + SEP if config else b"") + st)
        if config:
            write(out, "config", name + ".json", json.dumps(config, indent=1))


def safetensors_seeds(out, stories):
    all_dtypes = [("F32", f32(1, -2)), ("F16", struct.pack("<2e", 1, -2)), ("BF16", bf16(1, -2)),
                  ("F64", struct.pack("<2d", 1, -2)), ("I8", bytes([1, 254])), ("U8", bytes([1, 2])),
                  ("I16", struct.pack("<2h", 1, -2)), ("I32", i32(1, 2)), ("I64", i64(1, -2)),
                  ("BOOL", bytes([0, 1])), ("F8_E4M3", bytes([0x38, 0xB8])), ("F8_E5M2", bytes([0x3C, 0xBC]))]
    write(out, "safetensors", "dtypes", st_bytes([("t." + d, d, [2], raw) for d, raw in all_dtypes],
                                                {"format": "pt"}))
    write(out, "safetensors", "scalar_empty", st_bytes([("s", "F32", [], f32(3)), ("e", "F32", [0, 4], b"")]))
    write(out, "safetensors", "matrix", st_bytes([("w.weight", "F32", [2, 3], f32(1, 2, 3, 4, 5, 6)),
                                                  ("w.bias", "BF16", [3], bf16(0.5, -1, 2))]))
    if stories:
        # The three smallest tensors of stories260K, as they are stored.
        with open(os.path.join(stories, "model.safetensors"), "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(n))
            base = 8 + n
            items = sorted(((k, v) for k, v in header.items() if k != "__metadata__"),
                           key=lambda kv: kv[1]["data_offsets"][1] - kv[1]["data_offsets"][0])[:3]
            ts = []
            for k, v in items:
                f.seek(base + v["data_offsets"][0])
                ts.append((k, v["dtype"], v["shape"], f.read(v["data_offsets"][1] - v["data_offsets"][0])))
        write(out, "safetensors", "stories260K_subset", st_bytes(ts, header.get("__metadata__")))


def index_seeds(out):
    s1, s2 = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
    wm = {"model.embed.weight": s1, "model.layers.0.mlp.down_proj.weight": s2, "lm_head.weight": s2}
    write(out, "index", "valid.json", json.dumps({"metadata": {"total_size": 56}, "weight_map": wm}, indent=2))
    write(out, "index", "one_shard.json", json.dumps({"weight_map": {"lm_head.weight": s2}}))


def npy_bytes(descr, shape, raw, fortran=False, version=1):
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", "(" + "".join("%d, " % s for s in shape).rstrip(" ") + ")"
        if len(shape) != 1 else "(%d,)" % shape[0])
    pre = 10 if version == 1 else 12
    d += " " * (-(pre + len(d) + 1) % 64) + "\n"
    head = b"\x93NUMPY" + bytes([version, 0])
    head += struct.pack("<H" if version == 1 else "<I", len(d))
    return head + d.encode("latin1") + raw


def npz_seeds(out):
    a = npy_bytes("<f4", [2, 3], f32(1, 2, 3, 4, 5, 6))
    b = npy_bytes("|u1", [4], bytes([1, 2, 3, 4]))
    for name, method in (("stored", zipfile.ZIP_STORED), ("deflated", zipfile.ZIP_DEFLATED)):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", method) as z:
            z.writestr("a.npy", a)
            z.writestr("b.npy", b)
            z.writestr("notes.txt", b"not an array")
        write(out, "npz", "py_" + name + ".npz", buf.getvalue())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("a.npy", "w", force_zip64=True) as m:
            m.write(a)
    write(out, "npz", "py_zip64.npz", buf.getvalue())

    class Unseekable(io.RawIOBase):  # zipfile then writes data descriptors
        def __init__(self):
            self.b = bytearray()

        def writable(self):
            return True

        def write(self, x):
            self.b += x
            return len(x)

    u = Unseekable()
    with zipfile.ZipFile(u, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("a.npy", "w") as m:
            m.write(a)
        with z.open("b.npy", "w") as m:
            m.write(b)
    write(out, "npz", "py_descriptor.npz", bytes(u.b))
    write(out, "npy", "v1_f4.npy", a)
    write(out, "npy", "v2_u1.npy", npy_bytes("|u1", [4], bytes([1, 2, 3, 4]), version=2))
    write(out, "npy", "fortran_f8.npy", npy_bytes("<f8", [2, 2], struct.pack("<4d", 1, 2, 3, 4), fortran=True))
    write(out, "npy", "be_i4.npy", npy_bytes(">i4", [3], struct.pack(">3i", 1, -2, 3)))


def spec_and_recipe_seeds(out):
    methods = ["int", "fp8", "hqq", "milo", "mxfp4", "nvfp4", "progressive", "constopt", "hadamard"]
    for m in methods:
        write(out, "spec", m + ".json", json.dumps({"method": m}))
    write(out, "spec", "int_full.json", json.dumps({
        "method": "int", "bits": 3, "group": 64, "granularity": "group", "symmetric": False,
        "rounding": "half_even", "scale_dtype": "fp32", "axis": 0}))
    write(out, "spec", "fp8_channel.json", json.dumps({"method": "fp8", "granularity": "channel"}))
    recipe = {
        "quantscope_recipe": 1,
        "rules": [
            {"name": "attention 8 bit", "patterns": ["*self_attn.*"], "dialect": "fnmatch",
             "specs": [{"method": "int", "bits": 8}]},
            {"name": "experts", "patterns": ["model\\.layers\\.\\d+\\.mlp\\.experts\\..*"], "dialect": "re",
             "specs": [{"method": "int"}, {"method": "fp8"}],
             "overrides": {"model.layers.3.mlp.experts.0.down_proj": {"bits": 3}}},
            {"patterns": ["model.layers.0.mlp.down_proj"], "dialect": "exact", "specs": [{"method": "milo", "rank": 8}]}],
        "exclude": ["*lm_head", {"pattern": "model.norm", "dialect": "exact"}],
        "metadata": {"author": "seed"}}
    write(out, "recipe", "formats_md_example.json", json.dumps(recipe, indent=2))
    write(out, "recipe", "default.json", json.dumps({"quantscope_recipe": 1, "rules": [
        {"patterns": ["*"], "specs": [{"method": "int"}]}]}))


def main():
    out = sys.argv[1]
    stories = sys.argv[2] if len(sys.argv) > 2 and os.path.isdir(sys.argv[2]) else None
    quantized_seeds(out)
    safetensors_seeds(out, stories)
    index_seeds(out)
    npz_seeds(out)
    spec_and_recipe_seeds(out)


if __name__ == "__main__":
    main()
