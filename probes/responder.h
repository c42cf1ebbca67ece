// What the two responders share (rdma_responder.h, tcp_responder.h): the loop that serves a
// listener until told to stop and the counters it keeps. Each listener implements a
// ResponderCore; the public classes derive from Responder, so run(), poll_once() and stats() are
// written once.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>

#include "probes/admission.h"

namespace rdmatop::probes {

/// One listener with its connections, behind a responder's public class.
struct ResponderCore {
  virtual ~ResponderCore() = default;
  /// Handles whatever is ready, waiting at most `max_wait`.
  virtual void poll_once(std::chrono::milliseconds max_wait) = 0;
  /// Closes every connection (after the last poll_once).
  virtual void close_all() = 0;

  ResponderCounters counters;
};

class Responder {
 public:
  virtual ~Responder() = default;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  /// Handles whatever is ready, waiting at most `max_wait`.
  void poll_once(std::chrono::milliseconds max_wait);
  /// poll_once until `stop` becomes true (checked at least every 200 ms); closes everything.
  void run(const std::atomic<bool>& stop);
  /// Thread-safe.
  ResponderStats stats() const;

 protected:
  explicit Responder(std::unique_ptr<ResponderCore> core) : core_(std::move(core)) {}
  std::unique_ptr<ResponderCore> core_;
};

}  // namespace rdmatop::probes
