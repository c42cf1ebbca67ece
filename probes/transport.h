// One probe connection to one responder, whatever carries it: an RC QP through rdma_cm (SEND/RECV
// or RDMA WRITE ping-pong) or a TCP socket (the baseline). The runner drives transports without
// knowing which kind it holds, so RDMA and TCP results are measured the same way.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "collector/model/result.h"

namespace rdmatop::probes {

enum class TransportKind : std::uint8_t { rc_send, rc_write, tcp };

/// "rc_send", "rc_write", "tcp": the `transport` label of probe series.
const char* to_string(TransportKind kind);

/// Where a responder listens. rdma_cm's port space is separate from the kernel's TCP ports, so
/// one responder uses the same number for both.
struct Endpoint {
  std::string host;  ///< IP address or name
  std::uint16_t port = 0;
};

inline constexpr std::uint16_t kDefaultProbePort = 19875;

struct ProbeOptions {
  TransportKind kind = TransportKind::rc_send;
  std::optional<std::uint32_t> traffic_class;  ///< TOS byte / GRH traffic class (DSCP << 2)
  std::optional<std::uint8_t> service_level;
  bool busy_poll = true;      ///< false: completion channel + ibv_req_notify_cq
  std::string shared_secret;  ///< empty: the handshake carries no proof
  std::size_t max_payload = 8192;
  std::string local_address;  ///< bind to this source address; empty: routing decides
};

struct PingResult {
  enum class Outcome : std::uint8_t {
    answered,       ///< rtt is valid
    timed_out,      ///< no answer within the timeout; the connection stays usable
    wc_error,       ///< a work completion failed; `wc_status` names it; QP is in error
    qp_error,       ///< the QP or socket broke otherwise (async event, reset); reconnect
    not_connected,  ///< ping called without a live connection
  };
  Outcome outcome = Outcome::not_connected;
  std::chrono::nanoseconds rtt{0};
  std::string wc_status;  ///< ibv_wc_status_str() text for wc_error
  std::string error;      ///< human-readable cause for every outcome but answered
};

class Transport {
 public:
  virtual ~Transport() = default;
  /// Resolves, connects and completes the probe handshake. On failure the Error names the step
  /// ("resolve_addr", "connect", "handshake: bad magic") and the cause; nullopt is success.
  virtual std::optional<Error> connect(const Endpoint& endpoint,
                                       std::chrono::milliseconds timeout) = 0;
  /// One ping-pong of `payload_bytes` (<= ProbeOptions::max_payload).
  virtual PingResult ping(std::size_t payload_bytes, std::chrono::milliseconds timeout) = 0;
  virtual void disconnect() = 0;
  virtual bool connected() const = 0;
  /// RDMA device and port the connection runs on ("rxe0", 1); empty for TCP.
  virtual std::string local_device() const { return {}; }
  virtual std::uint32_t local_port() const { return 0; }
  /// The QP number, for per-QP counter binding; none for TCP.
  virtual std::optional<std::uint32_t> qp_num() const { return std::nullopt; }
  virtual std::uint64_t registered_bytes() const { return 0; }
};

std::unique_ptr<Transport> make_tcp_transport(const ProbeOptions& options);
/// rc_send or rc_write, through librdmacm.
std::unique_ptr<Transport> make_rc_transport(const ProbeOptions& options);

}  // namespace rdmatop::probes
