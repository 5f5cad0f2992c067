//===- runtime/host/core/collector.cpp - What a check does on the host ----===//
#include "core/collector.h"

#include <cstdarg>
#include <cstdio>

namespace kosan::rt {

Collector::Collector(Runtime &rt)
    : rt(rt), opts(rt.opts), drv(rt.drv), gpu(rt.gpu), table(rt.table), quarantine(rt.quarantine),
      trace(rt.trace), modules(rt.modules), launches(rt.launches),
      deviceReady(rt.deviceReady), deviceFailed(rt.deviceFailed), dState(rt.dState),
      events(rt.events), eventCapacity(rt.eventCapacity), hostFlag(rt.hostFlag),
      errors(rt.errors), plainLaunches(rt.plainLaunches) {}

void Collector::log(const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  writeRaw(buf);
}

} // namespace kosan::rt
