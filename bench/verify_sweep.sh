#!/usr/bin/env bash
# verify_sweep.sh: compiles the device side of every CUDA source (.cu) under
# the given folders with kosan's passes, at each -O level, with LLVM's
# verifier after every pass of clang's pipeline (-Xclang -llvm-verify-each,
# clang's name for opt's -verify-each), and says per file and level whether
# kosan's build is ok, or fails the verifier, crashes, or fails to compile.
# A kosan build that fails is built again with --kosan-plain (the same
# compiler, headers and compatibility layer, no instrumentation), so that the
# program's own errors (headers missing, code clang rejects) are told from
# kosan's.
#
# Usage: bench/verify_sweep.sh [options] DIR...
#   --kosan PATH     kosan-clang++ (default: $KOSAN_CLANGXX, else build/bin/ of this checkout)
#   --checks LIST    checks compiled in (default: oob,precision,order-ops: every check)
#   --opts "L..."    -O levels (default: "-O0 -O2")
#   --arch SM        GPU architecture (default: sm_90)
#   --jobs N         compiles at once (default: 1)
#   --timeout S      seconds a compile may take (default: 900)
#   --out DIR        logs and results.tsv (default: ./verify-sweep)
#   -I DIR           an include folder for every source (repeatable); each
#                    source's own folder and its parent are always searched
#   --std STD        the C++ standard (default: c++17)
#   --flags "F..."   further flags for every build, kosan's and plain
#                    (e.g. -DcudaThreadSynchronize=cudaDeviceSynchronize for
#                    programs older than CUDA 13)
#
# Writes DIR/results.tsv (file, level, status, seconds of kosan's build,
# seconds of the plain one when it ran, first error line) and prints a
# Markdown summary. Exit 0 when no build has a kosan failure (crash, verifier
# failure, timeout or kosan-only error), 1 otherwise, 2 on bad usage.
# Statuses:
#   ok               kosan's build succeeded
#   verifier         kosan's build failed the IR verifier; the plain one did not
#   crash            kosan's build crashed (a signal, or clang's crash report); the plain one did not
#   timeout          kosan's build ran past --timeout; the plain one did not
#   kosan-error      kosan's build failed otherwise; the plain one succeeded
#   program-error    the plain build fails too: the program's own (or clang's) trouble
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
KOSAN=${KOSAN_CLANGXX:-$HERE/../build/bin/kosan-clang++}
CHECKS=oob,precision,order-ops
OPTS="-O0 -O2"
ARCH=sm_90
JOBS=1
TIMEOUT=900
OUT=$PWD/verify-sweep
STD=c++17
FLAGS=
INCLUDES=()
DIRS=()

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --kosan) KOSAN=$2; shift 2 ;;
    --checks) CHECKS=$2; shift 2 ;;
    --opts) OPTS=$2; shift 2 ;;
    --arch) ARCH=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --std) STD=$2; shift 2 ;;
    --flags) FLAGS=$2; shift 2 ;;
    -I) INCLUDES+=("-I$(cd "$2" && pwd)"); shift 2 ;;
    -I*) INCLUDES+=("-I$(cd "${1#-I}" && pwd)"); shift ;;
    -h|--help) usage ;;
    -*) echo "verify_sweep.sh: unknown option '$1'" >&2; usage ;;
    *) DIRS+=("$(cd "$1" && pwd)") || exit 2; shift ;;
  esac
