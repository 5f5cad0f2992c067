#!/usr/bin/env bash
# bench/diff/run.sh: throughput and peak memory of kosan-diff on two traces of
# 10^8 elements (f32, then f16), plus f32 at 10^7 to show that memory does
# not grow with the traces. Writes bench/results/diff.md.
#
#   bench/diff/run.sh [--build-dir DIR] [--elements N] [--repeat R] [--no-profile]
#
# The traces (about 0.5 GB each for 10^8 f32) go to a temporary folder under
# $TMPDIR (default /tmp), one pair at a time, and are deleted afterwards.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${KOSAN_BUILD_DIR:-$ROOT/build}
ELEMENTS=100000000
REPEAT=3
PROFILE=1
OUT=$ROOT/bench/results/diff.md

while (($#)); do
  case $1 in
    --build-dir) BUILD_DIR=$2; shift 2 ;;
    --elements) ELEMENTS=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --no-profile) PROFILE=0; shift ;;
    --output) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--build-dir DIR] [--elements N] [--repeat R] [--no-profile] [--output FILE]" >&2; exit 2 ;;
  esac
done
ELEMENTS=$(awk -v n="$ELEMENTS" 'BEGIN { printf "%d", n }')  # accepts 1e8
SMALL=$((ELEMENTS / 10))

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
[[ -x /usr/bin/time ]] || { echo "$0: needs /usr/bin/time (Debian package 'time') for the CLI's peak RSS" >&2; exit 2; }

