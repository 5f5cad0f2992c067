//===- host_bench.cpp - The host half of a snapshot, without a GPU ---------===//
//
// kosan_snapshot_host_bench [MIB] [THREADS] [DIR]
//
// What the runtime does with a snapshot once its chunks are in host memory:
// the chunked hash, zstd (or the raw bytes where zstd would not shrink
// them), the payload file and the trace lines, through the library's own
// writer (TraceWriter::writeSnapshot, on THREADS worker threads, 0: one per
// hardware thread). Two buffers of MIB MiB (default 256): random f32 in
// [0, 1) (barely compresses) and a smooth ramp (compresses well); and, for
// comparison, the version 1 path (base64 inside the trace, one thread).
// Prints, per case, GB/s of buffer (1e9 bytes per second of wall time) and
// GB per CPU-second (all threads' CPU time: what the host half costs where
// other processes share the cores); files go to DIR (default /tmp) and are
// removed.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"
#include "kosan/worker_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace kosan;

namespace {

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double cpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Best wall time of `repeats` runs; *cpu: that run's CPU time, all threads.
double run(const std::string &dir, const std::vector<float> &data, bool payload,
           unsigned threads, int repeats, uint64_t *traceBytes, double *cpu) {
  std::string path = dir + "/kosan-snapshot-bench-" + std::to_string(::getpid()) + ".trace";
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto w = TraceWriter::create(path, nullptr);
    if (!w) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      std::exit(2);
    }
    w->setSnapshotPayloadFile(payload);
    w->setSnapshotThreads(threads);
    w->write(TraceHeader{});
    SnapshotRecord s;
    s.launch = 1;
    s.name = "out";
    s.dtype = DType::F32;
    s.hash = kSnapshotHashChunks;
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpuSeconds();
    // The runtime's sequence: chunks on the workers, the hash, the lines.
    s.count = data.size();
    std::unique_ptr<SnapshotBuilder> b = w->beginSnapshot(s);
    const char *in = reinterpret_cast<const char *>(data.data());
    if (payload) {
      w->snapshotPool().parallelFor(b->chunks(), [&](size_t i) {
        b->addChunk(i, in + b->chunkStart(i));
      });
    } else {
      for (uint64_t i = 0; i < b->chunks(); ++i)
        b->addChunk(i, in + b->chunkStart(i));
    }
    b->record().post_hash = b->hash();
    b->finish();
    w.reset(); // closes both files
    double wall = seconds(t0);
    if (wall < best) {
      best = wall;
      *cpu = cpuSeconds() - c0;
    }
  }
  *traceBytes = 0;
  for (const std::string &p : {path, path + ".bin"}) {
    FILE *f = std::fopen(p.c_str(), "rb");
    if (f) {
      std::fseek(f, 0, SEEK_END);
      *traceBytes += uint64_t(std::ftell(f));
      std::fclose(f);
    }
    std::remove(p.c_str());
  }
  return best;
}

} // namespace

int main(int argc, char **argv) {
  const uint64_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
  const unsigned threads = argc > 2 ? unsigned(std::strtoul(argv[2], nullptr, 10)) : 0;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  const size_t n = mib * 1024 * 1024 / 4;
  std::vector<float> random(n), ramp(n);
  uint64_t x = 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    random[i] = float(x >> 40) / float(1 << 24);
    ramp[i] = float(i % 65536) * 0.5f;
  }
  std::printf("host half of one snapshot of %llu MiB (f32), %u hardware threads, "
              "threads=%u (0: all)\n",
              (unsigned long long)mib, std::thread::hardware_concurrency(), threads);
  std::printf("| data | form | wall s | GB/s | CPU s (all threads) | GB per CPU-second | bytes written / buffer |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  struct Case {
    const char *name;
    const std::vector<float> *data;
  } cases[] = {{"random f32", &random}, {"smooth f32", &ramp}};
  for (const Case &c : cases)
    for (bool payload : {true, false}) {
      uint64_t written = 0;
      double cpu = 0;
      double s = run(dir, *c.data, payload, threads, payload ? 3 : 1, &written, &cpu);
      double bytes = double(c.data->size()) * 4;
      std::printf("| %s | %s | %.3f | %.2f | %.3f | %.2f | %.3f |\n", c.name,
                  payload ? "payload file (version 2)" : "base64 in the trace, 1 thread (version 1)",
                  s, bytes / s / 1e9, cpu, bytes / cpu / 1e9, double(written) / bytes);
    }
  return 0;
}
