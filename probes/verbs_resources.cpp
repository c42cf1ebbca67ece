#include "probes/verbs_resources.h"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

namespace rdmatop::probes {
namespace {

/// Inline bytes asked for: a small probe (64 B payload + 16 B frame header) fits.
constexpr std::uint32_t kInlineRequest = 128;

std::optional<Error> set_fd_nonblocking(int fd, const char* what) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return errno_error(errno, what);
  return std::nullopt;
}

}  // namespace

RcResources::~RcResources() {
  if (id && id->qp != nullptr) rdma_destroy_qp(id.get());
  buffers.clear();
  if (cq && unacked_cq_events > 0) ibv_ack_cq_events(cq.get(), unacked_cq_events);
  cq.reset();
  channel.reset();
  pd.reset();
  id.reset();
}

std::optional<Error> create_rc_qp(RcResources& res, int depth, bool with_channel) {
  ibv_context* verbs = res.id->verbs;
  res.pd.reset(ibv_alloc_pd(verbs));
  if (!res.pd) return errno_error(errno, "ibv_alloc_pd");
  if (with_channel) {
    res.channel.reset(ibv_create_comp_channel(verbs));
    if (!res.channel) return errno_error(errno, "ibv_create_comp_channel");
    if (auto err = set_fd_nonblocking(res.channel->fd, "completion channel O_NONBLOCK")) {
      return err;
    }
  }
  // One CQ for both queues: every WR is signalled, so 2 x depth entries never overflow.
  res.cq.reset(ibv_create_cq(verbs, 2 * depth, nullptr, res.channel.get(), 0));
  if (!res.cq) return errno_error(errno, "ibv_create_cq");
  ibv_qp_init_attr attr{};
  attr.send_cq = res.cq.get();
  attr.recv_cq = res.cq.get();
  attr.qp_type = IBV_QPT_RC;
  attr.cap.max_send_wr = static_cast<std::uint32_t>(depth);
  attr.cap.max_recv_wr = static_cast<std::uint32_t>(depth);
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  attr.sq_sig_all = 1;
  // Inline sends copy a small message into the work request at post time, so the device does
  // not read it from registered memory afterwards: what perftest's latency tests do for small
  // sizes. A device that refuses the inline size gets a QP without it.
  attr.cap.max_inline_data = kInlineRequest;
  if (rdma_create_qp(res.id.get(), res.pd.get(), &attr) != 0) {
    attr.cap.max_inline_data = 0;
    if (rdma_create_qp(res.id.get(), res.pd.get(), &attr) != 0) {
      return errno_error(errno, "rdma_create_qp");
    }
  }
  res.max_inline = attr.cap.max_inline_data;  // what the device granted (may exceed the request)
  if (with_channel) return arm_cq(res);
  return std::nullopt;
}

Result<RegisteredBuffer*> register_buffer(RcResources& res, std::size_t size, int access) {
  RegisteredBuffer buffer;
  buffer.bytes.assign(std::max<std::size_t>(size, 1), 0);
  buffer.mr.reset(ibv_reg_mr(res.pd.get(), buffer.bytes.data(), buffer.bytes.size(), access));
  if (!buffer.mr) return errno_error(errno, fmt::format("ibv_reg_mr {} bytes", size));
  res.registered_bytes += buffer.bytes.size();
  // Moving the vector keeps its heap block, so the registered address stays valid.
  res.buffers.push_back(std::move(buffer));
  return &res.buffers.back();
}

std::optional<Error> arm_cq(RcResources& res) {
  if (ibv_req_notify_cq(res.cq.get(), 0) != 0) return errno_error(errno, "ibv_req_notify_cq");
  return std::nullopt;
}

bool take_cq_event(RcResources& res) {
  ibv_cq* cq = nullptr;
  void* context = nullptr;
  if (ibv_get_cq_event(res.channel.get(), &cq, &context) != 0) return false;
  // Acknowledging in batches is allowed; the destructor acknowledges the rest before
  // ibv_destroy_cq.
  if (++res.unacked_cq_events >= 64) {
    ibv_ack_cq_events(res.cq.get(), res.unacked_cq_events);
    res.unacked_cq_events = 0;
  }
  return true;
}

std::optional<Error> make_nonblocking(rdma_event_channel* channel) {
  return set_fd_nonblocking(channel->fd, "rdma_cm event channel O_NONBLOCK");
}

Result<CmEvent> next_cm_event(rdma_event_channel* channel,
                              std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    rdma_cm_event* event = nullptr;
    if (rdma_get_cm_event(channel, &event) == 0) {
      CmEvent out;
      out.type = event->event;
      out.status = event->status;
      out.id = event->id;
      out.listen_id = event->listen_id;
      const auto& conn = event->param.conn;
      if (conn.private_data != nullptr && conn.private_data_len > 0) {
        const auto* bytes = static_cast<const std::uint8_t*>(conn.private_data);
        out.private_data.assign(bytes, bytes + conn.private_data_len);
      }
      rdma_ack_cm_event(event);
      return out;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return errno_error(errno, "rdma_get_cm_event");
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Error{ETIMEDOUT, "timed out"};
    pollfd p{channel->fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::min<long long>(left.count() + 1, 1 << 30))) < 0 &&
        errno != EINTR) {
      return errno_error(errno, "poll rdma_cm channel");
    }
  }
}

}  // namespace rdmatop::probes
