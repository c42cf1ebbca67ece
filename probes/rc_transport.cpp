// The RC transport: rdma_cm resolves the responder by IP (RoCE v2), connects an RC QP with the
// probe hello as private data, and pings with SEND/RECV or RDMA WRITE_WITH_IMM. Modelled on the
// flow of rdma-core's rc_pingpong.c (one PD, one CQ, pre-posted receives, signalled sends) with
// rdma_cm doing the QP state transitions, as in librdmacm's rdma_client/rdma_server examples.
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "probes/address.h"
#include "probes/coarse_clock.h"
#include "probes/handshake.h"
#include "probes/transport.h"
#include "probes/verbs_resources.h"

namespace rdmatop::probes {
namespace {

using Clock = std::chrono::steady_clock;

/// Receive slots and send WRs per QP. Pings are one at a time, but echoes of pings that timed
/// out may still arrive, each consuming a receive.
constexpr int kDepth = 8;
constexpr std::uint64_t kRecvTag = 1ULL << 63;
/// RNR retry 7 means "retry forever" (IBA 9.7.5.2.8); 6 lets a stuck responder surface as an
/// "RNR retry counter exceeded" completion instead of a silently growing send queue.
constexpr std::uint8_t kRnrRetry = 6;
constexpr std::uint8_t kTransportRetry = 7;
/// Empty CQ polls between two clock reads while busy-polling (the timeout's granularity: a poll
/// takes well under a microsecond on hardware).
constexpr unsigned kPollsPerClockRead = 64;
/// How often a ping looks for rdma_cm events (the responder leaving) on the fast path. Looking
/// is a syscall (a write to the rdma_cm device that answers EAGAIN): once per ping it cost
/// rxe back-to-back pings a measurable share of their round trip. A ping that times out always
/// looks, so a responder that left is reported as a lost connection, never as a lost ping.
constexpr auto kCmEventCheckInterval = std::chrono::milliseconds(100);

int ms_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<long long>(left.count(), 1, 1 << 30));
}

/// host:port for rdma_resolve_addr; `numeric`: an address only (the local bind address).
Result<AddrinfoPtr> lookup(const std::string& host, std::uint16_t port, bool numeric) {
  return resolve_stream(host, std::to_string(port),
                        AI_NUMERICSERV | (numeric ? AI_NUMERICHOST : 0));
}

std::string cm_failure(const CmEvent& event) {
  // Negative statuses are -errno from the kernel; REJECTED carries the IB CM reject reason.
  if (event.status < 0) {
    return fmt::format("{}: {}", rdma_event_str(event.type), std::strerror(-event.status));
  }
  return fmt::format("{} (status {})", rdma_event_str(event.type), event.status);
}

class RcTransport final : public Transport {
 public:
  explicit RcTransport(ProbeOptions options) : options_(std::move(options)) {}
  ~RcTransport() override { disconnect(); }
  RcTransport(const RcTransport&) = delete;
  RcTransport& operator=(const RcTransport&) = delete;

  std::optional<Error> connect(const Endpoint& endpoint,
                               std::chrono::milliseconds timeout) override {
    disconnect();
    auto err = do_connect(endpoint, Clock::now() + timeout);
    if (err) disconnect();
    return err;
  }

