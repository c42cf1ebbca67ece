#include "probes/protocol.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace rdmatop::probes {
namespace {

// Byte offsets; docs/probe-protocol.md has the same tables.
constexpr std::size_t kHelloProofOffset = 40;
constexpr std::size_t kAcceptProofOffset = 44;
constexpr std::uint8_t kFlagHasProof = 0x01;

// Labels keep a hello proof from ever being valid as an accept proof and vice versa.
constexpr std::string_view kHelloLabel{"rdmatop probe hello v1", 23};
constexpr std::string_view kAcceptLabel{"rdmatop probe accept v1", 24};

void put_u32(std::uint8_t* out, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) {
    out[i] = static_cast<std::uint8_t>(v & 0xff);
    v >>= 8;
  }
}

void put_u64(std::uint8_t* out, std::uint64_t v) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<std::uint8_t>(v & 0xff);
    v >>= 8;
  }
}

std::uint32_t get_u32(const std::uint8_t* in) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | in[i];
  return v;
}

std::uint64_t get_u64(const std::uint8_t* in) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | in[i];
  return v;
}

Error protocol_error(std::string_view what) {
  return Error{EPROTO, fmt::format("handshake: {}", what)};
}

// The wire values of TransportKind are fixed here, not by the enum's declaration order.
std::uint8_t kind_to_wire(TransportKind kind) {
  switch (kind) {
    case TransportKind::rc_send:
      return 0;
    case TransportKind::rc_write:
      return 1;
    case TransportKind::tcp:
      return 2;
  }
  return 0xff;
}

std::optional<TransportKind> kind_from_wire(std::uint8_t v) {
  switch (v) {
    case 0:
      return TransportKind::rc_send;
    case 1:
      return TransportKind::rc_write;
    case 2:
      return TransportKind::tcp;
    default:
      return std::nullopt;
  }
}

// Checks length (exact, or zero padding) and returns the message's own bytes.
Result<std::span<const std::uint8_t>> message_bytes(std::span<const std::uint8_t> bytes,
                                                    std::size_t size, Padding padding,
                                                    std::string_view what) {
  if (bytes.size() < size) {
    return protocol_error(fmt::format("{} truncated: {} of {} bytes", what, bytes.size(), size));
  }
  if (bytes.size() > size) {
    if (padding == Padding::exact || bytes.size() > kMaxPaddedSize) {
      return protocol_error(
          fmt::format("{} too long: {} bytes, expected {}", what, bytes.size(), size));
    }
    const auto tail = bytes.subspan(size);
    if (!std::all_of(tail.begin(), tail.end(), [](std::uint8_t b) { return b == 0; })) {
      return protocol_error(
          fmt::format("{}: non-zero bytes after the {}-byte message", what, size));
    }
  }
  return bytes.first(size);
}

Proof hmac_proof(std::string_view secret, std::string_view label,
                 std::span<const std::uint8_t> message, std::span<const std::uint8_t> extra) {
  std::vector<std::uint8_t> data;
  data.reserve(label.size() + message.size() + extra.size());
  data.insert(data.end(), label.begin(), label.end());
  data.insert(data.end(), message.begin(), message.end());
  data.insert(data.end(), extra.begin(), extra.end());
  std::array<std::uint8_t, EVP_MAX_MD_SIZE> digest{};
  unsigned int digest_len = 0;
  // One-shot HMAC() is not deprecated in OpenSSL 3 (HMAC_CTX is); SHA-256 is always available.
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), data.data(), data.size(),
       digest.data(), &digest_len);
  Proof proof{};
  std::copy_n(digest.begin(), proof.size(), proof.begin());
  return proof;
}

