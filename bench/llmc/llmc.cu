// GPT-2-layer kernels in the style of a kernel-development harness: each
// kernel is checked against a CPU reference at several block sizes and then
// timed. bench/llmc/run.sh times whole processes of this program, plain and
// instrumented, one kernel per process, the way such harnesses are run.
//
// usage: llmc KERNEL [reps]     (KERNEL: one of the names in kKernels, or
// "list"). Output: one line per block size, "<kernel> <block> <ms> <maxerr>",
// then "<kernel> ok" or "<kernel> MISMATCH" (exit 1).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                   cudaGetErrorString(e_), __FILE__, __LINE__);                \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

static const float kGeluScale = 0.7978845608f; // sqrt(2 / pi)

// ---- kernels ---------------------------------------------------------------

__global__ void encoder_forward(float *out, const int *tokens, const float *wte,
                                const float *wpe, int BT, int T, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= BT * C)
    return;
  int bt = i / C, c = i % C;
  out[i] = wte[(size_t)tokens[bt] * C + c] + wpe[(size_t)(bt % T) * C + c];
}

__global__ void gelu_forward(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    float cube = 0.044715f * x * x * x;
    out[i] = 0.5f * x * (1.0f + tanhf(kGeluScale * (x + cube)));
  }
}

__global__ void gelu_backward(float *dinp, const float *inp, const float *dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = inp[i];
    float cube = 0.044715f * x * x * x;
    float arg = kGeluScale * (x + cube);
    float th = tanhf(arg);
    float ch = coshf(arg);
    float sech2 = 1.0f / (ch * ch);
    float local = 0.5f * (1.0f + th) + x * 0.5f * sech2 * kGeluScale * (1.0f + 3.0f * 0.044715f * x * x);
    dinp[i] = local * dout[i];
  }
}

__global__ void residual_forward(float *out, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}

__device__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ float warpMax(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// One warp per row.
__global__ void layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                                  const float *weight, const float *bias, int N, int C) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= N)
    return;
  const float *x = inp + (size_t)row * C;
  float s = 0;
  for (int c = lane; c < C; c += 32)
    s += x[c];
  float m = warpSum(s) / C;
  float v = 0;
  for (int c = lane; c < C; c += 32) {
    float d = x[c] - m;
    v += d * d;
  }
  float r = rsqrtf(warpSum(v) / C + 1e-5f);
  for (int c = lane; c < C; c += 32)
    out[(size_t)row * C + c] = (x[c] - m) * r * weight[c] + bias[c];
  if (lane == 0) {
    mean[row] = m;
    rstd[row] = r;
  }
}

// One warp per row; the weight and bias gradients are summed per block in
// shared memory, then added to the global sums with float atomics.
__global__ void layernorm_backward(float *dinp, float *dweight, float *dbias, const float *dout,
                                   const float *inp, const float *weight, const float *mean,
                                   const float *rstd, int N, int C) {
  extern __shared__ float shared[]; // dbias[C], dweight[C]
  float *sb = shared, *sw = shared + C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    sb[c] = 0;
    sw[c] = 0;
  }
  __syncthreads();
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row < N) {
    const float *dy = dout + (size_t)row * C, *x = inp + (size_t)row * C;
    float m = mean[row], r = rstd[row];
    float dnorm_mean = 0, dnorm_norm_mean = 0;
    for (int c = lane; c < C; c += 32) {
      float norm = (x[c] - m) * r;
      float dnorm = weight[c] * dy[c];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * norm;
    }
    dnorm_mean = warpSum(dnorm_mean) / C;
    dnorm_norm_mean = warpSum(dnorm_norm_mean) / C;
    for (int c = lane; c < C; c += 32) {
      float norm = (x[c] - m) * r;
      float dnorm = weight[c] * dy[c];
      atomicAdd(&sb[c], dy[c]);
      atomicAdd(&sw[c], norm * dy[c]);
      dinp[(size_t)row * C + c] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * r;
    }
  }
  __syncthreads();
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    atomicAdd(&dbias[c], sb[c]);
    atomicAdd(&dweight[c], sw[c]);
  }
}

