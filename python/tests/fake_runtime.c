/* Stands in for the kosan runtime in the tests of kosan.register_tensor: the
 * registration entry points of include/kosan/kosan.h, with the runtime's
 * return values (-1 for an overlapping range or an unknown pointer), plus
 * fake_log() to read back what was called. Built with -DKOSAN_FAKE_UNTYPED,
 * it lacks kosan_register_tensor, as a runtime without snapshots does. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_BUFFERS 64

static struct {
  uintptr_t begin, end;
  int used;
} buffers[MAX_BUFFERS];
static char calls[8192];

static void note(const char *line) {
  size_t used = strlen(calls);
  if (used + strlen(line) + 1 < sizeof calls)
    strcat(calls, line);
}

int kosan_register_buffer(const void *ptr, size_t bytes, const char *name) {
  char line[256];
  uintptr_t begin = (uintptr_t)ptr, end = begin + bytes;
  snprintf(line, sizeof line, "register %#lx %zu %s\n", (unsigned long)begin, bytes,
           name ? name : "(null)");
  note(line);
  int free_slot = -1;
  for (int i = 0; i < MAX_BUFFERS; ++i) {
    if (!buffers[i].used) {
      if (free_slot < 0)
        free_slot = i;
      continue;
    }
    int overlaps = begin < buffers[i].end && buffers[i].begin < end;
    int nested = (begin >= buffers[i].begin && end <= buffers[i].end) ||
                 (buffers[i].begin >= begin && buffers[i].end <= end);
    if (overlaps && !nested)
      return -1;
  }
  if (free_slot < 0)
    return -1;
  buffers[free_slot].begin = begin;
  buffers[free_slot].end = end;
  buffers[free_slot].used = 1;
  return 0;
}

#ifndef KOSAN_FAKE_UNTYPED
int kosan_register_tensor(const void *ptr, size_t bytes, const char *name,
                          const char *dtype, int ndim, const long long *shape) {
  char line[256];
  int n = snprintf(line, sizeof line, "tensor %s [", dtype ? dtype : "(null)");
  for (int i = 0; shape && i < ndim && n < 200; ++i)
    n += snprintf(line + n, sizeof line - n, i ? ",%lld" : "%lld", shape[i]);
  snprintf(line + n, sizeof line - n, "]\n");
  note(line);
  return kosan_register_buffer(ptr, bytes, name);
}
#endif

int kosan_unregister_buffer(const void *ptr) {
  char line[64];
  snprintf(line, sizeof line, "unregister %#lx\n", (unsigned long)(uintptr_t)ptr);
  note(line);
  for (int i = MAX_BUFFERS - 1; i >= 0; --i)
    if (buffers[i].used && buffers[i].begin == (uintptr_t)ptr) {
      buffers[i].used = 0;
      return 0;
    }
  return -1;
}

/* Everything called so far, one call a line; clears the log. */
const char *fake_log(void) {
  static char copy[sizeof calls];
  strcpy(copy, calls);
  calls[0] = '\0';
  return copy;
}
