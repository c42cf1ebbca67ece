#include "probes/rdma_responder.h"

#include <netdb.h>
#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "probes/address.h"
#include "probes/coarse_clock.h"
#include "probes/handshake.h"
#include "probes/verbs_resources.h"

namespace rdmatop::probes {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::array<TransportKind, 2> kServed{TransportKind::rc_send, TransportKind::rc_write};
/// Receive slots per QP; each slot is either posted as a RECV or being echoed as a SEND, so a
/// peer can never have more than this many echoes outstanding.
constexpr int kEchoSlots = 8;
constexpr std::uint64_t kSendTag = 1ULL << 63;
constexpr std::uint8_t kEchoRnrRetry = 6;

std::uint64_t bytes_needed(const Hello& hello) {
  if (hello.kind == TransportKind::rc_write) return hello.max_payload + std::uint64_t{kEchoSlots};
  return std::uint64_t{kEchoSlots} * (kFrameHeaderSize + hello.max_payload);
}

}  // namespace

struct RdmaResponder::Impl final : ResponderCore {
  struct Connection {
    RcResources res;
    PeerAddress peer{};
    TransportKind kind = TransportKind::rc_send;
    std::uint32_t max_payload = 0;
    std::uint64_t reserved = 0;
    bool established = false;
    RegisteredBuffer* recv_buf = nullptr;
    RegisteredBuffer* write_buf = nullptr;  ///< rc_write only
    std::size_t slot_size = 0;
    std::uint64_t reply_addr = 0;
    std::uint32_t reply_rkey = 0;
    Clock::time_point deadline{};
    /// Set per echo; housekeeping then moves the idle deadline. Reading the clock per echo
    /// instead is a syscall where the clocksource has no vDSO (an rxe VM under emulation).
    bool echoed_since_housekeeping = false;
  };

  EventChannelPtr channel;  // destroyed after every cm_id on it
  CmIdPtr listener;
  Admission admission;
  ResponderLog log;
  std::map<rdma_cm_id*, std::unique_ptr<Connection>> connections;

  bool busy_poll = false;

  Impl(ResponderLimits limits, ResponderLog l, bool busy)
      : admission(std::move(limits)), log(std::move(l)), busy_poll(busy) {}

  ~Impl() override {
    close_all();
    listener.reset();
  }

  void refuse_log(const PeerAddress& peer, const Decision& decision) {
    record_refusal(admission, counters, log, "rdma", peer, decision);
  }

  void close(std::map<rdma_cm_id*, std::unique_ptr<Connection>>::iterator it) {
    Connection& c = *it->second;
    if (c.established) rdma_disconnect(c.res.id.get());
    admission.release(c.peer, c.reserved);
    connections.erase(it);  // ~RcResources: QP, MRs, CQ, channel, PD, cm_id
    counters.active.store(static_cast<std::uint32_t>(connections.size()),
                          std::memory_order_relaxed);
  }

