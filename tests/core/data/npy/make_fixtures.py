# SPDX-License-Identifier: MIT
# Regenerates the NumPy-written fixtures of test_npy.cpp / test_npz.cpp (numpy 2.x):
#   python3 make_fixtures.py
# Values are small closed forms so the C++ tests can recompute them independently.
import io
import zipfile

import numpy as np
from numpy.lib import format as npf

a34 = (np.arange(12, dtype=np.float32) * 0.5 - 2.0).reshape(3, 4)   # a[i,j] = 0.5*(4i+j) - 2
np.save("c_f4.npy", a34)
np.save("fortran_f8.npy", np.asfortranarray(a34.astype(np.float64)))
np.save("be_i2.npy", np.arange(-2, 3, dtype=">i2"))
np.save("be_f4_fortran.npy", np.asfortranarray(a34.astype(">f4")))
t234 = (np.arange(24, dtype=np.float32) - 12.0).reshape(2, 3, 4)   # t[b,s,k] = 12b+4s+k-12
np.save("fortran3d_f4.npy", np.asfortranarray(t234))
np.save("bool.npy", np.array([True, False, True]))
np.save("scalar_f2.npy", np.array(1.5, dtype=np.float16))
np.save("empty_f4.npy", np.zeros((0, 5), dtype=np.float32))
for v in [(2, 0), (3, 0)]:
    with open(f"v{v[0]}_u8.npy", "wb") as f:
        npf.write_array(f, np.arange(6, dtype=np.uint8).reshape(2, 3), version=v)
np.save("object.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
np.save("complex.npy", np.array([1 + 2j], dtype=np.complex64))
np.save("unicode.npy", np.array(["ab", "c"]))
np.save("structured.npy", np.zeros(2, dtype=[("x", "<f4"), ("y", "<i4")]))

np.savez("stored.npz", a=a34, t=t234)
np.savez_compressed("deflated.npz", a=a34, t=t234, b=np.arange(-2, 3, dtype=">i2"))

# Data-descriptor members: zipfile writes them when the output is not seekable.
class NoSeek(io.RawIOBase):
    def __init__(self, f):
        self.f = f
    def writable(self):
        return True
    def write(self, b):
        return self.f.write(b)
    def seekable(self):
        return False

with open("descriptor.npz", "wb") as raw:
    with zipfile.ZipFile(NoSeek(raw), "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, arr in [("a", a34), ("t", t234)]:
            with z.open(name + ".npy", "w", force_zip64=True) as fid:
                npf.write_array(fid, arr)