  PingResult ping(std::size_t payload_bytes, std::chrono::milliseconds timeout) override {
    PingResult result;
    if (!connected_) {
      result.error = "not connected";
      return result;
    }
    if (last_clock_read_ >= next_cm_event_check_) {
      next_cm_event_check_ = last_clock_read_ + kCmEventCheckInterval;
      if (auto gone = check_cm_events()) return broken(result, *gone);
    }
    if (payload_bytes > options_.max_payload) {
      result.outcome = PingResult::Outcome::qp_error;
      result.error =
          fmt::format("payload {} above max_payload {}", payload_bytes, options_.max_payload);
      return result;
    }
    if (outstanding_sends_ >= kDepth - 1) {
      // A send completes when the responder's ACK is processed, which can lag behind the echo
      // itself (rxe acknowledges from its own tasklet): back-to-back pings then find the queue
      // full of sends that are done but not yet reaped. Wait for them, up to one timeout.
      PingResult reaped =
          await(Goal::send_slot, sequence_ + 1, 0, Clock::now(), Clock::now() + timeout);
      if (reaped.outcome == PingResult::Outcome::timed_out) {
        return broken(result, "send queue full: earlier pings never completed");
      }
      if (reaped.outcome != PingResult::Outcome::answered) return reaped;
    }
    const std::uint64_t seq = ++sequence_;
    const bool write = options_.kind == TransportKind::rc_write;
    std::uint8_t* out = send_buf_->bytes.data();
    std::size_t length = payload_bytes;
    if (!write) {
      const auto header = encode_frame_header({static_cast<std::uint32_t>(payload_bytes), seq});
      std::memcpy(out, header.data(), header.size());
      out += kFrameHeaderSize;
      length += kFrameHeaderSize;
    }
    for (std::size_t i = 0; i < payload_bytes; ++i) out[i] = static_cast<std::uint8_t>(seq + i);

    ibv_sge sge{send_buf_->addr(), static_cast<std::uint32_t>(length), send_buf_->mr->lkey};
    ibv_send_wr wr{};
    wr.wr_id = seq;
    wr.sg_list = &sge;
    wr.num_sge = length > 0 ? 1 : 0;
    if (write) {
      wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
      wr.imm_data = htonl(static_cast<std::uint32_t>(seq));
      wr.wr.rdma.remote_addr = remote_addr_;
      wr.wr.rdma.rkey = remote_rkey_;
    } else {
      wr.opcode = IBV_WR_SEND;
    }
    if (length <= res_->max_inline) wr.send_flags = IBV_SEND_INLINE;
    ibv_send_wr* bad = nullptr;
    const auto start = Clock::now();
    last_clock_read_ = start;
    const auto deadline = start + timeout;
    if (const int rc = ibv_post_send(res_->id->qp, &wr, &bad); rc != 0) {
      return broken(result, fmt::format("ibv_post_send: {}", std::strerror(rc)));
    }
    ++outstanding_sends_;
    return await(Goal::echo, seq, payload_bytes, start, deadline);
  }

  void disconnect() override {
    if (res_ && connected_) rdma_disconnect(res_->id.get());
    connected_ = false;
    send_buf_ = recv_buf_ = reply_buf_ = nullptr;
    outstanding_sends_ = 0;
    res_.reset();
    channel_.reset();
  }

  bool connected() const override { return connected_; }
  std::string local_device() const override { return device_; }
  std::uint32_t local_port() const override { return port_; }
  std::optional<std::uint32_t> qp_num() const override {
    if (!res_ || !res_->id || res_->id->qp == nullptr) return std::nullopt;
    return res_->id->qp->qp_num;
  }
  std::uint64_t registered_bytes() const override { return res_ ? res_->registered_bytes : 0; }

 private:
  Result<CmEvent> expect(rdma_cm_event_type wanted, Clock::time_point deadline, const char* step) {
    auto event = next_cm_event(channel_.get(), deadline);
    if (!event)
      return Error{event.error().code, fmt::format("{}: {}", step, event.error().message)};
    if (event->type != wanted) {
      return Error{EHOSTUNREACH, fmt::format("{}: {}", step, cm_failure(*event))};
    }
    return event;
  }