  std::optional<Error> post_recv(Connection& c, int slot) {
    ibv_sge sge{c.recv_buf->addr() + static_cast<std::uint64_t>(slot) * c.slot_size,
                static_cast<std::uint32_t>(c.slot_size), c.recv_buf->mr->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = static_cast<std::uint64_t>(slot);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (const int rc = ibv_post_recv(c.res.id->qp, &wr, &bad); rc != 0) {
      return Error{rc, fmt::format("ibv_post_recv: {}", std::strerror(rc))};
    }
    return std::nullopt;
  }

  // Builds the QP and buffers for an admitted hello; the accept message on success.
  Result<AcceptBytes> set_up(Connection& c, const Hello& hello) {
    if (auto err = create_rc_qp(c.res, kEchoSlots, !busy_poll)) return *err;
    // Least access: receives need local write; only the WRITE probe's buffer is remotely
    // writable; nothing is remotely readable.
    if (hello.kind == TransportKind::rc_write) {
      auto write = register_buffer(c.res, hello.max_payload,
                                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
      if (!write) return write.error();
      c.write_buf = *write;
      c.slot_size = 1;  // WRITE_WITH_IMM consumes a RECV without touching its buffer
    } else {
      c.slot_size = kFrameHeaderSize + hello.max_payload;
    }
    auto recv = register_buffer(c.res, c.slot_size * kEchoSlots, IBV_ACCESS_LOCAL_WRITE);
    if (!recv) return recv.error();
    c.recv_buf = *recv;
    for (int slot = 0; slot < kEchoSlots; ++slot) {
      if (auto err = post_recv(c, slot)) return *err;
    }
    c.kind = hello.kind;
    c.max_payload = hello.max_payload;
    c.reply_addr = hello.reply_addr;
    c.reply_rkey = hello.reply_rkey;
    Accept accept;
    accept.max_payload = hello.max_payload;
    if (c.write_buf != nullptr) {
      accept.write_addr = c.write_buf->addr();
      accept.write_rkey = c.write_buf->mr->rkey;
    }
    accept.nonce = make_responder_nonce();
    return encode_accept(accept, hello.nonce, admission.limits().shared_secret);
  }

  void on_connect_request(const CmEvent& event) {
    rdma_cm_id* id = event.id;
    auto peer_addr = peer_address_from_sockaddr(rdma_get_peer_addr(id));
    const PeerAddress peer = peer_addr ? *peer_addr : PeerAddress{};
    const auto now = Clock::now();
    Decision decision = admission.admit_peer(peer, now);
    HelloVerdict verdict{decision, std::nullopt};
    if (decision.accepted()) {
      verdict = judge_hello(admission, event.private_data, Padding::zeros_allowed, kServed);
      decision = verdict.decision;
    }
    const std::uint64_t bytes = verdict.hello ? bytes_needed(*verdict.hello) : 0;
    if (decision.accepted()) decision = admission.reserve(peer, bytes);
    if (!decision.accepted()) {
      const AcceptBytes refusal =
          encode_refusal(decision.status, verdict.hello, admission.limits().shared_secret);
      rdma_reject(id, refusal.data(), static_cast<std::uint8_t>(refusal.size()));
      rdma_destroy_id(id);
      refuse_log(peer, decision);
      return;
    }
    auto conn = std::make_unique<Connection>();
    conn->res.id.reset(id);
    conn->peer = peer;
    conn->reserved = bytes;
    conn->deadline = now + admission.limits().handshake_timeout;
    auto accept = set_up(*conn, *verdict.hello);
    rdma_conn_param param{};
    if (accept) {
      param.private_data = accept->data();
      param.private_data_len = static_cast<std::uint8_t>(accept->size());
      param.responder_resources = 0;
      param.initiator_depth = 0;
      param.rnr_retry_count = kEchoRnrRetry;
    }
    if (!accept || rdma_accept(id, &param) != 0) {
      const std::string why =
          accept ? fmt::format("rdma_accept: {}", std::strerror(errno)) : accept.error().message;
      const AcceptBytes refusal = encode_refusal(AcceptStatus::internal_error, verdict.hello,
                                                 admission.limits().shared_secret);
      rdma_reject(id, refusal.data(), static_cast<std::uint8_t>(refusal.size()));
      admission.release(peer, bytes);
      refuse_log(peer, {AcceptStatus::internal_error, why});
      return;  // ~Connection destroys the id and everything built on it
    }
    connections.emplace(id, std::move(conn));
    counters.active.store(static_cast<std::uint32_t>(connections.size()),
                          std::memory_order_relaxed);
  }

  void on_cm_event(const CmEvent& event) {
    switch (event.type) {
      case RDMA_CM_EVENT_CONNECT_REQUEST:
        on_connect_request(event);
        return;
      case RDMA_CM_EVENT_ESTABLISHED:
        if (auto it = connections.find(event.id); it != connections.end()) {
          it->second->established = true;
          it->second->deadline = Clock::now() + admission.limits().idle_timeout;
          counters.accepted.fetch_add(1, std::memory_order_relaxed);
        }
        return;
      case RDMA_CM_EVENT_DISCONNECTED:
      case RDMA_CM_EVENT_CONNECT_ERROR:
      case RDMA_CM_EVENT_UNREACHABLE:
      case RDMA_CM_EVENT_REJECTED:
      case RDMA_CM_EVENT_DEVICE_REMOVAL:
        if (event.id != listener.get()) {
          if (auto it = connections.find(event.id); it != connections.end()) {
            close(it);
          }
        } else if (log) {
          log(fmt::format("rdma listener: {}", rdma_event_str(event.type)));
        }
        return;
      default:
        return;  // TIMEWAIT_EXIT, ADDR_CHANGE: nothing to do
    }
  }

  // Returns false when the connection must close (error completion or protocol violation).
  bool on_completion(Connection& c, const ibv_wc& wc) {
    if (wc.status != IBV_WC_SUCCESS) return false;  // includes flushes after the peer vanished
    if ((wc.wr_id & kSendTag) != 0) {
      // The echo left: its slot takes the next ping.
      return !post_recv(c, static_cast<int>(wc.wr_id & ~kSendTag));
    }
    const int slot = static_cast<int>(wc.wr_id);
    ibv_sge sge{};
    ibv_send_wr wr{};
    wr.wr_id = kSendTag | wc.wr_id;
    wr.sg_list = &sge;
    if (c.kind == TransportKind::rc_write) {
      if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || wc.byte_len > c.max_payload) return false;
      sge = {c.write_buf->addr(), wc.byte_len, c.write_buf->mr->lkey};
      wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
      wr.imm_data = wc.imm_data;  // already in network order, echoed unchanged
      wr.wr.rdma.remote_addr = c.reply_addr;
      wr.wr.rdma.rkey = c.reply_rkey;
    } else {
      if (wc.opcode != IBV_WC_RECV || wc.byte_len < kFrameHeaderSize) return false;
      const std::uint8_t* in =
          c.recv_buf->bytes.data() + static_cast<std::size_t>(slot) * c.slot_size;
      auto header = decode_frame_header(std::span(in, kFrameHeaderSize), c.max_payload);
      if (!header || wc.byte_len != kFrameHeaderSize + header->payload_len) return false;
      // Echo straight from the receive slot; it is reposted once the SEND completes.
      sge = {reinterpret_cast<std::uintptr_t>(in), wc.byte_len, c.recv_buf->mr->lkey};
      wr.opcode = IBV_WR_SEND;
    }
    wr.num_sge = sge.length > 0 ? 1 : 0;
    if (sge.length <= c.res.max_inline) wr.send_flags = IBV_SEND_INLINE;
    ibv_send_wr* bad = nullptr;
    if (ibv_post_send(c.res.id->qp, &wr, &bad) != 0) return false;
    counters.echoed.fetch_add(1, std::memory_order_relaxed);
    c.echoed_since_housekeeping = true;
    return true;
  }

  bool on_cq_ready(Connection& c) {
    if (!take_cq_event(c.res)) return true;
    if (arm_cq(c.res)) return false;
    return drain_cq(c);
  }

  // Handles every completion waiting on the connection's CQ; false: close the connection.
  bool drain_cq(Connection& c) {
    std::array<ibv_wc, kEchoSlots> wcs{};
    for (;;) {
      const int n = ibv_poll_cq(c.res.cq.get(), kEchoSlots, wcs.data());
      if (n < 0) return false;
      if (n == 0) return true;
      for (int i = 0; i < n; ++i) {
        if (!on_completion(c, wcs[static_cast<std::size_t>(i)])) return false;
      }
    }
  }

  void close_all() override {
    while (!connections.empty()) close(connections.begin());
  }

  void poll_once(std::chrono::milliseconds max_wait) override {
    if (busy_poll) {
      spin(max_wait);
      return;
    }
    std::vector<pollfd> fds;
    std::vector<rdma_cm_id*> ids;
    fds.push_back({channel->fd, POLLIN, 0});
    auto wake = Clock::now() + max_wait;
    for (const auto& [id, c] : connections) {
      fds.push_back({c->res.channel->fd, POLLIN, 0});
      ids.push_back(id);
      wake = std::min(wake, c->deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
    if (::poll(fds.data(), fds.size(),
               static_cast<int>(std::clamp<long long>(wait.count() + 1, 0, 1000))) < 0) {
      return;  // EINTR: the caller loops
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      auto it = connections.find(ids[i - 1]);
      if (it == connections.end()) continue;
      if ((fds[i].revents & POLLIN) != 0 && !on_cq_ready(*it->second)) close(it);
    }
    housekeeping((fds[0].revents & POLLIN) != 0);
  }

  // Busy polling: every CQ in turn, without sleeping, for `max_wait`. The coarse clock is read
  // every kTurnsPerClockRead turns and rdma_cm events and idle deadlines are handled once per
  // millisecond (or scheduler tick, the coarse clock's step), so the echo path pays neither a
  // syscall nor a (possibly slow) precise clock read per turn.
  void spin(std::chrono::milliseconds max_wait) {
    constexpr unsigned kTurnsPerClockRead = 64;
    const auto until = Clock::now() + max_wait;
    auto next_check = Clock::now();
    for (unsigned turn = 1;; ++turn) {
      for (auto it = connections.begin(); it != connections.end();) {
        const auto next = std::next(it);
        if (!drain_cq(*it->second)) close(it);
        it = next;
      }
      if (turn % kTurnsPerClockRead != 0) continue;
      const auto now = coarse_now();
      if (now >= next_check) {
        housekeeping(true);
        next_check = now + std::chrono::milliseconds(1);
      }
      if (now >= until) return;
    }
  }

  // Closes connections past their deadline, then handles pending rdma_cm events when
  // `cm_ready` (the channel is non-blocking: nothing pending is no wait).
  void housekeeping(bool cm_ready) {
    const auto now = Clock::now();
    for (auto it = connections.begin(); it != connections.end();) {
      auto next = std::next(it);
      if (it->second->echoed_since_housekeeping) {
        it->second->deadline = now + admission.limits().idle_timeout;
        it->second->echoed_since_housekeeping = false;
      }
      if (now >= it->second->deadline) {
        if (!it->second->established) {
          refuse_log(it->second->peer, {AcceptStatus::bad_hello, "handshake never completed"});
        }
        close(it);
      }
      it = next;
    }
    if (cm_ready) {
      // Drain: a flood of connect requests is handled in one go, each judged on its own.
      for (;;) {
        auto event = next_cm_event(channel.get(), Clock::now());
        if (!event) break;
        on_cm_event(*event);
      }
    }
  }
};

RdmaResponder::RdmaResponder(std::unique_ptr<Impl> impl) : Responder(std::move(impl)) {}
RdmaResponder::~RdmaResponder() = default;

Result<std::unique_ptr<RdmaResponder>> RdmaResponder::listen(const std::string& address,
                                                             std::uint16_t port,
                                                             ResponderLimits limits,
                                                             ResponderLog log, bool busy_poll) {
  const std::string host = address.empty() ? "0.0.0.0" : address;
  auto resolved =
      resolve_stream(host, std::to_string(port), AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV);
  if (!resolved) return Error{EINVAL, "listen: " + resolved.error().message};
  const addrinfo* ai = resolved->get();

  auto impl = std::make_unique<Impl>(std::move(limits), std::move(log), busy_poll);
  impl->channel.reset(rdma_create_event_channel());
  if (!impl->channel) return errno_error(errno, "rdma_create_event_channel");
  if (auto err = make_nonblocking(impl->channel.get())) return *err;
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(impl->channel.get(), &id, nullptr, RDMA_PS_TCP) != 0) {
    return errno_error(errno, "rdma_create_id");
  }
  impl->listener.reset(id);
  if (rdma_bind_addr(id, ai->ai_addr) != 0) {
    return errno_error(errno, fmt::format("rdma_bind_addr {}:{}", host, port));
  }
  if (rdma_listen(id, 64) != 0) return errno_error(errno, "rdma_listen");
  return std::unique_ptr<RdmaResponder>(new RdmaResponder(std::move(impl)));
}

}  // namespace rdmatop::probes
