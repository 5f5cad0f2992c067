//===- order_diff.cpp - Determinism and batch invariance from fingerprints -===//
//
// kosan-diff --order and --batch-invariance (docs/diff.md): both read the
// order records of two traces (checks=order), pair their launches as the
// output comparison does, and compare fingerprints: per element for stores,
// per location and contribution for float atomics. Where both traces also
// hold snapshots of an output, its bits are compared too.
//
//===----------------------------------------------------------------------===//
#include "kosan/diff.h"
#include "order_explain.h"
#include "text.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <tuple>

namespace kosan {

namespace {

using detail::plural;

//===----------------------------------------------------------------------===//
// One trace's order records, by launch
//===----------------------------------------------------------------------===//

// `compared` holds the launches with order records.
struct OrderSide : detail::DiffSide {
  using DiffSide::DiffSide;
  std::map<uint32_t, std::vector<const OrderStoreRecord *>> stores;
  std::map<uint32_t, std::vector<const OrderAtomicRecord *>> atomics;
  std::map<uint32_t, const OrderSummary *> summaries;
  std::map<uint32_t, const OrderOpsRecord *> ops; // checks=order-ops, by launch
  std::map<std::pair<uint32_t, uint32_t>, const SnapshotRecord *> snapshots;

  void index() {
    for (const LaunchRecord &l : trace.launches)
      launches[l.id] = l;
    for (const OrderStoreRecord &r : trace.order_stores) {
      stores[r.launch].push_back(&r);
      compared.insert(r.launch);
    }
    for (const OrderAtomicRecord &r : trace.order_atomics) {
      atomics[r.launch].push_back(&r);
      compared.insert(r.launch);
    }
    for (const OrderSummary &s : trace.order_summaries) {
      summaries[s.launch] = &s;
      compared.insert(s.launch);
    }
    for (const OrderOpsRecord &r : trace.order_ops)
      ops.emplace(r.launch, &r);
    for (const SnapshotRecord &s : trace.snapshots)
      snapshots.emplace(std::pair{s.launch, s.arg}, &s);
    // Records of a launch the trace does not describe still get one.
    for (uint32_t id : compared)
      if (!launches.count(id)) {
        LaunchRecord l;
        l.id = id;
        launches[id] = l;
      }
  }

  bool hasOrderRecords() const { return !compared.empty(); }

  // The kernel's static findings: by module and mangled name, else by name.
  std::optional<KernelOrderInfo> findingsOf(const LaunchRecord &l) const {
    const KernelOrderInfo *byName = nullptr;
    for (const KernelOrderInfo &k : trace.kernel_order) {
      bool sameKernel = !l.mangled.empty() ? k.mangled == l.mangled
                                           : !l.kernel.empty() && k.kernel == l.kernel;
      if (!sameKernel)
        continue;
      if (k.module == l.module || k.module == 0 || l.module == 0)
        return k;
      byName = &k;
    }
    if (byName)
      return *byName;
    return std::nullopt;
  }

  const SnapshotRecord *snapshot(uint32_t launch, uint32_t arg) const {
    auto it = snapshots.find({launch, arg});
    return it == snapshots.end() ? nullptr : it->second;
  }

