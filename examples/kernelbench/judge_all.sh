#!/usr/bin/env bash
# Judges every candidate of every problem in this folder with `kosan judge`
# (the problems in parallel) and prints allclose and kosan side by side.
#   examples/kernelbench/judge_all.sh [OUT_DIR]
# Environment: KOSAN_BUILD_DIR (default build), TIMEOUT (seconds a step may
# take, default 60), PYTHON (default python3). Each problem's JSON report,
# stderr and work files (worker logs, kosan traces) go to OUT_DIR.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
python=${PYTHON:-python3}
export PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
for dir in "$here"/*/; do
  name=$(basename "$dir")
  candidates=$(ls "$dir"*.py | grep -v '/problem\.py$')
  (
    "$python" -m kosan judge "$dir/problem.py" $candidates --jobs 8 --timeout "${TIMEOUT:-60}" \
      --format json -o "$out/$name.json" --work-dir "$out/$name" 2> "$out/$name.stderr"
    echo $? > "$out/$name.exit"
  ) &
done
wait
"$python" "$here/table.py" "$out"/*.json
echo "(reports, logs and traces in $out)"
