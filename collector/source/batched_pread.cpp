#include "collector/source/batched_pread.h"

#include <liburing.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rdmatop {

namespace {
constexpr int kMaxIdleRetries = 100;
}  // namespace

struct BatchedPread::Ring {
  io_uring ring{};
};

BatchedPread::BatchedPread(unsigned depth) : depth_(depth == 0 ? 1 : depth) {
  auto ring = std::make_unique<Ring>();
  // COOP_TASKRUN (Linux 5.19): completions are posted when this task next enters the kernel
  // (it waits for them anyway) instead of by an interrupt of the task. Refused as EINVAL by
  // older kernels, which then get a plain ring.
  io_uring_params params{};
  params.flags = IORING_SETUP_COOP_TASKRUN;
  int rc = io_uring_queue_init_params(depth_, &ring->ring, &params);
  if (rc == -EINVAL) {
    params = io_uring_params{};
    rc = io_uring_queue_init_params(depth_, &ring->ring, &params);
  }
  if (rc < 0) {
    unavailable_reason_ = std::string("io_uring_setup: ") + std::strerror(-rc);
    return;
  }
  ring_ = std::move(ring);
}

BatchedPread::~BatchedPread() {
  if (ring_) io_uring_queue_exit(&ring_->ring);
}

void BatchedPread::read(std::span<const Read> reads, std::span<long> results) {
  io_uring& ring = ring_->ring;
  const std::size_t count = reads.size();
  for (std::size_t begin = 0; begin < count; begin += depth_) {
    const std::size_t end = std::min(count, begin + depth_);
    for (std::size_t i = begin; i < end; ++i) {
      io_uring_sqe* sqe = io_uring_get_sqe(&ring);  // the ring has depth_ free entries here
      io_uring_prep_read(sqe, reads[i].fd, reads[i].buffer, reads[i].length, 0);
      io_uring_sqe_set_data64(sqe, i);
    }
    std::size_t pending = end - begin;
    int idle_retries = 0;
    while (pending > 0) {
      // Submits what the kernel has not taken yet and waits for the rest: after a signal ended
      // a wait (EINTR), the same call picks up where it stopped. EAGAIN and EBUSY (the kernel
      // short of request memory, completions to reap first) are retried a bounded number of
      // times, then treated as the ring failing: a tick must not spin.
      ++submissions_;
      const int rc = io_uring_submit_and_wait(&ring, static_cast<unsigned>(pending));
      const bool transient = rc == -EINTR || rc == -EAGAIN || rc == -EBUSY;
      if (rc < 0 && (!transient || ++idle_retries > kMaxIdleRetries)) {
        // The ring itself failed, not one read: the reads not completed fail with its error,
        // and the ring is given up (a late completion must not land in a later batch).
        for (std::size_t i = begin; i < count; ++i) results[i] = rc;
        unavailable_reason_ = std::string("io_uring_enter: ") + std::strerror(-rc);
        io_uring_queue_exit(&ring);
        ring_.reset();
        return;
      }
      io_uring_cqe* cqe = nullptr;
      unsigned head = 0;
      unsigned seen = 0;
      io_uring_for_each_cqe(&ring, head, cqe) {
        results[io_uring_cqe_get_data64(cqe)] = cqe->res;
        ++seen;
      }
      io_uring_cq_advance(&ring, seen);
      pending -= seen;
      if (seen > 0) idle_retries = 0;
    }
  }
}

}  // namespace rdmatop
