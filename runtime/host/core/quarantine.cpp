//===- quarantine.cpp - Freed buffers, for use-after-free reports ---------===//
//
// Records are kept by begin address and never overlap (a newer one replaces
// what it covers), so "the record containing addr" is the last one starting
// at or below it. The deque keeps the order of the frees for eviction; an
// entry whose record was replaced or forgotten meanwhile is skipped.
//
//===----------------------------------------------------------------------===//
#include "core/quarantine.h"

#include <algorithm>
#include <iterator>

namespace kosan::rt {
namespace {

uint64_t claimEnd(const Buffer &b) { return b.end > b.begin ? b.end : b.begin + 1; }

} // namespace

void Quarantine::forget(std::map<uint64_t, FreedBuffer>::iterator it) {
  if (it->second.held)
    heldBytes_ -= bytesOf(it->second);
  records_.erase(it);
}

std::vector<FreedBuffer> Quarantine::add(FreedBuffer f) {
  std::vector<FreedBuffer> release;
  // Older records under the new one: the memory was handed out in between.
  reused(f.buffer.begin, f.buffer.end);
  if (f.held && bytesOf(f) > capacity_) {
    release.push_back(f);
    f.held = false;
  }
  f.seq = nextSeq_++;
  uint64_t begin = f.buffer.begin;
  order_.emplace_back(f.seq, begin);
  if (f.held) {
    heldBytes_ += bytesOf(f);
    heldOrder_.emplace_back(f.seq, begin);
  }
  records_[begin] = std::move(f);

  auto current = [&](std::pair<uint64_t, uint64_t> entry) {
    auto it = records_.find(entry.second);
    return it != records_.end() && it->second.seq == entry.first ? it : records_.end();
  };
  // Held memory past the capacity leaves the quarantine, oldest first; its
  // record stays (a pointer into it is still a use after free until the
  // memory is handed out again).
  while (heldBytes_ > capacity_ && !heldOrder_.empty()) {
    auto it = current(heldOrder_.front());
    heldOrder_.pop_front();
    if (it != records_.end() && it->second.held) {
      release.push_back(it->second);
      it->second.held = false;
      heldBytes_ -= bytesOf(it->second);
    }
  }
  // Records past the limit are forgotten, oldest first.
  while (records_.size() > maxRecords_ && !order_.empty()) {
    auto it = current(order_.front());
    order_.pop_front();
    if (it != records_.end()) {
      if (it->second.held)
        release.push_back(it->second);
      forget(it);
    }
  }
  // Entries of records replaced since must not pile up.
  auto compact = [&](std::deque<std::pair<uint64_t, uint64_t>> &queue, bool heldOnly) {
    if (queue.size() <= 2 * records_.size() + 64)
      return;
    std::deque<std::pair<uint64_t, uint64_t>> kept;
    for (auto entry : queue)
      if (auto it = current(entry); it != records_.end() && (!heldOnly || it->second.held))
        kept.push_back(entry);
    queue.swap(kept);
  };
  compact(order_, false);
  compact(heldOrder_, true);
  return release;
}

const FreedBuffer *Quarantine::find(uint64_t addr) const {
  auto after = records_.upper_bound(addr);
  if (after == records_.begin())
    return nullptr;
  const FreedBuffer &f = std::prev(after)->second;
  return addr < claimEnd(f.buffer) ? &f : nullptr;
}

void Quarantine::reused(uint64_t begin, uint64_t end) {
  end = std::max(end, begin + 1);
  auto it = records_.upper_bound(begin);
  if (it != records_.begin() && claimEnd(std::prev(it)->second.buffer) > begin)
    --it;
  while (it != records_.end() && it->first < end) {
    auto next = std::next(it);
    forget(it);
    it = next;
  }
}

std::vector<FreedBuffer> Quarantine::releaseAll() {
  std::vector<FreedBuffer> release;
  for (auto &[begin, f] : records_)
    if (f.held) {
      release.push_back(f);
      f.held = false;
    }
  heldBytes_ = 0;
  heldOrder_.clear();
  return release;
}

} // namespace kosan::rt
