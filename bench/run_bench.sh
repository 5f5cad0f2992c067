#!/usr/bin/env bash
# Runs the kosan benchmark ON THE GPU MACHINE, from the repository root.
# Needs python3 (standard library), the GPU driver, and compute-sanitizer for
# the memcheck column; no compiler.
#
# usage: bench/run_bench.sh [-n N] [run_bench.py options...]
#
# The programs are built on the build machine (bench/README.md):
# .bench-bin/pack/public.tar.xz if present (unpacked to $TMPDIR/kosan-bench),
# else the folder .bench-bin/public; --bin-dir DIR overrides both.
# Results go to $OUT (default ./bench-out): bench.md, bench.json, logs/.
#
# Common options (see python3 bench/run_bench.py --help for all):
#   -n N                 runs of each variant (default 3)
#   --programs LIST      default | all | name,name,...
#   --no-memcheck        skip compute-sanitizer
#   --memcheck-runs K    compute-sanitizer runs per program (default 1)
#   --memcheck-timeout S per-run limit for compute-sanitizer (default 120)
#   --run-timeout S      per-run limit for the other variants (default 60)
#   --budget-s S / --hard-budget-s S   time guards (default 300 / 480)
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

OUTDIR=${OUT:-$PWD/bench-out}
BIN=
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --bin-dir) BIN=$2; shift 2 ;;
    --out) OUTDIR=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d;s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done

if [ -z "$BIN" ]; then
  if [ -f .bench-bin/pack/public.tar.xz ]; then
    dest=${TMPDIR:-/tmp}/kosan-bench
    rm -rf "$dest" && mkdir -p "$dest" || exit 1
    python3 - .bench-bin/pack/public.tar.xz "$dest" <<'EOF' || { echo "run_bench.sh: cannot unpack the programs" >&2; exit 1; }
import sys, tarfile
with tarfile.open(sys.argv[1], "r:xz") as t:
    try:
        t.extractall(sys.argv[2], filter="tar")
    except TypeError:  # Python < 3.12 without extraction filters
        t.extractall(sys.argv[2])
EOF
    BIN=$dest/public
  elif [ -f .bench-bin/public/programs.tsv ]; then
    BIN=.bench-bin/public
  else
    echo "run_bench.sh: no programs: carry .bench-bin/pack (see bench/README.md)" >&2
    exit 1
  fi
fi
[ -f "$BIN/programs.tsv" ] || { echo "run_bench.sh: $BIN/programs.tsv missing" >&2; exit 1; }

mkdir -p "$OUTDIR" || exit 1
echo "run_bench.sh: programs from $BIN, results in $OUTDIR"
exec python3 bench/run_bench.py --bin-dir "$BIN" --out "$OUTDIR" "${args[@]}"
