"""`kosan campaign`: mutation analysis of a set of CUDA programs (docs/mutate.md).

For each program of a kernel set (a directory of self-checking CUDA
programs: `PROG SEED OUTPUT` prints PASS or FAIL, exits 0 or 1 and writes
its output's bytes), the campaign lists the mutants kosan's plugin makes
(`kosan-mutate list`), builds each one twice with kosan-clang++
(`--kosan-mutate=ID`, plain and with kosan's checks), runs reference and
mutant on several input draws, and judges each mutant with each oracle:

- ``own``: the program's own check (its exit status and PASS line; a crash
  or a hang fails it too), run from the plain build;
- ``kosan``: kosan's verdict from the instrumented build, and which part of
  it fired: ``memory`` (out-of-bounds, use-after-free, uninitialized reads
  in kosan-report), ``race`` (shared-memory data races, checks=race),
  ``diff`` (kosan-diff against the unmutated program's
  trace of the same draw), ``precision`` (bits lost beyond the
  reference's), ``order`` (fingerprints that differ from the reference's
  where the reference is deterministic), ``crash`` (no complete run).

A mutant is likely equivalent when over all draws its output is
bit-identical to the reference's and no oracle fired. Results go to an
SQLite file, so that a stopped campaign resumes where it was.
"""

from ._cli import main

__all__ = ["main"]
