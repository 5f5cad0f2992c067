#!/usr/bin/env bash
# Snapshot cost per launch, as a ratio to the launch's own time.
#   bench/snapshot/run.sh build     on the build machine: builds into .bench-bin/snapshot
#   bench/snapshot/run.sh run OUT   on the GPU machine: runs, writes OUT/snapshot-cost.md
#   bench/snapshot/run.sh host      anywhere: the host half alone (hash,
#                                   compress, write) of a 256 MiB buffer
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
  stats=$tmp/stats.txt
  : > "$stats"
  {
    # GB/s: the buffer's bytes (1e9 per GB) over what a snapshot adds to
    # a launch; snapshot=1: snapshot contents in <trace>.bin and, one file
    # per worker thread, <trace>.bin.N (the default, snapshot_writes=3);
    # base64: snapshot_payload=0, contents inside the trace;
    # snapshot_writes=0 and 1: everything in one <trace>.bin (pwrite only;
    # pwrite, or a mapping where another thread is in pwrite);
    # snapshot_staging_mb=256: a staging ring as large as the largest
    # output, so that its copy never waits for a worker.
    echo "| kernel | elements | MiB | plain launch ms | snapshot=1 ms | snapshot GB/s | ratio | snapshot_payload=0 ms | GB/s | snapshot=1:poison=1 ms | GB/s | snapshot_writes=0 ms | GB/s | snapshot_writes=1 ms | GB/s | snapshot_staging_mb=256 ms | GB/s | trace bytes/element |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for kind in out inout; do
      for n in 262144 4194304 67108864; do
        launches=$(( n >= 67108864 ? 5 : 20 ))
        # The 256 MiB rows: the runtime's own account of where the time
        # went (snapshot_stats=1, on stderr), printed after the table.
        st=$(( n >= 67108864 ? 1 : 0 ))
        base=$(KOSAN_OPTIONS=print_summary=0 $bin $kind $n $launches | awk '{print $3}')
        snap=$(KOSAN_OPTIONS=print_summary=0:snapshot=1:snapshot_stats=$st:trace=$tmp/s.kosan $bin $kind $n $launches 2> $tmp/err | awk '{print $3}')
        if [ $st = 1 ]; then
          { echo "$kind $n snapshot=1:"; grep 'snapshot stats' $tmp/err; } >> "$stats"
        fi
        bytes=$(cat $tmp/s.kosan $tmp/s.kosan.bin* 2> /dev/null | wc -c)
        inl=$(KOSAN_OPTIONS=print_summary=0:snapshot=1:snapshot_payload=0:trace=$tmp/i.kosan $bin $kind $n $launches | awk '{print $3}')
        pois=$(KOSAN_OPTIONS=print_summary=0:snapshot=1:poison=1:trace=$tmp/p.kosan $bin $kind $n $launches | awk '{print $3}')
        pw=$(KOSAN_OPTIONS=print_summary=0:snapshot=1:snapshot_writes=0:trace=$tmp/w.kosan $bin $kind $n $launches | awk '{print $3}')
        mw=$(KOSAN_OPTIONS=print_summary=0:snapshot=1:snapshot_writes=1:snapshot_stats=$st:trace=$tmp/m.kosan $bin $kind $n $launches 2> $tmp/err | awk '{print $3}')
        if [ $st = 1 ]; then
          { echo "$kind $n snapshot=1:snapshot_writes=1:"; grep 'snapshot stats' $tmp/err; } >> "$stats"
        fi
        ring=$(KOSAN_OPTIONS=print_summary=0:snapshot=1:snapshot_staging_mb=256:snapshot_stats=$st:trace=$tmp/r.kosan $bin $kind $n $launches 2> $tmp/err | awk '{print $3}')
        if [ $st = 1 ]; then
          { echo "$kind $n snapshot=1:snapshot_staging_mb=256:"; grep 'snapshot stats' $tmp/err; } >> "$stats"
        fi
        # launches + the warm-up launch wrote snapshots
        per=$(awk -v b=$bytes -v n=$n -v l=$launches 'BEGIN{printf "%.2f", b/(n*(l+1))}')
        awk -v k=$kind -v n=$n -v a=$base -v s=$snap -v i=$inl -v p=$pois -v w=$pw -v m=$mw -v r=$ring -v per=$per '
          function gbs(t) { return t > a ? n * 4 / 1e6 / (t - a) : 0 }
          BEGIN{printf "| %s | %d | %.0f | %.3f | %.3f | %.2f | %.1fx | %.3f | %.2f | %.3f | %.2f | %.3f | %.2f | %.3f | %.2f | %.3f | %.2f | %s |\n",
                k, n, n*4/1048576, a, s, gbs(s), s/a, i, gbs(i), p, gbs(p), w, gbs(w), m, gbs(m), r, gbs(r), per}'
        rm -f $tmp/*.kosan*
      done
    done
    echo
    echo "Where the time went (snapshot_stats=1, 256 MiB rows: totals of the $((5 + 1)) launches, the warm-up's included):"
    echo
    sed 's/^/    /' "$stats"
  } | tee "$out/snapshot-cost.md"
  rm -rf "$tmp"
  ;;
host)
  build/bin/kosan_snapshot_host_bench 256 "${KOSAN_SNAPSHOT_THREADS:-0}" "${TMPDIR:-/tmp}"
  ;;
*) echo "usage: bench/snapshot/run.sh build | run OUT | host" >&2; exit 2 ;;
esac