  std::optional<OrderSummary> summary(uint32_t launch) const {
    auto it = summaries.find(launch);
    if (it == summaries.end())
      return std::nullopt;
    return *it->second;
  }
};

// Reads both traces; false with *error on the first problem.
bool readTraces(OrderSide &a, OrderSide &b, std::vector<std::string> *notes,
                std::string *error) {
  for (OrderSide *side : {&a, &b}) {
    ReadResult read = readTrace(side->path);
    if (read.error != TraceError::None) {
      *error = read.message;
      return false;
    }
    side->trace = std::move(read.trace);
    for (const std::string &warning : side->trace.warnings)
      notes->push_back(warning);
    side->index();
  }
  for (OrderSide *side : {&a, &b})
    if (!side->hasOrderRecords()) {
      *error = std::string(side->role) + " " + side->path +
               " has no order records: record it with KOSAN_OPTIONS=checks=order "
               "and a build with --kosan-checks=order";
      return false;
    }
  std::string leavesA = orderLeaves(a.trace.header), leavesB = orderLeaves(b.trace.header);
  if (leavesA != leavesB) {
    *error = "A was recorded with order_leaves=" + leavesA + " and B with order_leaves=" +
             leavesB + ": their fingerprints cannot be compared; record both with "
             "the same KOSAN_OPTIONS=order_leaves";
    return false;
  }
  return true;
}

// The start of diffOrder and diffBatchInvariance: A and B read, their
// headers in the result and their warnings in its notes. False with *error
// on the first problem.
template <typename Result>
bool readSides(OrderSide &a, OrderSide &b, Result &result, std::string *error) {
  bool read = readTraces(a, b, &result.notes, error);
  result.a_header = a.trace.header;
  result.b_header = b.trace.header;
  return read;
}

// The launch pairs of A and B, as diffTraces pairs launches with snapshots
// (docs/diff.md), among the launches with order records.
bool pairLaunches(const OrderSide &a, const OrderSide &b,
                  const std::vector<std::pair<uint32_t, uint32_t>> &given,
                  std::vector<std::pair<uint32_t, uint32_t>> *pairs,
                  std::vector<std::string> *notes, std::string *error) {
  return detail::pairLaunches(a, b, "order records", given, pairs, notes, error);
}

// A comparison that ends in trouble.
template <typename Result> Result troubled(Result &result, std::string message) {
  result.verdict = decltype(result.verdict)::Trouble;
  result.error = std::move(message);
  return std::move(result);
}

// A launch pair's launches and the kernel's static findings (A's, else B's).
template <typename LaunchDiff>
LaunchDiff launchPair(const OrderSide &a, uint32_t x, const OrderSide &b, uint32_t y) {
  LaunchDiff d;
  d.a = a.launches.at(x);
  d.b = b.launches.at(y);
  d.findings = a.findingsOf(d.a);
  if (!d.findings)
    d.findings = b.findingsOf(d.b);
  return d;
}

// Pairs the records of two launches: by argument for the same kernel, else
// by name. Unpaired ones get nullptr on the other side.
template <typename Record>
std::vector<std::pair<const Record *, const Record *>>
pairRecords(const LaunchRecord &la, const std::vector<const Record *> &a,
            const LaunchRecord &lb, const std::vector<const Record *> &b) {
  bool sameKernel = la.mangled == lb.mangled && la.kernel == lb.kernel;
  auto same = [&](const Record *x, const Record *y) {
    return sameKernel ? x->arg == y->arg : !x->name.empty() && x->name == y->name;
  };
  std::vector<std::pair<const Record *, const Record *>> out;
  std::vector<bool> taken(b.size(), false);
  for (const Record *x : a) {
    const Record *partner = nullptr;
    for (size_t i = 0; i < b.size(); ++i)
      if (!taken[i] && same(x, b[i])) {
        taken[i] = true;
        partner = b[i];
        break;
      }
    out.push_back({x, partner});
  }
  for (size_t i = 0; i < b.size(); ++i)
    if (!taken[i])
      out.push_back({nullptr, b[i]});
  return out;
}

void addExample(std::vector<uint64_t> &list, uint64_t value) {
  if (list.size() < kOrderExamples)
    list.push_back(value);
}

// The notes of records the device log dropped in a launch pair. *trouble,
// where still empty, gets the first sentence, which makes a clean
// comparison trouble.
void droppedRecords(const OrderSide &a, uint32_t x, const OrderSide &b, uint32_t y,
                    std::vector<std::string> *notes, std::string *trouble) {
  for (auto [side, launch] : {std::pair{&a, x}, std::pair{&b, y}}) {
    auto it = side->summaries.find(launch);
    if (it == side->summaries.end())
      continue;
    const OrderSummary &s = *it->second;
    for (auto [n, what, option] :
         {std::tuple{s.dropped_stores, "store record", "order_stores"},
          std::tuple{s.dropped_atomics, "atomic record", "order_atomics"}}) {
      if (n == 0)
        continue;
      std::string sentence = side->describe(launch) + ": " +
                             plural(n, what, (std::string(what) + "s").c_str()) +
                             " dropped: the device log was full; raise " + option;
      notes->push_back(sentence);
      if (trouble->empty())
        *trouble = sentence + " (KOSAN_OPTIONS=" + option +
                   "=N) and record again: differences could hide in the dropped records";
    }
  }
}

//===----------------------------------------------------------------------===//
// Where differing fingerprints part (checks=order-ops)
//===----------------------------------------------------------------------===//

// The fingerprint of element in elements (ascending), if there is one.
std::optional<uint64_t> fingerprintAt(const std::vector<OrderElement> &elements,
                                      uint64_t element) {
  auto it = std::lower_bound(elements.begin(), elements.end(), element,
                             [](const OrderElement &e, uint64_t v) { return e.element < v; });
  if (it == elements.end() || it->element != element)
    return std::nullopt;
  return it->fp;
}

// The operation logs of one launch pair, indexed at the first element to
// explain: a launch without differences costs nothing.
class PartingExplainer {
public:
  PartingExplainer(const OrderSide &a, uint32_t x, const OrderSide &b, uint32_t y) {
    auto find = [](const OrderSide &side, uint32_t id) -> const OrderOpsRecord * {
      auto it = side.ops.find(id);
      return it == side.ops.end() ? nullptr : it->second;
    };
    auto dropped = [](const OrderSide &side, uint32_t id) -> uint64_t {
      std::optional<OrderSummary> s = side.summary(id);
      return s ? s->dropped_ops : 0;
    };
    recordA_ = find(a, x);
    recordB_ = find(b, y);
    droppedA_ = dropped(a, x);
    droppedB_ = dropped(b, y);
  }

  // For an output whose stored fingerprints (a's and b's elements, each
  // ascending) differ: its note, and where the computations of the element
  // pairs (A's element, B's) part.
  void explainOutput(const std::vector<OrderElement> &a, const std::vector<OrderElement> &b,
                     const std::vector<std::pair<uint64_t, uint64_t>> &elements,
                     std::string *note, std::vector<OrderParting> *partings) {
    *note = this->note();
    if (!available())
      return;
    for (auto [x, y] : elements) {
      std::optional<uint64_t> fpA = fingerprintAt(a, x), fpB = fingerprintAt(b, y);
      if (fpA && fpB)
        partings->push_back(explain(x, *fpA, y, *fpB));
    }
  }

private:
  // Both runs logged the launch's operations.
  bool available() const { return recordA_ && recordB_; }

