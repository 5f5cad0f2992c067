//===- quarantine.h - Freed buffers, for use-after-free reports -*- C++ -*-===//
//
// What the runtime remembers of buffers after they were freed, so that an
// access through a pointer into one is reported as a use after free, with
// where the buffer was allocated and where it was freed:
//
// - a freed record per buffer, kept until the memory is handed out again
//   (a new allocation or registration over it) or until there are too many
//   (the oldest records go first);
// - the quarantine: memory freed with cudaFree/cudaFreeAsync stays
//   allocated ("held") while it waits, oldest out first once the held bytes
//   pass the capacity (as AddressSanitizer's quarantine does), so that the
//   allocator cannot hand the same address to the next allocation and turn
//   a use after free into a silent access to another buffer. Memory that
//   an allocator kosan does not own frees (PyTorch's caching allocator) is
//   remembered but not held.
//
// Not thread-safe: the caller locks.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_QUARANTINE_H
#define KOSAN_RUNTIME_HOST_QUARANTINE_H

#include "core/alloc_table.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace kosan::rt {

struct FreedBuffer {
  Buffer buffer;          // as it was while live
  std::string freed_at;   // "file:line" of the free, if known
  bool held = false;      // still allocated, waiting in the quarantine
  uint64_t seq = 0;       // set by Quarantine: order of the frees
};

class Quarantine {
public:
  // capacityBytes: the most memory held at once (0: none is held);
  // maxRecords: the most freed records remembered.
  explicit Quarantine(uint64_t capacityBytes = 0, size_t maxRecords = 65536)
      : capacity_(capacityBytes), maxRecords_(maxRecords ? maxRecords : 1) {}

  void setCapacity(uint64_t bytes) { capacity_ = bytes; }
  uint64_t capacity() const { return capacity_; }

  // Remembers a freed buffer; a buffer with held set stays allocated unless
  // it is bigger than the whole quarantine. Older records it overlaps are
  // forgotten. Returns the held buffers that must now really be freed,
  // oldest first (f itself among them when it cannot be held).
  std::vector<FreedBuffer> add(FreedBuffer f);

  // The freed buffer containing addr (a zero-byte one: at its begin), or
  // nullptr.
  const FreedBuffer *find(uint64_t addr) const;

  // The memory [begin, end) was handed out again: what was freed there is
  // no longer a use after free. An empty range (a zero-byte allocation)
  // still claims its begin address.
  void reused(uint64_t begin, uint64_t end);

  // Empties the quarantine (out of memory, exit): returns every held
  // buffer, to be freed; the records stay, no longer held.
  std::vector<FreedBuffer> releaseAll();

  uint64_t heldBytes() const { return heldBytes_; }
  size_t records() const { return records_.size(); }

private:
  static uint64_t bytesOf(const FreedBuffer &f) { return f.buffer.end - f.buffer.begin; }
  void forget(std::map<uint64_t, FreedBuffer>::iterator it);

  std::map<uint64_t, FreedBuffer> records_; // by begin; disjoint
  // (seq, begin), oldest first: every record, and the held ones.
  std::deque<std::pair<uint64_t, uint64_t>> order_, heldOrder_;
  uint64_t capacity_, heldBytes_ = 0, nextSeq_ = 1;
  size_t maxRecords_;
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_QUARANTINE_H