if [[ ! -f $BUILD_DIR/build.ninja && ! -f $BUILD_DIR/Makefile ]]; then
  say "configuring $BUILD_DIR"
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja >/dev/null
fi
say "building kosan_diff_bench and kosan-diff"
cmake --build "$BUILD_DIR" --target kosan_diff_bench kosan-diff >/dev/null
BENCH=$BUILD_DIR/bin/kosan_diff_bench
DIFF=$BUILD_DIR/bin/kosan-diff
BUILD_TYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$BUILD_DIR/CMakeCache.txt")
CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kosan-diff-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# KEY from the RESULT line of a bench output.
get() { grep '^RESULT ' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# kosan-diff under /usr/bin/time -v: "wall_s user_s sys_s maxrss_mib exit".
cli_run() {
  local ref=$1 cand=$2 log=$3 rc=0
  /usr/bin/time -v "$DIFF" -q "$ref" "$cand" >"$log.out" 2>"$log" || rc=$?
  awk -v rc="$rc" -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0
                               for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
    /User time/   { user = $2 }
    /System time/ { sys = $2 }
    /Maximum resident set size/ { rss = $2 / 1024 }
    END { printf "%.2f %.2f %.2f %.1f %d\n", wall, user, sys, rss, rc }' "$log"
}

# Profile of kosan-diff by component (perf, user and kernel samples).
profile() {
  local ref=$1 cand=$2 data=$TMP/perf.data
  perf record -q -F 1999 -o "$data" "$DIFF" -q "$ref" "$cand" >/dev/null 2>&1 || true
  perf report -i "$data" --no-children --sort dso,symbol --stdio 2>/dev/null |
    awk '/^ *[0-9.]+%/ {
      pct = $1; sub("%", "", pct)
      line = $0
      if (line ~ /compareSpan/) c = "element loop (compareSpan)"
      else if (line ~ /libzstd/) c = "zstd decompression (libzstd)"
      else if (line ~ /ChunkStream::next|base64Decode/) c = "base64 decode (inlined in ChunkStream::next)"
      else if (line ~ /scanChunkLine|LineReader/) c = "chunk-line scan, LineReader"
      else if (line ~ /memchr/) c = "memchr (finding line ends)"
      else if (line ~ /memmove|memcpy/) c = "memmove/memcpy (LineReader buffer, line copy)"
      else if (line ~ /memset/) c = "memset (zero-filling resized buffers)"
      else if (line ~ /\[kernel/ && line ~ /copy_to_iter|copy_user|filemap/) c = "kernel: read(2) copying from the page cache"
      else if (line ~ /\[kernel/ && line ~ /fault|clear_page|folio|page|mem_cgroup|memcg|lru|pte|pmd|vma|mas_/) c = "kernel: page faults, freeing pages"
      else if (line ~ /\[kernel/) c = "kernel: other"
      else c = "other"
      share[c] += pct
    }
    END { for (c in share) if (share[c] >= 0.05) printf "%.1f\t%s\n", share[c], c }' | sort -rn
}

declare -A CLI
run_case() {
  local dtype=$1 n=$2 prof=$3
  local dir=$TMP/$dtype-$n
  mkdir -p "$dir"
  say "kosan_diff_bench --dtype $dtype --elements $n"
  "$BENCH" --dtype "$dtype" --elements "$n" --dir "$dir" --repeat "$REPEAT" --keep \
    >"$TMP/$dtype-$n.md"
  say "kosan-diff (the CLI) under /usr/bin/time -v"
  CLI[$dtype-$n]=$(cli_run "$dir/ref-$dtype-$n.trace" "$dir/cand-$dtype-$n.trace" "$TMP/$dtype-$n.time")
  if [[ $prof == 1 ]] && ((PROFILE)) && command -v perf >/dev/null; then
    say "profiling kosan-diff (perf)"
    profile "$dir/ref-$dtype-$n.trace" "$dir/cand-$dtype-$n.trace" >"$TMP/$dtype-$n.profile"
  fi
  rm -rf "$dir"
}

run_case f32 "$ELEMENTS" 1
run_case f16 "$ELEMENTS" 0
run_case f32 "$SMALL" 0
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# The verdicts.
BIG=$TMP/f32-$ELEMENTS.md
HALF=$TMP/f16-$ELEMENTS.md
TENTH=$TMP/f32-$SMALL.md
read -r cli_wall cli_user cli_sys cli_rss cli_rc <<<"${CLI[f32-$ELEMENTS]}"
read -r h_wall h_user h_sys h_rss h_rc <<<"${CLI[f16-$ELEMENTS]}"
read -r s_wall s_user s_sys s_rss s_rc <<<"${CLI[f32-$SMALL]}"
for rc in "$cli_rc" "$h_rc" "$s_rc"; do
  [[ $rc == 1 ]] || { echo "kosan-diff exited $rc where 1 (different) was expected" >&2; exit 1; }
done
numeric_ok=$(( $(get numeric_target_met "$BIG") && $(get numeric_target_met "$HALF") ))
trace_mib=$(awk -v b="$(get ref_bytes "$BIG")" 'BEGIN { printf "%.0f", b / 1048576 }')
bounded=$(awk -v big="$cli_rss" -v small="$s_rss" -v t="$trace_mib" \
  'BEGIN { print (big <= small * 1.25 + 8 && big < t / 4) ? 1 : 0 }')
verdict() { (($1)) && echo "**met**" || echo "**NOT met**"; }

MODEL=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
CORES=$(nproc)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git -C "$ROOT" status --porcelain 2>/dev/null | grep -q . && echo ", working tree modified" || true)

{
  echo "# kosan-diff: throughput and peak memory"
  echo
  echo "- machine: $MODEL, $CORES cores ($(nproc --all) online), $(free -g | awk '/^Mem:/ {print $2}') GiB memory; load average before $LOAD_BEFORE, after $LOAD_AFTER"
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); kosan at $COMMIT$DIRTY; $("$CXX" --version | head -1), CMAKE_BUILD_TYPE=$BUILD_TYPE"
  echo "- traces in ${TMPDIR:-/tmp} (warm page cache: each pair is read right after it is written), deleted afterwards"
  echo
  echo "Reproduce:"
  echo
  echo '```'
  echo "bench/diff/run.sh --elements $ELEMENTS --repeat $REPEAT   # builds in build/ unless --build-dir DIR"
  echo "# one case by hand:"
  echo "$(basename "$BENCH") --dtype f32 --elements $ELEMENTS --dir /tmp/kd --repeat $REPEAT --keep"
  echo "/usr/bin/time -v kosan-diff -q /tmp/kd/ref-f32-$ELEMENTS.trace /tmp/kd/cand-f32-$ELEMENTS.trace"
  echo '```'
  echo
  echo "## Summary"
  echo
  echo "| measure | f32, $ELEMENTS | f16, $ELEMENTS | target |"
  echo "| --- | ---: | ---: | --- |"
  printf "| numeric comparison, elements/s per core | %s | %s | >= 1e8: %s |\n" \
    "$(get numeric_rate "$BIG")" "$(get numeric_rate "$HALF")" "$(verdict "$numeric_ok")"
  printf "| numeric comparison, bit-equal pair, elements/s per core | %s | %s | |\n" \
    "$(get numeric_same_rate "$BIG")" "$(get numeric_same_rate "$HALF")"
  printf "| diffTraces end to end, elements/s per core (CPU time) | %s | %s | |\n" \
    "$(get e2e_rate "$BIG")" "$(get e2e_rate "$HALF")"
  printf "| kosan-diff CLI: wall s (user + sys s), %s cores | %s (%s + %s) | %s (%s + %s) | |\n" \
    "$CORES" "$cli_wall" "$cli_user" "$cli_sys" "$h_wall" "$h_user" "$h_sys"
  printf "| kosan-diff CLI: elements/s of wall | %s | %s | |\n" \
    "$(awk -v n="$ELEMENTS" -v w="$cli_wall" 'BEGIN { printf "%.3g", n / w }')" \
    "$(awk -v n="$ELEMENTS" -v w="$h_wall" 'BEGIN { printf "%.3g", n / w }')"
  printf "| kosan-diff CLI: Maximum resident set size (time -v) | %s MiB | %s MiB | bounded: %s |\n" \
    "$cli_rss" "$h_rss" "$(verdict "$bounded")"
  printf "| one trace on disk | %s MiB | %s MiB | |\n" "$trace_mib" \
    "$(awk -v b="$(get ref_bytes "$HALF")" 'BEGIN { printf "%.0f", b / 1048576 }')"
  echo
  echo "Bounded memory: kosan-diff's peak RSS is $cli_rss MiB on two traces of $trace_mib MiB each"
  echo "($ELEMENTS f32 elements) and $s_rss MiB on traces ten times smaller ($SMALL elements):"
  if ((bounded)); then
    echo "it does not grow with the traces"
  else
    echo "it grows with the traces, or is not small beside them"
  fi
  echo "(criterion: at most 1.25x + 8 MiB of the small case, and under a quarter of one trace)."
  echo
  echo "What is measured (see the comment at the top of bench/diff/diff_bench.cpp): every phase runs"
  echo "in a forked child, pinned to one core but in the rows that say \"$CORES cores\", and is timed"
  echo "with CLOCK_PROCESS_CPUTIME_ID (all threads);"
  echo "peak RSS is the child's ru_maxrss. *stream* reads both traces as diffTraces does (readTrace,"
  echo "then SnapshotStream: line reading, chunk-line scan, base64, zstd) without comparing;"
  echo "*numeric comparison* is the CPU time of diffTraces minus that of *stream*: the element loop"
  echo "(decode to double, allclose, statistics) plus the handing of chunks to and from diffTraces'"
  echo "prefetch threads. diff.h has no in-memory entry point for the element loop, hence the"
  echo "difference. Elements per second count element pairs ($ELEMENTS per comparison). The"
  echo "candidate has half its elements one ULP off (within tolerance) and 0.1% planted over it;"
  echo "the benchmark fails unless diffTraces finds exactly the planted count."
  for f in "$BIG" "$HALF" "$TENTH"; do
    echo
    sed -e '/^RESULT /d' -e 's/^## /### /' "$f"
  done
  echo
  echo "### kosan-diff (the CLI) under /usr/bin/time -v"
  echo
  echo "| case | wall s | user s | sys s | Maximum resident set size MiB | exit |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  echo "| f32, $ELEMENTS | $cli_wall | $cli_user | $cli_sys | $cli_rss | $cli_rc |"
  echo "| f16, $ELEMENTS | $h_wall | $h_user | $h_sys | $h_rss | $h_rc |"
  echo "| f32, $SMALL | $s_wall | $s_user | $s_sys | $s_rss | $s_rc |"
  if [[ -s $TMP/f32-$ELEMENTS.profile ]]; then
    echo
    echo "## Where the time goes (kosan-diff, f32, $ELEMENTS; perf record -F 1999, all threads)"
    echo
    echo "| share of samples | component |"
    echo "| ---: | --- |"
    awk -F'\t' '{ printf "| %s%% | %s |\n", $1, $2 }' "$TMP/f32-$ELEMENTS.profile"
  fi
} >"$OUT"
say "wrote $OUT"
cat "$OUT"
