//===- lib/order_log.cpp - From the device's order logs to trace records --===//
#include "order_log.h"

#include "kosan/order.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

namespace kosan {

namespace {

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
    a = ftz32(a);
    b = ftz32(b);
    float r;
    if (op == "fadd")
      r = a + b;
    else if (op == "fsub")
      r = a - b;
    else
      return std::nullopt;
    r = ftz32(r);
    uint32_t ri;
    std::memcpy(&ri, &r, 4);
    return ri;
  }
  if (dtype == KOSAN_DTYPE_F64) {
    double a, b;
    std::memcpy(&a, &oldBits, 8);
    std::memcpy(&b, &valBits, 8);
    double r;
    if (op == "fadd")
      r = a + b;
    else if (op == "fsub")
      r = a - b;
    else
      return std::nullopt;
    uint64_t ri;
    std::memcpy(&ri, &r, 8);
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

  // (arg, byte offset) of a record; false when it lies in no parameter's buffer.
  auto locate = [&](uint32_t arg, uint64_t where, uint32_t &outArg, uint64_t &offset) {
    if (arg != KOSAN_ORDER_ARG_UNRESOLVED) {
      outArg = arg;
      offset = where;
      return true;
    }
    for (size_t i = 0; i < launch.argValues.size(); ++i) {
      uint64_t begin = launch.argValues[i], end = launch.argEnds[i];
      if (end > begin && where >= begin && where < end) {
        outArg = uint32_t(i);
        offset = where - begin;
        return true;
      }
    }
    return false;
  };
  auto nameOf = [&](uint32_t arg) {
    return arg < launch.argNames.size() ? launch.argNames[arg] : "arg" + std::to_string(arg);
  };
  auto siteInfo = [&](uint32_t id) -> const kosan_site * {
    return launch.site ? launch.site(id) : nullptr;
  };

  // Stores: the last record of each element (a thread's records reach the
  // log in its program order).
  std::map<uint32_t, std::vector<std::pair<uint64_t, size_t>>> byArg; // arg -> (element, log index)
  std::map<uint32_t, uint32_t> argDtype;
  std::map<uint32_t, std::set<uint32_t>> argSites;
  for (size_t i = 0; i < nstores; ++i) {
    const kosan_order_store &r = stores[i];
    uint32_t arg;
    uint64_t offset;
    if (!locate(r.arg, r.where, arg, offset)) {
      ++out.unresolved;
      continue;
    }
    const kosan_site *s = siteInfo(r.site);
    uint32_t dtype = s ? s->size : KOSAN_DTYPE_F32;
    uint32_t size = dtypeSize(dtypeOf(dtype));
    auto &dt = argDtype.try_emplace(arg, dtype).first->second;
    if (dt != dtype)
      dt = std::min(dt, dtype);
    byArg[arg].push_back({offset / std::max<uint32_t>(size, 1), i});
    argSites[arg].insert(r.site);
  }
  for (auto &[arg, list] : byArg) {
    std::stable_sort(list.begin(), list.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    OrderStoreRecord rec;
    rec.launch = launch.launch;
    rec.arg = arg;
    rec.name = nameOf(arg);
    rec.dtype = dtypeOf(argDtype[arg]);
    for (uint32_t site : argSites[arg])
      if (launch.siteLocation)
        rec.sites.push_back(launch.siteLocation(site));
    for (size_t i = 0; i < list.size(); ++i) {
      if (i + 1 < list.size() && list[i + 1].first == list[i].first)
        continue; // a later store to the same element wins
      rec.elements.push_back({list[i].first, stores[list[i].second].fp});
    }
    out.stores.push_back(std::move(rec));
  }

  // Atomics: per buffer and element, in landing order.
  struct Location {
    std::vector<const kosan_order_atomic *> log;
  };
  std::map<std::pair<uint32_t, std::string>, std::map<uint64_t, Location>> atomicsByArg;
  std::map<std::pair<uint32_t, std::string>, uint32_t> atomicDtype;
  std::map<std::pair<uint32_t, std::string>, std::set<uint32_t>> atomicSites;
  for (size_t i = 0; i < natomics; ++i) {
    const kosan_order_atomic &r = atomics[i];
    uint32_t arg;
    uint64_t offset;
    if (!locate(r.arg, r.where, arg, offset)) {
      ++out.unresolved;
      continue;
    }
    const kosan_site *s = siteInfo(r.site);
    uint32_t dtype = s ? s->size : KOSAN_DTYPE_F32;
    std::string op = launch.siteOp ? launch.siteOp(r.site) : "";
    if (op.empty())
      op = "fadd";
    uint32_t size = std::max<uint32_t>(dtypeSize(dtypeOf(dtype)), 1);
    auto key = std::make_pair(arg, op);
    atomicDtype.try_emplace(key, dtype);
    atomicSites[key].insert(r.site);
    atomicsByArg[key][offset / size].log.push_back(&r);
  }
  for (auto &[key, locations] : atomicsByArg) {
    OrderAtomicRecord rec;
    rec.launch = launch.launch;
    rec.arg = key.first;
    rec.op = key.second;
    rec.name = nameOf(key.first);
    uint32_t dtype = atomicDtype[key];
    rec.dtype = dtypeOf(dtype);
    uint32_t size = std::max<uint32_t>(dtypeSize(rec.dtype), 1);
    for (uint32_t site : atomicSites[key])
      if (launch.siteLocation)
        rec.sites.push_back(launch.siteLocation(site));
    uint64_t foldOp = kosan_fp_op(("atomic." + rec.op).c_str());
    bool orderFree = rec.op == "fmin" || rec.op == "fmax";
    for (auto &[element, loc] : locations) {
      bool exact = true;
      std::vector<size_t> order = atomicLandingOrder(loc.log, dtype, rec.op, &exact);
      rec.exact &= exact;
      AtomicSequence seq;
      seq.element = element;
      const kosan_order_atomic *first = loc.log[order.front()];
      uint64_t fp = launch.valueLeaves ? kosan_fp_content(first->old_bits, dtype)
                                       : kosan_fp_leaf(key.first, element * size);
      std::set<uint64_t> distinct;
      for (size_t i : order) {
        const kosan_order_atomic *a = loc.log[i];
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

} // namespace kosan
