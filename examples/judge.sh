#!/usr/bin/env bash
# Judges three candidate kernels against a reference, with kosan-diff and
# with allclose at KernelBench's tolerances, side by side.
#   examples/judge.sh [BUILD_DIR]     (default: build)
# Needs an NVIDIA GPU; the traces go to $JUDGE_OUT (default: a temporary folder).
set -u
build=${1:-build}
judge=$build/examples/judge
diff=$build/bin/kosan-diff
out=${JUDGE_OUT:-$(mktemp -d)}
mkdir -p "$out"
[[ -x $judge && -x $diff ]] || { echo "judge.sh: build kosan first (./run)" >&2; exit 2; }

run() { # mode
  KOSAN_OPTIONS="checks=oob,precision:snapshot=1:poison=1:print_summary=0:trace=$out/$1.kosan" "$judge" "$1" 2> "$out/$1.stderr"
}
run reference > "$out/reference.stdout" || { cat "$out/reference.stderr"; exit 2; }
printf '%-10s | %-44s | %s\n' candidate "allclose (KernelBench tolerances)" "kosan-diff"
for c in correct fp16acc overflow; do
  verdict=$(run "$c") || { cat "$out/$c.stderr"; exit 2; }
  "$diff" "$out/reference.kosan" "$out/$c.kosan" > "$out/$c.diff.txt"
  status=$?
  printf '%-10s | %-44s | %s\n' "$c" "${verdict#*: allclose(atol=rtol=1e-2): }" \
    "$(tail -1 "$out/$c.diff.txt") (exit $status)"
done
echo
for c in correct fp16acc overflow; do
  echo "===== kosan-diff reference.kosan $c.kosan"
  cat "$out/$c.diff.txt"
done
echo "(traces and reports in $out)"