// Causal softmax over attention scores: rows of length T, row r of a (b, h)
// slice sees columns 0..t where t = r % T. One warp per row.
__global__ void softmax_forward(float *out, const float *inp, int rows, int T) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  int t = row % T;
  const float *x = inp + (size_t)row * T;
  float m = -INFINITY;
  for (int c = lane; c <= t; c += 32)
    m = fmaxf(m, x[c]);
  m = warpMax(m);
  float s = 0;
  for (int c = lane; c <= t; c += 32)
    s += expf(x[c] - m);
  s = warpSum(s);
  for (int c = lane; c < T; c += 32)
    out[(size_t)row * T + c] = c <= t ? expf(x[c] - m) / s : 0.0f;
}

// Fused softmax and cross-entropy gradient: one warp per row of V logits.
__global__ void crossentropy_softmax_backward(float *dlogits, float *losses, const float *logits,
                                              const int *targets, int rows, int V) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const float *x = logits + (size_t)row * V;
  float m = -INFINITY;
  for (int c = lane; c < V; c += 32)
    m = fmaxf(m, x[c]);
  m = warpMax(m);
  float s = 0;
  for (int c = lane; c < V; c += 32)
    s += expf(x[c] - m);
  s = warpSum(s);
  int target = targets[row];
  for (int c = lane; c < V; c += 32) {
    float p = expf(x[c] - m) / s;
    dlogits[(size_t)row * V + c] = (p - (c == target ? 1.0f : 0.0f)) / rows;
  }
  if (lane == 0)
    losses[row] = -(x[target] - m - logf(s));
}

// out[N, OC] = inp[N, C] @ weight[OC, C]^T + bias, tiled in shared memory.
constexpr int MT = 16;
__global__ void matmul_forward(float *out, const float *inp, const float *weight,
                               const float *bias, int N, int C, int OC) {
  __shared__ float ti[MT][MT + 1], tw[MT][MT + 1];
  int row = blockIdx.y * MT + threadIdx.y, oc = blockIdx.x * MT + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < C; k0 += MT) {
    ti[threadIdx.y][threadIdx.x] = row < N && k0 + threadIdx.x < C ? inp[(size_t)row * C + k0 + threadIdx.x] : 0;
    int wr = blockIdx.x * MT + threadIdx.y;
    tw[threadIdx.y][threadIdx.x] = wr < OC && k0 + threadIdx.x < C ? weight[(size_t)wr * C + k0 + threadIdx.x] : 0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < MT; ++k)
      acc += ti[threadIdx.y][k] * tw[threadIdx.x][k];
    __syncthreads();
  }
  if (row < N && oc < OC)
    out[(size_t)row * OC + oc] = acc + bias[oc];
}

__global__ void adamw(float *params, float *m, float *v, const float *grads, int n, float lr,
                      float beta1, float beta2, float bc1, float bc2, float eps, float wd) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float g = grads[i];
  float mi = beta1 * m[i] + (1 - beta1) * g;
  float vi = beta2 * v[i] + (1 - beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  float mhat = mi / bc1, vhat = vi / bc2;
  params[i] -= lr * (mhat / (sqrtf(vhat) + eps) + wd * params[i]);
}

// ---- harness ---------------------------------------------------------------

struct Rng {
  unsigned long long s = 0x9E3779B97F4A7C15ull;
  float uniform(float lo, float hi) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * float(s >> 40) / float(1ull << 24);
  }
  int below(int n) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return int((s >> 33) % unsigned(n));
  }
};

