#!/usr/bin/env python3
"""Runs the GPU lit suite, or tells ctest it was skipped (exit 77) and why."""
import shutil
import subprocess
import sys

lit, suite = sys.argv[1], sys.argv[2]
smi = shutil.which("nvidia-smi")
reason = None
if not smi:
    reason = "no NVIDIA driver on this machine (nvidia-smi not found)"
else:
    out = subprocess.run([smi, "-L"], capture_output=True, text=True)
    if out.returncode != 0 or "GPU" not in out.stdout:
        reason = "nvidia-smi lists no GPU"
if reason:
    print(f"SKIPPED: kosan GPU tests need an NVIDIA GPU: {reason}. "
          "The test programs were built; run them where a GPU is "
          "(see test/gpu/README.md).")
    sys.exit(77)
sys.exit(subprocess.run([sys.executable, lit, "-sv", suite]).returncode)
