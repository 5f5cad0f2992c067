"""Runs a program N times under checks=order and compares each run's order
records with the first run's (kosan-diff --order).

usage: order_runs.py N PREFIX KOSAN_DIFF [KOSAN_OPTIONS-extra] -- PROGRAM ARGS...

Run i writes PREFIX<i>.kosan, PREFIX<i>.out and PREFIX<i>.err. Prints one line
per comparison and a summary line; exits 1 if a run or a diff fails to run.
"""
import os
import subprocess
import sys


def main():
    n, prefix, diff = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    sep = sys.argv.index("--")
    extra = sys.argv[4:sep]
    program = sys.argv[sep + 1:]
    options = ":".join(["checks=order"] + extra)
    verdicts = {"DETERMINISTIC": 0, "NONDETERMINISTIC": 0}
    for i in range(n):
        env = dict(os.environ, KOSAN_OPTIONS=f"{options}:trace={prefix}{i}.kosan")
        with open(f"{prefix}{i}.out", "w") as out, open(f"{prefix}{i}.err", "w") as err:
            rc = subprocess.run(program, env=env, stdout=out, stderr=err).returncode
        if rc != 0:
            print(f"run {i}: exit status {rc}")
            sys.exit(1)
        if i == 0:
            continue
        r = subprocess.run([diff, "--order", f"{prefix}0.kosan", f"{prefix}{i}.kosan"],
                           capture_output=True, text=True)
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip()
        if r.returncode == 0:
            verdicts["DETERMINISTIC"] += 1
        elif r.returncode == 1:
            verdicts["NONDETERMINISTIC"] += 1
        else:
            print(f"run {i}: kosan-diff failed: {last}")
            sys.exit(1)
        print(f"run {i} vs run 0: {last}")
    print(f"{n} runs; {n - 1} compared with run 0: {verdicts['DETERMINISTIC']} DETERMINISTIC, "
          f"{verdicts['NONDETERMINISTIC']} NONDETERMINISTIC")


if __name__ == "__main__":
    main()
