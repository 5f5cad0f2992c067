#!/usr/bin/env bash
# precision_false_alarms.sh: builds the correct public programs of
# bench/precision_programs.txt with the precision check compiled in
# (kosan-clang++ --kosan-checks=precision), runs each with
# KOSAN_OPTIONS=checks=precision, and prints per program the precision
# findings at the threshold (docs/precision.md): a correct program should
# have none. Needs a GPU, and kosan built.
#
# Usage: bench/precision_false_alarms.sh [options] SRC
#   SRC              folder holding cuda-samples/, llm.c/ and rodinia/
#   --kosan DIR      kosan's build folder (default: build/ of this checkout)
#   --out DIR        binaries, traces and logs (default: ./precision-false-alarms)
#   --threshold B    precision threshold in bits of fp32 (default: kosan's, 10)
#   --jobs N         builds, and runs, at once (default: the CPUs; runs: 4 at most)
#   --timeout S      seconds one build or run may take (default: 120 / 60)
#   --only "A B"     these programs only
#
# Prints a Markdown table (program | build | run | sites | findings | worst
# finding) and a total line; exit 0 when no program that ran has a finding,
# 1 otherwise, 2 on bad usage. Under 8 minutes on one H200 with 16 cores.
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
KOSAN_BUILD=$HERE/../build
OUT=$PWD/precision-false-alarms
THRESHOLD=
JOBS=$(nproc)
BUILD_TIMEOUT=120
RUN_TIMEOUT=60
ONLY=
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
SRC=
while [ $# -gt 0 ]; do
  case $1 in
    --kosan) KOSAN_BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --threshold) THRESHOLD=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --timeout) RUN_TIMEOUT=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "precision_false_alarms.sh: unknown option $1" >&2; usage ;;
    *) [ -z "$SRC" ] || usage; SRC=$1; shift ;;
  esac
done
[ -n "$SRC" ] || usage
[ -d "$SRC" ] || { echo "precision_false_alarms.sh: no folder $SRC" >&2; exit 2; }
SRC=$(cd "$SRC" && pwd)
KOSAN=$KOSAN_BUILD/bin/kosan-clang++
REPORT=$KOSAN_BUILD/bin/kosan-report
for t in "$KOSAN" "$REPORT"; do
  [ -x "$t" ] || { echo "precision_false_alarms.sh: $t not found (build kosan, or --kosan DIR)" >&2; exit 2; }
done
mkdir -p "$OUT"/bin "$OUT"/log "$OUT"/trace
export XDG_CACHE_HOME=$OUT/cache
LIST=$HERE/precision_programs.txt
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }

# One line per program: name, folder, sources, flags, libs, args (tab-separated).
programs() {
  while IFS='|' read -r n p d s fl libs args; do
    n=$(trim "$n"); case $n in ''|\#*) continue ;; esac
    if [ -n "$ONLY" ] && [[ " $ONLY " != *" $n "* ]]; then continue; fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$(trim "$p")" "$(trim "$d")" "$(trim "$s")" \
      "$(trim "$fl")" "$(trim "$libs")" "$(trim "$args")"
  done < "$LIST"
}

build_one() {
  IFS=$'\t' read -r n p d s fl libs args <<< "$1"
  local dir=$SRC/$p/$d inc=(-I"$SRC/$p/$d") srcs=() objs=()
  [ "$p" = cuda-samples ] && inc+=(-I"$SRC/cuda-samples/Common")
  # The programs' .cpp files include CUDA's headers, which nvcc puts on the
  # path of every source and clang only on that of .cu files.
  inc+=(-isystem "$CUDA_INCLUDE")
  [ "$fl" = - ] && fl=
  [ "$libs" = - ] && libs=
  for f in ${s//,/ }; do
    case $f in
      *.c) gcc -O2 -c "$dir/$f" -o "$OUT/bin/$n.${f%.c}.o" >> "$OUT/log/$n.build" 2>&1
           objs+=("$OUT/bin/$n.${f%.c}.o") ;;
      *) srcs+=("$dir/$f") ;;
    esac
  done
  (cd "$dir" && timeout "$BUILD_TIMEOUT" "$KOSAN" -O2 --cuda-gpu-arch=sm_90 --kosan-checks=precision \
     "${inc[@]}" $fl "${srcs[@]}" "${objs[@]}" $libs -o "$OUT/bin/$n") >> "$OUT/log/$n.build" 2>&1
  echo $? > "$OUT/log/$n.build.rc"
}

