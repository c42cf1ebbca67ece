// The probe protocol: the handshake a prober and a responder exchange before any ping, and the
// framing of the pings themselves. Pure encode/decode functions (bytes <-> structs), shared by the
// TCP and RC transports and both responders; docs/probe-protocol.md is the specification.
//
// Sizes are fixed by rdma_cm: the RC connect request carries at most 56 bytes of private data
// (IB CM REQ private data is 92 bytes, rdma_cm's own header for RDMA_PS_TCP takes 36; see
// rdma_connect(3) and the kernel's cma.c `cma_user_data_offset`), the accept reply at most 196
// (REP) and a reject at most 148 (REJ). The hello uses exactly those 56 bytes; the accept fits the
// reject too, so a refusal can say why. The passive side of rdma_cm sees private data padded with
// zeros to the maximum, which is what `Padding::zeros_allowed` accepts.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "collector/model/result.h"
#include "probes/transport.h"

namespace rdmatop::probes {

inline constexpr std::uint32_t kHelloMagic = 0x52545048;   // "RTPH"
inline constexpr std::uint32_t kAcceptMagic = 0x52545041;  // "RTPA"
inline constexpr std::uint32_t kFrameMagic = 0x52545046;   // "RTPF"
inline constexpr std::uint8_t kProtocolVersion = 1;

inline constexpr std::size_t kRdmaCmConnectPrivateDataMax = 56;
inline constexpr std::size_t kRdmaCmRejectPrivateDataMax = 148;
inline constexpr std::size_t kHelloSize = 56;
inline constexpr std::size_t kAcceptSize = 60;
inline constexpr std::size_t kFrameHeaderSize = 16;
inline constexpr std::size_t kNonceSize = 8;
inline constexpr std::size_t kResponderNonceSize = 16;
/// HMAC-SHA256 truncated to 128 bits (RFC 2104 §5 allows truncation to at least half).
inline constexpr std::size_t kProofSize = 16;
/// The largest payload the protocol allows, whatever a responder grants: several 4096-byte MTUs
/// and far below anything that would make a probe buffer a memory-pinning lever.
inline constexpr std::uint32_t kProtocolMaxPayload = 1U << 20;
/// Any private data longer than this is garbage, padded or not.
inline constexpr std::size_t kMaxPaddedSize = 256;

static_assert(kHelloSize <= kRdmaCmConnectPrivateDataMax);
static_assert(kAcceptSize <= kRdmaCmRejectPrivateDataMax);

using Nonce = std::array<std::uint8_t, kNonceSize>;
using ResponderNonce = std::array<std::uint8_t, kResponderNonceSize>;
using Proof = std::array<std::uint8_t, kProofSize>;

/// Prober -> responder: the TCP stream's first 56 bytes, or the rdma_cm connect private data.
struct Hello {
  TransportKind kind = TransportKind::rc_send;
  std::uint32_t max_payload = 0;   ///< the largest ping payload the prober will send
  std::uint64_t unix_seconds = 0;  ///< prober's wall clock: freshness of a proven hello
  Nonce nonce{};
  /// rc_write only: where the responder writes its answer (the prober's reply buffer). Zero for
  /// the other kinds.
  std::uint64_t reply_addr = 0;
  std::uint32_t reply_rkey = 0;
  bool has_proof = false;
  Proof proof{};  ///< HMAC over the bytes before it; zero unless has_proof

  bool operator==(const Hello&) const = default;
};

enum class AcceptStatus : std::uint8_t {
  accepted = 0,
  not_allowed = 1,        ///< peer address outside the allowlist
  rate_limited = 2,       ///< too many connection attempts from this peer
  busy = 3,               ///< connection or registered-memory cap reached
  bad_hello = 4,          ///< the hello did not decode
  auth_failed = 5,        ///< missing, wrong or stale proof of the shared secret
  payload_too_large = 6,  ///< hello.max_payload above the responder's limit
  unsupported = 7,        ///< transport kind not served by this listener
  internal_error = 8,     ///< the responder failed to set the connection up
};
inline constexpr std::uint8_t kMaxAcceptStatus = 8;

const char* to_string(AcceptStatus status);

/// Responder -> prober: the TCP answer to a hello, or the rdma_cm accept/reject private data.
struct Accept {
  AcceptStatus status = AcceptStatus::accepted;
  std::uint32_t max_payload = 0;  ///< granted: equals the hello's on accept, else 0
  /// rc_write only: the responder's WRITE buffer; zero otherwise.
  std::uint64_t write_addr = 0;
  std::uint32_t write_rkey = 0;
  ResponderNonce nonce{};
  bool has_proof = false;
  Proof proof{};  ///< HMAC over the bytes before it and the hello's nonce

  bool operator==(const Accept&) const = default;
};

/// One ping on TCP and rc_send: header + payload, echoed unchanged. rc_write carries no header:
/// the sequence travels as the immediate data.
struct FrameHeader {
  std::uint32_t payload_len = 0;
  std::uint64_t sequence = 0;

  bool operator==(const FrameHeader&) const = default;
};

enum class Padding : std::uint8_t {
  exact,          ///< TCP: the buffer is exactly the message
  zeros_allowed,  ///< rdma_cm private data: trailing zeros up to kMaxPaddedSize
};

using HelloBytes = std::array<std::uint8_t, kHelloSize>;
using AcceptBytes = std::array<std::uint8_t, kAcceptSize>;
using FrameHeaderBytes = std::array<std::uint8_t, kFrameHeaderSize>;

/// Encodes `hello`; when `secret` is non-empty, computes and sets the proof (has_proof = true),
/// else the proof bytes are zero.
HelloBytes encode_hello(Hello hello, std::string_view secret);
/// Structural validation only (magic, version, kind, flags, reserved bytes, payload ceiling,
/// fields a kind does not use being zero). The proof is checked by verify_hello_proof.
Result<Hello> decode_hello(std::span<const std::uint8_t> bytes, Padding padding);
bool verify_hello_proof(const Hello& hello, std::string_view secret);

AcceptBytes encode_accept(Accept accept, const Nonce& hello_nonce, std::string_view secret);
Result<Accept> decode_accept(std::span<const std::uint8_t> bytes, Padding padding);
bool verify_accept_proof(const Accept& accept, const Nonce& hello_nonce, std::string_view secret);

FrameHeaderBytes encode_frame_header(const FrameHeader& header);
/// Validates magic and payload_len <= max_payload.
Result<FrameHeader> decode_frame_header(std::span<const std::uint8_t> bytes,
                                        std::uint32_t max_payload);

}  // namespace rdmatop::probes
