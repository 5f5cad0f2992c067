//===- alloc_table.h - The device buffers the runtime knows ----*- C++ -*-===//
//
// Two kinds of buffers: allocations, seen through the intercepted CUDA
// allocators, and buffers the program registered (kosan_register_buffer),
// which carve named pieces out of an allocation or describe memory from an
// allocator kosan does not see. Allocations never overlap each other.
// Registered buffers nest (a view inside a tensor inside a slab) but never
// overlap partially, so the ones containing an address form a chain and the
// innermost one is found in O(log n + nesting depth).
//
// A zero-byte buffer contains no byte, but find() returns it for its begin
// address: a pointer to it then resolves to empty bounds, and every access
// through that pointer is out of bounds.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_ALLOC_TABLE_H
#define KOSAN_RUNTIME_HOST_ALLOC_TABLE_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kosan::rt {

enum class BufferOrigin {
  Malloc,
  MallocAsync,
  MallocManaged,
  MallocPitch,
  Registered
};

struct Buffer {
  uint64_t begin = 0, end = 0;       // [begin, end)
  uint64_t pitch = 0, row_bytes = 0; // cudaMallocPitch only
  std::string name;                  // may be empty
  std::string site;                  // "file:line" of the allocation, if known
  // Registered tensors (kosan_register_tensor): element type name and shape,
  // recorded with the buffer's snapshots; empty if not given.
  std::string dtype;
  std::vector<int64_t> shape;
  BufferOrigin origin = BufferOrigin::Malloc;
  uint64_t id = 0; // set by AllocTable, unique in its life
};

// Not thread-safe: the caller locks. Pointers returned by find() and
// nearest() stay valid until the next modification.
class AllocTable {
public:
  // Adds a device allocation; begin == 0 (cudaMalloc of 0 bytes) is ignored.
  // A new allocation cannot overlap a live buffer, so every buffer it does
  // overlap was freed behind kosan's back (say by an uninstrumented library)
  // and is dropped first, together with the buffers registered inside it.
  // Returns how many buffers were dropped, registered ones included.
  size_t addAllocation(Buffer b);

  // cudaFree: removes the allocation starting at begin and every buffer
  // registered inside it. False if no allocation starts at begin.
  bool removeAllocation(uint64_t begin);

  // kosan_register_buffer: [begin, begin + bytes) becomes a buffer of its
  // own, inside an allocation or not. It may contain registered buffers or
  // lie inside them (a range registered twice stacks: the newer one is
  // inner). False, with *error set to a sentence naming both buffers, if it
  // overlaps a registered buffer partially; also false for a null begin or a
  // range that wraps around.
  bool registerBuffer(uint64_t begin, uint64_t bytes, std::string name,
                      std::string *error, std::string dtype = {},
                      std::vector<int64_t> shape = {});

  // kosan_unregister_buffer: removes the most recently registered buffer
  // starting at begin, which is the right one whenever registrations end in
  // reverse order (kosan::ScopedBuffer). False if none starts there.
  bool unregisterBuffer(uint64_t begin);

  // The innermost buffer containing addr, or nullptr. Registered buffers are
  // inner to the allocation they lie in.
  const Buffer *find(uint64_t addr) const;

  // The buffer closest to addr, to say "N bytes after buffer X"; the buffer
  // containing addr if there is one; nullptr if the table is empty. On a tie
  // the buffer below addr wins (overflows are more common than underflows),
  // and among buffers ending (or starting) at the same address the innermost.
  const Buffer *nearest(uint64_t addr) const;

  // Sorted, disjoint [begin, end) ranges covering every byte of every buffer,
  // for the device-side table against which accesses of unknown provenance
  // are checked. Adjacent buffers stay separate ranges, so that an access
  // straddling two of them is still caught.
  std::vector<std::pair<uint64_t, uint64_t>> flatRanges() const;

  // Changes on every modification; lets callers cache what they derive.
  uint64_t generation() const { return generation_; }
  size_t size() const { return allocations_.size() + registered_.size(); }

private:
  struct Registered {
    Buffer buffer;
    // Innermost registered buffer with at least one byte containing this one
    // (for a zero-byte buffer: containing its begin address).
    const Registered *parent = nullptr;
  };
  struct RegisteredKey {
    uint64_t begin, end, id;
  };
  // By begin, then outer before inner (end descending, then older first), so
  // the last buffer starting at or below an address is the deepest candidate.
  // Also compares with a bare begin address.
  struct RegisteredOrder {
    using is_transparent = void;
    bool operator()(const RegisteredKey &a, const RegisteredKey &b) const {
      if (a.begin != b.begin)
        return a.begin < b.begin;
      if (a.end != b.end)
        return a.end > b.end;
      return a.id < b.id;
    }
    bool operator()(const RegisteredKey &a, uint64_t begin) const {
      return a.begin < begin;
    }
    bool operator()(uint64_t begin, const RegisteredKey &b) const {
      return begin < b.begin;
    }
  };
  using RegisteredMap = std::map<RegisteredKey, Registered, RegisteredOrder>;

  const Registered *innermostRegistered(uint64_t addr) const;
  const Registered *innermostNonEmptyRegistered(uint64_t addr) const;
  void eraseRegistered(RegisteredMap::iterator it);
  // Erases the registered buffers inside [begin, end); returns how many.
  size_t eraseRegisteredInside(uint64_t begin, uint64_t end);

  std::map<uint64_t, Buffer> allocations_; // by begin
  RegisteredMap registered_;
  uint64_t next_id_ = 1;
  uint64_t generation_ = 0;
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_ALLOC_TABLE_H
