//===- diff_bench.cpp - Throughput and memory of kosan-diff ----------------===//
//
// kosan_diff_bench [--elements N] [--dtype f32|f16|bf16] [--dir DIR]
//                  [--near-share X] [--over-share Y] [--repeat R] [--keep]
//
// Writes two traces with one launch and one output of N elements each
// (DIR/ref-DTYPE-N.trace, DIR/cand-DTYPE-N.trace) unless they exist, then
// measures reading and comparing them, and deletes them unless --keep. In the candidate a share X of the
// elements is one unit in the last place away from the reference (within
// every default tolerance: rounding noise) and a share Y is far off (over
// it); kosan::diffTraces must find exactly the planted elements over, or the
// benchmark fails.
//
// Every measurement runs in a forked child, which times the measured part
// with CLOCK_MONOTONIC and CLOCK_PROCESS_CPUTIME_ID (user + system of all its
// threads); wait4 gives the child's peak resident set alone. The parent stays
// small, so a child starts with a few MB. Phases:
//
//   index     readTrace of both traces (the pass that skips snapshot lines)
//   stream    index, then SnapshotStream of both snapshots to the end, one
//             chunk of each in turn on one thread: reading, JSON scan,
//             base64, zstd; no comparison
//   diff      kosan::diffTraces, pinned to one core (its prefetch threads
//             share that core)
//   numeric   diff - stream, in CPU time: the element loop, plus the
//             handing of chunks between threads
//   diff, N cores   kosan::diffTraces, unpinned: the wall time a user sees
//
// The same phases run on (REF, REF): every element bit-equal, the loop's
// short path. Each phase runs --repeat times; the table gives the run with
// the least CPU time. Elements per second count element pairs: N per diff.
//
// The output is Markdown; the last line, "RESULT key=value ...", is for
// scripts (bench/diff/run.sh).
//
//===----------------------------------------------------------------------===//
#include "kosan/diff.h"
#include "kosan/trace.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using namespace kosan;

[[noreturn]] void die(const char *format, ...) {
  std::va_list args;
  va_start(args, format);
  std::fputs("kosan_diff_bench: error: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::exit(1);
}

double now(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
double wallNow() { return now(CLOCK_MONOTONIC); }
double cpuNow() { return now(CLOCK_PROCESS_CPUTIME_ID); }

uint64_t fileSize(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

double mib(double bytes) { return bytes / double(1 << 20); }

//===----------------------------------------------------------------------===//
// Running a phase in a child
//===----------------------------------------------------------------------===//

// What a child reports back through shared memory.
struct ChildReport {
  bool ok = false;
  char error[1024] = {};
  double wall = 0;           // of the measured part, in the child
  double cpu = 0;            // CLOCK_PROCESS_CPUTIME_ID of the measured part
  double partWall[2] = {}, partCpu[2] = {};
  uint64_t values[8] = {};
};

struct PhaseRun {
  ChildReport report;
  double maxRssMiB = 0; // child's peak resident set
};

void childFail(ChildReport *report, const std::string &message) {
  std::snprintf(report->error, sizeof report->error, "%s", message.c_str());
  report->ok = false;
  std::fflush(stdout);
  _exit(1);
}

void pinToOneCore() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0)
    return;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) {
      CPU_ZERO(&mask);
      CPU_SET(c, &mask);
      sched_setaffinity(0, sizeof mask, &mask);
      return;
    }
}

PhaseRun runChild(const char *name, bool pinned,
                  const std::function<void(ChildReport *)> &body) {
  void *shared = mmap(nullptr, sizeof(ChildReport), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED)
    die("mmap: %s", std::strerror(errno));
  auto *report = new (shared) ChildReport();
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0)
    die("fork: %s", std::strerror(errno));
  if (pid == 0) {
    if (pinned)
      pinToOneCore();
    body(report);
    report->ok = true;
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid)
    die("wait4: %s", std::strerror(errno));
  PhaseRun run;
  run.report = *report;
  munmap(shared, sizeof(ChildReport));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !run.report.ok)
    die("phase '%s' failed%s%s", name, run.report.error[0] ? ": " : "",
        run.report.error[0] ? run.report.error : " (the child crashed)");
  run.maxRssMiB = double(usage.ru_maxrss) / 1024.0; // KiB on Linux
  return run;
}

