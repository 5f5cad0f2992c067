#!/usr/bin/env python3
"""A CPU stand-in for kosan-clang++ in the campaign's tests.

The "source" of a program names its mutants in lines
`// fake-mutant: ID OPERATOR BEHAVIOUR`. With --kosan-mutate-list=FILE this
appends them to FILE as the plugin does (kosan-mutate list reads it); with
-o OUT it writes OUT, a Python program that behaves as the program, or the
mutant --kosan-mutate=ID names, would on a GPU:

  same     PASS, output bit-identical to the original's (an equivalent mutant)
  differs  PASS, but its output differs (the program's check misses it)
  fail     FAIL, exit status 1
  crash    killed by a signal
  hang     never ends
  slowonce runs past the timeout the first time it runs in its folder, then
           as `same` (a loaded machine)
  nobuild  the build fails

A line `// fake-reference: BEHAVIOUR` sets how the unmutated program
behaves (default `same`). Every invocation is appended to $FAKE_COMPILER_LOG, for the resume test.
"""

import json
import os
import re
import stat
import sys

PROGRAM = r'''#!/usr/bin/env python3
import os, signal, sys, time
behaviour = BEHAVIOUR
seed = int(sys.argv[1])
data = bytes((seed * 7 + i) % 256 for i in range(64))
if behaviour == "differs":
    data = data[:-1] + b"\x00"
with open(sys.argv[2], "wb") as f:
    f.write(data)
if behaviour == "fail":
    print(f"FAIL fake (seed {seed}): 1 of 64 over tolerance")
    sys.exit(1)
if behaviour == "crash":
    os.kill(os.getpid(), signal.SIGABRT)
if behaviour == "hang":
    time.sleep(3600)
if behaviour == "slowonce":
    marker = os.path.join(os.path.dirname(os.path.abspath(sys.argv[2])), "slow-once." + str(seed))
    if not os.path.exists(marker):
        open(marker, "w").close()
        time.sleep(3600)
print(f"PASS fake (seed {seed}): 64 elements")
'''


def main(argv):
    if os.environ.get("FAKE_COMPILER_LOG"):
        with open(os.environ["FAKE_COMPILER_LOG"], "a") as log:
            log.write(" ".join(argv) + "\n")
    out = listing = mutant = source = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-o":
            out, i = argv[i + 1], i + 1
        elif a.startswith("--kosan-mutate-list="):
            listing = a.split("=", 1)[1]
        elif a.startswith("--kosan-mutate="):
            mutant = a.split("=", 1)[1]
        elif a.endswith(".cu"):
            source = a
        i += 1
    mutants = {}
    with open(source) as f:
        for line_no, line in enumerate(f, 1):
            m = re.match(r"// fake-mutant: (\w+) (\S+) (\w+)", line)
            if m:
                mutants[m.group(1)] = (m.group(2), m.group(3), line_no)
    if listing:
        with open(listing, "a") as f:
            for mid, (op, behaviour, line_no) in mutants.items():
                f.write(json.dumps({"id": mid, "operator": op, "function": "k()", "file": source,
                                    "line": line_no, "column": 1,
                                    "description": f"fake mutant that does '{behaviour}'"}) + "\n")
    behaviour = "same"
    with open(source) as f:
        for line in f:
            m = re.match(r"// fake-reference: (\w+)", line)
            if m:
                behaviour = m.group(1)  # how the unmutated program behaves
    if mutant:
        if mutant not in mutants:
            print(f"kosan-clang++: error: no mutant '{mutant}' in this build's device code", file=sys.stderr)
            return 2
        behaviour = mutants[mutant][1]
        if behaviour == "nobuild":
            print("k.cu:1:1: error: the mutant does not compile", file=sys.stderr)
            return 1
    if out:
        with open(out, "w") as f:
            f.write(PROGRAM.replace("BEHAVIOUR", repr(behaviour)))
        os.chmod(out, os.stat(out).st_mode | stat.S_IXUSR)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
