//===- lib/order_log.cpp - From the device's order logs to trace records --===//
#include "kosan/order_log.h"

#include "kosan/order.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace kosan {

namespace {

// old + val or old - val; nothing for operations whose order does not show
// in what the atomics returned.
template <typename T> std::optional<T> addOrSub(const std::string &op, T a, T b) {
  if (op == "fadd")
    return a + b;
  if (op == "fsub")
    return a - b;
  return std::nullopt;
}

// The value an atomic left behind: old op val, in the location's type, or
// nothing where the host cannot redo the operation bit for bit.
std::optional<uint64_t> applyAtomic(uint64_t oldBits, uint64_t valBits, uint32_t dtype,
                                    const std::string &op, bool flushSubnormals) {
  auto ftz32 = [&](float x) {
    return flushSubnormals && std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
  };
  if (dtype == KOSAN_DTYPE_F32) {
    float a, b;
    uint32_t ai = uint32_t(oldBits), bi = uint32_t(valBits);
    std::memcpy(&a, &ai, 4);
    std::memcpy(&b, &bi, 4);
    std::optional<float> sum = addOrSub(op, ftz32(a), ftz32(b));
    if (!sum)
      return std::nullopt;
    float r = ftz32(*sum);
    uint32_t ri;
    std::memcpy(&ri, &r, 4);
    return ri;
  }
  if (dtype == KOSAN_DTYPE_F16 || dtype == KOSAN_DTYPE_BF16) {
    // The exact sum or difference of two halves fits a double; one
    // rounding to the type then gives what the hardware gives (bf16: the
    // float in between can round twice, which only breaks the chain).
    auto decode = [&](uint64_t b) -> double {
      uint16_t h = uint16_t(b);
      if (dtype == KOSAN_DTYPE_BF16) {
        uint32_t f = uint32_t(h) << 16;
        float v;
        std::memcpy(&v, &f, 4);
        return v;
      }
      _Float16 v;
      std::memcpy(&v, &h, 2);
      return double(v);
    };
    std::optional<double> sum = addOrSub(op, decode(oldBits), decode(valBits));
    if (!sum)
      return std::nullopt;
    double r = *sum;
    if (dtype == KOSAN_DTYPE_F16) {
      _Float16 h = _Float16(r);
      uint16_t bits;
      std::memcpy(&bits, &h, 2);
      return bits;
    }
    float f = float(r);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u)
      return uint16_t((u >> 16) | 0x40); // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1);      // round to nearest even
    return uint16_t(u >> 16);
  }
  if (dtype == KOSAN_DTYPE_F64) {
    double a, b;
    std::memcpy(&a, &oldBits, 8);
    std::memcpy(&b, &valBits, 8);
    std::optional<double> r = addOrSub(op, a, b);
    if (!r)
      return std::nullopt;
    uint64_t ri;
    std::memcpy(&ri, &*r, 8);
    return ri;
  }
  return std::nullopt;
}

DType dtypeOf(uint32_t d) { return d <= uint32_t(DType::Bool) ? DType(d) : DType::Unknown; }

} // namespace

