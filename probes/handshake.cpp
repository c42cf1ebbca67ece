#include "probes/handshake.h"

#include <sys/random.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>

#include <fmt/format.h>

namespace rdmatop::probes {
namespace {

void fill_random(std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = getrandom(out.data() + done, out.size() - done, 0);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      // getrandom only fails before the pool is initialised or on ancient kernels; a nonce must
      // still differ between connections, which a seeded engine guarantees well enough here.
      std::random_device device;
      for (; done < out.size(); ++done) out[done] = static_cast<std::uint8_t>(device());
    }
  }
}

std::uint64_t unix_now() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

Hello make_hello(TransportKind kind, std::uint32_t max_payload) {
  Hello hello;
  hello.kind = kind;
  hello.max_payload = max_payload;
  hello.unix_seconds = unix_now();
  fill_random(hello.nonce);
  return hello;
}

ResponderNonce make_responder_nonce() {
  ResponderNonce nonce{};
  fill_random(nonce);
  return nonce;
}

Result<Accept> check_accept(std::span<const std::uint8_t> bytes, Padding padding,
                            const Hello& hello, std::string_view secret) {
  auto accept = decode_accept(bytes, padding);
  if (!accept) return accept.error();
  if (accept->status != AcceptStatus::accepted) {
    return Error{ECONNREFUSED, fmt::format("handshake: refused: {}", to_string(accept->status))};
  }
  if (!secret.empty() && !verify_accept_proof(*accept, hello.nonce, secret)) {
    return Error{EACCES, "handshake: the responder did not prove the shared secret"};
  }
  if (accept->max_payload != hello.max_payload) {
    return Error{EPROTO, fmt::format("handshake: responder granted {} payload bytes, asked {}",
                                     accept->max_payload, hello.max_payload)};
  }
  return accept;
}

HelloVerdict judge_hello(Admission& admission, std::span<const std::uint8_t> bytes, Padding padding,
                         std::span<const TransportKind> served) {
  auto hello = decode_hello(bytes, padding);
  if (!hello) return {{AcceptStatus::bad_hello, hello.error().message}, std::nullopt};
  Decision decision =
      admission.check_hello(*hello, served, unix_now(), std::chrono::steady_clock::now());
  return {std::move(decision), *hello};
}

AcceptBytes encode_refusal(AcceptStatus status, const std::optional<Hello>& hello,
                           std::string_view secret) {
  Accept refusal;
  refusal.status = status;
  refusal.nonce = make_responder_nonce();
  // Proving the secret on a refusal only makes sense when the hello proved it too; otherwise a
  // stranger could collect proofs over nonces of its choosing.
  const bool prove = hello && !secret.empty() && verify_hello_proof(*hello, secret);
  return encode_accept(refusal, hello ? hello->nonce : Nonce{}, prove ? secret : "");
}

}  // namespace rdmatop::probes