  OrderParting explain(uint64_t elementA, uint64_t fpA, uint64_t elementB, uint64_t fpB) {
    if (!indexA_) {
      indexA_.emplace(*recordA_, droppedA_);
      indexB_.emplace(*recordB_, droppedB_);
    }
    OrderParting p = detail::explainParting(*indexA_, *indexB_, fpA, fpB);
    p.element = elementA;
    p.element_b = elementB;
    return p;
  }

  // The note under an output with differing elements: the hint where a log
  // is missing, that a log dropped operations, or "".
  std::string note() const {
    if (!available())
      return kOrderOpsHint;
    if (droppedA_ == 0 && droppedB_ == 0)
      return "";
    std::string who = droppedA_ > 0 && droppedB_ > 0
                          ? "A's operation log dropped " + std::to_string(droppedA_) +
                                " operations of this launch and B's " +
                                std::to_string(droppedB_)
                          : std::string(droppedA_ > 0 ? "A" : "B") +
                                "'s operation log dropped " +
                                plural(std::max(droppedA_, droppedB_), "operation",
                                       "operations") +
                                " of this launch";
    return who + ": an explanation may stop at a lost operation; raise order_ops";
  }

  const OrderOpsRecord *recordA_ = nullptr, *recordB_ = nullptr;
  uint64_t droppedA_ = 0, droppedB_ = 0;
  std::optional<detail::OrderOpsIndex> indexA_, indexB_;
};

//===----------------------------------------------------------------------===//
// Snapshot bits
//===----------------------------------------------------------------------===//

// A snapshot read chunk by chunk, element after element.
class ElementCursor {
public:
  bool open(const std::string &path, const SnapshotRecord &record, std::string *error) {
    size_ = dtypeSize(record.dtype);
    stream_ = SnapshotStream::open(path, record, error);
    return stream_ != nullptr;
  }
  // Elements available at data(); refills when none are left. 0 at the end
  // (error empty) or on an error.
  uint64_t available(std::string *error) {
    while (pos_ * size_ >= buffer_.size()) {
      uint64_t first = 0;
      if (!stream_->next(&buffer_, &first, error))
        return 0;
      pos_ = 0;
    }
    return buffer_.size() / size_ - pos_;
  }
  const char *data() const { return buffer_.data() + pos_ * size_; }
  void consume(uint64_t n) { pos_ += n; }

private:
  std::unique_ptr<SnapshotStream> stream_;
  std::vector<char> buffer_;
  uint64_t pos_ = 0;
  uint32_t size_ = 1;
};

// Both runs' snapshots of the output of argument `arg`, bit for bit.
bool compareSnapshotBits(const OrderSide &a, uint32_t launchA, const OrderSide &b,
                         uint32_t launchB, uint32_t arg, OrderBits *bits,
                         std::string *error) {
  const SnapshotRecord *sa = a.snapshot(launchA, arg), *sb = b.snapshot(launchB, arg);
  if (!sa || !sb)
    return true;
  if (sa->dtype != sb->dtype || sa->count != sb->count) {
    bits->problem = std::string("the snapshots differ in ") +
                    (sa->dtype != sb->dtype ? "element type" : "size") + " (A " +
                    plural(sa->count, "element", "elements") + " of " +
                    dtypeName(sa->dtype) + ", B " + std::to_string(sb->count) + " of " +
                    dtypeName(sb->dtype) + ")";
    return true;
  }
  ElementCursor ca, cb;
  if (!ca.open(a.path, *sa, error) || !cb.open(b.path, *sb, error))
    return false;
  uint32_t size = dtypeSize(sa->dtype);
  uint64_t done = 0;
  while (done < sa->count) {
    uint64_t na = ca.available(error);
    if (!error->empty())
      return false;
    uint64_t nb = cb.available(error);
    if (!error->empty())
      return false;
    uint64_t n = std::min({na, nb, sa->count - done});
    if (n == 0) {
      *error = "the snapshot of '" + sa->name + "' ends after " +
               std::to_string(done) + " of its " + std::to_string(sa->count) +
               " elements";
      return false;
    }
    const char *pa = ca.data(), *pb = cb.data();
    for (uint64_t i = 0; i < n; ++i)
      if (std::memcmp(pa + i * size, pb + i * size, size) != 0) {
        ++bits->differing;
        addExample(bits->first, done + i);
      }
    ca.consume(n);
    cb.consume(n);
    done += n;
  }
  bits->compared = true;
  bits->elements = done;
  return true;
}

// Elements [first, first + count) of a snapshot, for each range asked for.
bool readSnapshotRanges(const std::string &path, const SnapshotRecord &record,
                        const std::vector<std::pair<uint64_t, uint64_t>> &ranges,
                        std::map<uint64_t, std::vector<char>> *out, std::string *error) {
  uint32_t size = dtypeSize(record.dtype);
  for (auto [first, count] : ranges) {
    uint64_t end = std::min(record.count, first + count);
    (*out)[first].assign(first < end ? (end - first) * size : 0, 0);
  }
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::open(path, record, error);
  if (!stream)
    return false;
  std::vector<char> chunk;
  uint64_t chunkFirst = 0;
  while (stream->next(&chunk, &chunkFirst, error)) {
    uint64_t chunkEnd = chunkFirst + chunk.size() / size;
    for (auto [first, count] : ranges) {
      uint64_t end = std::min(record.count, first + count);
      uint64_t lo = std::max(first, chunkFirst), hi = std::min(end, chunkEnd);
      if (lo < hi)
        std::memcpy((*out)[first].data() + (lo - first) * size,
                    chunk.data() + (lo - chunkFirst) * size, (hi - lo) * size);
    }
  }
  return error->empty();
}

//===----------------------------------------------------------------------===//
// --order
//===----------------------------------------------------------------------===//

OrderStoreDiff compareStores(const OrderStoreRecord *a, const OrderStoreRecord *b) {
  OrderStoreDiff d;
  const OrderStoreRecord &any = a ? *a : *b;
  d.arg = any.arg;
  d.name = any.name;
  d.dtype = any.dtype;
  d.sites = any.sites;
  d.elements_a = a ? a->elements.size() : 0;
  d.elements_b = b ? b->elements.size() : 0;
  if (!a || !b) {
    d.problem = std::string(a ? "B" : "A") + " recorded no stores to it";
    d.deterministic = false;
    return d;
  }
  if (a->dtype != b->dtype)
    d.problem = std::string("its element types differ: A ") + dtypeName(a->dtype) +
                ", B " + dtypeName(b->dtype);
  size_t i = 0, j = 0;
  const auto &ea = a->elements, &eb = b->elements;
  while (i < ea.size() || j < eb.size()) {
    if (j == eb.size() || (i < ea.size() && ea[i].element < eb[j].element)) {
      ++d.only_a;
      addExample(d.first_only_a, ea[i++].element);
    } else if (i == ea.size() || eb[j].element < ea[i].element) {
      ++d.only_b;
      addExample(d.first_only_b, eb[j++].element);
    } else {
      ++d.compared;
      if (ea[i].fp != eb[j].fp) {
        ++d.differing;
        addExample(d.first_differing, ea[i].element);
      }
      ++i;
      ++j;
    }
  }
  d.deterministic = d.problem.empty() && d.differing == 0 && d.only_a == 0 && d.only_b == 0;
  return d;
}

using ContributionKey = std::tuple<uint32_t, uint32_t, uint64_t>; // block, thread, fp

ContributionKey keyOf(const AtomicContribution &c) { return {c.block, c.thread, c.fp}; }

OrderAtomicDiff compareAtomics(const OrderAtomicRecord *a, const OrderAtomicRecord *b) {
  OrderAtomicDiff d;
  const OrderAtomicRecord &any = a ? *a : *b;
  d.arg = any.arg;
  d.name = any.name;
  d.dtype = any.dtype;
  d.op = any.op;
  d.sites = any.sites;
  d.order_matters = atomicOrderMatters(any.op);
  d.exact_a = a ? a->exact : true;
  d.exact_b = b ? b->exact : true;
  for (auto [record, total] : {std::pair{a, &d.contributions_a}, std::pair{b, &d.contributions_b}})
    if (record)
      for (const AtomicSequence &l : record->locations)
        *total += l.order.size();
  if (!a || !b) {
    d.problem = std::string(a ? "B" : "A") + " recorded no float atomics on it";
    d.deterministic = false;
    return d;
  }
  if (a->op != b->op || a->dtype != b->dtype)
    d.problem = "its atomics differ: A " + std::string(dtypeName(a->dtype)) + " " + a->op +
                ", B " + dtypeName(b->dtype) + " " + b->op;

  size_t i = 0, j = 0;
  const auto &la = a->locations, &lb = b->locations;
  while (i < la.size() || j < lb.size()) {
    if (j == lb.size() || (i < la.size() && la[i].element < lb[j].element)) {
      ++d.only_a;
      addExample(d.first_only_a, la[i++].element);
      continue;
    }
    if (i == la.size() || lb[j].element < la[i].element) {
      ++d.only_b;
      addExample(d.first_only_b, lb[j++].element);
      continue;
    }
    const AtomicSequence &x = la[i++], &y = lb[j++];
    ++d.locations;
    bool dependent = orderDependent(*a, x) || orderDependent(*b, y);
    bool sameOrder = x.order.size() == y.order.size() &&
                     std::equal(x.order.begin(), x.order.end(), y.order.begin(),
                                [](const AtomicContribution &p, const AtomicContribution &q) {
                                  return keyOf(p) == keyOf(q);
                                });
    if (dependent) {
      ++d.order_dependent;
      addExample(d.first_dependent, x.element);
      if (sameOrder)
        ++d.dependent_alike;
    }
    if (x.fp != y.fp)
      ++d.fp_differing;
    if (sameOrder)
      continue;
    std::vector<ContributionKey> kx, ky;
    for (const AtomicContribution &c : x.order)
      kx.push_back(keyOf(c));
    for (const AtomicContribution &c : y.order)
      ky.push_back(keyOf(c));
    std::sort(kx.begin(), kx.end());
    std::sort(ky.begin(), ky.end());
    if (kx != ky) {
      ++d.other_contributions;
      addExample(d.first_other, x.element);
      continue;
    }
    ++d.reordered;
    if (d.divergences.size() < kOrderExamples) {
      AtomicDivergence v;
      v.element = x.element;
      v.contributions = x.order.size();
      while (v.position < x.order.size() &&
             keyOf(x.order[v.position]) == keyOf(y.order[v.position]))
        ++v.position;
      v.a = x.order[v.position];
      v.b = y.order[v.position];
      d.divergences.push_back(v);
    }
  }
  // fmin and fmax fold to the same value in any order; only other
  // contributions can change it. Their location fingerprints, folded in
  // landing order, say nothing.
  bool contributionsAgree = d.other_contributions == 0 && d.only_a == 0 && d.only_b == 0;
  d.deterministic = d.problem.empty() && contributionsAgree &&
                    (!d.order_matters || (d.fp_differing == 0 && d.order_dependent == 0));
  return d;
}

} // namespace

OrderDiffResult diffOrder(const std::string &aPath, const std::string &bPath,
                          const OrderDiffOptions &options) {
  OrderDiffResult result;
  result.a_path = aPath;
  result.b_path = bPath;
  OrderSide a("A", aPath), b("B", bPath);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  std::string error;
  if (!readSides(a, b, result, &error) ||
      !pairLaunches(a, b, options.launches, &pairs, &result.notes, &error))
    return troubled(result, error);

  std::string droppedTrouble;
  for (auto [x, y] : pairs) {
    OrderLaunchDiff d = launchPair<OrderLaunchDiff>(a, x, b, y);
    d.summary_a = a.summary(x);
    d.summary_b = b.summary(y);
    static const std::vector<const OrderStoreRecord *> noStores;
    static const std::vector<const OrderAtomicRecord *> noAtomics;
    auto storesOf = [&](const OrderSide &s, uint32_t id) -> const auto & {
      auto it = s.stores.find(id);
      return it == s.stores.end() ? noStores : it->second;
    };
    auto atomicsOf = [&](const OrderSide &s, uint32_t id) -> const auto & {
      auto it = s.atomics.find(id);
      return it == s.atomics.end() ? noAtomics : it->second;
    };
    auto dropped = [&](uint64_t OrderSummary::*field) {
      return (d.summary_a && (*d.summary_a).*field > 0) ||
             (d.summary_b && (*d.summary_b).*field > 0);
    };
    bool storesDropped = dropped(&OrderSummary::dropped_stores);
    bool atomicsDropped = dropped(&OrderSummary::dropped_atomics);
    PartingExplainer explainer(a, x, b, y);
    for (auto [ra, rb] : pairRecords(d.a, storesOf(a, x), d.b, storesOf(b, y))) {
      OrderStoreDiff s = compareStores(ra, rb);
      if (ra && rb && !compareSnapshotBits(a, x, b, y, s.arg, &s.bits, &error))
        return troubled(result, error);
      if (ra && rb && s.differing > 0) {
        std::vector<std::pair<uint64_t, uint64_t>> elements;
        for (uint64_t element : s.first_differing)
          elements.push_back({element, element});
        explainer.explainOutput(ra->elements, rb->elements, elements, &s.parting_note,
                                &s.partings);
      }
      s.incomplete = storesDropped;
      s.deterministic = (s.incomplete || s.deterministic) && s.bits.differing == 0;
      d.stores.push_back(std::move(s));
    }
    for (auto [ra, rb] : pairRecords(d.a, atomicsOf(a, x), d.b, atomicsOf(b, y))) {
      OrderAtomicDiff t = compareAtomics(ra, rb);
      if (ra && rb && !compareSnapshotBits(a, x, b, y, t.arg, &t.bits, &error))
        return troubled(result, error);
      t.incomplete = atomicsDropped;
      // Contributions the log recorded with different fingerprints depend
      // on the order whatever else was dropped.
      if (t.incomplete)
        t.deterministic = !(t.order_matters && t.order_dependent > 0);
      t.deterministic = t.deterministic && t.bits.differing == 0;
      d.atomics.push_back(std::move(t));
    }
    d.deterministic =
        std::all_of(d.stores.begin(), d.stores.end(),
                    [](const OrderStoreDiff &s) { return s.deterministic; }) &&
        std::all_of(d.atomics.begin(), d.atomics.end(),
                    [](const OrderAtomicDiff &t) { return t.deterministic; });
    droppedRecords(a, x, b, y, &result.notes, &droppedTrouble);
    result.launches.push_back(std::move(d));
  }

  bool deterministic = std::all_of(result.launches.begin(), result.launches.end(),
                                   [](const OrderLaunchDiff &d) { return d.deterministic; });
  // A difference found is one; a clean comparison with records missing
  // proves nothing.
  if (deterministic && !droppedTrouble.empty())
    return troubled(result, droppedTrouble);
  result.verdict = deterministic ? OrderVerdict::Deterministic : OrderVerdict::Nondeterministic;
  return result;
}

//===----------------------------------------------------------------------===//
// --batch-invariance
//===----------------------------------------------------------------------===//

std::optional<std::vector<RowPair>> parseRowPairs(std::string_view spec, std::string *error) {
  auto bad = [&](std::string_view item) {
    if (error)
      *error = "--rows " + std::string(spec) + ": " +
               (item.empty() ? std::string("an empty item")
                             : "'" + std::string(item) + "'") +
               " is not RA:RB or RA:RB:COUNT (rows from 0, COUNT 1 or more; "
               "e.g. 0:0,0:5 or 0:8:4)";
    return std::nullopt;
  };
  std::vector<RowPair> rows;
  if (spec.empty())
    return bad(spec);
  size_t start = 0;
  for (;;) {
    size_t comma = spec.find(',', start);
    std::string_view item = spec.substr(start, comma == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : comma - start);
    std::vector<uint64_t> numbers;
    size_t i = 0;
    for (;;) {
      size_t colon = item.find(':', i);
      std::string_view digits = item.substr(i, colon == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : colon - i);
      uint64_t v = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
        return bad(item);
      numbers.push_back(v);
      if (colon == std::string_view::npos)
        break;
      i = colon + 1;
    }
    if (numbers.size() < 2 || numbers.size() > 3 || (numbers.size() == 3 && numbers[2] == 0))
      return bad(item);
    rows.push_back({numbers[0], numbers[1], numbers.size() == 3 ? numbers[2] : 1});
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  return rows;
}

namespace {

// One output's fingerprints per element: its stores', and where atomics
// hit an element, the location's folded fingerprint.
struct OutputFingerprints {
  uint32_t arg = 0;
  std::string name;
  DType dtype = DType::Unknown;
  bool stores = false, atomics = false;
  std::vector<OrderElement> elements; // ascending

  std::string writtenBy() const {
    return stores && atomics ? "stores and atomics" : atomics ? "atomics" : "stores";
  }
  // Elements [first, first + n).
  std::pair<const OrderElement *, const OrderElement *> range(uint64_t first,
                                                              uint64_t n) const {
    auto lo = std::lower_bound(elements.begin(), elements.end(), first,
                               [](const OrderElement &e, uint64_t v) { return e.element < v; });
    auto hi = std::lower_bound(lo, elements.end(), first + n,
                               [](const OrderElement &e, uint64_t v) { return e.element < v; });
    return {elements.data() + (lo - elements.begin()), elements.data() + (hi - elements.begin())};
  }
};

template <typename T> std::vector<const T *> pointersTo(const std::vector<T> &v) {
  std::vector<const T *> out;
  for (const T &x : v)
    out.push_back(&x);
  return out;
}

std::vector<OutputFingerprints> outputsOf(const OrderSide &side, uint32_t launch) {
  std::map<uint32_t, OutputFingerprints> byArg;
  std::map<uint32_t, std::map<uint64_t, uint64_t>> atomicFps;
  if (auto it = side.stores.find(launch); it != side.stores.end())
    for (const OrderStoreRecord *r : it->second) {
      OutputFingerprints &o = byArg[r->arg];
      o.arg = r->arg;
      o.name = r->name;
      o.dtype = r->dtype;
      o.stores = true;
      o.elements = r->elements;
    }
  if (auto it = side.atomics.find(launch); it != side.atomics.end())
    for (const OrderAtomicRecord *r : it->second) {
      OutputFingerprints &o = byArg[r->arg];
      if (!o.stores) {
        o.arg = r->arg;
        o.name = r->name;
        o.dtype = r->dtype;
      }
      o.atomics = true;
      for (const AtomicSequence &l : r->locations)
        atomicFps[r->arg][l.element] = l.fp;
    }
  std::vector<OutputFingerprints> out;
  for (auto &[arg, o] : byArg) {
    auto fps = atomicFps.find(arg);
    if (fps != atomicFps.end()) {
      std::map<uint64_t, uint64_t> merged;
      for (const OrderElement &e : o.elements)
        merged[e.element] = e.fp;
      for (auto [element, fp] : fps->second)
        merged[element] = fp;
      o.elements.clear();
      for (auto [element, fp] : merged)
        o.elements.push_back({element, fp});
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<std::string> batchReasons(const std::optional<KernelOrderInfo> &k) {
  std::vector<std::string> reasons;
  if (!k) {
    reasons.push_back("no static findings are recorded for this kernel (no kernel_order "
                      "record): build it with --kosan-checks=order");
    return reasons;
  }
  if (k->launch_dependent_loop)
    reasons.push_back("the reduction's split depends on the launch (a loop's trip count "
                      "comes from a kernel argument or a launch dimension, or a branch on "
                      "one picks the loop)");
  if (k->float_atomics)
    reasons.push_back("float atomics: the result depends on the order they land in, "
                      "which changes with the batch");
  if (k->shuffle_reduction)
    reasons.push_back("a warp-shuffle reduction tree: which values it combines depends "
                      "on how the work maps to lanes");
  if (k->shared_reduction)
    reasons.push_back("a shared-memory reduction tree: its shape depends on how the work "
                      "is split across threads");
  if (reasons.empty())
    reasons.push_back("the static analysis found no reduction that depends on the launch");
  return reasons;
}

} // namespace

BatchDiffResult diffBatchInvariance(const std::string &aPath, const std::string &bPath,
                                    const BatchDiffOptions &options) {
  BatchDiffResult result;
  result.a_path = aPath;
  result.b_path = bPath;
  result.rows = options.rows;
  result.row_length = options.row_length;
  if (options.row_length == 0)
    return troubled(result, "--row-length must be 1 or more");
  if (options.rows.empty())
    return troubled(result, "no rows to compare: give --rows RA:RB[:COUNT],...");

  OrderSide a("A", aPath), b("B", bPath);
  std::string error;
  if (!readSides(a, b, result, &error))
    return troubled(result, error);

  const uint64_t n = options.row_length;
  for (const RowPair &r : options.rows) {
    uint64_t last = std::max(r.a, r.b) + (r.count - 1);
    if (last < std::max(r.a, r.b) || last > (UINT64_MAX - n) / n)
      return troubled(result, "--rows " + std::to_string(r.a) + ":" + std::to_string(r.b) +
                                  ":" + std::to_string(r.count) +
                                  " reaches beyond 2^64 elements");
    if (r.a != r.b && orderLeaves(a.trace.header) == "position")
      return troubled(result, "--rows " + std::to_string(r.a) + ":" + std::to_string(r.b) +
                                  " compares row " + std::to_string(r.a) + " of A with row " +
                                  std::to_string(r.b) + " of B, and the traces were recorded "
                                  "with order_leaves=position: rows at different offsets "
                                  "need value-labelled leaves: record both runs with "
                                  "KOSAN_OPTIONS=order_leaves=value");
  }

  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  if (!pairLaunches(a, b, options.launches, &pairs, &result.notes, &error))
    return troubled(result, error);

  // Rows beyond every output of both runs hold nothing to compare: asking
  // for them is a mistake, and would otherwise cost time and memory in
  // proportion to the request, not to the traces.
  std::vector<std::pair<std::vector<OutputFingerprints>, std::vector<OutputFingerprints>>>
      outputs;
  uint64_t extentA = 0, extentB = 0; // elements, over all outputs
  auto extentOf = [](const OrderSide &side, uint32_t launch,
                     const std::vector<OutputFingerprints> &list) {
    uint64_t extent = 0;
    for (const OutputFingerprints &o : list) {
      if (!o.elements.empty())
        extent = std::max(extent, o.elements.back().element + 1);
      if (const SnapshotRecord *s = side.snapshot(launch, o.arg))
        extent = std::max(extent, s->count);
    }
    return extent;
  };
  for (auto [x, y] : pairs) {
    outputs.emplace_back(outputsOf(a, x), outputsOf(b, y));
    extentA = std::max(extentA, extentOf(a, x, outputs.back().first));
    extentB = std::max(extentB, extentOf(b, y, outputs.back().second));
  }
  uint64_t rowsA = extentA / n + (extentA % n != 0), rowsB = extentB / n + (extentB % n != 0);
  for (const RowPair &r : options.rows) {
    uint64_t lastA = r.a + (r.count - 1), lastB = r.b + (r.count - 1);
    if (lastA >= rowsA && lastB >= rowsB)
      return troubled(result, "--rows " + std::to_string(r.a) + ":" + std::to_string(r.b) +
                                  ":" + std::to_string(r.count) + " reaches row " +
                                  std::to_string(lastA) + " of A and row " +
                                  std::to_string(lastB) + " of B, but with --row-length " +
                                  std::to_string(n) + " the outputs hold " +
                                  plural(rowsA, "row", "rows") + " in A and " +
                                  plural(rowsB, "row", "rows") + " in B");
  }

  std::string droppedTrouble, rowTrouble;
  for (size_t pairIndex = 0; pairIndex < pairs.size(); ++pairIndex) {
    auto [x, y] = pairs[pairIndex];
    BatchLaunchDiff d = launchPair<BatchLaunchDiff>(a, x, b, y);
    PartingExplainer explainer(a, x, b, y);
    bool incomplete = false;
    for (auto [side, id] : {std::pair{&a, x}, std::pair{&b, y}})
      if (std::optional<OrderSummary> s = side->summary(id))
        incomplete |= s->dropped_stores > 0 || s->dropped_atomics > 0;
    std::vector<OutputFingerprints> oa = std::move(outputs[pairIndex].first),
                                    ob = std::move(outputs[pairIndex].second);
    std::string pairName = a.describe(x) + " and " + b.describe(y);
    for (auto [pa, fb] : pairRecords(d.a, pointersTo(oa), d.b, pointersTo(ob))) {
      if (!pa || !fb) {
        const OutputFingerprints &only = pa ? *pa : *fb;
        result.notes.push_back(pairName + ": '" + only.name + "' (argument " +
                               std::to_string(only.arg) + ") has fingerprints in " +
                               (pa ? "A" : "B") + " only; it is not compared");
        continue;
      }
      const OutputFingerprints &fa = *pa;
      BatchOutputDiff out;
      out.arg = fa.arg;
      out.name = fa.name;
      out.dtype = fa.dtype;
      out.written_by = fa.writtenBy();
      if (fa.dtype != fb->dtype) {
        out.problem = std::string("its element types differ: A ") + dtypeName(fa.dtype) +
                      ", B " + dtypeName(fb->dtype);
        out.invariant = false;
        if (rowTrouble.empty())
          rowTrouble = pairName + ": '" + fa.name + "' " + out.problem;
        d.outputs.push_back(std::move(out));
        continue;
      }
      const SnapshotRecord *sa = a.snapshot(x, fa.arg), *sb = b.snapshot(y, fb->arg);
      bool bits = sa && sb && sa->dtype == sb->dtype;
      std::vector<std::pair<uint64_t, uint64_t>> rangesA, rangesB;
      for (const RowPair &r : options.rows)
        for (uint64_t k = 0; k < r.count; ++k) {
          uint64_t rowA = r.a + k, rowB = r.b + k;
          auto [a0, a1] = fa.range(rowA * n, n);
          auto [b0, b1] = fb->range(rowB * n, n);
          if (a0 == a1 && b0 == b1) {
            result.notes.push_back(pairName + ": neither run recorded a fingerprint in "
                                   "row " + std::to_string(rowA) + " of A or row " +
                                   std::to_string(rowB) + " of B of '" + fa.name +
                                   "'; not compared");
            continue;
          }
          if ((a0 == a1 || b0 == b1) && rowTrouble.empty()) {
            const char *empty = a0 == a1 ? "A" : "B";
            uint64_t row = a0 == a1 ? rowA : rowB;
            rowTrouble = std::string(empty) + " recorded no fingerprint in row " +
                         std::to_string(row) + " of '" + fa.name + "' (elements " +
                         std::to_string(row * n) + " to " + std::to_string(row * n + n - 1) +
                         ", " + pairName + "), where " + (a0 == a1 ? "B" : "A") +
                         " recorded " +
                         std::to_string(a0 == a1 ? b1 - b0 : a1 - a0) +
                         "; check --rows and --row-length";
          }
          BatchRowDiff row;
          row.row_a = rowA;
          row.row_b = rowB;
          const OrderElement *p = a0, *q = b0;
          while (p != a1 || q != b1) {
            uint64_t ca = p != a1 ? p->element - rowA * n : UINT64_MAX;
            uint64_t cb = q != b1 ? q->element - rowB * n : UINT64_MAX;
            if (ca < cb) {
              ++row.only_a;
              ++p;
            } else if (cb < ca) {
              ++row.only_b;
              ++q;
            } else {
              ++row.compared;
              if (p->fp != q->fp) {
                ++row.variant;
                addExample(row.first_variant, ca);
              }
              ++p;
              ++q;
            }
          }
          if (bits) {
            rangesA.push_back({rowA * n, n});
            rangesB.push_back({rowB * n, n});
          }
          if (row.variant > 0) {
            std::vector<std::pair<uint64_t, uint64_t>> elements;
            for (uint64_t column : row.first_variant)
              elements.push_back({rowA * n + column, rowB * n + column});
            explainer.explainOutput(fa.elements, fb->elements, elements, &row.parting_note,
                                    &row.partings);
          }
          row.incomplete = incomplete;
          row.invariant = incomplete || (row.variant == 0 && row.only_a == 0 && row.only_b == 0);
          out.rows.push_back(std::move(row));
        }
      if (bits && !out.rows.empty()) {
        std::map<uint64_t, std::vector<char>> da, db;
        if (!readSnapshotRanges(a.path, *sa, rangesA, &da, &error) ||
            !readSnapshotRanges(b.path, *sb, rangesB, &db, &error))
          return troubled(result, error);
        uint32_t size = dtypeSize(sa->dtype);
        for (BatchRowDiff &row : out.rows) {
          const std::vector<char> &ra = da[row.row_a * n], &rb = db[row.row_b * n];
          uint64_t columns = std::min(ra.size(), rb.size()) / size;
          row.bits.compared = columns > 0;
          row.bits.elements = columns;
          for (uint64_t c = 0; c < columns; ++c)
            if (std::memcmp(ra.data() + c * size, rb.data() + c * size, size) != 0) {
              ++row.bits.differing;
              addExample(row.bits.first, c);
            }
          if (columns < n)
            row.bits.problem = "the snapshots hold " + std::to_string(columns) + " of the " +
                               std::to_string(n) + " columns of these rows";
          row.invariant = row.invariant && row.bits.differing == 0;
        }
      }
      out.invariant = std::all_of(out.rows.begin(), out.rows.end(),
                                  [](const BatchRowDiff &r) { return r.invariant; });
      d.outputs.push_back(std::move(out));
    }
    d.invariant = std::all_of(d.outputs.begin(), d.outputs.end(),
                              [](const BatchOutputDiff &o) { return o.invariant; });
    if (!d.invariant)
      d.reasons = batchReasons(d.findings);
    droppedRecords(a, x, b, y, &result.notes, &droppedTrouble);
    result.launches.push_back(std::move(d));
  }

  if (!rowTrouble.empty())
    return troubled(result, rowTrouble);
  bool compared = std::any_of(result.launches.begin(), result.launches.end(),
                              [](const BatchLaunchDiff &d) {
                                return std::any_of(d.outputs.begin(), d.outputs.end(),
                                                   [](const BatchOutputDiff &o) {
                                                     return !o.rows.empty();
                                                   });
                              });
  if (!compared)
    return troubled(result, "no row of --rows holds fingerprints in either run: check "
                            "--rows and --row-length");
  bool invariant = std::all_of(result.launches.begin(), result.launches.end(),
                               [](const BatchLaunchDiff &d) { return d.invariant; });
  if (invariant && !droppedTrouble.empty())
    return troubled(result, droppedTrouble);
  result.verdict = invariant ? BatchVerdict::Invariant : BatchVerdict::BatchVariant;
  return result;
}

} // namespace kosan
