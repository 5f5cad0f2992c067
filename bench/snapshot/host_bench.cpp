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
// The random buffer goes through each way of writing the payload files
// (one file per worker thread, the default; one file with pwrite, with a
// mapping where busy, always mapped) on 1, 2 and THREADS threads, with
// the writer's own per-stage totals (hash, zstd, write: thread-seconds).
// Prints, per case, GB/s of buffer (1e9 bytes per second of wall time) and
// GB per CPU-second (all threads' CPU time: what the host half costs where
// other processes share the cores); files go to DIR (default /tmp) and are
// removed.
//
// First, the stages of that work one at a time over the random buffer's
// 4 MiB chunks, to show where the time goes: the chunk hash, zstd's probe
// of a chunk's first 64 KiB, zstd of whole chunks, and pwrite into one
// file from one thread and from THREADS threads (which the kernel
// serialises: its buffered writes hold the file's lock), and into a file
// per thread.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"
#include "kosan/worker_pool.h"
#include "kosan/zstd_api.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
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

// The writer's per-stage totals of one run, in thread-seconds.
struct StageSeconds {
  double hash = 0, compress = 0, write = 0;
};

// Best wall time of `repeats` runs; *cpu: that run's CPU time, all threads;
// *stages: its per-stage totals.
double run(const std::string &dir, const std::vector<float> &data, bool payload,
           TraceWriter::PayloadWrites writes, unsigned threads, int repeats,
           uint64_t *traceBytes, double *cpu, StageSeconds *stages) {
  std::string path = dir + "/kosan-snapshot-bench-" + std::to_string(::getpid()) + ".trace";
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto w = TraceWriter::create(path, nullptr);
    if (!w) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      std::exit(2);
    }
    w->setSnapshotPayloadFile(payload);
    w->setSnapshotPayloadWrites(writes);
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
    const SnapshotWriteStats &st = w->snapshotStats();
    StageSeconds these{double(st.hash_ns) * 1e-9, double(st.compress_ns) * 1e-9,
                       double(st.write_ns) * 1e-9};
    w.reset(); // closes the files
    double wall = seconds(t0);
    if (wall < best) {
      best = wall;
      *cpu = cpuSeconds() - c0;
      *stages = these;
    }
  }
  *traceBytes = 0;
  std::vector<std::string> files = {path, path + ".bin"};
  for (unsigned i = 1; i < threads; ++i)
    files.push_back(snapshotPayloadFile(path + ".bin", i));
  for (const std::string &p : files) {
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

// One stage over every chunk of `data`, on `threads` threads (chunks taken
// in turn); prints its row. Best of 3; before each, untimed, `reset` (the
// writes empty their files, so that each run copies into fresh pages of the
// page cache, as a snapshot does).
void stage(const char *name, unsigned threads, const std::vector<float> &data,
           const std::function<void(size_t, const char *, size_t)> &body,
           const std::function<void()> &reset = [] {}) {
  const size_t bytes = data.size() * 4, chunks = (bytes - 1) / kSnapshotChunkBytes + 1;
  const char *in = reinterpret_cast<const char *>(data.data());
  double best = 1e30, bestCpu = 0;
  for (int r = 0; r < 3; ++r) {
    reset();
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpuSeconds();
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (size_t i; (i = next++) < chunks;)
          body(i, in + i * kSnapshotChunkBytes,
               std::min<size_t>(kSnapshotChunkBytes, bytes - i * kSnapshotChunkBytes));
      });
    for (std::thread &t : pool)
      t.join();
    double wall = seconds(t0);
    if (wall < best) {
      best = wall;
      bestCpu = cpuSeconds() - c0;
    }
  }
  std::printf("| %s | %u | %.3f | %.2f | %.3f | %.2f |\n", name, threads, best,
              double(bytes) / best / 1e9, bestCpu, double(bytes) / bestCpu / 1e9);
}

