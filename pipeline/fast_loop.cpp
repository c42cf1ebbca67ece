#include "pipeline/fast_loop.h"

#include <chrono>

namespace rdmatop {

FastLoop::FastLoop(Monitor& monitor) : monitor_(monitor) {
  const double interval_s = monitor.fast_interval_seconds();
  if (monitor.fast_path_enabled() && interval_s > 0) {
    thread_ = std::thread([this, interval_s] { run(interval_s); });
  }
}

FastLoop::~FastLoop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void FastLoop::run(double interval_s) {
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(interval_s));
  // Deadlines on the steady clock, so a slow poll does not shift the cadence; a late one skips
  // the deadlines it missed instead of polling in a burst.
  auto next = std::chrono::steady_clock::now() + interval;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_until(lock, next, [this] { return stop_; })) {
    lock.unlock();
    const auto now = std::chrono::system_clock::now();
    monitor_.fast_poll(
        std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count());
    lock.lock();
    next += interval;
    const auto steady = std::chrono::steady_clock::now();
    while (next <= steady) next += interval;
  }
}

}  // namespace rdmatop
