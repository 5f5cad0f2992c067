#!/usr/bin/env bash
# Snapshot cost per launch, as a ratio to the launch's own time.
#   bench/snapshot/run.sh build     on the build machine: builds into .bench-bin/snapshot
#   bench/snapshot/run.sh run OUT   on the GPU machine: runs, writes OUT/snapshot-cost.md
set -euo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in
build)
  mkdir -p .bench-bin/snapshot
  build/bin/kosan-clang++ -O3 --cuda-gpu-arch=sm_90 bench/snapshot/snapshot_cost.cu \
    -o .bench-bin/snapshot/snapshot_cost
  ;;
run)
  out=${2:?output folder}
  mkdir -p "$out"
  bin=.bench-bin/snapshot/snapshot_cost
  tmp=$(mktemp -d)
  {
    echo "| kernel | elements | MiB | plain launch ms | snapshot=1 ms | ratio | snapshot=1:poison=1 ms | ratio | trace bytes/element |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for kind in out inout; do
      for n in 262144 4194304 67108864; do
        launches=$(( n >= 67108864 ? 5 : 20 ))
        base=$(KOSAN_OPTIONS=print_summary=0 $bin $kind $n $launches | awk '{print $3}')
        snap=$(KOSAN_OPTIONS=print_summary=0:snapshot=1:trace=$tmp/s.kosan $bin $kind $n $launches | awk '{print $3}')
        bytes=$(stat -c %s $tmp/s.kosan)
        pois=$(KOSAN_OPTIONS=print_summary=0:snapshot=1:poison=1:trace=$tmp/p.kosan $bin $kind $n $launches | awk '{print $3}')
        # launches + the warm-up launch wrote snapshots
        per=$(awk -v b=$bytes -v n=$n -v l=$launches 'BEGIN{printf "%.2f", b/(n*(l+1))}')
        awk -v k=$kind -v n=$n -v a=$base -v s=$snap -v p=$pois -v per=$per \
          'BEGIN{printf "| %s | %d | %.0f | %.3f | %.3f | %.1fx | %.3f | %.1fx | %s |\n", k, n, n*4/1048576, a, s, s/a, p, p/a, per}'
        rm -f $tmp/*.kosan
      done
    done
  } | tee "$out/snapshot-cost.md"
  rm -rf "$tmp"
  ;;
*) echo "usage: bench/snapshot/run.sh build | run OUT" >&2; exit 2 ;;
esac
