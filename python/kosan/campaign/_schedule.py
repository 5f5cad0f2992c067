"""Where the campaign's steps run: a local pool (the default) or a Ray
cluster (--ray ADDRESS). Both take the functions of _work and their plain
arguments; builds run on CPUs, runs hold one GPU each (or a share of one)."""

from __future__ import annotations

import concurrent.futures as cf
import os
import queue

from ._work import CampaignError


class LocalScheduler:
    """Builds on `build_workers` threads (each drives a compiler process);
    runs on one worker per GPU slot, the slot's GPU given to the run."""

    name = "local"

    def __init__(self, build_workers: int, gpu_slots: list):
        self._builds = cf.ThreadPoolExecutor(max(1, build_workers))
        self._runs = cf.ThreadPoolExecutor(max(1, len(gpu_slots)))
        self._slots: queue.Queue = queue.Queue()
        for g in gpu_slots:
            self._slots.put(g)

    def build(self, fn, *args):
        return self._builds.submit(fn, *args)

    def run(self, fn, *args):
        return self._runs.submit(self._on_gpu, fn, *args)

    def _on_gpu(self, fn, *args):
        gpu = self._slots.get()
        try:
            return fn(*args, gpu)
        finally:
            self._slots.put(gpu)

    def wait(self, pending):
        done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
        return [(f, f.result()) for f in done]

    def close(self):
        self._builds.shutdown(cancel_futures=True)
        self._runs.shutdown(cancel_futures=True)


def _call(fn, *args):
    return fn(*args)


def _call_on_gpu(fn, *args):
    # Ray sets CUDA_VISIBLE_DEVICES for a task that holds GPUs.
    return fn(*args, None)


class RayScheduler:
    """Tasks on a Ray cluster. Every node needs kosan (its tools and this
    package) and sees the kernel set and the campaign's directory at the
    same paths (a shared filesystem)."""

    name = "ray"

    def __init__(self, address: str, gpu_share: float, python_path: str):
        try:
            import ray
        except ImportError:
            raise CampaignError("--ray needs Ray on this machine and the cluster's: "
                                "pip install 'ray[default]'") from None
        self._ray = ray
        env = {"PYTHONPATH": python_path + os.pathsep + os.environ.get("PYTHONPATH", "")}
        for name in ("KOSAN_BUILD_DIR", "KOSAN_CLANG", "CUDA_PATH", "PATH", "LD_LIBRARY_PATH"):
            if os.environ.get(name):
                env[name] = os.environ[name]
        if address == "local":
            ray.init(runtime_env={"env_vars": env}, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, runtime_env={"env_vars": env}, log_to_driver=False)
        self._build = ray.remote(num_cpus=1)(_call)
        self._run = ray.remote(num_cpus=1, num_gpus=gpu_share)(_call_on_gpu)

    def build(self, fn, *args):
        return self._build.remote(fn, *args)

    def run(self, fn, *args):
        return self._run.remote(fn, *args)

    def wait(self, pending):
        done, _ = self._ray.wait(list(pending), num_returns=1)
        return [(r, self._ray.get(r)) for r in done]

    def close(self):
        self._ray.shutdown()