template <typename T> struct Buf {
  std::vector<T> h;
  T *d = nullptr;
  explicit Buf(size_t n) : h(n) { CHECK(cudaMalloc(&d, n * sizeof(T))); }
  ~Buf() { cudaFree(d); }
  void up() { CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> down() const {
    std::vector<T> r(h.size());
    CHECK(cudaMemcpy(r.data(), d, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return r;
  }
};

static Buf<float> *randomFloats(Rng &rng, size_t n, float lo, float hi) {
  auto *b = new Buf<float>(n);
  for (auto &x : b->h)
    x = rng.uniform(lo, hi);
  b->up();
  return b;
}

// Largest error over the elements, relative to max(|ref|, floor).
static float maxError(const std::vector<float> &got, const std::vector<float> &ref, float floor) {
  float worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    float e = std::fabs(got[i] - ref[i]) / std::fmax(std::fabs(ref[i]), floor);
    if (!(e <= worst))
      worst = std::isnan(e) ? INFINITY : e;
  }
  return worst;
}

struct Case {
  std::function<void(int block)> launch; // one launch at this block size
  std::function<void()> reset;           // restores inputs a launch changes
  std::function<float()> error;          // against the CPU reference
  float tolerance;
};

static float timeMs(const std::function<void()> &f, int reps) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  f();
  CHECK(cudaEventRecord(a));
  for (int r = 0; r < reps; ++r)
    f();
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  CHECK(cudaGetLastError());
  return ms / reps;
}

static int blocksFor(size_t n, int block) { return int((n + block - 1) / block); }

static float gelu(float x) {
  return 0.5f * x * (1.0f + std::tanh(kGeluScale * (x + 0.044715f * x * x * x)));
}

static const char *const kKernels[] = {
    "encoder_forward",   "gelu_forward",       "gelu_backward",
    "residual_forward",  "layernorm_forward",  "layernorm_backward",
    "softmax_forward",   "crossentropy_softmax_backward", "matmul_forward",
    "adamw"};

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "list")) {
    for (const char *k : kKernels)
      std::printf("%s\n", k);
    return argc < 2 ? 2 : 0;
  }
  std::string kernel = argv[1];
  int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  const int B = 8, T = 1024, C = 768, NH = 12, V = 8192;
  const int BT = B * T;
  const size_t N = size_t(BT) * C;
  Rng rng;
  Case k;
  std::vector<Buf<float> *> keep;
  auto floats = [&](size_t n, float lo, float hi) {
    keep.push_back(randomFloats(rng, n, lo, hi));
    return keep.back();
  };

  if (kernel == "encoder_forward") {
    const int vocab = 50257;
    auto *wte = floats(size_t(vocab) * C, -1, 1), *wpe = floats(size_t(T) * C, -1, 1);
    auto *out = floats(N, 0, 0);
    auto *tok = new Buf<int>(BT);
    for (auto &t : tok->h)
      t = rng.below(vocab);
    tok->up();
    std::vector<float> ref(N);
    for (int bt = 0; bt < BT; ++bt)
      for (int c = 0; c < C; ++c)
        ref[size_t(bt) * C + c] = wte->h[size_t(tok->h[bt]) * C + c] + wpe->h[size_t(bt % T) * C + c];
    k.launch = [=](int bs) { encoder_forward<<<blocksFor(N, bs), bs>>>(out->d, tok->d, wte->d, wpe->d, BT, T, C); };
    k.error = [=] { return maxError(out->down(), ref, 1e-6f); };
    k.tolerance = 1e-6f;
  } else if (kernel == "gelu_forward" || kernel == "gelu_backward") {
    bool fwd = kernel == "gelu_forward";
    auto *in = floats(N, -4, 4), *dout = floats(N, -1, 1), *out = floats(N, 0, 0);
    std::vector<float> ref(N);
    for (size_t i = 0; i < N; ++i) {
      float x = in->h[i];
      if (fwd) {
        ref[i] = gelu(x);
      } else {
        double h = 1e-3 * std::fmax(1.0, std::fabs(x));
        ref[i] = float((double(gelu(float(x + h))) - gelu(float(x - h))) / (2 * h) * dout->h[i]);
      }
    }
    k.launch = [=](int bs) {
      if (fwd)
        gelu_forward<<<blocksFor(N, bs), bs>>>(out->d, in->d, int(N));
      else
        gelu_backward<<<blocksFor(N, bs), bs>>>(out->d, in->d, dout->d, int(N));
    };
    k.error = [=] { return maxError(out->down(), ref, fwd ? 1e-3f : 1e-1f); };
    k.tolerance = fwd ? 1e-3f : 3e-2f; // tanhf near x = -4: 1 + tanh cancels
  } else if (kernel == "residual_forward") {
    auto *a = floats(N, -1, 1), *b = floats(N, -1, 1), *out = floats(N, 0, 0);
    std::vector<float> ref(N);
    for (size_t i = 0; i < N; ++i)
      ref[i] = a->h[i] + b->h[i];
    k.launch = [=](int bs) { residual_forward<<<blocksFor(N, bs), bs>>>(out->d, a->d, b->d, int(N)); };
    k.error = [=] { return maxError(out->down(), ref, 1e-6f); };
    k.tolerance = 1e-6f;
  } else if (kernel == "layernorm_forward" || kernel == "layernorm_backward") {
    bool fwd = kernel == "layernorm_forward";
    auto *inp = floats(N, -2, 3), *w = floats(C, 0.5f, 1.5f), *bias = floats(C, -0.5f, 0.5f);
    auto *out = floats(N, 0, 0), *mean = floats(BT, 0, 0), *rstd = floats(BT, 0, 0);
    auto *dout = floats(N, -1, 1), *dinp = floats(N, 0, 0), *dw = floats(C, 0, 0), *db = floats(C, 0, 0);
    std::vector<double> m(BT), r(BT);
    std::vector<float> ref(fwd ? N : N + 2 * C, 0.0f);
    std::vector<double> grads(2 * C, 0.0);
    for (int row = 0; row < BT; ++row) {
      const float *x = &inp->h[size_t(row) * C];
      double s = 0, v = 0;
      for (int c = 0; c < C; ++c)
        s += x[c];
      m[row] = s / C;
      for (int c = 0; c < C; ++c)
        v += (x[c] - m[row]) * (x[c] - m[row]);
      r[row] = 1 / std::sqrt(v / C + 1e-5);
      if (fwd) {
        for (int c = 0; c < C; ++c)
          ref[size_t(row) * C + c] = float((x[c] - m[row]) * r[row] * w->h[c] + bias->h[c]);
        continue;
      }
      mean->h[row] = float(m[row]);
      rstd->h[row] = float(r[row]);
      const float *dy = &dout->h[size_t(row) * C];
      double dm = 0, dnm = 0;
      for (int c = 0; c < C; ++c) {
        double norm = (x[c] - m[row]) * r[row], dn = double(w->h[c]) * dy[c];
        dm += dn;
        dnm += dn * norm;
      }
      dm /= C;
      dnm /= C;
      for (int c = 0; c < C; ++c) {
        double norm = (x[c] - m[row]) * r[row], dn = double(w->h[c]) * dy[c];
        ref[size_t(row) * C + c] = float((dn - dm - norm * dnm) * r[row]);
        grads[c] += dy[c];
        grads[C + c] += norm * dy[c];
      }
    }
    for (int c = 0; !fwd && c < 2 * C; ++c)
      ref[N + c] = float(grads[c]);
    if (fwd) {
      k.launch = [=](int bs) {
        layernorm_forward<<<blocksFor(BT, bs / 32), bs>>>(out->d, mean->d, rstd->d, inp->d, w->d, bias->d, BT, C);
      };
      k.error = [=] { return maxError(out->down(), ref, 1e-2f); };
      k.tolerance = 1e-4f;
    } else {
      mean->up();
      rstd->up();
      k.reset = [=] {
        CHECK(cudaMemset(dinp->d, 0, N * sizeof(float)));
        CHECK(cudaMemset(dw->d, 0, C * sizeof(float)));
        CHECK(cudaMemset(db->d, 0, C * sizeof(float)));
      };
      k.launch = [=](int bs) {
        layernorm_backward<<<blocksFor(BT, bs / 32), bs, 2 * C * sizeof(float)>>>(
            dinp->d, dw->d, db->d, dout->d, inp->d, w->d, mean->d, rstd->d, BT, C);
      };
      k.error = [=] {
        std::vector<float> got = dinp->down(), gw = dw->down(), gb = db->down();
        got.insert(got.end(), gb.begin(), gb.end());
        got.insert(got.end(), gw.begin(), gw.end());
        return maxError(got, ref, 1e-1f);
      };
      k.tolerance = 1e-2f; // 8192 float additions per weight and bias gradient
    }
  } else if (kernel == "softmax_forward") {
    const int rows = B / 2 * NH * T; // half the batch: the scores are T x T per head
    auto *inp = floats(size_t(rows) * T, -4, 4), *out = floats(size_t(rows) * T, 0, 0);
    std::vector<float> ref(size_t(rows) * T, 0.0f);
    for (int row = 0; row < rows; ++row) {
      int t = row % T;
      const float *x = &inp->h[size_t(row) * T];
      double m = -INFINITY, s = 0;
      for (int c = 0; c <= t; ++c)
        m = std::fmax(m, double(x[c]));
      for (int c = 0; c <= t; ++c)
        s += std::exp(x[c] - m);
      for (int c = 0; c <= t; ++c)
        ref[size_t(row) * T + c] = float(std::exp(x[c] - m) / s);
    }
    k.launch = [=](int bs) { softmax_forward<<<blocksFor(rows, bs / 32), bs>>>(out->d, inp->d, rows, T); };
    k.error = [=] { return maxError(out->down(), ref, 1e-3f); };
    k.tolerance = 1e-4f;
  } else if (kernel == "crossentropy_softmax_backward") {
    const int rows = 2 * T; // two sequences of V logits
    auto *logits = floats(size_t(rows) * V, -6, 6), *dl = floats(size_t(rows) * V, 0, 0), *loss = floats(rows, 0, 0);
    auto *tg = new Buf<int>(rows);
    for (auto &t : tg->h)
      t = rng.below(V);
    tg->up();
    std::vector<float> ref(size_t(rows) * V + rows);
    for (int row = 0; row < rows; ++row) {
      const float *x = &logits->h[size_t(row) * V];
      double m = -INFINITY, s = 0;
      for (int c = 0; c < V; ++c)
        m = std::fmax(m, double(x[c]));
      for (int c = 0; c < V; ++c)
        s += std::exp(x[c] - m);
      for (int c = 0; c < V; ++c)
        ref[size_t(row) * V + c] = float((std::exp(x[c] - m) / s - (c == tg->h[row])) / rows);
      ref[size_t(rows) * V + row] = float(-(x[tg->h[row]] - m - std::log(s)));
    }
    k.launch = [=](int bs) {
      crossentropy_softmax_backward<<<blocksFor(rows, bs / 32), bs>>>(dl->d, loss->d, logits->d, tg->d, rows, V);
    };
    k.error = [=] {
      std::vector<float> got = dl->down(), gl = loss->down();
      got.insert(got.end(), gl.begin(), gl.end());
      return maxError(got, ref, 1e-6f);
    };
    k.tolerance = 1e-3f;
  } else if (kernel == "matmul_forward") {
    const int n = B / 2 * T / 4, oc = C; // 2048 rows: the CPU reference stays near a second
    auto *inp = floats(size_t(n) * C, -1, 1), *w = floats(size_t(oc) * C, -1, 1), *bias = floats(oc, -1, 1);
    auto *out = floats(size_t(n) * oc, 0, 0);
    std::vector<float> ref(size_t(n) * oc);
    for (int i = 0; i < n; ++i)
      for (int o = 0; o < oc; ++o) {
        const float *a = &inp->h[size_t(i) * C], *b = &w->h[size_t(o) * C];
        float s = 0;
        for (int c = 0; c < C; ++c)
          s += a[c] * b[c];
        ref[size_t(i) * oc + o] = s + bias->h[o];
      }
    k.launch = [=](int bs) {
      (void)bs; // a 16 x 16 tile: the block size is the tile's
      matmul_forward<<<dim3(blocksFor(oc, MT), blocksFor(n, MT)), dim3(MT, MT)>>>(out->d, inp->d, w->d, bias->d, n, C, oc);
    };
    k.error = [=] { return maxError(out->down(), ref, 1.0f); };
    k.tolerance = 1e-3f; // 768 float additions in another order
  } else if (kernel == "adamw") {
    auto *p = floats(N, -1, 1), *g = floats(N, -1, 1), *m = floats(N, -0.1f, 0.1f), *v = floats(N, 0, 0.1f);
    std::vector<float> p0 = p->h, m0 = m->h, v0 = v->h, ref(N);
    const float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 0.01f;
    const float bc1 = 1 - b1, bc2 = 1 - b2;
    for (size_t i = 0; i < N; ++i) {
      float mi = b1 * m0[i] + (1 - b1) * g->h[i], vi = b2 * v0[i] + (1 - b2) * g->h[i] * g->h[i];
      ref[i] = p0[i] - lr * ((mi / bc1) / (std::sqrt(vi / bc2) + eps) + wd * p0[i]);
    }
    k.reset = [=] {
      CHECK(cudaMemcpy(p->d, p0.data(), N * sizeof(float), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(m->d, m0.data(), N * sizeof(float), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(v->d, v0.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    };
    k.launch = [=](int bs) {
      adamw<<<blocksFor(N, bs), bs>>>(p->d, m->d, v->d, g->d, int(N), lr, b1, b2, bc1, bc2, eps, wd);
    };
    k.error = [=] { return maxError(p->down(), ref, 1e-2f); };
    k.tolerance = 1e-5f;
  } else {
    std::fprintf(stderr, "llmc: unknown kernel '%s' (llmc list names them)\n", kernel.c_str());
    return 2;
  }

  bool ok = true;
  for (int bs : {64, 128, 256, 512, 1024}) {
    if (k.reset)
      k.reset();
    k.launch(bs);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float err = k.error();
    ok = ok && err <= k.tolerance;
    float ms = timeMs([&] { k.launch(bs); }, reps);
    std::printf("%s %d %.5f %.3g\n", kernel.c_str(), bs, ms, err);
  }
  std::printf("%s %s\n", kernel.c_str(), ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