run_one() {
  IFS=$'\t' read -r n p d s fl libs args <<< "$1"
  [ "$args" = - ] && args=
  rm -f "$OUT/trace/$n.kosan"
  [ "$(cat "$OUT/log/$n.build.rc" 2>/dev/null)" = 0 ] || return 0
  local opts=checks=precision:trace=$OUT/trace/$n.kosan
  [ -n "$THRESHOLD" ] && opts=$opts:precision_threshold=$THRESHOLD
  (cd "$SRC/$p/$d" && KOSAN_OPTIONS=$opts timeout "$RUN_TIMEOUT" "$OUT/bin/$n" $args \
     > "$OUT/log/$n.out" 2> "$OUT/log/$n.err" < /dev/null)
  echo $? > "$OUT/log/$n.run.rc"
}
export -f build_one run_one trim
CUDA_INCLUDE=${CUDA_PATH:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}/include
export SRC OUT KOSAN BUILD_TIMEOUT RUN_TIMEOUT THRESHOLD CUDA_INCLUDE

start=$(date +%s)
programs | tr '\n' '\0' | xargs -0 -P "$JOBS" -I{} bash -c 'build_one "$1"' _ {}
built=$(date +%s)
RUNS=$(( JOBS < 4 ? JOBS : 4 ))
programs | tr '\n' '\0' | xargs -0 -P "$RUNS" -I{} bash -c 'run_one "$1"' _ {}
ran=$(date +%s)

echo "| program | build | run | sites | findings | worst finding |"
echo "| --- | --- | --- | --- | --- | --- |"
total=0 clean=0 dirty=0
report_args=()
[ -n "$THRESHOLD" ] && report_args+=(--precision-threshold "$THRESHOLD")
while IFS=$'\t' read -r n rest; do
  total=$((total + 1))
  brc=$(cat "$OUT/log/$n.build.rc" 2>/dev/null || echo -)
  if [ "$brc" != 0 ]; then
    echo "| $n | failed ($brc) | - | - | - | $(grep -m1 -E 'error' "$OUT/log/$n.build" | tr '|' '/' | cut -c1-100) |"
    continue
  fi
  rrc=$(cat "$OUT/log/$n.run.rc" 2>/dev/null || echo -)
  run=ok; [ "$rrc" = 0 ] || run="exit $rrc"; [ "$rrc" = 124 ] && run=timeout
  if [ ! -s "$OUT/trace/$n.kosan" ]; then
    echo "| $n | ok | $run | - | - | no trace |"
    continue
  fi
  row=$("$REPORT" --format json "${report_args[@]}" "$OUT/trace/$n.kosan" 2>/dev/null | python3 -c '
import json, sys
try:
    doc = json.load(sys.stdin)
except ValueError:
    print("-\t-\tunreadable trace"); sys.exit()
sites = doc.get("precision_sites", [])
found = [s for s in sites if s.get("finding")]
worst = ""
if found:
    s = found[0]
    where = "%s:%s" % (s["site"]["file"].split("/")[-1], s["site"]["line"])
    what = s["kind"] if s["kind"] != "nonfinite" else "NaN/Inf born"
    bits = s.get("scaled_bits")
    worst = "%s %s %s" % (where, what, "" if s["kind"] == "nonfinite" else "%s bits" % bits)
print("%d\t%d\t%s" % (len(sites), len(found), worst))')
  IFS=$'\t' read -r sites findings worst <<< "$row"
  echo "| $n | ok | $run | $sites | $findings | ${worst:--} |"
  if [ "$findings" = 0 ]; then clean=$((clean + 1)); else dirty=$((dirty + 1)); fi
done < <(programs)
echo
echo "$total programs: $clean ran without a finding, $dirty with findings, $((total - clean - dirty)) not built or without a trace; built in $((built - start)) s, ran in $((ran - built)) s"
[ "$dirty" = 0 ]
