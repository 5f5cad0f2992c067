#!/usr/bin/env bash
# Builds the benchmark programs of bench/public_programs.txt twice with
# kosan-clang++: instrumented (NAME) and plain (NAME.plain, --kosan-plain),
# measures the wall time of every compile, and packs what the GPU machine
# needs into one archive.
#
# usage: bench/build_public.sh [options]
#   --samples DIR     cuda-samples checkout (Common/ and Samples/);
#                     default: <repo>/.bench-src/cuda-samples
#   --mirror GITDIR   extract cuda-samples (HEAD) from this bare git dir into
#                     --samples first, when --samples does not exist yet
#   --out DIR         output folder; default: <repo>/.bench-bin/public
#   --driver PATH     kosan-clang++; default: <repo>/build/bin/kosan-clang++
#   --arch ARCH       GPU architecture; default: sm_90
#   --programs LIST   comma-separated names, or "all" (default: all)
#   --compile-reps R  compile each build R times, instrumented and plain
#                     interleaved, and keep the median (default: 1)
#   --no-pack         do not write <out>/../pack/<basename of out>.tar.xz
#
# Results in --out:
#   NAME, NAME.plain      the binaries
#   logs/NAME.{instr,plain}.log    compiler output
#   compile_times.tsv     name, status, instrumented s, plain s, ratio
#   compile.md            the same as a markdown table, with the geometric mean
#   programs.tsv          the programs that built, with their run arguments and
#                         kernel-time regex (read by bench/run_bench.py)
#   build_info.txt        cuda-samples commit, driver, flags, host, load
# and <out>/../pack/public.tar.xz (by default .bench-bin/pack/public.tar.xz),
# the folder packed: xz compresses the statically linked binaries about 17x,
# since they share the CUDA runtime and the kosan runtime. Carry the folder
# .bench-bin/pack to the GPU machine; bench/run_bench.sh unpacks it there.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SAMPLES=$ROOT/.bench-src/cuda-samples
MIRROR=
OUTDIR=$ROOT/.bench-bin/public
DRIVER=$ROOT/build/bin/kosan-clang++
ARCH=sm_90
PROGRAMS=all
REPS=1
PACK=1
LIST=$ROOT/bench/public_programs.txt

while [ $# -gt 0 ]; do
  case $1 in
    --samples) SAMPLES=$2; shift 2 ;;
    --mirror) MIRROR=$2; shift 2 ;;
    --out) OUTDIR=$2; shift 2 ;;
    --driver) DRIVER=$2; shift 2 ;;
    --arch) ARCH=$2; shift 2 ;;
    --programs) PROGRAMS=$2; shift 2 ;;
    --compile-reps) REPS=$2; shift 2 ;;
    --no-pack) PACK=0; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d;s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build_public.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

die() { echo "build_public.sh: $*" >&2; exit 1; }

if [ ! -d "$SAMPLES/Samples" ]; then
  [ -n "$MIRROR" ] || die "no cuda-samples at $SAMPLES (give --samples DIR, or --mirror GITDIR to extract one)"
  echo "extracting cuda-samples from $MIRROR into $SAMPLES"
  mkdir -p "$SAMPLES" || exit 1
  idx=$(mktemp)
  # Only the text files: some binary files of the snapshot may be absent.
  git --git-dir="$MIRROR" ls-tree -r --name-only HEAD Common Samples |
    grep -E '\.(cu|cuh|h|hpp|c|cpp|inc|txt|md)$' | tr '\n' '\0' |
    GIT_INDEX_FILE=$idx sh -c 'git --git-dir="$1" read-tree HEAD &&
      git --git-dir="$1" checkout-index -z --stdin --prefix="$2/"' sh "$MIRROR" "$SAMPLES" ||
    die "extraction failed"
  rm -f "$idx"
  git --git-dir="$MIRROR" log -1 --format=%H > "$SAMPLES/COMMIT"
fi
SAMPLES=$(cd "$SAMPLES" && pwd)
[ -x "$DRIVER" ] || die "no kosan-clang++ at $DRIVER (build the project first)"
command -v python3 > /dev/null || die "python3 is needed"

COMMIT=unknown
if [ -f "$SAMPLES/COMMIT" ]; then COMMIT=$(cat "$SAMPLES/COMMIT")
elif git -C "$SAMPLES" rev-parse HEAD > /dev/null 2>&1; then COMMIT=$(git -C "$SAMPLES" rev-parse HEAD)
fi

