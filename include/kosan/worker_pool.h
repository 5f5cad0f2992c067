//===- kosan/worker_pool.h - Threads that hash and compress snapshots -----===//
//
// A fixed set of std::threads taking tasks from one queue: the snapshot
// writer spreads a buffer's chunks over them (TraceWriter::writeSnapshot),
// and the runtime hands them each chunk as its copy from the device lands
// (runtime/host/checks/snapshot), so that copying, hashing, compressing and
// writing overlap. Threads start on first use and are joined when the pool
// is destroyed.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_WORKER_POOL_H
#define KOSAN_WORKER_POOL_H

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kosan {

class WorkerPool {
public:
  // threads: 0 for one per hardware thread.
  explicit WorkerPool(unsigned threads = 0)
      : size_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {}
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : threads_)
      t.join();
  }

  unsigned size() const { return size_; }

  // The pool whose worker thread calls this, and that worker's number
  // (0 to size() - 1); nullptr and 0 on any other thread.
  static const WorkerPool *current() { return current_; }
  static unsigned currentIndex() { return currentIndex_; }

  void submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (threads_.empty())
        for (unsigned i = 0; i < size_; ++i)
          threads_.emplace_back([this, i] {
            current_ = this;
            currentIndex_ = i;
            work();
          });
      tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
  }

  // body(i) for i in [0, n), spread over the threads; returns when all ran.
  void parallelFor(size_t n, const std::function<void(size_t)> &body) {
    if (n <= 1 || size_ == 1) {
      for (size_t i = 0; i < n; ++i)
        body(i);
      return;
    }
    Latch done(n);
    for (size_t i = 0; i < n; ++i)
      submit([&body, &done, i] {
        body(i);
        done.countDown();
      });
    done.wait();
  }

  // Counts tasks down to zero.
  class Latch {
  public:
    explicit Latch(size_t count) : count_(count) {}
    void countDown() {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--count_ == 0)
        zero_.notify_all();
    }
    void wait() {
      std::unique_lock<std::mutex> lock(mutex_);
      zero_.wait(lock, [&] { return count_ == 0; });
    }

  private:
    std::mutex mutex_;
    std::condition_variable zero_;
    size_t count_;
  };

private:
  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty())
          return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  static inline thread_local const WorkerPool *current_ = nullptr;
  static inline thread_local unsigned currentIndex_ = 0;
  unsigned size_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

} // namespace kosan

#endif // KOSAN_WORKER_POOL_H
