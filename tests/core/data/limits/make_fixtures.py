#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The ZIP bomb fixtures of tests/core/io/test_resource_limits.cpp (standard library only).
bomb_ok.npz: one deflated array a.npy, F32 zeros of 5 Mi elements (20 MiB inflated from about
20 KiB: deflate's ratio of about 1000:1, honest sizes). bomb_understated.npz: the same bytes with
the stated uncompressed size patched to 1 MiB (it inflates past it). bomb_overstated.npz: stated
3 GiB from the same 20 KiB (more than deflate's largest ratio, 1032:1)."""
import io
import struct
import zipfile

n = 5 * 1024 * 1024
d = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
d += " " * (-(10 + len(d) + 1) % 64) + "\n"
npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() + bytes(4 * n)
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr("a.npy", npy)
ok = buf.getvalue()
open("bomb_ok.npz", "wb").write(ok)


def patched(size):
    b = bytearray(ok)
    assert b[0:4] == b"PK\x03\x04"
    struct.pack_into("<I", b, 22, size)  # local header: uncompressed size
    cd = b.rfind(b"PK\x01\x02")
    struct.pack_into("<I", b, cd + 24, size)  # central directory: uncompressed size
    return bytes(b)


open("bomb_understated.npz", "wb").write(patched(1 << 20))
open("bomb_overstated.npz", "wb").write(patched(3 << 30))
