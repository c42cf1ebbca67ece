#include "probes/responder.h"

namespace rdmatop::probes {

void Responder::poll_once(std::chrono::milliseconds max_wait) {
  core_->poll_once(max_wait);
}

void Responder::run(const std::atomic<bool>& stop) {
  while (!stop.load()) core_->poll_once(std::chrono::milliseconds(200));
  core_->close_all();
}

ResponderStats Responder::stats() const {
  return core_->counters.snapshot();
}

}  // namespace rdmatop::probes
