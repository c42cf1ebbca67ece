// The fast path's own thread on a live host: Monitor::fast_poll() every --fast-interval
// (default 100 ms) next to the slow loop (TUI, exporter, report), until destroyed. The thread
// sleeps on a condition variable so that stopping does not wait out an interval.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "pipeline/monitor.h"

namespace rdmatop {

class FastLoop {
 public:
  /// Starts polling `monitor` (which must outlive this) when its fast path is enabled.
  explicit FastLoop(Monitor& monitor);
  ~FastLoop();
  FastLoop(const FastLoop&) = delete;
  FastLoop& operator=(const FastLoop&) = delete;

 private:
  void run(double interval_s);

  Monitor& monitor_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace rdmatop