std::vector<size_t> atomicLandingOrder(const std::vector<const kosan_order_atomic *> &log,
                                       uint32_t dtype, const std::string &op, bool *exact) {
  size_t n = log.size();
  std::vector<size_t> order;
  order.reserve(n);
  auto logOrder = [&](std::vector<bool> &used) {
    for (size_t i = 0; i < n; ++i)
      if (!used[i])
        order.push_back(i);
  };
  std::vector<bool> used(n, false);
  *exact = true;
  if (n <= 1 || !applyAtomic(0, 0, dtype, op, false)) {
    *exact = n <= 1;
    logOrder(used);
    return order;
  }
  // Hardware may flush subnormals in float atomics: try both ways.
  for (bool ftz : {false, true}) {
    std::vector<uint64_t> after(n);
    std::unordered_multimap<uint64_t, size_t> byOld;
    std::unordered_map<uint64_t, size_t> produced;
    for (size_t i = 0; i < n; ++i) {
      after[i] = *applyAtomic(log[i]->old_bits, log[i]->val_bits, dtype, op, ftz);
      byOld.emplace(log[i]->old_bits, i);
      ++produced[after[i]];
    }
    // The first to land found a value no contribution produced.
    std::vector<size_t> starts;
    for (size_t i = 0; i < n; ++i)
      if (!produced.count(log[i]->old_bits))
        starts.push_back(i);
    if (starts.size() != 1)
      continue;
    std::fill(used.begin(), used.end(), false);
    order.clear();
    bool forked = false;
    size_t cur = starts[0];
    used[cur] = true;
    order.push_back(cur);
    while (order.size() < n) {
      auto [lo, hi] = byOld.equal_range(after[cur]);
      size_t next = n, candidates = 0;
      for (auto it = lo; it != hi; ++it)
        if (!used[it->second]) {
          ++candidates;
          next = std::min(next, it->second);
        }
      if (next == n)
        break;
      forked |= candidates > 1;
      used[next] = true;
      order.push_back(next);
      cur = next;
    }
    if (order.size() == n) {
      *exact = !forked;
      return order;
    }
  }
  *exact = false;
  order.clear();
  std::fill(used.begin(), used.end(), false);
  logOrder(used);
  return order;
}

