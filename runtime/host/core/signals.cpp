//===- runtime/host/core/signals.cpp - Reports when a signal ends the process ===//
//
// handle_signals=1: a signal whose default action ends the process (Ctrl-C,
// a timeout's SIGTERM, an abort) first reports what the kernels recorded so
// far.
//
//===----------------------------------------------------------------------===//
#include "core/runtime.h"

#include "core/collector.h"

#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace kosan::rt {

namespace {
struct sigaction previousActions[NSIG];
constexpr int kHandledSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT};

bool isDefault(const struct sigaction &a) {
  return !(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_DFL;
}

// Reports first when the signal is about to end the process (its
// disposition was the default); a program's own handler runs as before.
void onSignal(int sig, siginfo_t *info, void *context) {
  static std::atomic<bool> reporting{false};
  const struct sigaction &previous = previousActions[sig];
  if (!isDefault(previous)) {
    if (previous.sa_flags & SA_SIGINFO)
      previous.sa_sigaction(sig, info, context);
    else if (previous.sa_handler != SIG_IGN)
      previous.sa_handler(sig);
    return;
  }
  static std::atomic<bool> reported{false};
  if (!reporting.exchange(true)) {
    runtime().onFatalSignal(sig);
    reported = true;
  } else {
    // The signal came twice and another thread is reporting: timeout(1)
    // signals the program and then its whole process group, and the second
    // delivery may go to another thread. Its default action would end the
    // process in the middle of the report: let the report finish first
    // (at most 10 s).
    for (int i = 0; i < 1000 && !reported; ++i) {
      struct timespec pause = {0, 10 * 1000 * 1000};
      nanosleep(&pause, nullptr);
    }
  }
  // The default action, now: the signal is delivered again when this
  // handler returns.
  sigaction(sig, &previous, nullptr);
  raise(sig);
}
} // namespace

void Runtime::installSignalHandlers() {
  for (int sig : kHandledSignals) {
    struct sigaction ours {};
    ours.sa_sigaction = onSignal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    struct sigaction previous {};
    if (sigaction(sig, nullptr, &previous) != 0 || previous.sa_handler == SIG_IGN)
      continue; // ignored stays ignored (nohup)
    previousActions[sig] = previous;
    sigaction(sig, &ours, nullptr);
  }
}

void Runtime::onFatalSignal(int sig) {
  std::unique_lock<std::mutex> lock(mu, std::try_to_lock);
  const char *name = sigabbrev_np(sig);
  if (!lock.owns_lock()) {
    std::fprintf(logFile ? logFile : stderr,
                 "kosan: the process got SIG%s while kosan was busy; the reports printed so "
                 "far are all there is\n", name ? name : "?");
    return;
  }
  log("kosan: the process got SIG%s; reporting what its kernels recorded so far "
      "(kernels still running were not waited for)\n", name ? name : "?");
  for (const std::unique_ptr<Collector> &c : collectors)
    c->fatalSignal();
}

} // namespace kosan::rt