mkdir -p "$OUTDIR/logs" || exit 1
OUTDIR=$(cd "$OUTDIR" && pwd)
# A private cache for the driver's CUDA shim, so that nothing else that
# clears ~/.cache can pull it away in the middle of a build.
XDG_CACHE_HOME=$(dirname "$OUTDIR")/cache
export XDG_CACHE_HOME
mkdir -p "$XDG_CACHE_HOME"

COMMON=(-O3 "--cuda-gpu-arch=$ARCH" "-I$SAMPLES/Common")
HOSTMINMAX=(-include "$ROOT/bench/compat/host_minmax.h")

now() { date +%s.%N; }

# compile VARIANT NAME OUTPUT ARGS... -> prints the seconds; log in logs/
compile() {
  local variant=$1 name=$2 out=$3; shift 3
  local log=$OUTDIR/logs/$name.$variant.log t0 t1 rc
  t0=$(now)
  "$DRIVER" "$@" -o "$out" > "$log" 2>&1
  rc=$?
  t1=$(now)
  echo "$rc $(python3 -c "print(f'{$t1-$t0:.3f}')")"
}

median() { python3 -c 'import statistics,sys; print(f"{statistics.median(float(x) for x in sys.argv[1:]):.3f}")' "$@"; }

# Warm the shim, the page cache and the driver once, untimed.
warm=$(mktemp -d)
printf '__global__ void k(int *p) { p[threadIdx.x] = 1; }\nint main() { return 0; }\n' > "$warm/w.cu"
"$DRIVER" "${COMMON[@]}" "$warm/w.cu" -o "$warm/w" > "$warm/log" 2>&1 ||
  { cat "$warm/log" >&2; die "the driver cannot build a trivial program"; }
"$DRIVER" --kosan-plain "${COMMON[@]}" "$warm/w.cu" -o "$warm/w" > /dev/null 2>&1
rm -rf "$warm"

{
  echo "cuda-samples commit: $COMMIT"
  echo "cuda-samples dir: $SAMPLES"
  echo "driver: $DRIVER"
  echo "kosan commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null) (working tree may differ)"
  echo "flags: ${COMMON[*]} [+ extra flags of the program] [+ --kosan-plain]"
  echo "compile reps: $REPS (median)"
  echo "host: $(uname -n), $(nproc) cpus, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "date: $(date -u +%FT%TZ)"
} > "$OUTDIR/build_info.txt"

printf 'name\tstatus\tinstr_s\tplain_s\tratio\tfirst_error\n' > "$OUTDIR/compile_times.tsv"
printf 'name\tdefault\targs\tkernel_re\tkernel_unit\n' > "$OUTDIR/programs.tsv"
built=() failed=()

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }

while IFS= read -r line; do
  case $line in ''|'#'*) continue ;; esac
  IFS='|' read -r f_name f_dir f_srcs f_flags f_args f_re f_unit f_def <<< "$line"
  name=$(trim "$f_name"); dir=$(trim "$f_dir"); srcs=$(trim "$f_srcs")
  flags=$(trim "$f_flags"); args=$(trim "$f_args"); re=$(trim "$f_re")
  unit=$(trim "$f_unit"); def=$(trim "$f_def")
  if [ "$PROGRAMS" != all ] && [[ ",$PROGRAMS," != *",$name,"* ]]; then continue; fi

  case $dir in
    kosan:*) base=$ROOT/${dir#kosan:}; COMMONP=("--cuda-gpu-arch=$ARCH") ;;
    *) base=$SAMPLES/Samples/$dir; COMMONP=("${COMMON[@]}") ;;
  esac
  files=()
  IFS=',' read -r -a parts <<< "$srcs"
  for p in "${parts[@]}"; do files+=("$base/$(trim "$p")"); done
  extra=()
  if [ "$flags" != - ]; then
    for w in $flags; do
      case $w in
        HOSTMINMAX) extra+=("${HOSTMINMAX[@]}") ;;
        -I*) [[ $w == -I/* ]] && extra+=("$w") || extra+=("-I$ROOT/${w#-I}") ;;
        *) extra+=("$w") ;;
      esac
    done
  fi

  ti=() tp=() status=ok err=
  for ((r = 0; r < REPS; r++)); do
    read -r rc s <<< "$(compile instr "$name" "$OUTDIR/$name" "${COMMONP[@]}" "${extra[@]}" "${files[@]}")"
    if [ "$rc" != 0 ]; then status=instr-failed; err=$(grep -m1 -E 'error' "$OUTDIR/logs/$name.instr.log"); break; fi
    ti+=("$s")
    read -r rc s <<< "$(compile plain "$name" "$OUTDIR/$name.plain" --kosan-plain "${COMMONP[@]}" "${extra[@]}" "${files[@]}")"
    if [ "$rc" != 0 ]; then status=plain-failed; err=$(grep -m1 -E 'error' "$OUTDIR/logs/$name.plain.log"); break; fi
    tp+=("$s")
  done
  if [ $status = ok ]; then
    mi=$(median "${ti[@]}"); mp=$(median "${tp[@]}")
    ratio=$(python3 -c "print(f'{$mi/$mp:.2f}')")
    printf '%s\tok\t%s\t%s\t%s\t\n' "$name" "$mi" "$mp" "$ratio" >> "$OUTDIR/compile_times.tsv"
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$def" "$args" "$re" "$unit" >> "$OUTDIR/programs.tsv"
    built+=("$name")
    printf '  built  %-24s instrumented %7ss  plain %7ss  (x%s)\n' "$name" "$mi" "$mp" "$ratio"
  else
    rm -f "$OUTDIR/$name" "$OUTDIR/$name.plain"
    printf '%s\t%s\t\t\t\t%s\n' "$name" "$status" "$(printf '%s' "$err" | tr '\t' ' ')" >> "$OUTDIR/compile_times.tsv"
    failed+=("$name")
    printf '  FAILED %-24s %s: %s\n' "$name" "$status" "${err#"$ROOT/"}"
  fi
done < "$LIST"

python3 - "$OUTDIR" <<'EOF'
import csv, math, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/compile_times.tsv"), delimiter="\t"))
ok = [r for r in rows if r["status"] == "ok"]
info = open(f"{out}/build_info.txt").read().strip().splitlines()
lines = ["# Compile time, kosan-clang++ instrumented vs --kosan-plain", ""]
lines += [f"- {l}" for l in info] + [""]
lines += ["| program | instrumented (s) | plain (s) | instr/plain |", "|---|---:|---:|---:|"]
for r in ok:
    lines.append(f"| {r['name']} | {r['instr_s']} | {r['plain_s']} | {r['ratio']} |")
if ok:
    g = math.exp(sum(math.log(float(r["instr_s"]) / float(r["plain_s"])) for r in ok) / len(ok))
    ti = sum(float(r["instr_s"]) for r in ok); tp = sum(float(r["plain_s"]) for r in ok)
    lines.append(f"| **total / geomean** ({len(ok)} programs) | {ti:.2f} | {tp:.2f} | **{g:.2f}** |")
bad = [r for r in rows if r["status"] != "ok"]
if bad:
    lines += ["", "Did not build:", ""]
    lines += [f"- {r['name']}: {r['status']}: {r['first_error']}" for r in bad]
open(f"{out}/compile.md", "w").write("\n".join(lines) + "\n")
EOF

echo
echo "built (${#built[@]}): ${built[*]}"
echo "failed (${#failed[@]}): ${failed[*]:-}"
echo "cuda-samples commit: $COMMIT"
echo "compile-time table: $OUTDIR/compile.md"

if [ $PACK = 1 ]; then
  mkdir -p "$(dirname "$OUTDIR")/pack" || exit 1
  tarball=$(dirname "$OUTDIR")/pack/$(basename "$OUTDIR").tar.xz
  # The binaries only differ in their own code: one xz stream with a large
  # dictionary (-9, one thread) shares the runtimes between them.
  if ! tar -C "$(dirname "$OUTDIR")" -cf - "$(basename "$OUTDIR")" | xz -9 -T1 > "$tarball.tmp"; then
    die "packing $tarball failed"
  fi
  mv "$tarball.tmp" "$tarball" || exit 1
  echo "packed: $tarball ($(du -h "$tarball" | cut -f1); unpacked $(du -sh "$OUTDIR" | cut -f1))"
fi
[ ${#built[@]} -gt 0 ]
