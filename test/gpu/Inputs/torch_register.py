"""Registers two PyTorch tensors (neighbours in the caching allocator's
segment) with kosan through the Python package, then runs a kernel that
writes one element past the first: kosan names the tensor; without the
registration the overflow lands inside the segment and nothing sees it."""
import ctypes
import sys

import torch

import kosan

ext_path, register = sys.argv[1], sys.argv[2] == "register"
ext = ctypes.CDLL(ext_path)
ext.launch_add_one.argtypes = [ctypes.c_uint64, ctypes.c_int, ctypes.c_int]

n = 1024
a = torch.zeros(n, device="cuda")
b = torch.zeros(n, device="cuda")
if register:
    kosan.register_tensor(a, name="a", runtime=ext_path)
    kosan.register_tensor(b, name="b", runtime=ext_path)
status = ext.launch_add_one(a.data_ptr(), n, 1)
print(f"status {status}; b[0] = {b[0].item():.1f}")