OrderRecords buildOrderRecords(const kosan_order_store *stores, size_t nstores,
                               uint64_t storeCount, const kosan_order_atomic *atomics,
                               size_t natomics, uint64_t atomicCount,
                               const OrderLaunch &launch) {
  OrderRecords out;
  out.summary.launch = launch.launch;
  out.summary.stores = storeCount;
  out.summary.atomics = atomicCount;
  out.summary.dropped_stores = storeCount > nstores ? storeCount - nstores : 0;
  out.summary.dropped_atomics = atomicCount > natomics ? atomicCount - natomics : 0;

  const uint64_t mask = (uint64_t(1) << KOSAN_ORDER_WHERE_SHIFT) - 1;
  // (parameter, byte offset) of a record; false when it lies in no
  // parameter's buffer. traced: the compiler named the parameter.
  auto locate = [&](uint64_t where, uint32_t &arg, uint64_t &offset, bool &traced) {
    uint32_t a = uint32_t(where >> KOSAN_ORDER_WHERE_SHIFT);
    uint64_t low = where & mask;
    traced = a != KOSAN_ORDER_ARG_UNRESOLVED;
    if (traced) {
      arg = a;
      offset = low;
      return true;
    }
    for (size_t i = 0; i < launch.argValues.size(); ++i) {
      uint64_t begin = launch.argValues[i] & mask, end = launch.argEnds[i] & mask;
      if (end > begin && low >= begin && low < end) {
        arg = uint32_t(i);
        offset = low - begin;
        return true;
      }
    }
    return false;
  };
  auto nameOf = [&](uint32_t arg) {
    return arg < launch.argNames.size() ? launch.argNames[arg] : "arg" + std::to_string(arg);
  };
  // The sites of one access kind for a parameter, and those of untraced
  // pointers where records came through one or no traced site exists.
  auto sitesFor = [&](uint32_t access, uint32_t arg, bool untraced) {
    std::vector<const OrderLaunch::Site *> found;
    for (bool traced : {true, false}) {
      if (!traced && !untraced && !found.empty())
        break;
      for (const OrderLaunch::Site &s : launch.sites)
        if (s.access == access && (traced ? s.arg == int32_t(arg) : s.arg < 0))
          found.push_back(&s);
    }
    return found;
  };
  auto locationsOf = [](const std::vector<const OrderLaunch::Site *> &sites) {
    std::vector<std::string> out;
    for (const OrderLaunch::Site *s : sites)
      if (std::find(out.begin(), out.end(), s->location) == out.end())
        out.push_back(s->location);
    return out;
  };

  // Stores: the last record of each element (a thread's records reach the
  // log in its program order).
  struct Buffer {
    std::vector<std::pair<uint64_t, size_t>> list; // (byte offset, log index)
    bool traced = false, untraced = false;
  };
  // Each record's parameter and byte offset; those that lie in no
  // parameter's buffer are counted.
  auto eachLocated = [&](const auto *records, size_t n, auto &&take) {
    for (size_t i = 0; i < n; ++i) {
      uint32_t arg;
      uint64_t offset;
      bool traced;
      if (locate(records[i].where, arg, offset, traced))
        take(i, arg, offset, traced);
      else
        ++out.unresolved;
    }
  };
  std::map<uint32_t, Buffer> byArg;
  std::map<uint32_t, const std::vector<uint64_t> *> denseOf;
  for (const OrderLaunch::Dense &d : launch.dense) {
    denseOf[d.arg] = &d.fps;
    byArg[d.arg].traced = true;
  }
  eachLocated(stores, nstores, [&](size_t i, uint32_t arg, uint64_t offset, bool traced) {
    Buffer &b = byArg[arg];
    (traced ? b.traced : b.untraced) = true;
    b.list.push_back({offset, i});
  });
  for (auto &[arg, b] : byArg) {
    OrderStoreRecord rec;
    rec.launch = launch.launch;
    rec.arg = arg;
    rec.name = nameOf(arg);
    std::vector<const OrderLaunch::Site *> sites =
        sitesFor(KOSAN_ACCESS_ORDER_STORE, arg, b.untraced);
    rec.dtype = sites.empty() ? DType::F32 : dtypeOf(sites.front()->dtype);
    rec.sites = locationsOf(sites);
    uint32_t size = std::max<uint32_t>(dtypeSize(rec.dtype), 1);
    uint64_t highest = 0;
    for (const auto &[offset, index] : b.list)
      highest = std::max(highest, offset / size);
    if (auto d = denseOf.find(arg); d != denseOf.end()) {
      // The shadow first, then the log's records for the same buffer. A
      // record far past the shadow is a store outside the buffer (a
      // negative index wraps around in the record's offset bits): it lies
      // in no buffer, as for the log alone, and must not size the list.
      uint64_t limit = d->second->size() + 4 * uint64_t(b.list.size()) + 1024;
      size_t before = b.list.size();
      std::erase_if(b.list, [&](const auto &entry) { return entry.first / size >= limit; });
      out.unresolved += before - b.list.size();
      highest = 0;
      for (const auto &[offset, index] : b.list)
        highest = std::max(highest, offset / size);
      std::vector<uint64_t> fp = *d->second;
      if (!b.list.empty() && highest >= fp.size())
        fp.resize(highest + 1, 0);
      std::vector<bool> logged(b.list.empty() ? 0 : fp.size());
      for (const auto &[offset, index] : b.list) {
        fp[offset / size] = stores[index].fp;
        logged[offset / size] = true;
      }
      for (uint64_t e = 0; e < fp.size(); ++e)
        if (fp[e] || (!logged.empty() && logged[e])) {
          rec.elements.push_back({e, fp[e]});
          if (logged.empty() || !logged[e])
            ++out.summary.stores;
        }
    } else if (highest < 4 * uint64_t(b.list.size()) + 1024) {
      // Dense (the usual output): one slot per element, later stores
      // overwrite earlier ones, no sort.
      std::vector<uint64_t> fp(highest + 1);
      std::vector<bool> written(highest + 1);
      for (const auto &[offset, index] : b.list) {
        fp[offset / size] = stores[index].fp;
        written[offset / size] = true;
      }
      for (uint64_t e = 0; e <= highest; ++e)
        if (written[e])
          rec.elements.push_back({e, fp[e]});
    } else {
      std::stable_sort(b.list.begin(), b.list.end(),
                       [](const auto &x, const auto &y) { return x.first < y.first; });
      for (size_t i = 0; i < b.list.size(); ++i) {
        if (i + 1 < b.list.size() && b.list[i + 1].first / size == b.list[i].first / size)
          continue; // a later store to the same element wins
        rec.elements.push_back({b.list[i].first / size, stores[b.list[i].second].fp});
      }
    }
    if (rec.elements.empty())
      continue; // a shadow the launch never stored to
    out.stores.push_back(std::move(rec));
  }

  // Atomics: per buffer and element, in landing order.
  struct Locations {
    std::map<uint64_t, std::vector<const kosan_order_atomic *>> byOffset;
    bool untraced = false;
  };
  std::map<uint32_t, Locations> atomicsByArg;
  eachLocated(atomics, natomics, [&](size_t i, uint32_t arg, uint64_t offset, bool traced) {
    Locations &l = atomicsByArg[arg];
    l.untraced |= !traced;
    l.byOffset[offset].push_back(&atomics[i]);
  });
  for (auto &[arg, locations] : atomicsByArg) {
    OrderAtomicRecord rec;
    rec.launch = launch.launch;
    rec.arg = arg;
    rec.name = nameOf(arg);
    std::vector<const OrderLaunch::Site *> sites =
        sitesFor(KOSAN_ACCESS_ORDER_ATOMIC, arg, locations.untraced);
    uint32_t dtype = sites.empty() ? KOSAN_DTYPE_F32 : sites.front()->dtype;
    rec.op = sites.empty() || sites.front()->op.empty() ? "fadd" : sites.front()->op;
    rec.dtype = dtypeOf(dtype);
    rec.sites = locationsOf(sites);
    uint32_t size = std::max<uint32_t>(dtypeSize(rec.dtype), 1);
    uint64_t foldOp = kosan_fp_op(("atomic." + rec.op).c_str());
    bool orderFree = !atomicOrderMatters(rec.op);
    for (auto &[offset, log] : locations.byOffset) {
      bool exact = true;
      std::vector<size_t> order = atomicLandingOrder(log, dtype, rec.op, &exact);
      rec.exact &= exact;
      AtomicSequence seq;
      seq.element = offset / size;
      const kosan_order_atomic *first = log[order.front()];
      uint64_t fp = launch.valueLeaves ? kosan_fp_content(first->old_bits, dtype)
                                       : kosan_fp_leaf(arg, offset);
      std::set<uint64_t> distinct;
      for (size_t i : order) {
        const kosan_order_atomic *a = log[i];
        seq.order.push_back({a->fp, a->val_bits, a->block, a->thread});
        fp = kosan_fp_combine(foldOp, fp, a->fp);
        distinct.insert(a->fp);
      }
      seq.fp = fp;
      if (!orderFree && distinct.size() > 1)
        ++out.summary.order_dependent_locations;
      rec.locations.push_back(std::move(seq));
    }
    out.atomics.push_back(std::move(rec));
  }
  return out;
}

