"""What kosan.torch.enable() costs a PyTorch model that has no kosan-built
kernel in it: the forward pass of a torch.nn transformer block, with
PyTorch's caching allocator alone and with kosan's tracker attached (every
allocation and free registered with kosan's runtime), side by side in one
run. Also runs the block with expandable segments and replays it from a
CUDA graph with the tracker attached, to show both still work.

    python3 bench/torch_tracker_cost.py [--iters N] [--rounds R]

Each variant runs in a fresh process; per round it times N forwards with
CUDA events after a warm-up, and the best round counts. Prints the times
and the ratio enabled/plain.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKER = r"""
import json, sys, torch
enable, iters, rounds, graph = sys.argv[1] == "1", int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
info = {}
if enable:
    import kosan.torch
    state = kosan.torch.enable()
    info["tracker"] = True
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096,
                                         batch_first=True, device="cuda", dtype=torch.float16).eval()
x = torch.randn(16, 512, 1024, device="cuda", dtype=torch.float16)
with torch.inference_mode():
    for _ in range(10):
        y = layer(x)
    torch.cuda.synchronize()
    best = None
    for _ in range(rounds):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            y = layer(x)
        end.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(end) / iters
        best = ms if best is None else min(best, ms)
    info["ms"] = best
    if graph:
        g = torch.cuda.CUDAGraph()
        static_x = x.clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                layer(static_x)
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            static_y = layer(static_x)
        g.replay()
        torch.cuda.synchronize()
        info["graph_matches"] = bool(torch.allclose(static_y, layer(static_x), atol=1e-2, rtol=1e-2))
if enable:
    info["tracker_counts"] = state["tracker"].counts()
    info["kosan_errors"] = kosan.torch.flush()
print(json.dumps(info))
"""


def run(enable: bool, iters: int, rounds: int, expandable: bool, graph: bool) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    if expandable:
        env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    out = subprocess.run([sys.executable, "-c", WORKER, "1" if enable else "0", str(iters),
                          str(rounds), "1" if graph else "0"],
                         env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"worker failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import torch  # noqa: F401  (the card's name)
    print(f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}")
    print("transformer encoder layer, d_model 1024, 16 heads, ffn 4096, fp16, batch 16 x 512")
    rows = []
    for expandable in (False, True):
        plain = run(False, args.iters, args.rounds, expandable, False)
        tracked = run(True, args.iters, args.rounds, expandable, True)
        ratio = tracked["ms"] / plain["ms"]
        label = "expandable segments" if expandable else "default allocator"
        rows.append(ratio)
        print(f"{label:20s} plain {plain['ms']:.3f} ms  kosan.torch.enable() {tracked['ms']:.3f} ms"
              f"  ratio {ratio:.3f}x  (tracker registered/refused {tracked['tracker_counts']},"
              f" graph replay matches: {tracked.get('graph_matches')}, kosan errors {tracked['kosan_errors']})")
    print(f"worst ratio {max(rows):.3f}x")


if __name__ == "__main__":
    main()
