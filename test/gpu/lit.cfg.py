# lit configuration of the end-to-end GPU tests (built by CMake, run here).
import os
import shutil
import subprocess
import lit.formats

config.name = "kosan-gpu"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".hip", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kosan_obj_root, "test", "gpu")

# FileCheck and not: from LLVM where it is installed, else from PATH (a
# machine that runs the tests but has no LLVM carries its own).
paths = [os.path.join(config.kosan_obj_root, "bin"), config.llvm_tools_dir,
         config.environment.get("PATH", os.environ["PATH"])]
config.environment["PATH"] = os.pathsep.join(paths)
for var in ("LD_LIBRARY_PATH", "KOSAN_CLANG", "CUDA_HOME", "CUDA_PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment.pop("KOSAN_OPTIONS", None)
# kosan-clang++ keeps its CUDA shim in the cache; torch's build reads HOME.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "cache")
config.environment["HOME"] = os.environ.get("HOME", "/tmp")

def prints(command, text, timeout):
    """True when command runs, succeeds and prints text."""
    if not command[0]:
        return False
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except Exception:
        return False
    return out.returncode == 0 and text in out.stdout

if prints([shutil.which("nvidia-smi"), "-L"], "GPU", 30):
    config.available_features.add("gpu")
if prints(["python3", "-c", "import torch; print('torch')"], "torch", 120):
    config.available_features.add("torch")
# kosan can compile here (tests that build at run time, as torch extensions
# do): clang 19 is installed, or carried and named by KOSAN_CLANG.
clang = os.environ.get("KOSAN_CLANG") or shutil.which("clang++-19") or \
    ("/usr/lib/llvm-19/bin/clang++" if os.path.exists("/usr/lib/llvm-19/bin/clang++") else None)
if prints([clang, "--version"], "version 19", 60):
    config.available_features.add("kosan-compiler")
if shutil.which("compute-sanitizer"):
    config.available_features.add("compute-sanitizer")

config.substitutions.append(("%gpubin", config.gpu_bin))
config.substitutions.append(("%kosan-report", os.path.join(config.kosan_obj_root, "bin", "kosan-report")))
config.substitutions.append(("%kosan-diff", os.path.join(config.kosan_obj_root, "bin", "kosan-diff")))
config.substitutions.append(("%examples", os.path.join(config.kosan_obj_root, "examples")))
config.substitutions.append(("%srcroot", os.path.dirname(os.path.dirname(config.test_source_root))))
config.substitutions.append(("%kosan_build", config.kosan_obj_root))
config.substitutions.append(("%kosan-nvcc", os.path.join(config.kosan_obj_root, "bin", "kosan-nvcc")))