// The run with the least CPU time of `repeat`.
PhaseRun bestOf(int repeat, const char *name, bool pinned,
                const std::function<void(ChildReport *)> &body) {
  PhaseRun best;
  for (int i = 0; i < repeat; ++i) {
    PhaseRun run = runChild(name, pinned, body);
    if (i == 0 || run.report.cpu < best.report.cpu)
      best = run;
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Generating the traces
//===----------------------------------------------------------------------===//

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
double unitOf(uint64_t bits) { return double(bits >> 11) * 0x1.0p-53; }

constexpr const char *kKernel = "bench_kernel(float*, int)";
constexpr const char *kMangled = "_Z12bench_kernelPfi";
constexpr const char *kPlantedFlag = "--planted-over=";

struct Config {
  uint64_t elements = 100'000'000;
  DType dtype = DType::F32;
  std::string dir = ".";
  double nearShare = 0.5, overShare = 0.001;
  int repeat = 3;
  bool keep = false;

  std::string refPath() const {
    return dir + "/ref-" + dtypeName(dtype) + "-" + std::to_string(elements) + ".trace";
  }
  std::string candPath() const {
    return dir + "/cand-" + dtypeName(dtype) + "-" + std::to_string(elements) + ".trace";
  }
};

// One element's bits, stored in the low bytes of a uint64_t.
uint64_t loadBits(const uint8_t *p, uint32_t size) {
  uint64_t b = 0;
  std::memcpy(&b, p, size);
  return b;
}
void storeBits(uint8_t *p, uint64_t b, uint32_t size) { std::memcpy(p, &b, size); }

// Writes one trace: header, launch, the snapshot, end. Returns the wall and
// CPU seconds of writeSnapshot alone.
std::pair<double, double> writeTrace(const std::string &path, const Config &config,
                                     const std::vector<std::string> &argv,
                                     const std::vector<uint8_t> &data,
                                     ChildReport *report) {
  std::string error;
  std::unique_ptr<TraceWriter> writer = TraceWriter::create(path, &error);
  if (!writer)
    childFail(report, error);
  TraceHeader header;
  header.kosan_version = "bench";
  header.pid = getpid();
  header.argv = argv;
  header.start_time = "1970-01-01T00:00:00Z";
  writer->write(header);
  LaunchRecord launch;
  launch.id = 1;
  launch.kernel = kKernel;
  launch.mangled = kMangled;
  launch.grid = {uint32_t((config.elements + 255) / 256), 1, 1};
  launch.block = {256, 1, 1};
  launch.instrumented = true;
  writer->write(launch);
  SnapshotRecord snapshot;
  snapshot.launch = 1;
  snapshot.arg = 0;
  snapshot.name = "y";
  snapshot.dtype = config.dtype;
  snapshot.shape = {int64_t(config.elements)};
  snapshot.address = 0x7f0000000000;
  snapshot.store_sites = {"bench.cu:1:1"};
  double wall = wallNow(), cpu = cpuNow();
  writer->writeSnapshot(snapshot, data.data(), data.size());
  std::pair<double, double> spent{wallNow() - wall, cpuNow() - cpu};
  TraceEnd end;
  end.launches = 1;
  writer->write(end);
  return spent;
}

// Reference: pseudo-random values in [-4, 4) rounded to the dtype. The
// candidate: the same, but a share `near` one ULP larger in magnitude and a
// share `over` moved to 1.5 r + sign(r). Each planted element is checked
// against allclose's rule with the default tolerance, so that the number
// kosan-diff must find over it is known exactly.
void generate(const Config &config, ChildReport *report) {
  const uint32_t size = dtypeSize(config.dtype);
  const Tolerance tol = defaultTolerance(config.dtype);
  std::vector<uint8_t> data(config.elements * size);
  double genStart = wallNow();
  for (uint64_t i = 0; i < config.elements; ++i) {
    double v = unitOf(splitmix(2 * i)) * 8 - 4;
    if (config.dtype == DType::F32) {
      float f = float(v);
      std::memcpy(&data[i * size], &f, sizeof f);
    } else {
      encodeElement(v, config.dtype, &data[i * size]);
    }
  }
  double genWall = wallNow() - genStart;

  std::vector<std::string> argv = {
      "kosan_diff_bench", "--elements=" + std::to_string(config.elements),
      std::string("--dtype=") + dtypeName(config.dtype)};
  auto [refWall, refCpu] = writeTrace(config.refPath(), config, argv, data, report);

  uint64_t near = 0, over = 0;
  for (uint64_t i = 0; i < config.elements; ++i) {
    double u = unitOf(splitmix(2 * i + 1));
    if (u >= config.overShare + config.nearShare)
      continue;
    uint8_t *p = &data[i * size];
    double r = decodeElement(p, config.dtype);
    bool planOver = u < config.overShare;
    if (planOver)
      encodeElement(r * 1.5 + std::copysign(1.0, r), config.dtype, p);
    else
      storeBits(p, loadBits(p, size) + 1, size); // one ULP away from zero
    double c = decodeElement(p, config.dtype);
    bool isOver = !(std::fabs(c - r) <= tol.atol + tol.rtol * std::fabs(r));
    if (isOver != planOver || !std::isfinite(c))
      childFail(report, "element " + std::to_string(i) + ": planted " +
                            (planOver ? "over" : "within") +
                            " tolerance, but ref " + std::to_string(r) +
                            " and cand " + std::to_string(c) + " are not");
    ++(planOver ? over : near);
  }
  argv.push_back(kPlantedFlag + std::to_string(over));
  auto [candWall, candCpu] = writeTrace(config.candPath(), config, argv, data, report);

  report->values[0] = near;
  report->values[1] = over;
  report->partWall[0] = refWall + candWall;
  report->partCpu[0] = refCpu + candCpu;
  report->partWall[1] = genWall;
}

//===----------------------------------------------------------------------===//
// The phases
//===----------------------------------------------------------------------===//

Trace indexTrace(const std::string &path, ChildReport *report) {
  ReadResult read = readTrace(path);
  if (read.error != TraceError::None)
    childFail(report, read.message);
  if (read.trace.snapshots.size() != 1)
    childFail(report, path + ": expected one snapshot");
  return std::move(read.trace);
}

// readTrace of both, then both snapshots streamed to the end, one chunk of
// each in turn. values[0]: raw bytes streamed.
void streamOnly(const std::string &refPath, const std::string &candPath,
                ChildReport *report) {
  double wall = wallNow(), cpu = cpuNow();
  Trace ref = indexTrace(refPath, report);
  Trace cand = indexTrace(candPath, report);
  report->partWall[0] = wallNow() - wall;
  report->partCpu[0] = cpuNow() - cpu;

  std::string error;
  std::unique_ptr<SnapshotStream> a = SnapshotStream::open(refPath, ref.snapshots[0], &error);
  if (!a)
    childFail(report, error);
  std::unique_ptr<SnapshotStream> b = SnapshotStream::open(candPath, cand.snapshots[0], &error);
  if (!b)
    childFail(report, error);
  std::vector<char> bytesA, bytesB;
  uint64_t first = 0, total = 0;
  bool moreA = true, moreB = true;
  while (moreA || moreB) {
    if (moreA && (moreA = a->next(&bytesA, &first, &error)))
      total += bytesA.size();
    if (!error.empty())
      childFail(report, error);
    if (moreB && (moreB = b->next(&bytesB, &first, &error)))
      total += bytesB.size();
    if (!error.empty())
      childFail(report, error);
  }
  report->wall = wallNow() - wall;
  report->cpu = cpuNow() - cpu;
  report->values[0] = total;
}

// values: compared, over tolerance, verdict, NaN + Inf mismatches, unwritten.
void diffOnly(const std::string &refPath, const std::string &candPath,
              ChildReport *report) {
  double wall = wallNow(), cpu = cpuNow();
  DiffResult result = diffTraces(refPath, candPath, DiffOptions{});
  report->wall = wallNow() - wall;
  report->cpu = cpuNow() - cpu;
  if (result.verdict == Verdict::Trouble)
    childFail(report, result.error);
  if (result.launches.size() != 1 || result.launches[0].outputs.size() != 1)
    childFail(report, "expected one launch with one output compared");
  const OutputDiff &out = result.launches[0].outputs[0];
  if (!out.problem.empty())
    childFail(report, out.problem);
  report->values[0] = out.stats.compared;
  report->values[1] = out.stats.over_tolerance;
  report->values[2] = uint64_t(result.verdict);
  report->values[3] = out.stats.nan_mismatch + out.stats.inf_mismatch;
  report->values[4] = out.stats.unwritten_ref + out.stats.unwritten_cand;
}

uint64_t plantedOver(const std::string &candPath) {
  ReadResult read = readTrace(candPath);
  if (read.error != TraceError::None)
    die("%s", read.message.c_str());
  for (const std::string &arg : read.trace.header.argv)
    if (arg.rfind(kPlantedFlag, 0) == 0)
      return std::stoull(arg.substr(std::strlen(kPlantedFlag)));
  die("%s was not written by this benchmark (no %s in its argv); delete it",
      candPath.c_str(), kPlantedFlag);
}

void checkDiff(const char *what, const PhaseRun &run, uint64_t elements,
               uint64_t expectOver) {
  const uint64_t *v = run.report.values;
  if (v[0] != elements || v[1] != expectOver || v[3] != 0 || v[4] != 0)
    die("%s: diffTraces compared %llu elements and found %llu over tolerance "
        "(%llu NaN/Inf mismatches, %llu unwritten); expected %llu, %llu, 0, 0",
        what, (unsigned long long)v[0], (unsigned long long)v[1],
        (unsigned long long)v[3], (unsigned long long)v[4],
        (unsigned long long)elements, (unsigned long long)expectOver);
  Verdict expect = expectOver ? Verdict::Different : Verdict::Equivalent;
  if (v[2] != uint64_t(expect))
    die("%s: unexpected verdict %llu", what, (unsigned long long)v[2]);
}

std::string rate(double elements, double seconds) {
  if (seconds <= 0)
    return "—";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", elements / seconds);
  return buffer;
}

void usage() {
  std::puts("usage: kosan_diff_bench [--elements N] [--dtype f32|f16|bf16] "
            "[--dir DIR] [--near-share X] [--over-share Y] [--repeat R] [--keep]");
}

Config parseArgs(int argc, char **argv) {
  Config config;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg != "--keep" && arg != "--help") {
      if (i + 1 >= argc)
        die("%s needs a value", arg.c_str());
      value = argv[++i];
    }
    if (arg == "--elements") {
      config.elements = uint64_t(std::stod(value)); // accepts 1e8
    } else if (arg == "--dtype") {
      std::optional<DType> t = parseDType(value);
      if (!t || (*t != DType::F32 && *t != DType::F16 && *t != DType::BF16))
        die("--dtype: f32, f16 or bf16, not '%s'", value.c_str());
      config.dtype = *t;
    } else if (arg == "--dir") {
      config.dir = value;
    } else if (arg == "--near-share") {
      config.nearShare = std::stod(value);
    } else if (arg == "--over-share") {
      config.overShare = std::stod(value);
    } else if (arg == "--repeat") {
      config.repeat = std::max(1, std::stoi(value));
    } else if (arg == "--keep") {
      config.keep = true;
    } else if (arg == "--help") {
      usage();
      std::exit(0);
    } else {
      usage();
      die("unknown option %s", arg.c_str());
    }
  }
  if (config.elements == 0)
    die("--elements must be positive");
  if (config.nearShare < 0 || config.overShare < 0 ||
      config.nearShare + config.overShare > 1)
    die("--near-share and --over-share: non-negative, at most 1 together");
  return config;
}

} // namespace