bool proofs_equal(const Proof& a, const Proof& b) {
  // Constant time: a timing difference must not reveal how many proof bytes were right.
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

const char* to_string(AcceptStatus status) {
  switch (status) {
    case AcceptStatus::accepted:
      return "accepted";
    case AcceptStatus::not_allowed:
      return "peer not in allowlist";
    case AcceptStatus::rate_limited:
      return "rate limited";
    case AcceptStatus::busy:
      return "responder busy (connection or memory cap)";
    case AcceptStatus::bad_hello:
      return "bad hello";
    case AcceptStatus::auth_failed:
      return "authentication failed";
    case AcceptStatus::payload_too_large:
      return "payload too large";
    case AcceptStatus::unsupported:
      return "transport not served";
    case AcceptStatus::internal_error:
      return "responder internal error";
  }
  return "unknown status";
}

HelloBytes encode_hello(Hello hello, std::string_view secret) {
  HelloBytes out{};
  hello.has_proof = !secret.empty();
  put_u32(&out[0], kHelloMagic);
  out[4] = kProtocolVersion;
  out[5] = kind_to_wire(hello.kind);
  out[6] = hello.has_proof ? kFlagHasProof : 0;
  out[7] = 0;
  put_u32(&out[8], hello.max_payload);
  put_u64(&out[12], hello.unix_seconds);
  std::copy(hello.nonce.begin(), hello.nonce.end(), out.begin() + 20);
  put_u64(&out[28], hello.reply_addr);
  put_u32(&out[36], hello.reply_rkey);
  if (hello.has_proof) {
    const Proof proof =
        hmac_proof(secret, kHelloLabel, std::span(out).first(kHelloProofOffset), {});
    std::copy(proof.begin(), proof.end(), out.begin() + kHelloProofOffset);
  }
  return out;
}

Result<Hello> decode_hello(std::span<const std::uint8_t> bytes, Padding padding) {
  auto body = message_bytes(bytes, kHelloSize, padding, "hello");
  if (!body) return body.error();
  const std::uint8_t* in = body->data();
  if (get_u32(in) != kHelloMagic) {
    return protocol_error(fmt::format("bad magic 0x{:08x}", get_u32(in)));
  }
  if (in[4] != kProtocolVersion) {
    return protocol_error(
        fmt::format("unsupported version {} (speaks {})", in[4], kProtocolVersion));
  }
  const auto kind = kind_from_wire(in[5]);
  if (!kind) return protocol_error(fmt::format("unknown transport kind {}", in[5]));
  if ((in[6] & ~kFlagHasProof) != 0) {
    return protocol_error(fmt::format("unknown flags 0x{:02x}", in[6]));
  }
  if (in[7] != 0) return protocol_error("reserved byte 7 not zero");
  Hello hello;
  hello.kind = *kind;
  hello.has_proof = (in[6] & kFlagHasProof) != 0;
  hello.max_payload = get_u32(in + 8);
  if (hello.max_payload == 0 || hello.max_payload > kProtocolMaxPayload) {
    return protocol_error(
        fmt::format("max_payload {} outside 1..{}", hello.max_payload, kProtocolMaxPayload));
  }
  hello.unix_seconds = get_u64(in + 12);
  std::copy_n(in + 20, kNonceSize, hello.nonce.begin());
  hello.reply_addr = get_u64(in + 28);
  hello.reply_rkey = get_u32(in + 36);
  if (hello.kind != TransportKind::rc_write && (hello.reply_addr != 0 || hello.reply_rkey != 0)) {
    return protocol_error("reply buffer set for a kind that has none");
  }
  std::copy_n(in + kHelloProofOffset, kProofSize, hello.proof.begin());
  if (!hello.has_proof && hello.proof != Proof{}) {
    return protocol_error("proof bytes set without the proof flag");
  }
  return hello;
}

bool verify_hello_proof(const Hello& hello, std::string_view secret) {
  if (!hello.has_proof || secret.empty()) return false;
  const HelloBytes expected = encode_hello(hello, secret);
  Proof expected_proof{};
  std::copy_n(expected.begin() + kHelloProofOffset, kProofSize, expected_proof.begin());
  return proofs_equal(expected_proof, hello.proof);
}

AcceptBytes encode_accept(Accept accept, const Nonce& hello_nonce, std::string_view secret) {
  AcceptBytes out{};
  accept.has_proof = !secret.empty();
  put_u32(&out[0], kAcceptMagic);
  out[4] = kProtocolVersion;
  out[5] = static_cast<std::uint8_t>(accept.status);
  out[6] = accept.has_proof ? kFlagHasProof : 0;
  out[7] = 0;
  put_u32(&out[8], accept.max_payload);
  put_u64(&out[12], accept.write_addr);
  put_u32(&out[20], accept.write_rkey);
  put_u32(&out[24], 0);
  std::copy(accept.nonce.begin(), accept.nonce.end(), out.begin() + 28);
  if (accept.has_proof) {
    const Proof proof =
        hmac_proof(secret, kAcceptLabel, std::span(out).first(kAcceptProofOffset), hello_nonce);
    std::copy(proof.begin(), proof.end(), out.begin() + kAcceptProofOffset);
  }
  return out;
}

Result<Accept> decode_accept(std::span<const std::uint8_t> bytes, Padding padding) {
  auto body = message_bytes(bytes, kAcceptSize, padding, "accept");
  if (!body) return body.error();
  const std::uint8_t* in = body->data();
  if (get_u32(in) != kAcceptMagic) {
    return protocol_error(fmt::format("bad magic 0x{:08x}", get_u32(in)));
  }
  if (in[4] != kProtocolVersion) {
    return protocol_error(
        fmt::format("unsupported version {} (speaks {})", in[4], kProtocolVersion));
  }
  if (in[5] > kMaxAcceptStatus) return protocol_error(fmt::format("unknown status {}", in[5]));
  if ((in[6] & ~kFlagHasProof) != 0) {
    return protocol_error(fmt::format("unknown flags 0x{:02x}", in[6]));
  }
  if (in[7] != 0 || get_u32(in + 24) != 0) return protocol_error("reserved bytes not zero");
  Accept accept;
  accept.status = static_cast<AcceptStatus>(in[5]);
  accept.has_proof = (in[6] & kFlagHasProof) != 0;
  accept.max_payload = get_u32(in + 8);
  accept.write_addr = get_u64(in + 12);
  accept.write_rkey = get_u32(in + 20);
  if (accept.status == AcceptStatus::accepted) {
    if (accept.max_payload == 0 || accept.max_payload > kProtocolMaxPayload) {
      return protocol_error(fmt::format("granted max_payload {} outside 1..{}", accept.max_payload,
                                        kProtocolMaxPayload));
    }
  } else if (accept.max_payload != 0 || accept.write_addr != 0 || accept.write_rkey != 0) {
    return protocol_error("a refusal carries connection fields");
  }
  std::copy_n(in + 28, kResponderNonceSize, accept.nonce.begin());
  std::copy_n(in + kAcceptProofOffset, kProofSize, accept.proof.begin());
  if (!accept.has_proof && accept.proof != Proof{}) {
    return protocol_error("proof bytes set without the proof flag");
  }
  return accept;
}

bool verify_accept_proof(const Accept& accept, const Nonce& hello_nonce, std::string_view secret) {
  if (!accept.has_proof || secret.empty()) return false;
  const AcceptBytes expected = encode_accept(accept, hello_nonce, secret);
  Proof expected_proof{};
  std::copy_n(expected.begin() + kAcceptProofOffset, kProofSize, expected_proof.begin());
  return proofs_equal(expected_proof, accept.proof);
}

FrameHeaderBytes encode_frame_header(const FrameHeader& header) {
  FrameHeaderBytes out{};
  put_u32(&out[0], kFrameMagic);
  put_u32(&out[4], header.payload_len);
  put_u64(&out[8], header.sequence);
  return out;
}

Result<FrameHeader> decode_frame_header(std::span<const std::uint8_t> bytes,
                                        std::uint32_t max_payload) {
  if (bytes.size() != kFrameHeaderSize) {
    return Error{EPROTO, fmt::format("frame: header is {} bytes, expected {}", bytes.size(),
                                     kFrameHeaderSize)};
  }
  if (get_u32(bytes.data()) != kFrameMagic) {
    return Error{EPROTO, fmt::format("frame: bad magic 0x{:08x}", get_u32(bytes.data()))};
  }
  FrameHeader header;
  header.payload_len = get_u32(bytes.data() + 4);
  header.sequence = get_u64(bytes.data() + 8);
  if (header.payload_len > max_payload) {
    return Error{EPROTO, fmt::format("frame: payload {} bytes above the granted {}",
                                     header.payload_len, max_payload)};
  }
  return header;
}

}  // namespace rdmatop::probes
