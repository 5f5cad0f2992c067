"""Compiles every CUDA source under the given folders with kosan-clang++,
under each check set and -O level: device code only, to IR, so that kosan's
passes, its verification of what they changed and LLVM's verifier after
every pass (-Xclang -llvm-verify-each) run, and ptxas does not. Prints one block per
failed build with its diagnostics, then a summary; exits 1 if any failed.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys

# Sources that need more than the toolkit and kosan's headers.
EXTRA_FLAGS = {
    # An extern __device__ function defined in Inputs/rdc_device.cu.
    "oob_rdc.cu": ["-fgpu-rdc"],
    "rdc_device.cu": ["-fgpu-rdc"],
}
# torch's headers are not part of the build machine's toolchain.
SKIP = {"torch_ext.cu"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clangxx", required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("--checks", required=True, help="check sets, separated by ';'")
    ap.add_argument("--opts", required=True, help="-O levels, separated by ','")
    ap.add_argument("--out", required=True)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()

    sources = []
    for d in args.dirs:
        for root, _, files in os.walk(d):
            sources += [os.path.join(root, f) for f in files
                        if f.endswith(".cu") and f not in SKIP]
    sources.sort()
    builds = [(src, c, o) for src in sources for c in args.checks.split(";")
              for o in args.opts.split(",")]
    os.makedirs(args.out, exist_ok=True)

    def build(job):
        src, check, opt = job
        name = os.path.basename(src)
        out = os.path.join(args.out, "%s.%s%s.ll" % (name, check.replace(",", "+"), opt))
        # -llvm-verify-each: clang's -verify-each, the verifier after every
        # pass of the pipeline, kosan's included.
        cmd = [args.clangxx, "--kosan-checks=" + check, opt, "--cuda-device-only",
               "--cuda-gpu-arch=" + args.arch, "-S", "-emit-llvm",
               "-fverify-intermediate-code", "-Xclang", "-llvm-verify-each",
               src, "-o", out]
        for inc in args.include:
            cmd += ["-I", inc]
        cmd += EXTRA_FLAGS.get(name, [])
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if os.path.exists(out):
            os.remove(out)
        return job, r.returncode, r.stdout

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(min(4, os.cpu_count() or 1)) as pool:
        for (src, check, opt), rc, log in pool.map(build, builds):
            if rc != 0:
                failed += 1
                print("FAILED: kosan-clang++ --kosan-checks=%s %s %s (exit %d)"
                      % (check, opt, src, rc))
                print(log)
    print("sources: %d, builds: %d, failed: %d" % (len(sources), len(builds), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