int main(int argc, char **argv) {
  Config config = parseArgs(argc, argv);
  const std::string refPath = config.refPath(), candPath = config.candPath();
  const double n = double(config.elements);
  const uint32_t size = dtypeSize(config.dtype);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());

  std::printf("## kosan-diff, %s, %llu elements per trace\n\n", dtypeName(config.dtype),
              (unsigned long long)config.elements);

  std::error_code mkdirError;
  std::filesystem::create_directories(config.dir, mkdirError);
  if (mkdirError)
    die("cannot create %s: %s", config.dir.c_str(), mkdirError.message().c_str());
  bool generated = fileSize(refPath) == 0 || fileSize(candPath) == 0;
  PhaseRun gen;
  if (generated)
    gen = runChild("generate", true, [&](ChildReport *r) { generate(config, r); });
  const uint64_t expectOver = plantedOver(candPath);
  const uint64_t refBytes = fileSize(refPath), candBytes = fileSize(candPath);

  std::printf("Traces: REF %.1f MiB, CAND %.1f MiB: %.3f bytes per element "
              "(%u raw; zstd level %d + base64 in %llu-element chunks)\n",
              mib(refBytes), mib(candBytes), double(refBytes + candBytes) / (2 * n), size,
              kSnapshotZstdLevel, (unsigned long long)(kSnapshotChunkBytes / size));
  std::printf("Candidate: %.3g of the elements one ULP off (within tolerance), "
              "%llu planted over tolerance; atol = rtol = %g\n",
              config.nearShare, (unsigned long long)expectOver,
              defaultTolerance(config.dtype).atol);
  if (generated)
    std::printf("writeSnapshot, both traces, one core: %.2f s wall, %.2f s CPU: "
                "%s elements/s, %.0f MiB/s of raw elements (to the page cache); "
                "peak RSS of the writer %.0f MiB (it holds the whole array)\n",
                gen.report.partWall[0], gen.report.partCpu[0],
                rate(2 * n, gen.report.partCpu[0]).c_str(),
                mib(2 * n * size) / gen.report.partCpu[0], gen.maxRssMiB);
  else
    std::printf("Traces existed: not written again (no write throughput)\n");

  PhaseRun baseline = runChild("baseline", true, [](ChildReport *) {});
  const int R = config.repeat;
  auto diffPhase = [&](const std::string &a, const std::string &b, bool pinned) {
    return bestOf(R, "diff", pinned, [&](ChildReport *r) { diffOnly(a, b, r); });
  };
  auto streamPhase = [&](const std::string &a, const std::string &b) {
    return bestOf(R, "stream", true, [&](ChildReport *r) { streamOnly(a, b, r); });
  };

  PhaseRun stream = streamPhase(refPath, candPath);
  PhaseRun diff = diffPhase(refPath, candPath, true);
  checkDiff("REF vs CAND", diff, config.elements, expectOver);
  PhaseRun diffAll = diffPhase(refPath, candPath, false);
  checkDiff("REF vs CAND", diffAll, config.elements, expectOver);
  PhaseRun streamSame = streamPhase(refPath, refPath);
  PhaseRun diffSame = diffPhase(refPath, refPath, true);
  checkDiff("REF vs REF", diffSame, config.elements, 0);

  const double numeric = diff.report.cpu - stream.report.cpu;
  const double numericSame = diffSame.report.cpu - streamSame.report.cpu;

  std::printf("\nOne core unless said; CPU = user + system of all threads; "
              "best of %d runs by CPU time; peak RSS of the whole process "
              "(a child that does nothing: %.1f MiB).\n\n",
              R, baseline.maxRssMiB);
  std::printf("| pair | phase | wall s | CPU s | elements/s per core | peak RSS MiB |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: |\n");
  auto row = [&](const char *pair, const char *phase, double wall, double cpu,
                 double rss) {
    char wallText[32] = "—", rssText[32] = "—";
    if (wall > 0)
      std::snprintf(wallText, sizeof wallText, "%.2f", wall);
    if (rss > 0)
      std::snprintf(rssText, sizeof rssText, "%.0f", rss);
    std::printf("| %s | %s | %s | %.2f | %s | %s |\n", pair, phase, wallText, cpu,
                rate(n, cpu).c_str(), rssText);
  };
  for (auto [pair, s, d, num] :
       {std::tuple{"REF vs CAND", &stream, &diff, numeric},
        std::tuple{"REF vs REF (bit-equal)", &streamSame, &diffSame, numericSame}}) {
    row(pair, "index (readTrace of both)", s->report.partWall[0], s->report.partCpu[0], 0);
    row(pair, "stream: index + read, scan, base64, zstd of both", s->report.wall,
        s->report.cpu, s->maxRssMiB);
    row(pair, "**numeric comparison** (diff − stream)", 0, num, 0);
    row(pair, "diffTraces end to end", d->report.wall, d->report.cpu, d->maxRssMiB);
  }
  std::printf("| REF vs CAND | diffTraces end to end, %u cores | %.2f | %.2f | %s per s wall | %.0f |\n",
              cores, diffAll.report.wall, diffAll.report.cpu,
              rate(n, diffAll.report.wall).c_str(), diffAll.maxRssMiB);

  const bool numericOk = numeric > 0 && n / numeric >= 1e8;
  std::printf("\nNumeric comparison: %s elements/s per core (target >= 1e8): %s. "
              "End to end: %s elements/s per core, %s per second of wall on %u cores. "
              "diffTraces found %llu of %llu elements over tolerance, as planted.\n",
              rate(n, numeric).c_str(), numericOk ? "met" : "NOT met",
              rate(n, diff.report.cpu).c_str(), rate(n, diffAll.report.wall).c_str(), cores,
              (unsigned long long)diff.report.values[1],
              (unsigned long long)config.elements);

  if (!config.keep) {
    ::unlink(refPath.c_str());
    ::unlink(candPath.c_str());
  }
  std::printf("\nRESULT dtype=%s elements=%llu ref_bytes=%llu cand_bytes=%llu "
              "write_cpu_s=%.3f stream_cpu_s=%.3f diff_cpu_s=%.3f diff_wall_s=%.3f "
              "diff_all_wall_s=%.3f numeric_cpu_s=%.3f numeric_rate=%.4g e2e_rate=%.4g "
              "diff_rss_mib=%.1f baseline_rss_mib=%.1f numeric_same_rate=%.4g "
              "over=%llu numeric_target_met=%d\n",
              dtypeName(config.dtype), (unsigned long long)config.elements,
              (unsigned long long)refBytes, (unsigned long long)candBytes,
              generated ? gen.report.partCpu[0] : 0.0, stream.report.cpu, diff.report.cpu,
              diff.report.wall, diffAll.report.wall, numeric,
              numeric > 0 ? n / numeric : 0.0, n / diff.report.cpu,
              std::max(diff.maxRssMiB, diffAll.maxRssMiB), baseline.maxRssMiB,
              numericSame > 0 ? n / numericSame : 0.0,
              (unsigned long long)expectOver, numericOk ? 1 : 0);
  return 0;
}
