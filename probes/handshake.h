// The handshake steps both transports and both responders share, on top of the pure codec in
// protocol.h: a fresh hello (random nonce, wall clock), the prober's check of the answer, and the
// responder's verdict on a hello (decode + admission). Kept in one place so TCP and RC cannot
// drift apart.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "probes/admission.h"
#include "probes/protocol.h"

namespace rdmatop::probes {

/// A hello with a random nonce (getrandom) and the current wall-clock time.
Hello make_hello(TransportKind kind, std::uint32_t max_payload);
ResponderNonce make_responder_nonce();

/// Prober side: decodes the responder's answer to `hello` and turns every way it can disappoint
/// into an Error ("handshake: refused: rate limited", "handshake: bad magic ...").
Result<Accept> check_accept(std::span<const std::uint8_t> bytes, Padding padding,
                            const Hello& hello, std::string_view secret);

/// Responder side: decodes `bytes` and runs the admission's hello checks against the real
/// clocks. On refusal `hello` is empty when the bytes did not decode.
struct HelloVerdict {
  Decision decision;
  std::optional<Hello> hello;
};
HelloVerdict judge_hello(Admission& admission, std::span<const std::uint8_t> bytes, Padding padding,
                         std::span<const TransportKind> served);

/// Responder side: the bytes of a refusal with `status`, answering `hello` when it decoded.
AcceptBytes encode_refusal(AcceptStatus status, const std::optional<Hello>& hello,
                           std::string_view secret);

}  // namespace rdmatop::probes
