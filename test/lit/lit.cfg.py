# lit configuration for kosan's pass, plugin, driver and tool tests.
import os
import lit.formats

config.name = "kosan"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".cu", ".test", ".c", ".cpp"]
config.excludes = ["Inputs", "lit.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kosan_obj_root, "test", "lit")

bindir = os.path.join(config.kosan_obj_root, "bin")
# Test-only tools (kosan-make-trace): built with the tests, never installed.
testbindir = os.path.join(config.kosan_obj_root, "test", "bin")
config.environment["PATH"] = os.pathsep.join(
    [bindir, testbindir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# Keep the driver's CUDA shim cache inside the build tree.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "cache")
config.environment["HOME"] = os.environ.get("HOME", "/tmp")
# The runtime's code generator of clones kept as bitcode, for test tools that
# link the runtime's logic (kosan-deferred-dump) rather than libkosan_rt.so.
config.environment["KOSAN_CODEGEN"] = os.path.join(config.kosan_obj_root, "lib", "libkosan_codegen.so")
# The tests of minutes (the sweep of every source through every pass):
# KOSAN_LONG_TESTS=1, as CI runs them (./run test says how).
if os.environ.get("KOSAN_LONG_TESTS") == "1":
    config.available_features.add("long-tests")
# Debian's HIP headers (libamdhip64-dev): HIP sources compile for AMD GPUs.
if os.path.exists("/usr/include/hip/hip_runtime.h"):
    config.available_features.add("hip-headers")
for var in ("KOSAN_OPTIONS", "KOSAN_CHECKS", "CUDA_PATH", "CUDA_HOME", "KOSAN_CLANG", "KOSAN_CUDA_ARCH",
            "KOSAN_RUNTIME"):
    config.environment.pop(var, None)

# Longer names first: lit substitutes in order, and %kosan_plugin is a prefix.
config.substitutions.append(("%kosan_plugin_dir", os.path.dirname(os.path.abspath(config.plugin))))
config.substitutions.append(("%kosan_plugin", config.plugin))
# The device runtime as built, before the plugin embeds it.
config.substitutions.append(("%kosan_device_rt_amdgcn", os.path.join(
    config.kosan_obj_root, "runtime", "device", "kosan_device_amdgcn.bc")))
config.substitutions.append(("%kosan_device_rt", os.path.join(
    config.kosan_obj_root, "runtime", "device", "kosan_device_nvptx.bc")))
config.substitutions.append(("%opt", os.path.join(config.llvm_tools_dir, "opt")))
config.substitutions.append(("%clangxx", os.path.join(config.llvm_tools_dir, "clang++")))
config.substitutions.append(("%kosan_share", os.path.join(os.path.dirname(bindir), "share", "kosan")))
config.substitutions.append(("%kosan-clang\\+\\+", os.path.join(bindir, "kosan-clang++")))
config.substitutions.append(("%kosan-nvcc", os.path.join(bindir, "kosan-nvcc")))
config.substitutions.append(("%kosan-hipcc", os.path.join(bindir, "kosan-hipcc")))
config.substitutions.append(("%kosan-report", os.path.join(bindir, "kosan-report")))
config.substitutions.append(("%kosan-diff", os.path.join(bindir, "kosan-diff")))
config.substitutions.append(("%kosan-mutate", os.path.join(bindir, "kosan-mutate")))
config.substitutions.append(("%kosan-make-trace", os.path.join(testbindir, "kosan-make-trace")))
config.substitutions.append(("%kosan-fp", os.path.join(testbindir, "kosan-fp")))
config.substitutions.append(("%cuda_path", config.cuda_path))
config.substitutions.append(("%cuda_arch", config.cuda_arch))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))

# HIP for AMD GPUs (test/lit/hip): clang 19 compiles HIP with Debian's HIP
# headers (libamdhip64-dev) and ROCm device libraries (rocm-device-libs);
# kosan then has an amdgcn device runtime. Without them those tests are
# skipped, and lit says why.
hip_missing = [what for what, path in (
    ("libamdhip64-dev (/usr/include/hip/hip_runtime.h)", "/usr/include/hip/hip_runtime.h"),
    ("rocm-device-libs (%s/ocml.bc)" % config.rocm_device_lib_path,
     os.path.join(config.rocm_device_lib_path, "ocml.bc")),
) if not os.path.exists(path)]
if hip_missing:
    lit_config.note("HIP tests (test/lit/hip) are skipped: missing " + ", ".join(hip_missing))
else:
    config.available_features.add("hip-amd")
