//===- alloc_table.cpp - The device buffers the runtime knows -------------===//
//
// Registered buffers are kept in one ordered map together with a parent link
// (the innermost registered buffer around each). The map answers "the last
// buffer starting at or below addr"; every registered buffer containing addr
// contains that one too, so the answer is it or one of its ancestors.
//
//===----------------------------------------------------------------------===//
#include "core/alloc_table.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iterator>

namespace kosan::rt {
namespace {

bool isEmpty(const Buffer &b) { return b.begin == b.end; }

bool holds(const Buffer &b, uint64_t addr) {
  return isEmpty(b) ? addr == b.begin : b.begin <= addr && addr < b.end;
}

// Even a zero-byte allocation owns its address: the allocator cannot hand it
// out again while it is live.
uint64_t claimEnd(const Buffer &b) { return isEmpty(b) ? b.begin + 1 : b.end; }

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%" PRIx64, value);
  return text;
}

std::string describe(const std::string &name, uint64_t begin, uint64_t end) {
  std::string range = "[" + hex(begin) + ", " + hex(end) + ")";
  return name.empty() ? "unnamed buffer " + range
                      : "buffer '" + name + "' " + range;
}

} // namespace

const AllocTable::Registered *
AllocTable::innermostRegistered(uint64_t addr) const {
  auto after = registered_.upper_bound(addr);
  if (after == registered_.begin())
    return nullptr;
  const Registered *r = &std::prev(after)->second;
  if (holds(r->buffer, addr))
    return r;
  // Ancestors start at or below addr, so holding addr is ending above it.
  for (r = r->parent; r; r = r->parent)
    if (addr < r->buffer.end)
      return r;
  return nullptr;
}

const AllocTable::Registered *
AllocTable::innermostNonEmptyRegistered(uint64_t addr) const {
  const Registered *r = innermostRegistered(addr);
  // A zero-byte buffer's parent is by definition the innermost non-empty
  // buffer containing its address.
  return r && isEmpty(r->buffer) ? r->parent : r;
}

void AllocTable::eraseRegistered(RegisteredMap::iterator it) {
  const Registered *gone = &it->second;
  for (auto child = registered_.lower_bound(it->first.begin);
       child != registered_.end() && child->first.begin < it->first.end;
       ++child)
    if (child->second.parent == gone)
      child->second.parent = gone->parent;
  registered_.erase(it);
}

size_t AllocTable::eraseRegisteredInside(uint64_t begin, uint64_t end) {
  size_t erased = 0;
  for (auto it = registered_.lower_bound(begin);
       it != registered_.end() && it->first.begin < end;) {
    auto next = std::next(it);
    if (it->first.end <= end) {
      eraseRegistered(it);
      ++erased;
    }
    it = next;
  }
  return erased;
}

size_t AllocTable::addAllocation(Buffer b) {
  if (b.begin == 0)
    return 0;
  const uint64_t end = claimEnd(b);

  // The registered buffers overlapping the new allocation, and what they
  // contain, all lie within the outermost one around its begin and those
  // starting inside it; nothing else lies there.
  uint64_t staleBegin = b.begin, staleEnd = end;
  if (const Registered *r = innermostNonEmptyRegistered(b.begin)) {
    while (r->parent)
      r = r->parent;
    staleBegin = r->buffer.begin;
    staleEnd = std::max(staleEnd, r->buffer.end);
  }
  for (auto it = registered_.lower_bound(b.begin);
       it != registered_.end() && it->first.begin < end; ++it)
    staleEnd = std::max(staleEnd, it->first.end);
  size_t dropped = eraseRegisteredInside(staleBegin, staleEnd);

  // Allocations are disjoint, so only the one starting below can reach in.
  auto it = allocations_.lower_bound(b.begin);
  if (it != allocations_.begin() && claimEnd(std::prev(it)->second) > b.begin)
    --it;
  while (it != allocations_.end() && it->first < end) {
    dropped += eraseRegisteredInside(it->second.begin, it->second.end);
    it = allocations_.erase(it);
    ++dropped;
  }

  b.id = next_id_++;
  allocations_.emplace(b.begin, std::move(b));
  ++generation_;
  return dropped;
}

bool AllocTable::removeAllocation(uint64_t begin) {
  auto it = allocations_.find(begin);
  if (it == allocations_.end())
    return false;
  eraseRegisteredInside(it->second.begin, it->second.end);
  allocations_.erase(it);
  ++generation_;
  return true;
}