done
[ ${#DIRS[@]} -gt 0 ] || usage
if [ ! -x "$KOSAN" ]; then
  echo "verify_sweep.sh: kosan-clang++ not found at $KOSAN (build kosan, or pass --kosan)" >&2
  exit 2
fi
KOSAN=$(cd "$(dirname "$KOSAN")" && pwd)/$(basename "$KOSAN")
mkdir -p "$OUT/logs" "$OUT/obj"
OUT=$(cd "$OUT" && pwd)
: > "$OUT/results.tsv"
# The CUDA shim kosan-clang++ makes for CUDA 13, kept with the results.
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$OUT/cache}

# One source at one level: prints
# "file<TAB>level<TAB>status<TAB>seconds<TAB>plain seconds<TAB>error".
sweep_one() {
  local src=$1 opt=$2 name dir log plainlog obj rc prc status t0 t1 t2 err plaintime=
  dir=$(dirname "$src")
  name=$(printf '%s' "${src#/}" | tr '/' '_')$opt
  log=$OUT/logs/$name.kosan.log
  plainlog=$OUT/logs/$name.plain.log
  obj=$OUT/obj/$name.o
  local common=("$opt" --cuda-device-only "--cuda-gpu-arch=$ARCH" -c
                -Xclang -llvm-verify-each "-std=$STD" $FLAGS -I"$dir" -I"$(dirname "$dir")"
                "${INCLUDES[@]}" "$src" -o "$obj")
  t0=$(date +%s.%N)
  (cd "$dir" && exec timeout -k 10 "$TIMEOUT" "$KOSAN" "--kosan-checks=$CHECKS" "${common[@]}") \
    > "$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  rm -f "$obj"
  if [ $rc = 0 ]; then
    status=ok
    err=
  else
    (cd "$dir" && exec timeout -k 10 "$TIMEOUT" "$KOSAN" --kosan-plain "${common[@]}") \
      > "$plainlog" 2>&1
    prc=$?
    t2=$(date +%s.%N)
    plaintime=$(printf '%.1f' "$(echo "$t2 - $t1" | bc)")
    rm -f "$obj"
    if [ $prc != 0 ]; then
      status=program-error
    elif [ $rc = 124 ] || [ $rc = 137 ]; then
      status=timeout
    elif grep -q -E 'kosan produced (invalid IR|an invalid module)|Broken module found|Broken function found|verification failed|does not dominate all uses' "$log"; then
      status=verifier
    elif [ $rc -ge 128 ] || grep -q -E 'PLEASE submit a bug report|Stack dump:|LLVM ERROR' "$log"; then
      status=crash
    else
      status=kosan-error
    fi
    err=$(grep -m1 -E 'error|Error|ERROR|PLEASE|Broken' "$log" | cut -c1-300 | tr '\t' ' ')
  fi
  printf '%s\t%s\t%s\t%.1f\t%s\t%s\n' "$src" "$opt" "$status" \
    "$(echo "$t1 - $t0" | bc)" "$plaintime" "$err"
}
export -f sweep_one
export KOSAN CHECKS ARCH TIMEOUT OUT STD FLAGS
# Arrays do not cross export: the includes travel as one newline-joined string.
INCLUDES_JOINED=
for inc in "${INCLUDES[@]+"${INCLUDES[@]}"}"; do INCLUDES_JOINED+=$inc$'\n'; done
export INCLUDES_JOINED

JOBS_FILE=$OUT/jobs.txt
: > "$JOBS_FILE"
while IFS= read -r -d '' src; do
  for opt in $OPTS; do
    printf '%s\t%s\n' "$src" "$opt" >> "$JOBS_FILE"
  done
done < <(find "${DIRS[@]}" -name '*.cu' -type f -print0 | sort -z)
TOTAL=$(wc -l < "$JOBS_FILE")
echo "verify_sweep.sh: $TOTAL builds ($(cut -f1 "$JOBS_FILE" | sort -u | wc -l) sources x levels: $OPTS), checks $CHECKS, $JOBS at once; results in $OUT/results.tsv" >&2

START=$(date +%s)
tr '\t' '\n' < "$JOBS_FILE" | xargs -d '\n' -n 2 -P "$JOBS" bash -c '
  mapfile -t INCLUDES < <(printf "%s" "$INCLUDES_JOINED")
  sweep_one "$1" "$2" >> "$OUT/results.tsv"' sweep
END=$(date +%s)

# The summary, in Markdown.
{
  echo "| level | sources | ok | verifier | crash | timeout | kosan-error | program-error |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  for opt in $OPTS; do
    awk -F'\t' -v o="$opt" '$2 == o { n++; c[$3]++ }
      END { printf "| %s | %d | %d | %d | %d | %d | %d | %d |\n", o, n, c["ok"], c["verifier"],
            c["crash"], c["timeout"], c["kosan-error"], c["program-error"] }' "$OUT/results.tsv"
  done
  echo
  echo "Wall time: $((END - START)) s for $TOTAL builds."
  if awk -F'\t' '$3 != "ok" && $3 != "program-error" { found = 1 } END { exit !found }' "$OUT/results.tsv"; then
    echo
    echo "kosan failures:"
    echo
    awk -F'\t' '$3 != "ok" && $3 != "program-error" {
      printf "- %s %s: %s (%s s; plain %s s): %s\n", $1, $2, $3, $4, $5, $6 }' \
      "$OUT/results.tsv" | sort
    exit 1
  fi
}
