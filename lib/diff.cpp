//===- diff.cpp - Comparing a candidate run against a reference ------------===//
//
// The rules (launch matching, output matching, tolerance, NaN/Inf, unwritten
// elements) are in docs/diff.md; this file follows it section by section.
//
// The element loop is instantiated per dtype and per poison mode: no virtual
// call, no std::function and no dtype switch per element. Elements whose bits
// are equal take a short path; the rest are widened to double once, and the
// statistics that need a division (max_rel, the worst element) are updated
// only when a multiplication says they would change.
//
//===----------------------------------------------------------------------===//
#include "kosan/diff.h"
#include "text.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <set>
#include <tuple>

namespace kosan {

//===----------------------------------------------------------------------===//
// Element arithmetic
//===----------------------------------------------------------------------===//

Tolerance defaultTolerance(DType t) {
  switch (t) {
  case DType::F64:
    return {1e-8, 1e-8};
  case DType::F32:
    return {1e-4, 1e-4};
  case DType::F16:
  case DType::BF16:
    return {1e-2, 1e-2};
  case DType::F8E4M3:
  case DType::F8E5M2:
    return {1e-1, 1e-1};
  default:
    return {0, 0};
  }
}

namespace {

// A small binary float: 1 sign bit, E exponent bits, M mantissa bits.
// ieee: the top exponent holds Inf and NaN; otherwise (f8e4m3, "fn") only
// the all-ones pattern is NaN and there is no Inf.
struct MiniFloat {
  int exponentBits, mantissaBits, bias;
  bool ieee;
};
constexpr MiniFloat kF16{5, 10, 15, true};
constexpr MiniFloat kBF16{8, 7, 127, true};
constexpr MiniFloat kF8E4M3{4, 3, 7, false};
constexpr MiniFloat kF8E5M2{5, 2, 15, true};

double decodeMini(uint32_t bits, const MiniFloat &f) {
  uint32_t manMask = (1u << f.mantissaBits) - 1;
  uint32_t expMax = (1u << f.exponentBits) - 1;
  bool negative = bits >> (f.exponentBits + f.mantissaBits) & 1;
  uint32_t exponent = bits >> f.mantissaBits & expMax;
  uint32_t mantissa = bits & manMask;
  double value;
  if (f.ieee && exponent == expMax)
    value = mantissa ? std::numeric_limits<double>::quiet_NaN()
                     : std::numeric_limits<double>::infinity();
  else if (!f.ieee && exponent == expMax && mantissa == manMask)
    value = std::numeric_limits<double>::quiet_NaN();
  else if (exponent == 0)
    value = std::ldexp(double(mantissa), 1 - f.bias - f.mantissaBits);
  else
    value = std::ldexp(double(mantissa | (manMask + 1)),
                       int(exponent) - f.bias - f.mantissaBits);
  return negative ? -value : value;
}

uint32_t encodeMini(double v, const MiniFloat &f) {
  uint32_t signBit = 1u << (f.exponentBits + f.mantissaBits);
  uint32_t expMax = (1u << f.exponentBits) - 1;
  uint32_t manMask = (1u << f.mantissaBits) - 1;
  uint32_t nan = f.ieee ? (expMax << f.mantissaBits) | (1u << (f.mantissaBits - 1))
                        : (expMax << f.mantissaBits) | manMask;
  if (std::isnan(v))
    return nan;
  uint32_t sign = std::signbit(v) ? signBit : 0;
  double a = std::fabs(v);
  uint32_t overflow = f.ieee ? sign | expMax << f.mantissaBits : sign | nan;
  if (std::isinf(a))
    return overflow;
  if (a == 0)
    return sign;
  int e2;
  std::frexp(a, &e2);
  int exponent = e2 - 1; // a = 1.x * 2^exponent
  int minNormal = 1 - f.bias;
  // Scaled so that one unit in the last place is 1; rint rounds ties to even.
  int scale = std::max(exponent, minNormal) - f.mantissaBits;
  double q = std::rint(std::ldexp(a, -scale));
  uint64_t bits;
  if (exponent < minNormal) {
    bits = uint64_t(q); // a subnormal; rounding up to 2^M gives the smallest normal
  } else {
    if (q >= std::ldexp(1.0, f.mantissaBits + 1)) {
      q /= 2;
      ++exponent;
    }
    bits = uint64_t(exponent + f.bias) << f.mantissaBits |
           (uint64_t(q) & manMask);
  }
  uint64_t largest = f.ieee ? (uint64_t(expMax - 1) << f.mantissaBits | manMask)
                            : (uint64_t(expMax) << f.mantissaBits | (manMask - 1));
  if (bits > largest)
    return overflow;
  return sign | uint32_t(bits);
}

template <typename T> T loadAs(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T> void storeAs(void *p, T v) { std::memcpy(p, &v, sizeof v); }

template <typename I> I saturate(double v) {
  if (std::isnan(v))
    return 0;
  double r = std::nearbyint(v);
  if (r <= double(std::numeric_limits<I>::min()))
    return std::numeric_limits<I>::min();
  if (r >= double(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

// Units in the last place between two sign-magnitude bit patterns whose
// sign bit is `signBit`: +0 and -0 are the same place.
inline uint64_t signMagnitudeDistance(uint64_t a, uint64_t b, uint64_t signBit) {
  uint64_t ma = a & (signBit - 1), mb = b & (signBit - 1);
  if ((a & signBit) == (b & signBit))
    return ma > mb ? ma - mb : mb - ma;
  return ma + mb;
}

} // namespace

double decodeElement(const void *p, DType t) {
  switch (t) {
  case DType::F64:
    return loadAs<double>(p);
  case DType::F32:
    return loadAs<float>(p);
  case DType::F16:
    return decodeMini(loadAs<uint16_t>(p), kF16);
  case DType::BF16:
    return decodeMini(loadAs<uint16_t>(p), kBF16);
  case DType::F8E4M3:
    return decodeMini(loadAs<uint8_t>(p), kF8E4M3);
  case DType::F8E5M2:
    return decodeMini(loadAs<uint8_t>(p), kF8E5M2);
  case DType::I64:
    return double(loadAs<int64_t>(p));
  case DType::I32:
    return loadAs<int32_t>(p);
  case DType::I16:
    return loadAs<int16_t>(p);
  case DType::I8:
    return loadAs<int8_t>(p);
  case DType::U64:
    return double(loadAs<uint64_t>(p));
  case DType::U32:
    return loadAs<uint32_t>(p);
  case DType::U16:
    return loadAs<uint16_t>(p);
  case DType::U8:
  case DType::Bool:
  case DType::Unknown:
    return loadAs<uint8_t>(p);
  }
  return 0;
}

void encodeElement(double v, DType t, void *p) {
  switch (t) {
  case DType::F64:
    return storeAs<double>(p, v);
  case DType::F32:
    return storeAs<float>(p, static_cast<float>(v));
  case DType::F16:
    return storeAs<uint16_t>(p, uint16_t(encodeMini(v, kF16)));
  case DType::BF16:
    return storeAs<uint16_t>(p, uint16_t(encodeMini(v, kBF16)));
  case DType::F8E4M3:
    return storeAs<uint8_t>(p, uint8_t(encodeMini(v, kF8E4M3)));
  case DType::F8E5M2:
    return storeAs<uint8_t>(p, uint8_t(encodeMini(v, kF8E5M2)));
  case DType::I64:
    return storeAs(p, saturate<int64_t>(v));
  case DType::I32:
    return storeAs(p, saturate<int32_t>(v));
  case DType::I16:
    return storeAs(p, saturate<int16_t>(v));
  case DType::I8:
    return storeAs(p, saturate<int8_t>(v));
  case DType::U64:
    return storeAs(p, saturate<uint64_t>(v));
  case DType::U32:
    return storeAs(p, saturate<uint32_t>(v));
  case DType::U16:
    return storeAs(p, saturate<uint16_t>(v));
  case DType::U8:
  case DType::Unknown:
    return storeAs(p, saturate<uint8_t>(v));
  case DType::Bool:
    return storeAs<uint8_t>(p, v != 0 && !std::isnan(v));
  }
}

uint64_t ulpDistance(double a, double b, DType t) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : UINT64_MAX;
  if (!dtypeIsFloat(t)) {
    double d = std::fabs(a - b);
    return d >= 18446744073709551616.0 ? UINT64_MAX : uint64_t(d);
  }
  uint64_t ba = 0, bb = 0;
  encodeElement(a, t, &ba);
  encodeElement(b, t, &bb);
  uint64_t signBit = uint64_t(1) << (dtypeSize(t) * 8 - 1);
  return signMagnitudeDistance(ba, bb, signBit);
}

//===----------------------------------------------------------------------===//
// The element loop
//===----------------------------------------------------------------------===//

namespace {

// Statistics of one output while it streams; folded into ElementStats at
// the end.
struct Accumulator {
  ElementStats stats;
  double sumAbs = 0; // NaN and Inf pairs add 0
  // The worst element so far, ranked first by `rank`, then by `key`:
  // rank 0: key = |c - r| / tol; rank 1: tol was 0 and key = |c - r|;
  // rank 2: a NaN or Inf mismatch (the first one is kept).
  int worstRank = -1;
  double worstKey = 0;

  void setWorst(int rank, double key, uint64_t index, double r, double c) {
    worstRank = rank;
    worstKey = key;
    stats.worst_index = index;
    stats.worst_ref = r;
    stats.worst_cand = c;
  }

  // An element both sides wrote, finite on both, not bit-equal.
  void consider(double d, double tol, uint64_t index, double r, double c) {
    if (tol > 0) {
      if (worstRank < 0 || (worstRank == 0 && d > worstKey * tol))
        setWorst(0, d / tol, index, r, c);
    } else if (d > 0) {
      if (worstRank < 1 || (worstRank == 1 && d > worstKey))
        setWorst(1, d, index, r, c);
    } else if (worstRank < 0) {
      setWorst(0, 0, index, r, c);
    }
  }

  // NaN or Inf on at least one side.
  void nonFinite(double r, double c, uint64_t index) {
    bool rNan = std::isnan(r), cNan = std::isnan(c);
    if (rNan && cNan)
      return equal(index, r, c);
    if (rNan || cNan) {
      ++stats.nan_mismatch;
    } else if (r == c) {
      return equal(index, r, c); // Infs of the same sign
    } else {
      ++stats.inf_mismatch;
    }
    ++stats.over_tolerance;
    if (worstRank < 2)
      setWorst(2, 0, index, r, c);
  }

  void equal(uint64_t index, double r, double c) {
    if (worstRank < 0)
      setWorst(0, 0, index, r, c);
  }
};

struct Params {
  double atol = 0, rtol = 0;
  uint64_t refPoison = 0, candPoison = 0; // bits of one element
};

// Per-dtype element access. Bits: the storage; value(): widened to double;
// distance(): ULPs (floats) or the integer difference.
template <typename B> struct BitsOf {
  using Bits = B;
  static Bits load(const uint8_t *p) { return loadAs<Bits>(p); }
};

struct F64Elem : BitsOf<uint64_t> {
  static constexpr bool kFloat = true;
  static double value(Bits b) { return std::bit_cast<double>(b); }
  static uint64_t distance(Bits a, Bits b) {
    return signMagnitudeDistance(a, b, uint64_t(1) << 63);
  }
};
struct F32Elem : BitsOf<uint32_t> {
  static constexpr bool kFloat = true;
  static double value(Bits b) { return std::bit_cast<float>(b); }
  static uint64_t distance(Bits a, Bits b) {
    return signMagnitudeDistance(a, b, uint64_t(1) << 31);
  }
};
struct BF16Elem : BitsOf<uint16_t> {
  static constexpr bool kFloat = true;
  static double value(Bits b) { return std::bit_cast<float>(uint32_t(b) << 16); }
  static uint64_t distance(Bits a, Bits b) {
    return signMagnitudeDistance(a, b, 1u << 15);
  }
};

// f16 and the f8 formats decode through a table of all their values.
template <const MiniFloat &F, typename B> struct TableElem : BitsOf<B> {
  using Bits = B;
  static constexpr bool kFloat = true;
  static const std::vector<double> &table() {
    static const std::vector<double> values = [] {
      std::vector<double> v(size_t(1) << (8 * sizeof(B)));
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = decodeMini(uint32_t(i), F);
      return v;
    }();
    return values;
  }
  static double value(Bits b) { return table()[b]; }
  static uint64_t distance(Bits a, Bits b) {
    return signMagnitudeDistance(a, b, uint64_t(1) << (8 * sizeof(B) - 1));
  }
};
using F16Elem = TableElem<kF16, uint16_t>;
using F8E4M3Elem = TableElem<kF8E4M3, uint8_t>;
using F8E5M2Elem = TableElem<kF8E5M2, uint8_t>;

template <typename I> struct IntElem {
  using Bits = std::make_unsigned_t<I>;
  static constexpr bool kFloat = false;
  static Bits load(const uint8_t *p) { return loadAs<Bits>(p); }
  static double value(Bits b) { return double(static_cast<I>(b)); }
  static uint64_t distance(Bits a, Bits b) {
    I x = static_cast<I>(a), y = static_cast<I>(b);
    return x > y ? uint64_t(x) - uint64_t(y) : uint64_t(y) - uint64_t(x);
  }
};

template <typename E, bool RefPoisoned, bool CandPoisoned>
void compareSpan(const uint8_t *ref, const uint8_t *cand, size_t n,
                 uint64_t firstIndex, const Params &p, Accumulator &acc) {
  using Bits = typename E::Bits;
  constexpr size_t kSize = sizeof(Bits);
  const Bits refPoison = Bits(p.refPoison), candPoison = Bits(p.candPoison);
  const double atol = p.atol, rtol = p.rtol;
  ElementStats &s = acc.stats;
  // Hot members in locals: the compiler cannot keep struct members in
  // registers across the calls of the rare paths.
  uint64_t compared = 0, over = 0, maxUlp = s.max_ulp;
  uint64_t unwrittenRef = 0, unwrittenCand = 0;
  double maxAbs = s.max_abs, maxRel = s.max_rel, sumAbs = 0;

  for (size_t i = 0; i < n; ++i) {
    Bits rb = E::load(ref + i * kSize), cb = E::load(cand + i * kSize);
    if constexpr (RefPoisoned) {
      if (rb == refPoison) {
        ++unwrittenRef;
        continue;
      }
    }
    if constexpr (CandPoisoned) {
      if (cb == candPoison) {
        ++unwrittenCand;
        continue;
      }
    }
    ++compared;
    if (rb == cb) {
      if (acc.worstRank < 0) [[unlikely]]
        acc.equal(firstIndex + i, E::value(rb), E::value(cb));
      continue;
    }
    double r = E::value(rb), c = E::value(cb);
    if constexpr (E::kFloat) {
      if (!std::isfinite(r) || !std::isfinite(c)) [[unlikely]] {
        acc.nonFinite(r, c, firstIndex + i);
        continue;
      }
    }
    uint64_t ulp = E::distance(rb, cb);
    // Integers: the exact difference, not one rounded through double.
    double d = E::kFloat ? std::fabs(c - r) : double(ulp);
    double absR = std::fabs(r);
    double tol = atol + rtol * absR;
    sumAbs += d;
    maxAbs = d > maxAbs ? d : maxAbs;
    maxUlp = ulp > maxUlp ? ulp : maxUlp;
    over += d > tol;
    if (d > maxRel * absR && absR > 0) [[unlikely]]
      maxRel = d / absR;
    acc.consider(d, tol, firstIndex + i, r, c);
  }
  s.compared += compared;
  s.over_tolerance += over;
  s.unwritten_ref += unwrittenRef;
  s.unwritten_cand += unwrittenCand;
  s.max_abs = maxAbs;
  s.max_rel = maxRel;
  s.max_ulp = maxUlp;
  acc.sumAbs += sumAbs;
}

using SpanFn = void (*)(const uint8_t *, const uint8_t *, size_t, uint64_t,
                        const Params &, Accumulator &);

template <typename E> SpanFn pickPoison(bool refPoisoned, bool candPoisoned) {
  if (refPoisoned)
    return candPoisoned ? compareSpan<E, true, true> : compareSpan<E, true, false>;
  return candPoisoned ? compareSpan<E, false, true> : compareSpan<E, false, false>;
}

SpanFn pickSpanFn(DType t, bool refPoisoned, bool candPoisoned) {
  switch (t) {
  case DType::F64:
    return pickPoison<F64Elem>(refPoisoned, candPoisoned);
  case DType::F32:
    return pickPoison<F32Elem>(refPoisoned, candPoisoned);
  case DType::F16:
    return pickPoison<F16Elem>(refPoisoned, candPoisoned);
  case DType::BF16:
    return pickPoison<BF16Elem>(refPoisoned, candPoisoned);
  case DType::F8E4M3:
    return pickPoison<F8E4M3Elem>(refPoisoned, candPoisoned);
  case DType::F8E5M2:
    return pickPoison<F8E5M2Elem>(refPoisoned, candPoisoned);
  case DType::I64:
    return pickPoison<IntElem<int64_t>>(refPoisoned, candPoisoned);
  case DType::I32:
    return pickPoison<IntElem<int32_t>>(refPoisoned, candPoisoned);
  case DType::I16:
    return pickPoison<IntElem<int16_t>>(refPoisoned, candPoisoned);
  case DType::I8:
    return pickPoison<IntElem<int8_t>>(refPoisoned, candPoisoned);
  case DType::U64:
    return pickPoison<IntElem<uint64_t>>(refPoisoned, candPoisoned);
  case DType::U32:
    return pickPoison<IntElem<uint32_t>>(refPoisoned, candPoisoned);
  case DType::U16:
    return pickPoison<IntElem<uint16_t>>(refPoisoned, candPoisoned);
  case DType::U8:
  case DType::Bool:
  case DType::Unknown:
    return pickPoison<IntElem<uint8_t>>(refPoisoned, candPoisoned);
  }
  return nullptr;
}

} // namespace

ElementStats compareElements(const void *ref, const void *cand, uint64_t count,
                             DType t, const Tolerance &tolerance,
                             std::optional<uint64_t> refPoison,
                             std::optional<uint64_t> candPoison) {
  Params params;
  params.atol = tolerance.atol;
  params.rtol = tolerance.rtol;
  params.refPoison = refPoison.value_or(0);
  params.candPoison = candPoison.value_or(0);
  Accumulator acc;
  pickSpanFn(t, refPoison.has_value(), candPoison.has_value())(
      static_cast<const uint8_t *>(ref), static_cast<const uint8_t *>(cand), count, 0,
      params, acc);
  acc.stats.mean_abs = acc.stats.compared ? acc.sumAbs / double(acc.stats.compared) : 0;
  return acc.stats;
}

//===----------------------------------------------------------------------===//
// Streaming two snapshots side by side
//===----------------------------------------------------------------------===//

namespace {

// One snapshot's chunks, decoded one ahead on another thread: while the
// element loop works through a chunk of each side, the next chunk of both is
// being read, base64-decoded and decompressed.
class ChunkSource {
public:
  bool open(const std::string &path, const SnapshotRecord &record,
            std::string *error) {
    stream_ = SnapshotStream::open(path, record, error);
    if (!stream_)
      return false;
    path_ = path;
    left_ = record.chunks;
    elementSize_ = dtypeSize(record.dtype);
    prefetch(std::vector<char>());
    return true;
  }

  ~ChunkSource() {
    if (pending_.valid())
      pending_.wait();
  }

  // Elements left in the current chunk, fetching the next one when it is
  // used up. 0 with *error empty: the snapshot is exhausted.
  uint64_t available(std::string *error) {
    if (pos_ < count_)
      return count_ - pos_;
    if (!pending_.valid())
      return 0;
    Chunk next = pending_.get();
    if (!next.ok) {
      *error = next.error;
      return 0;
    }
    std::vector<char> spare = std::move(current_);
    current_ = std::move(next.bytes);
    pos_ = 0;
    count_ = current_.size() / elementSize_;
    if (left_ > 0)
      prefetch(std::move(spare));
    return count_;
  }

  const uint8_t *data() const {
    return reinterpret_cast<const uint8_t *>(current_.data()) + pos_ * elementSize_;
  }
  void consume(uint64_t n) { pos_ += n; }

private:
  struct Chunk {
    std::vector<char> bytes;
    bool ok = false;
    std::string error;
  };

  void prefetch(std::vector<char> buffer) {
    --left_;
    pending_ = std::async(std::launch::async,
                          [stream = stream_.get(), path = path_,
                           buffer = std::move(buffer)]() mutable {
                            Chunk chunk;
                            // An exception must not cross the thread: it
                            // becomes the chunk's error, said like any other.
                            try {
                              chunk.bytes = std::move(buffer);
                              uint64_t first = 0;
                              chunk.ok = stream->next(&chunk.bytes, &first, &chunk.error);
                            } catch (const std::bad_alloc &) {
                              chunk.ok = false;
                              chunk.error = path + ": out of memory reading a snapshot chunk";
                            } catch (const std::exception &e) {
                              chunk.ok = false;
                              chunk.error = path + ": cannot read a snapshot chunk: " + e.what();
                            }
                            return chunk;
                          });
  }

  std::unique_ptr<SnapshotStream> stream_;
  std::string path_;
  std::future<Chunk> pending_;
  std::vector<char> current_;
  uint64_t pos_ = 0, count_ = 0;
  uint64_t left_ = 0; // chunks not yet asked for
  uint32_t elementSize_ = 1;
};

// Element bits of a poison value, as the element loop compares them.
uint64_t poisonBits(const SnapshotRecord &s) {
  uint32_t size = dtypeSize(s.dtype);
  return size >= 8 ? s.poison : s.poison & ((uint64_t(1) << (8 * size)) - 1);
}

// Compares the contents of two snapshots of the same dtype and count.
// Returns false (and sets *error) when one cannot be read.
bool compareContents(const std::string &refPath, const SnapshotRecord &ref,
                     const std::string &candPath, const SnapshotRecord &cand,
                     const Tolerance &tol, const std::function<void(uint64_t)> &progress,
                     ElementStats *stats, std::string *error) {
  error->clear();
  Accumulator acc;
  if (ref.count == 0) {
    *stats = acc.stats;
    return true;
  }
  ChunkSource refSource, candSource;
  if (!refSource.open(refPath, ref, error) || !candSource.open(candPath, cand, error))
    return false;
  Params params;
  params.atol = tol.atol;
  params.rtol = tol.rtol;
  params.refPoison = poisonBits(ref);
  params.candPoison = poisonBits(cand);
  SpanFn span = pickSpanFn(ref.dtype, ref.poisoned, cand.poisoned);

  uint64_t done = 0;
  while (done < ref.count) {
    uint64_t a = refSource.available(error);
    if (a == 0 && error->empty())
      *error = refPath + ": the snapshot of '" + ref.name + "' ends after " +
               std::to_string(done) + " of its " + std::to_string(ref.count) +
               " elements";
    if (!error->empty())
      return false;
    uint64_t b = candSource.available(error);
    if (b == 0 && error->empty())
      *error = candPath + ": the snapshot of '" + cand.name + "' ends after " +
               std::to_string(done) + " of its " + std::to_string(cand.count) +
               " elements";
    if (!error->empty())
      return false;
    uint64_t n = std::min({a, b, ref.count - done});
    span(refSource.data(), candSource.data(), n, done, params, acc);
    refSource.consume(n);
    candSource.consume(n);
    done += n;
    if (progress)
      progress(n);
  }
  acc.stats.mean_abs = acc.stats.compared ? acc.sumAbs / double(acc.stats.compared) : 0;
  *stats = acc.stats;
  return true;
}

//===----------------------------------------------------------------------===//
// Matching launches and outputs
//===----------------------------------------------------------------------===//

// One trace as the matcher sees it: launches that have snapshots, in id order.
struct Side : detail::DiffSide {
  using DiffSide::DiffSide;
  std::map<uint32_t, std::vector<const SnapshotRecord *>> snapshots; // by launch id

  void index() {
    for (const LaunchRecord &l : trace.launches)
      launches[l.id] = l;
    for (const SnapshotRecord &s : trace.snapshots) {
      snapshots[s.launch].push_back(&s);
      compared.insert(s.launch);
      // A snapshot of a launch the trace does not describe (a reference
      // written without one) still gets a launch to be matched by.
      if (!launches.count(s.launch)) {
        LaunchRecord l;
        l.id = s.launch;
        launches[s.launch] = l;
      }
    }
  }
};

using detail::plural;

} // namespace

//===----------------------------------------------------------------------===//
// Pairing launches, shared with --order and --batch-invariance
//===----------------------------------------------------------------------===//

std::string detail::DiffSide::describe(uint32_t id) const {
  auto it = launches.find(id);
  std::string out = std::string(role) + " launch #" + std::to_string(id);
  if (it != launches.end() && !it->second.kernel.empty())
    out += " (" + it->second.kernel + ")";
  return out;
}

// Launch pairs by kernel name and occurrence; see docs/diff.md.
bool detail::pairLaunches(const DiffSide &a, const DiffSide &b, const char *what,
                          const std::vector<std::pair<uint32_t, uint32_t>> &given,
                          std::vector<std::pair<uint32_t, uint32_t>> *pairs,
                          std::vector<std::string> *notes, std::string *error) {
  if (!given.empty()) {
    std::set<uint32_t> aUsed, bUsed;
    for (auto [x, y] : given) {
      for (auto [side, id] : {std::pair{&a, x}, std::pair{&b, y}}) {
        if (!side->launches.count(id)) {
          *error = std::string(side->role) + " " + side->path + " has no launch #" +
                   std::to_string(id);
          return false;
        }
        if (!side->compared.count(id)) {
          *error = side->describe(id) + " has no " + what + " (" + side->path + ")";
          return false;
        }
      }
      if (!aUsed.insert(x).second || !bUsed.insert(y).second) {
        *error = "--launch " + std::to_string(x) + ":" + std::to_string(y) +
                 " pairs a launch that another --launch already pairs";
        return false;
      }
      pairs->push_back({x, y});
    }
    return true;
  }

  std::map<std::string, std::vector<uint32_t>> bByKernel;
  for (uint32_t id : b.compared)
    bByKernel[b.launches.at(id).kernel].push_back(id);
  std::map<std::string, size_t> used;
  std::set<uint32_t> aMatched, bMatched;
  for (uint32_t id : a.compared) {
    const std::string &kernel = a.launches.at(id).kernel;
    auto it = bByKernel.find(kernel);
    if (kernel.empty() || it == bByKernel.end())
      continue;
    size_t &next = used[kernel];
    if (next < it->second.size()) {
      pairs->push_back({id, it->second[next]});
      aMatched.insert(id);
      bMatched.insert(it->second[next]);
      ++next;
    }
  }

  if (pairs->empty()) {
    if (a.compared.size() != b.compared.size()) {
      *error = std::string("no launch of ") + a.role + " matches a launch of " + b.role +
               " by kernel name, and " + a.role + " has " +
               plural(a.compared.size(), "launch", "launches") + " with " + what +
               " where " + b.role + " has " + std::to_string(b.compared.size()) +
               "; pair them with --launch " + a.role + "_ID:" + b.role + "_ID";
      return false;
    }
    auto y = b.compared.begin();
    for (auto x = a.compared.begin(); x != a.compared.end(); ++x, ++y)
      pairs->push_back({*x, *y});
    notes->push_back(std::string("no kernel name is common to ") + a.role + " and " +
                     b.role + ": the launches with " + what + " are paired in order (" +
                     plural(pairs->size(), "pair", "pairs") + ")");
    return true;
  }

  for (auto [side, matched, other] :
       {std::tuple{&a, &aMatched, &b}, std::tuple{&b, &bMatched, &a}})
    for (uint32_t id : side->compared)
      if (!matched->count(id))
        notes->push_back(side->describe(id) + " has " + what + " but no " + other->role +
                         " launch of the same kernel to compare with; it is not compared");
  return true;
}

namespace {

Tolerance toleranceFor(DType t, const DiffOptions &options) {
  if (t == DType::Unknown)
    return {0, 0}; // raw bytes: bit for bit, whatever the options
  auto it = options.per_dtype.find(t);
  if (it != options.per_dtype.end())
    return it->second;
  Tolerance tol = defaultTolerance(t);
  if (options.atol)
    tol.atol = *options.atol;
  if (options.rtol)
    tol.rtol = *options.rtol;
  return tol;
}

struct OutputPair {
  const SnapshotRecord *ref = nullptr, *cand = nullptr;
};

// Pairs the snapshots of two matched launches: by argument index for the
// same kernel, else by name, else by position. Candidate snapshots left over
// are arguments the reference did not write.
std::vector<OutputPair> matchOutputs(const LaunchRecord &refLaunch,
                                     const std::vector<const SnapshotRecord *> &ref,
                                     const LaunchRecord &candLaunch,
                                     const std::vector<const SnapshotRecord *> &cand,
                                     std::vector<const SnapshotRecord *> *extraCand,
                                     std::vector<std::string> *notes,
                                     const std::string &pairName) {
  std::vector<OutputPair> pairs;
  std::vector<bool> taken(cand.size(), false);
  auto pairBy = [&](auto same) {
    for (const SnapshotRecord *r : ref) {
      OutputPair p{r, nullptr};
      for (size_t i = 0; i < cand.size(); ++i)
        if (!taken[i] && same(*r, *cand[i])) {
          p.cand = cand[i];
          taken[i] = true;
          break;
        }
      pairs.push_back(p);
    }
  };

  bool sameKernel = !refLaunch.mangled.empty() && refLaunch.mangled == candLaunch.mangled;
  if (sameKernel) {
    pairBy([](const SnapshotRecord &a, const SnapshotRecord &b) { return a.arg == b.arg; });
  } else {
    bool anyName = false;
    for (const SnapshotRecord *r : ref)
      for (const SnapshotRecord *c : cand)
        anyName |= !r->name.empty() && r->name == c->name;
    if (anyName) {
      pairBy([](const SnapshotRecord &a, const SnapshotRecord &b) {
        return !a.name.empty() && a.name == b.name;
      });
    } else {
      for (size_t i = 0; i < ref.size(); ++i) {
        pairs.push_back({ref[i], i < cand.size() ? cand[i] : nullptr});
        if (i < cand.size())
          taken[i] = true;
      }
      if (ref.size() > 1 || cand.size() > 1)
        notes->push_back(pairName + ": no output name is common to both; "
                                    "outputs are paired in order");
    }
  }
  for (size_t i = 0; i < cand.size(); ++i)
    if (!taken[i])
      extraCand->push_back(cand[i]);
  return pairs;
}

// The precision records of a launch: those whose span of launches holds it,
// of the launch's module (where both are known), merged per site.
std::vector<PrecisionRecord> precisionOf(const Trace &trace, const LaunchRecord &launch) {
  std::vector<PrecisionRecord> records;
  for (const PrecisionRecord &p : trace.precision)
    if (p.launch_first <= launch.id && launch.id <= p.launch_last &&
        (p.module == 0 || launch.module == 0 || p.module == launch.module))
      records.push_back(p);
  return precisionBySite(records);
}

} // namespace

//===----------------------------------------------------------------------===//
// diffTraces
//===----------------------------------------------------------------------===//

DiffResult diffTraces(const std::string &refPath, const std::string &candPath,
                      const DiffOptions &options) {
  DiffResult result;
  result.ref_path = refPath;
  result.cand_path = candPath;
  auto trouble = [&](std::string message) {
    result.verdict = Verdict::Trouble;
    result.error = std::move(message);
    return std::move(result);
  };

  Side ref("REF", refPath), cand("CAND", candPath);
  for (Side *side : {&ref, &cand}) {
    ReadResult read = readTrace(side->path);
    if (read.error != TraceError::None)
      return trouble(read.message);
    side->trace = std::move(read.trace);
    for (const std::string &warning : side->trace.warnings)
      result.notes.push_back(warning);
  }
  result.ref_header = ref.trace.header;
  result.precision_threshold = options.precision_threshold;
  result.cand_header = cand.trace.header;
  for (Side *side : {&ref, &cand}) {
    if (side->trace.snapshots.empty())
      return trouble(std::string(side->role) + " " + side->path +
                     " has no output snapshots; run it with "
                     "KOSAN_OPTIONS=snapshot=1");
    side->index();
  }

  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  std::string error;
  if (!detail::pairLaunches(ref, cand, "output snapshots", options.launches, &pairs,
                            &result.notes, &error))
    return trouble(error);

  // Build every pair first, so that progress knows the total.
  uint64_t total = 0;
  std::vector<std::vector<OutputPair>> outputPairs;
  std::set<uint32_t> refPaired, candPaired;
  for (auto [r, c] : pairs) {
    LaunchDiff diff;
    diff.ref = ref.launches.at(r);
    diff.cand = cand.launches.at(c);
    refPaired.insert(r);
    candPaired.insert(c);
    std::string pairName = ref.describe(r) + " and " + cand.describe(c);
    std::vector<const SnapshotRecord *> extra;
    outputPairs.push_back(matchOutputs(diff.ref, ref.snapshots.at(r), diff.cand,
                                       cand.snapshots.at(c), &extra,
                                       &result.notes, pairName));
    for (const OutputPair &p : outputPairs.back()) {
      OutputDiff out;
      out.arg = p.ref->arg;
      out.name = p.ref->name;
      out.dtype = p.ref->dtype;
      out.count = p.ref->count;
      out.shape = p.ref->shape;
      out.tolerance = toleranceFor(out.dtype, options);
      if (!p.cand) {
        out.problem = cand.describe(c) + " has no snapshot of it";
      } else {
        out.store_sites = p.cand->store_sites;
        out.ref_store_sites = p.ref->store_sites;
        if (p.cand->dtype != p.ref->dtype)
          out.problem = std::string("its element types differ: REF ") +
                        dtypeName(p.ref->dtype) + ", CAND " + dtypeName(p.cand->dtype);
        else if (p.cand->count != p.ref->count)
          out.problem = "its sizes differ: REF " +
                        plural(p.ref->count, "element", "elements") + ", CAND " +
                        std::to_string(p.cand->count);
        else
          total += out.count;
      }
      out.equivalent = out.problem.empty();
      diff.outputs.push_back(std::move(out));
    }
    for (const SnapshotRecord *s : extra) {
      ModifiedInput input;
      input.arg = s->arg;
      input.name = s->name;
      input.changed = s->pre_hash && s->post_hash ? s->pre_hash != s->post_hash : true;
      input.store_sites = s->store_sites;
      diff.modified_inputs.push_back(std::move(input));
    }
    for (const OobEvent &e : ref.trace.oob)
      if (e.launch == r)
        diff.ref_oob.push_back(e);
    for (const OobEvent &e : cand.trace.oob)
      if (e.launch == c)
        diff.cand_oob.push_back(e);
    diff.ref_precision = precisionOf(ref.trace, diff.ref);
    diff.cand_precision = precisionOf(cand.trace, diff.cand);
    diff.precision_beyond = precisionBeyondReference(diff, options.precision_threshold);
    result.launches.push_back(std::move(diff));
  }
  for (const OobEvent &e : ref.trace.oob)
    if (!refPaired.count(e.launch))
      result.other_ref_oob.push_back(e);
  for (const OobEvent &e : cand.trace.oob)
    if (!candPaired.count(e.launch))
      result.other_cand_oob.push_back(e);

  uint64_t done = 0, reported = 0;
  constexpr uint64_t kProgressStep = uint64_t(4) << 20;
  std::function<void(uint64_t)> progress;
  if (options.progress)
    progress = [&](uint64_t n) {
      done += n;
      if (done - reported >= kProgressStep || done == total) {
        reported = done;
        options.progress(done, total);
      }
    };

  for (size_t i = 0; i < result.launches.size(); ++i) {
    LaunchDiff &diff = result.launches[i];
    for (size_t k = 0; k < diff.outputs.size(); ++k) {
      OutputDiff &out = diff.outputs[k];
      const OutputPair &p = outputPairs[i][k];
      if (!out.problem.empty())
        continue;
      if (!compareContents(refPath, *p.ref, candPath, *p.cand, out.tolerance,
                           progress, &out.stats, &error))
        return trouble(error);
      result.elements_compared += out.stats.compared;
      out.equivalent = out.stats.over_tolerance == 0 && out.stats.unwritten_cand == 0;
    }
    bool outputsOk = std::all_of(diff.outputs.begin(), diff.outputs.end(),
                                 [](const OutputDiff &o) { return o.equivalent; });
    diff.equivalent = outputsOk && diff.modified_inputs.empty() && diff.cand_oob.empty() &&
                      diff.precision_beyond.empty();
    if (!diff.ref_oob.empty())
      result.notes.push_back(ref.describe(diff.ref.id) + " made " +
                             plural(diff.ref_oob.size(), "out-of-bounds access site",
                                    "out-of-bounds access sites") +
                             " fire: the reference itself may be wrong");
  }
  if (!result.other_ref_oob.empty())
    result.notes.push_back("REF launches that were not compared made " +
                           plural(result.other_ref_oob.size(),
                                  "out-of-bounds access site fire",
                                  "out-of-bounds access sites fire"));

  bool equivalent = std::all_of(result.launches.begin(), result.launches.end(),
                                [](const LaunchDiff &d) { return d.equivalent; }) &&
                    result.other_cand_oob.empty();
  result.verdict = equivalent ? Verdict::Equivalent : Verdict::Different;
  return result;
}

} // namespace kosan