bool AllocTable::registerBuffer(uint64_t begin, uint64_t bytes,
                                std::string name, std::string *error,
                                std::string dtype, std::vector<int64_t> shape) {
  auto fail = [&](std::string message) {
    if (error)
      *error = std::move(message);
    return false;
  };
  if (begin == 0)
    return fail("cannot register " + describe(name, 0, bytes) +
                ": it starts at the null address");
  if (bytes > UINT64_MAX - begin)
    return fail("cannot register " + std::to_string(bytes) + " bytes at " +
                hex(begin) + " as '" + name +
                "': the range wraps around the address space");
  const uint64_t end = begin + bytes;

  const Registered *parent = nullptr;
  if (bytes == 0) {
    parent = innermostNonEmptyRegistered(begin);
  } else {
    auto overlap = [&](const Buffer &other) {
      return fail("cannot register " + describe(name, begin, end) +
                  ": it partially overlaps registered " +
                  describe(other.name, other.begin, other.end));
    };
    // The buffers around begin, innermost first: those ending below end must
    // start at begin (and will be inside the new one); the first that does
    // not end below it is the new buffer's parent.
    for (const Registered *r = innermostNonEmptyRegistered(begin); r;
         r = r->parent) {
      if (r->buffer.end >= end) {
        parent = r;
        break;
      }
      if (r->buffer.begin < begin)
        return overlap(r->buffer);
    }
    for (auto it = registered_.upper_bound(begin);
         it != registered_.end() && it->first.begin < end; ++it)
      if (it->first.end > end)
        return overlap(it->second.buffer);
  }

  Buffer b;
  b.begin = begin;
  b.end = end;
  b.name = std::move(name);
  b.dtype = std::move(dtype);
  b.shape = std::move(shape);
  b.origin = BufferOrigin::Registered;
  b.id = next_id_++;
  auto added = registered_
                   .emplace(RegisteredKey{begin, end, b.id},
                            Registered{std::move(b), parent})
                   .first;
  // What the parent held inside the new buffer now has the new one around it.
  for (auto it = registered_.lower_bound(begin);
       it != registered_.end() && it->first.begin < end; ++it)
    if (it != added && it->second.parent == parent && it->first.end <= end)
      it->second.parent = &added->second;
  ++generation_;
  return true;
}

bool AllocTable::unregisterBuffer(uint64_t begin) {
  auto newest = registered_.end();
  for (auto it = registered_.lower_bound(begin);
       it != registered_.end() && it->first.begin == begin; ++it)
    if (newest == registered_.end() || it->first.id > newest->first.id)
      newest = it;
  if (newest == registered_.end())
    return false;
  eraseRegistered(newest);
  ++generation_;
  return true;
}

const Buffer *AllocTable::find(uint64_t addr) const {
  if (const Registered *r = innermostRegistered(addr))
    return &r->buffer;
  auto after = allocations_.upper_bound(addr);
  if (after == allocations_.begin())
    return nullptr;
  const Buffer &b = std::prev(after)->second;
  return holds(b, addr) ? &b : nullptr;
}

const Buffer *AllocTable::nearest(uint64_t addr) const {
  if (const Buffer *inside = find(addr))
    return inside;
  const Buffer *best = nullptr;
  uint64_t bestDistance = 0;
  // Called below-first, so that on a tie the buffer below addr wins.
  auto consider = [&](const Buffer &b) {
    uint64_t distance = addr < b.begin ? b.begin - addr : addr - b.end;
    if (!best || distance < bestDistance) {
      best = &b;
      bestDistance = distance;
    }
  };

  // Below addr: nothing contains addr, so the registered buffer ending
  // closest below it is the last one starting below it or an ancestor.
  auto reg = registered_.upper_bound(addr);
  if (reg != registered_.begin()) {
    const Registered *closest = &std::prev(reg)->second;
    for (const Registered *r = closest->parent; r; r = r->parent)
      if (r->buffer.end > closest->buffer.end)
        closest = r;
    consider(closest->buffer);
  }
  auto alloc = allocations_.upper_bound(addr);
  if (alloc != allocations_.begin())
    consider(std::prev(alloc)->second);

  // Above addr: of the registered buffers starting first, the innermost.
  if (reg != registered_.end())
    consider(
        std::prev(registered_.upper_bound(reg->first.begin))->second.buffer);
  if (alloc != allocations_.end())
    consider(alloc->second);
  return best;
}

std::vector<std::pair<uint64_t, uint64_t>> AllocTable::flatRanges() const {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  ranges.reserve(allocations_.size() + registered_.size());
  for (const auto &[begin, b] : allocations_)
    if (!isEmpty(b))
      ranges.emplace_back(b.begin, b.end);
  const auto registeredBegin = ranges.end() - ranges.begin();
  // Nested buffers are covered by their outermost one.
  for (const auto &[key, r] : registered_)
    if (!r.parent && !isEmpty(r.buffer))
      ranges.emplace_back(key.begin, key.end);
  std::inplace_merge(ranges.begin(), ranges.begin() + registeredBegin,
                     ranges.end());

  // Registered buffers may overlap allocations (inside one, or straddling
  // memory freed behind kosan's back); merge what overlaps.
  size_t kept = 0;
  for (const auto &range : ranges) {
    if (kept != 0 && range.first < ranges[kept - 1].second)
      ranges[kept - 1].second = std::max(ranges[kept - 1].second, range.second);
    else
      ranges[kept++] = range;
  }
  ranges.resize(kept);
  return ranges;
}

} // namespace kosan::rt