OrderOpsRecord buildOrderOpsRecord(const kosan_order_op *ops, size_t nops,
                                   const OrderLaunch &launch,
                                   const std::function<OrderOpSite(uint32_t)> &siteOf) {
  OrderOpsRecord rec;
  rec.launch = launch.launch;
  for (size_t i = 0; i < launch.argNames.size(); ++i) {
    OrderParam p;
    p.arg = uint32_t(i);
    p.name = launch.argNames[i];
    p.dtype = i < launch.argDtypes.size() ? dtypeOf(launch.argDtypes[i]) : DType::Unknown;
    rec.params.push_back(std::move(p));
  }
  std::map<uint32_t, uint32_t> local; // module site id -> index in rec.sites
  rec.ops.reserve(nops);
  for (size_t i = 0; i < nops; ++i) {
    auto [it, fresh] = local.try_emplace(ops[i].site, uint32_t(rec.sites.size()));
    if (fresh)
      rec.sites.push_back(siteOf(ops[i].site));
    rec.ops.push_back({ops[i].a, ops[i].b, ops[i].op, it->second});
  }
  auto key = [](const OrderOp &o) { return std::tie(o.a, o.b, o.op, o.site); };
  std::sort(rec.ops.begin(), rec.ops.end(),
            [&](const OrderOp &x, const OrderOp &y) { return key(x) < key(y); });
  rec.ops.erase(std::unique(rec.ops.begin(), rec.ops.end()), rec.ops.end());
  return rec;
}

} // namespace kosan