void stages(const std::string &dir, const std::vector<float> &data, unsigned threads) {
  std::printf("| stage (random f32, 4 MiB chunks) | threads | wall s | GB/s | CPU s (all threads) | GB per CPU-second |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
  std::atomic<uint64_t> sink{0};
  stage("hash (FNV-1a words)", 1, data, [&](size_t, const char *p, size_t n) {
    sink += fnv1aWords(p, n);
  });
  const detail::ZstdApi *zstd = detail::zstdApi();
  if (zstd) {
    stage("zstd level 1, first 64 KiB (the probe)", 1, data, [&](size_t, const char *p, size_t) {
      thread_local std::vector<char> out(zstd->compressBound(64 * 1024));
      sink += zstd->compress(out.data(), out.size(), p, 64 * 1024, kSnapshotZstdLevel);
    });
    stage("zstd level 1, whole chunk", 1, data, [&](size_t, const char *p, size_t n) {
      thread_local std::vector<char> out(zstd->compressBound(kSnapshotChunkBytes));
      sink += zstd->compress(out.data(), out.size(), p, n, kSnapshotZstdLevel);
    });
  }
  const std::string path = dir + "/kosan-snapshot-bench-" + std::to_string(::getpid()) + ".bin";
  {
    std::vector<int> fds;
    for (unsigned t = 0; t < threads; ++t) {
      std::string name = path + "." + std::to_string(t);
      fds.push_back(::open(name.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
      if (fds.back() < 0) {
        std::fprintf(stderr, "cannot write %s\n", name.c_str());
        std::exit(2);
      }
    }
    // Each thread appends the chunks it takes to its own file.
    std::vector<std::atomic<uint64_t>> ends(threads);
    thread_local unsigned mine = ~0u;
    std::atomic<unsigned> nextThread{0};
    stage(
        "pwrite into a file per thread", threads, data,
        [&](size_t, const char *p, size_t n) {
          if (mine == ~0u || mine >= threads)
            mine = nextThread++ % threads;
          sink += size_t(::pwrite(fds[mine], p, n, off_t(ends[mine].fetch_add(n))));
        },
        [&] {
          for (unsigned t = 0; t < threads; ++t) {
            sink += size_t(::ftruncate(fds[t], 0));
            ends[t] = 0;
          }
          nextThread = 0;
        });
    for (unsigned t = 0; t < threads; ++t) {
      ::close(fds[t]);
      std::remove((path + "." + std::to_string(t)).c_str());
    }
  }
  for (unsigned t : {1u, threads}) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      std::exit(2);
    }
    stage(
        "pwrite into one file", t, data,
        [&](size_t i, const char *p, size_t n) {
          sink += size_t(::pwrite(fd, p, n, off_t(i * kSnapshotChunkBytes)));
        },
        [&] { sink += size_t(::ftruncate(fd, 0)); });
    ::close(fd);
    std::remove(path.c_str());
  }
  (void)sink.load();
}

} // namespace

int main(int argc, char **argv) {
  const uint64_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
  const unsigned threads = argc > 2 ? unsigned(std::strtoul(argv[2], nullptr, 10)) : 0;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  const size_t n = mib * 1024 * 1024 / 4;
  const unsigned workers = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<float> random(n), ramp(n);
  uint64_t x = 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    random[i] = float(x >> 40) / float(1 << 24);
    ramp[i] = float(i % 65536) * 0.5f;
  }
  std::printf("host half of one snapshot of %llu MiB (f32), %u hardware threads, "
              "%u worker threads\n\n",
              (unsigned long long)mib, std::thread::hardware_concurrency(), workers);
  stages(dir, random, workers);
  std::printf("\n| data | form | threads | wall s | GB/s | CPU s (all threads) | GB per CPU-second | "
              "hash s | zstd s | write s | bytes written / buffer |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  using Writes = TraceWriter::PayloadWrites;
  struct Form {
    const char *name;
    bool payload;
    Writes writes;
  } forms[] = {{"a payload file per thread (default)", true, Writes::FilePerThread},
               {"one payload file: pwrite only", true, Writes::Pwrite},
               {"one payload file: pwrite, mapped where busy", true, Writes::MapWhenBusy},
               {"one payload file: mapped only", true, Writes::Map},
               {"base64 in the trace (version 1)", false, Writes::Pwrite}};
  auto row = [&](const char *data, const std::vector<float> &buffer, const Form &f,
                 unsigned t) {
    uint64_t written = 0;
    double cpu = 0;
    StageSeconds st;
    double s = run(dir, buffer, f.payload, f.writes, t, f.payload ? 3 : 1, &written, &cpu, &st);
    double bytes = double(buffer.size()) * 4;
    std::printf("| %s | %s | %u | %.3f | %.2f | %.3f | %.2f | %.3f | %.3f | %.3f | %.3f |\n",
                data, f.name, t, s, bytes / s / 1e9, cpu, bytes / cpu / 1e9, st.hash,
                st.compress, st.write, double(written) / bytes);
  };
  std::vector<unsigned> counts = {1, 2};
  if (workers > 2)
    counts.push_back(workers);
  // The random buffer through every way, on 1, 2 and THREADS threads; the
  // smooth one through the default and the old default; base64 on one
  // thread (it writes the chunk lines in order).
  for (unsigned t : counts)
    for (size_t i = 0; i < 4; ++i)
      row("random f32", random, forms[i], t);
  row("random f32", random, forms[4], 1);
  for (size_t i : {0, 2})
    row("smooth f32", ramp, forms[i], workers);
  row("smooth f32", ramp, forms[4], 1);
  return 0;
}
