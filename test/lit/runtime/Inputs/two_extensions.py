"""Loads two kosan-built libraries as Python loads extensions (RTLD_LOCAL)
and shows they share one kosan runtime: a range registered through the
first is known to the second."""
import ctypes
import sys

a = ctypes.CDLL(sys.argv[1])
b = ctypes.CDLL(sys.argv[2])
print("a registers [0x10000, +256):", a.a_register(0x10000, 256))
# Overlaps the range above partially: refused by the table that holds it.
print("b registers [0x10080, +256):", b.b_register(0x10080, 256))
print("b registers [0x20000, +256):", b.b_register(0x20000, 256))