  std::optional<Error> do_connect(const Endpoint& endpoint, Clock::time_point deadline) {
    if (options_.kind == TransportKind::tcp) {
      return Error{EINVAL, "rc transport asked for the tcp kind"};
    }
    if (options_.max_payload == 0 || options_.max_payload > kProtocolMaxPayload) {
      return Error{EINVAL, fmt::format("max_payload {} outside 1..{}", options_.max_payload,
                                       kProtocolMaxPayload)};
    }
    if (options_.service_level) {
      // On RoCE rdma_cm derives the SL from the TOS (the kernel's cma.c, iboe_tos_to_sl) and
      // transitions the QP itself, so an independent SL cannot be set here: select the
      // priority with traffic_class instead.
      return Error{ENOTSUP, "service_level: on RoCE the SL follows the traffic class; set that"};
    }
    auto dst = lookup(endpoint.host, endpoint.port, false);
    if (!dst) return Error{dst.error().code, "resolve_addr: " + dst.error().message};
    AddrinfoPtr src;
    if (!options_.local_address.empty()) {
      auto local = lookup(options_.local_address, 0, true);
      if (!local) return Error{local.error().code, "resolve_addr: " + local.error().message};
      src = std::move(local.value());
    }
    channel_.reset(rdma_create_event_channel());
    if (!channel_) return errno_error(errno, "rdma_create_event_channel");
    if (auto err = make_nonblocking(channel_.get())) return err;
    res_ = std::make_unique<RcResources>();
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(channel_.get(), &id, nullptr, RDMA_PS_TCP) != 0) {
      return errno_error(errno, "rdma_create_id");
    }
    res_->id.reset(id);
    if (options_.traffic_class) {
      std::uint8_t tos = static_cast<std::uint8_t>(*options_.traffic_class);
      if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)) != 0) {
        return errno_error(errno, "rdma_set_option TOS");
      }
    }
    if (rdma_resolve_addr(id, src ? src->ai_addr : nullptr, dst.value()->ai_addr,
                          ms_until(deadline)) != 0) {
      return errno_error(errno, "resolve_addr");
    }
    if (auto ev = expect(RDMA_CM_EVENT_ADDR_RESOLVED, deadline, "resolve_addr"); !ev) {
      return ev.error();
    }
    if (rdma_resolve_route(id, ms_until(deadline)) != 0) {
      return errno_error(errno, "resolve_route");
    }
    if (auto ev = expect(RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, "resolve_route"); !ev) {
      return ev.error();
    }
    if (auto err = create_rc_qp(*res_, kDepth, !options_.busy_poll)) {
      return Error{err->code, "create_qp: " + err->message};
    }
    if (auto err = register_buffers()) return err;
    for (int slot = 0; slot < kDepth; ++slot) {
      if (auto err = post_recv(slot)) return err;
    }
    Hello hello = make_hello(options_.kind, static_cast<std::uint32_t>(options_.max_payload));
    if (reply_buf_ != nullptr) {
      hello.reply_addr = reply_buf_->addr();
      hello.reply_rkey = reply_buf_->mr->rkey;
    }
    const HelloBytes hello_bytes = encode_hello(hello, options_.shared_secret);
    rdma_conn_param param{};
    param.private_data = hello_bytes.data();
    param.private_data_len = static_cast<std::uint8_t>(hello_bytes.size());
    param.responder_resources = 0;  // no RDMA READ in either direction
    param.initiator_depth = 0;
    param.retry_count = kTransportRetry;
    param.rnr_retry_count = kRnrRetry;
    if (rdma_connect(id, &param) != 0) return errno_error(errno, "connect");
    auto event = next_cm_event(channel_.get(), deadline);
    if (!event) return Error{event.error().code, "connect: " + event.error().message};
    if (event->type == RDMA_CM_EVENT_REJECTED) {
      // A responder refusal carries an accept message saying why; a kernel reject does not.
      auto refusal = decode_accept(event->private_data, Padding::zeros_allowed);
      if (refusal && refusal->status != AcceptStatus::accepted) {
        return Error{ECONNREFUSED,
                     fmt::format("handshake: refused: {}", to_string(refusal->status))};
      }
      return Error{ECONNREFUSED, fmt::format("connect: {}", cm_failure(*event))};
    }
    if (event->type != RDMA_CM_EVENT_ESTABLISHED) {
      return Error{EHOSTUNREACH, fmt::format("connect: {}", cm_failure(*event))};
    }
    connected_ = true;  // from here on, disconnect() sends a DREQ
    auto accept =
        check_accept(event->private_data, Padding::zeros_allowed, hello, options_.shared_secret);
    if (!accept) return accept.error();
    if (options_.kind == TransportKind::rc_write) {
      remote_addr_ = accept->write_addr;
      remote_rkey_ = accept->write_rkey;
    }
    device_ = ibv_get_device_name(id->verbs->device);
    port_ = id->port_num;
    sequence_ = 0;
    outstanding_sends_ = 0;
    next_cm_event_check_ = {};  // the first ping looks
    return std::nullopt;
  }

  std::optional<Error> register_buffers() {
    const std::size_t frame = kFrameHeaderSize + options_.max_payload;
    // Least access: the send source needs none beyond local read; receives need local write;
    // only the WRITE probe's landing buffer may be written remotely, and nothing may be read.
    auto send = register_buffer(*res_, frame, 0);
    if (!send) return send.error();
    send_buf_ = *send;
    if (options_.kind == TransportKind::rc_write) {
      auto reply = register_buffer(*res_, options_.max_payload,
                                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
      if (!reply) return reply.error();
      reply_buf_ = *reply;
      // WRITE_WITH_IMM consumes a receive WR without touching its buffer: one byte per slot.
      auto recv = register_buffer(*res_, kDepth, IBV_ACCESS_LOCAL_WRITE);
      if (!recv) return recv.error();
      recv_buf_ = *recv;
      recv_slot_size_ = 1;
    } else {
      auto recv = register_buffer(*res_, frame * kDepth, IBV_ACCESS_LOCAL_WRITE);
      if (!recv) return recv.error();
      recv_buf_ = *recv;
      recv_slot_size_ = frame;
    }
    return std::nullopt;
  }

  std::optional<Error> post_recv(int slot) {
    ibv_sge sge{recv_buf_->addr() + static_cast<std::uint64_t>(slot) * recv_slot_size_,
                static_cast<std::uint32_t>(recv_slot_size_), recv_buf_->mr->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = kRecvTag | static_cast<std::uint64_t>(slot);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (const int rc = ibv_post_recv(res_->id->qp, &wr, &bad); rc != 0) {
      return Error{rc, fmt::format("ibv_post_recv: {}", std::strerror(rc))};
    }
    return std::nullopt;
  }

  // The responder going away shows up as an rdma_cm event before any ping notices it.
  std::optional<std::string> check_cm_events() {
    auto event = next_cm_event(channel_.get(), Clock::now());
    if (!event) return std::nullopt;  // ETIMEDOUT: nothing pending
    return fmt::format("connection lost: {}", cm_failure(*event));
  }

  enum class Seen : std::uint8_t { nothing, answered, broken };

  Seen on_completion(const ibv_wc& wc, std::uint64_t seq, std::size_t payload_bytes,
                     PingResult& result) {
    if (wc.status != IBV_WC_SUCCESS) {
      result.outcome = PingResult::Outcome::wc_error;
      result.wc_status = ibv_wc_status_str(wc.status);
      result.error = fmt::format("{} completion: {} (vendor error 0x{:x})",
                                 (wc.wr_id & kRecvTag) != 0 ? "receive" : "send", result.wc_status,
                                 wc.vendor_err);
      return Seen::broken;
    }
    if ((wc.wr_id & kRecvTag) == 0) {
      --outstanding_sends_;
      return Seen::nothing;
    }
    const int slot = static_cast<int>(wc.wr_id & ~kRecvTag);
    bool match = false;
    std::string violation;
    if (options_.kind == TransportKind::rc_write) {
      const std::uint32_t imm = ntohl(wc.imm_data);
      if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM) {
        violation = "responder answered a WRITE probe without an immediate";
      } else if (imm == static_cast<std::uint32_t>(seq)) {
        match = wc.byte_len == payload_bytes &&
                std::equal(send_buf_->bytes.begin(),
                           send_buf_->bytes.begin() + static_cast<std::ptrdiff_t>(payload_bytes),
                           reply_buf_->bytes.begin());
        if (!match) violation = "echo differs from the ping";
      }
    } else {
      const std::uint8_t* in =
          recv_buf_->bytes.data() + static_cast<std::size_t>(slot) * recv_slot_size_;
      auto header = wc.byte_len >= kFrameHeaderSize
                        ? decode_frame_header(std::span(in, kFrameHeaderSize),
                                              static_cast<std::uint32_t>(options_.max_payload))
                        : Result<FrameHeader>(Error{EPROTO, "short echo"});
      if (!header) {
        violation = header.error().message;
      } else if (header->sequence == seq) {
        match = wc.byte_len == kFrameHeaderSize + payload_bytes &&
                std::memcmp(in, send_buf_->bytes.data(), wc.byte_len) == 0;
        if (!match) violation = "echo differs from the ping";
      } else if (header->sequence > seq) {
        violation = fmt::format("echo of unsent ping {}", header->sequence);
      }
    }
    if (auto err = post_recv(slot)) {
      result.outcome = PingResult::Outcome::qp_error;
      result.error = err->message;
      return Seen::broken;
    }
    if (!violation.empty()) {
      result.outcome = PingResult::Outcome::qp_error;
      result.error = violation;
      return Seen::broken;
    }
    return match ? Seen::answered : Seen::nothing;  // not a match: a late echo, skipped
  }

  /// What await() waits for: the echo of ping `seq`, or a free send slot (no echo expected:
  /// `seq` is then the next, unsent sequence number, so any echo is a late one or a violation).
  enum class Goal : std::uint8_t { echo, send_slot };

  /// Polls the CQ (busy or on completion events) until the goal is met (outcome answered, rtt
  /// measured from `start` for an echo), the deadline passes (timed_out) or the QP breaks.
  PingResult await(Goal goal, std::uint64_t seq, std::size_t payload_bytes, Clock::time_point start,
                   Clock::time_point deadline) {
    PingResult result;
    std::array<ibv_wc, kDepth> wcs{};
    bool armed = false;
    unsigned empty_polls = 0;
    for (;;) {
      const int n = ibv_poll_cq(res_->cq.get(), kDepth, wcs.data());
      if (n < 0) return broken(result, "ibv_poll_cq failed");
      if (n == 0) {
        // Busy polling looks at the (coarse, cheap) clock only every kPollsPerClockRead empty
        // polls: time spent reading the clock delays seeing the echo.
        if (options_.busy_poll && ++empty_polls % kPollsPerClockRead != 0) continue;
        if (coarse_now() >= deadline) {
          if (auto gone = check_cm_events()) return broken(result, *gone);
          result.outcome = PingResult::Outcome::timed_out;
          result.error = "no echo within the timeout";
          return result;
        }
        if (options_.busy_poll) continue;
        if (!armed) {
          // Arm, then poll once more, so a completion that raced the arming is not lost.
          if (auto err = arm_cq(*res_)) return broken(result, err->message);
          armed = true;
          continue;
        }
        pollfd p{res_->channel->fd, POLLIN, 0};
        ::poll(&p, 1, ms_until(deadline));
        if (take_cq_event(*res_)) armed = false;
        continue;
      }
      // The echo's arrival time is read before the batch is handled, and only when the batch
      // holds a receive: a send completion (usually reaped while the echo is still on its way)
      // needs no time, and where a clock read is a syscall (a VM without a usable TSC) reading
      // it then would delay seeing the echo (docs/probes.md, "Accuracy against perftest").
      const bool has_receive = std::any_of(wcs.begin(), wcs.begin() + n, [](const ibv_wc& wc) {
        return (wc.wr_id & kRecvTag) != 0;
      });
      const auto now = has_receive ? Clock::now() : Clock::time_point{};
      if (has_receive) last_clock_read_ = now;
      bool answered = false;
      for (int i = 0; i < n; ++i) {
        // Every completion of the batch is handled, also those after the echo: a send
        // completion dropped here would never be counted (the send queue would seem to fill
        // up until the connection is given up) and a dropped receive would never be reposted.
        switch (on_completion(wcs[static_cast<std::size_t>(i)], seq, payload_bytes, result)) {
          case Seen::answered:
            answered = true;
            break;
          case Seen::broken:
            disconnect();
            return result;
          case Seen::nothing:
            break;
        }
      }
      if (answered) {
        result.outcome = PingResult::Outcome::answered;
        result.rtt = now - start;
        return result;
      }
      if (goal == Goal::send_slot && outstanding_sends_ < kDepth - 1) {
        result.outcome = PingResult::Outcome::answered;
        return result;
      }
    }
  }

  PingResult broken(PingResult& result, const std::string& why) {
    result.outcome = PingResult::Outcome::qp_error;
    result.error = why;
    disconnect();
    return result;
  }

  ProbeOptions options_;
  EventChannelPtr channel_;  // declared before res_: destroyed after every cm_id on it
  std::unique_ptr<RcResources> res_;
  RegisteredBuffer* send_buf_ = nullptr;
  RegisteredBuffer* recv_buf_ = nullptr;
  RegisteredBuffer* reply_buf_ = nullptr;
  std::size_t recv_slot_size_ = 0;
  std::uint64_t remote_addr_ = 0;
  std::uint32_t remote_rkey_ = 0;
  std::uint64_t sequence_ = 0;
  int outstanding_sends_ = 0;
  /// The newest clock value a ping read (its send or an echo): the fast path decides on it
  /// whether to look for rdma_cm events, without a clock read of its own.
  Clock::time_point last_clock_read_{};
  Clock::time_point next_cm_event_check_{};
  bool connected_ = false;
  std::string device_;
  std::uint32_t port_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_rc_transport(const ProbeOptions& options) {
  return std::make_unique<RcTransport>(options);
}

}  // namespace rdmatop::probes
