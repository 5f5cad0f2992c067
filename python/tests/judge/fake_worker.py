"""A stand-in for kosan.judge._worker that needs no torch and no GPU: it
speaks the worker's protocol (JSON lines on the file descriptor it is
given) and acts out the scenario its candidate file names in a line
`SCENARIO = "..."`. The judge's tests run it in the worker's place."""
import json
import os
import re
import signal
import sys
import time

plan = json.load(open(sys.argv[1], encoding="utf-8"))
channel = os.fdopen(int(sys.argv[2]), "w", buffering=1)
scenario = re.search(r'^SCENARIO = "([a-z-]+)"', open(plan["candidate"]).read(), re.M).group(1)


def send(**event):
    channel.write(json.dumps(event) + "\n")
    channel.flush()


def output(**changes):
    o = {"index": 0, "dtype": "float32", "shape": [4, 8], "numel": 32, "atol": 1e-4,
         "rtol": 1e-4, "allclose": True, "outside": 0, "max_abs": 1e-7, "max_rel": 1e-6,
         "err_ref": 1e-7, "err_cand": 2e-7, "unwritten": 0, "nondeterministic": 0}
    o.update(changes)
    return o


print("stdout of the candidate, which the protocol never sees")
send(event="phase", phase="setup")
if scenario == "setup-error":
    send(event="error", stage="setup", message="torch sees no CUDA device")
    send(event="done")
    sys.exit(0)
send(event="start", torch="0.fake", device="Fake GPU", kosan=plan["kosan"], nvcc=None)
send(event="phase", phase="problem")
send(event="phase", phase="build")
if scenario == "build-error":
    send(event="error", stage="build", message="RuntimeError: Error building extension 'x'\n"
                                               "cuda.cu(3): error: identifier \"y\" is undefined")
    send(event="done")
    sys.exit(0)
if scenario == "slow-build":
    time.sleep(3)
send(event="built", seconds=0.5)
if scenario in ("oob", "order"):
    header = {"type": "header", "format": "kosan-trace", "version": 1, "kosan_version": "0.1.0",
              "pid": os.getpid(), "argv": ["python"], "start_time": "2024-05-01T12:00:00Z",
              "options": {}, "gpu_name": "Fake GPU", "gpu_arch": "sm_90",
              "driver_version": 12040, "runtime_version": 12040}
    site = {"file": "cuda.cu", "line": 12, "column": 9, "function": "k(float*, int)",
            "inlined_at": ""}

    def oob(kind, access, line):
        return {"type": "oob", "launch": 1, "kind": kind, "access": access, "size": 4,
                "count": 3, "site": dict(site, line=line), "site_id": line, "block": [0, 0, 0],
                "thread": [1, 0, 0], "address": "0x7f0000000fa0", "buffer_name": "out",
                "buffer_begin": "0x7f0000000000", "buffer_end": "0x7f0000000fa0", "pitch": 0,
                "row_bytes": 0, "allocated_at": "", "space": "global"}
    launch = {"type": "launch", "id": 1, "kernel": "k(float*, int)", "mangled": "_Z1kPfi",
              "module": 0, "grid": [1, 1, 1], "block": [32, 1, 1], "shared_bytes": 0,
              "stream": "0x0", "instrumented": True}
    if scenario == "oob":
        records = [header, launch,
                   oob("global-buffer-overflow", "WRITE", 12),
                   oob("heap-use-after-free", "READ", 13),
                   oob("use-of-uninitialized-value", "READ", 14),
                   oob("misaligned-access", "READ", 15),
                   {"type": "end", "launches": 1, "errors": 12, "reports": 4, "dropped": 0,
                    "unresolved_accesses": 0}]
    else:
        # What the runtime writes for a kernel whose float atomics from
        # several blocks meet at 256 locations of 'out' (checks=order), and
        # for a second launch whose atomics all came from one thread.
        def atomics(launch_id, count):
            return {"type": "order_atomics", "launch": launch_id, "arg": 1, "name": "out",
                    "dtype": "f32", "op": "fadd", "sites": ["cuda.cu:21:5"], "exact": True,
                    "count": count, "part": 0, "parts": 1, "bytes": 0, "encoding": "zstd+base64",
                    "data": ""}

        def summary(launch_id, dependent):
            return {"type": "order_summary", "launch": launch_id, "stores": 0, "atomics": 512,
                    "dropped_stores": 0, "dropped_atomics": 0, "ops": 0, "dropped_ops": 0,
                    "order_dependent_locations": dependent}
        records = [header, launch, atomics(1, 0), summary(1, 256),
                   dict(launch, id=2), atomics(2, 0), summary(2, 0),
                   {"type": "end", "launches": 2, "errors": 0, "reports": 0, "dropped": 0,
                    "unresolved_accesses": 0}]
        send(event="note", message="environment: KOSAN_CHECKS=" + os.environ.get("KOSAN_CHECKS", "")
             + " KOSAN_OPTIONS=" + os.environ.get("KOSAN_OPTIONS", ""))
    with open(plan["trace"], "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))

for trial in plan["trials"]:
    send(event="phase", phase="trial", **trial)
    send(event="phase", phase="reference", index=trial["index"])
    if scenario == "reference-crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if scenario == "odd-size-skipped" and not trial["own"] and trial["kind"] != "batch":
        send(event="skip", index=trial["index"], seed=trial["seed"], sizes=trial["sizes"],
             reason="the reference fails: RuntimeError: shape")
        continue
    send(event="phase", phase="candidate", index=trial["index"])
    if scenario == "crash":
        sys.stderr.write("Fatal Python error: Segmentation fault\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    if scenario == "hang":
        time.sleep(60)
    if scenario == "exit":
        sys.exit(3)
    if scenario == "cuda-error" and not trial["own"]:  # the first trial at other sizes
        send(event="error", stage="candidate", message="RuntimeError: CUDA error: an illegal "
             "memory access was encountered", trial={"seed": trial["seed"], "sizes": trial["sizes"]})
        send(event="done")
        sys.exit(0)
    o = output()
    modified = []
    if scenario == "bits-lost":
        o = output(err_cand=1e-3, max_rel=2e-3)
    elif scenario == "mismatch-odd-size" and not trial["own"]:
        o = output(allclose=False, outside=5, max_abs=0.5, max_rel=1.0)
    elif scenario == "unwritten":
        o = output(unwritten=3)
    elif scenario == "nondeterministic":
        o = output(nondeterministic=7)
    elif scenario == "batch-variant" and trial.get("kind") == "batch":
        o = output(batch_rows=1, batch_differs=8, ref_batch_differs=8)
    elif scenario == "inputs-modified":
        modified = [1]
    elif scenario == "nan-error":
        o = output(err_cand=float("inf"))
    send(event="trial", index=trial["index"], seed=trial["seed"], sizes=trial["sizes"],
         own=trial["own"], kind=trial["kind"], outputs=[o], shape_mismatch=None, inputs_modified=modified,
         kosan_errors=0, seconds=0.01)
send(event="done")
