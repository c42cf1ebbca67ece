#include "probes/admission.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace rdmatop::probes {
namespace {

// Only hellos with a valid proof enter the replay cache, so only a secret holder can fill it.
constexpr std::size_t kMaxRememberedNonces = 65536;
constexpr auto kLogInterval = std::chrono::seconds(10);

PeerAddress mapped_v4(const std::uint8_t* v4) {
  PeerAddress out{};
  out[10] = 0xff;
  out[11] = 0xff;
  std::memcpy(&out[12], v4, 4);
  return out;
}

bool is_mapped_v4(const PeerAddress& a) {
  return std::all_of(a.begin(), a.begin() + 10, [](std::uint8_t b) { return b == 0; }) &&
         a[10] == 0xff && a[11] == 0xff;
}

}  // namespace

Result<PeerAddress> parse_peer_address(std::string_view text) {
  const std::string s(text);
  std::array<std::uint8_t, 16> buf{};
  if (inet_pton(AF_INET, s.c_str(), buf.data()) == 1) return mapped_v4(buf.data());
  if (inet_pton(AF_INET6, s.c_str(), buf.data()) == 1) return buf;
  return Error{EINVAL, fmt::format("'{}' is not an IPv4 or IPv6 address", text)};
}

Result<PeerAddress> peer_address_from_sockaddr(const sockaddr* address) {
  if (address == nullptr) return Error{EINVAL, "no peer address"};
  if (address->sa_family == AF_INET) {
    sockaddr_in in{};
    std::memcpy(&in, address, sizeof(in));
    return mapped_v4(reinterpret_cast<const std::uint8_t*>(&in.sin_addr));
  }
  if (address->sa_family == AF_INET6) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, address, sizeof(in6));
    PeerAddress out{};
    std::memcpy(out.data(), &in6.sin6_addr, out.size());
    return out;
  }
  return Error{EAFNOSUPPORT, fmt::format("peer address family {}", address->sa_family)};
}

std::string to_string(const PeerAddress& address) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (is_mapped_v4(address)) {
    inet_ntop(AF_INET, &address[12], buf, sizeof(buf));
  } else {
    inet_ntop(AF_INET6, address.data(), buf, sizeof(buf));
  }
  return buf;
}

bool Cidr::contains(const PeerAddress& address) const {
  unsigned bits = prefix_len;
  for (std::size_t i = 0; i < address.size() && bits > 0; ++i) {
    const unsigned take = std::min(bits, 8U);
    const auto mask = static_cast<std::uint8_t>(0xff00U >> take);
    if ((address[i] & mask) != (network[i] & mask)) return false;
    bits -= take;
  }
  return true;
}

Result<Cidr> parse_cidr(std::string_view text) {
  const auto slash = text.find('/');
  const std::string_view addr_text = text.substr(0, slash);
  auto addr = parse_peer_address(addr_text);
  if (!addr) return Error{EINVAL, fmt::format("CIDR '{}': {}", text, addr.error().message)};
  const bool v4 = addr_text.find(':') == std::string_view::npos;
  const unsigned family_bits = v4 ? 32 : 128;
  unsigned prefix = family_bits;
  if (slash != std::string_view::npos) {
    const std::string_view len_text = text.substr(slash + 1);
    if (len_text.empty() || len_text.size() > 3 ||
        !std::all_of(len_text.begin(), len_text.end(),
                     [](char c) { return c >= '0' && c <= '9'; })) {
      return Error{EINVAL, fmt::format("CIDR '{}': prefix length is not a number", text)};
    }
    prefix = static_cast<unsigned>(std::stoul(std::string(len_text)));
    if (prefix > family_bits) {
      return Error{EINVAL, fmt::format("CIDR '{}': prefix length above {}", text, family_bits)};
    }
  }
  Cidr cidr{*addr, prefix + (v4 ? 96U : 0U)};
  // Host bits set usually mean a typo ("10.0.0.1/8"); refuse rather than guess.
  Cidr masked = cidr;
  for (std::size_t i = 0; i < masked.network.size(); ++i) {
    const unsigned start = static_cast<unsigned>(i) * 8;
    if (start >= cidr.prefix_len) {
      masked.network[i] = 0;
    } else if (cidr.prefix_len - start < 8) {
      masked.network[i] &= static_cast<std::uint8_t>(0xff00U >> (cidr.prefix_len - start));
    }
  }
  if (masked.network != cidr.network) {
    return Error{EINVAL, fmt::format("CIDR '{}': host bits set beyond the prefix", text)};
  }
  return cidr;
}

Admission::Admission(ResponderLimits limits)
    : limits_(std::move(limits)),
      buckets_(limits_.peer_connects_per_second, limits_.peer_burst, kMaxTrackedPeers) {}

void Admission::forget_logged(TimePoint now) {
  std::erase_if(last_logged_,
                [&](const auto& entry) { return now - entry.second >= kLogInterval; });
}

Decision Admission::admit_peer(const PeerAddress& peer, TimePoint now) {
  if (!limits_.allow.empty() &&
      std::none_of(limits_.allow.begin(), limits_.allow.end(),
                   [&](const Cidr& cidr) { return cidr.contains(peer); })) {
    return {AcceptStatus::not_allowed, "address not in the allowlist"};
  }
  // Before #22 a full table refused every new address until entries aged out, so 4096
  // addresses could lock out every other prober (peer_buckets.h).
  if (!buckets_.take(peer, now)) {
    return {AcceptStatus::rate_limited,
            fmt::format("more than {} connection attempts (then {}/s)", limits_.peer_burst,
                        limits_.peer_connects_per_second)};
  }
  return {};
}

Decision Admission::check_hello(const Hello& hello, std::span<const TransportKind> served,
                                std::uint64_t now_unix_seconds, TimePoint now) {
  if (std::find(served.begin(), served.end(), hello.kind) == served.end()) {
    return {AcceptStatus::unsupported,
            fmt::format("transport {} not served on this listener", to_string(hello.kind))};
  }
  if (hello.max_payload > limits_.max_payload) {
    return {AcceptStatus::payload_too_large, fmt::format("max_payload {} above the limit {}",
                                                         hello.max_payload, limits_.max_payload)};
  }
  if (limits_.shared_secret.empty()) return {};
  if (!hello.has_proof) return {AcceptStatus::auth_failed, "hello carries no proof of the secret"};
  if (!verify_hello_proof(hello, limits_.shared_secret)) {
    return {AcceptStatus::auth_failed, "wrong proof of the shared secret"};
  }
  const auto skew = static_cast<std::uint64_t>(limits_.max_clock_skew.count());
  const std::uint64_t diff = hello.unix_seconds > now_unix_seconds
                                 ? hello.unix_seconds - now_unix_seconds
                                 : now_unix_seconds - hello.unix_seconds;
  if (diff > skew) {
    return {
        AcceptStatus::auth_failed,
        fmt::format("hello timestamp {} s away from this host's clock (limit {} s)", diff, skew)};
  }
  // A proven hello is only fresh for 2 x skew; remembering nonces that long stops replays.
  const auto window = 2 * limits_.max_clock_skew;
  while (!nonce_order_.empty() && now - nonce_order_.front().first > window) {
    seen_nonces_.erase(nonce_order_.front().second);
    nonce_order_.pop_front();
  }
  if (seen_nonces_.contains(hello.nonce)) {
    return {AcceptStatus::auth_failed, "replayed hello (nonce already used)"};
  }
  if (seen_nonces_.size() >= kMaxRememberedNonces) {
    return {AcceptStatus::busy, "replay cache full"};
  }
  seen_nonces_.insert(hello.nonce);
  nonce_order_.emplace_back(now, hello.nonce);
  return {};
}

Decision Admission::reserve(const PeerAddress& peer, std::uint64_t bytes) {
  if (connections_ >= limits_.max_connections) {
    return {AcceptStatus::busy, fmt::format("connection cap {} reached", limits_.max_connections)};
  }
  const auto held = peer_connections_.find(peer);
  if (held != peer_connections_.end() && held->second >= limits_.max_connections_per_peer) {
    return {AcceptStatus::busy,
            fmt::format("per-address connection cap {} reached", limits_.max_connections_per_peer)};
  }
  if (bytes > limits_.max_registered_bytes - reserved_bytes_) {
    return {AcceptStatus::busy, fmt::format("memory cap {} bytes reached ({} in use, {} asked)",
                                            limits_.max_registered_bytes, reserved_bytes_, bytes)};
  }
  ++connections_;
  ++peer_connections_[peer];
  reserved_bytes_ += bytes;
  return {};
}

void Admission::release(const PeerAddress& peer, std::uint64_t bytes) {
  const auto held = peer_connections_.find(peer);
  if (held == peer_connections_.end()) return;  // an extra release never underflows
  if (--held->second == 0) peer_connections_.erase(held);
  if (connections_ > 0) --connections_;
  reserved_bytes_ -= std::min(bytes, reserved_bytes_);
}

Decision Admission::resize(std::uint64_t old_bytes, std::uint64_t new_bytes) {
  const std::uint64_t base = reserved_bytes_ - std::min(old_bytes, reserved_bytes_);
  if (new_bytes > limits_.max_registered_bytes - std::min(base, limits_.max_registered_bytes)) {
    return {AcceptStatus::busy, fmt::format("memory cap {} bytes reached ({} in use, {} asked)",
                                            limits_.max_registered_bytes, base, new_bytes)};
  }
  reserved_bytes_ = base + new_bytes;
  return {};
}

bool Admission::should_log_refusal(const PeerAddress& peer, AcceptStatus status, TimePoint now) {
  if (last_logged_.size() >= kMaxTrackedPeers) forget_logged(now);
  const auto key = std::make_pair(peer, status);
  auto it = last_logged_.find(key);
  if (it != last_logged_.end() && now - it->second < kLogInterval) return false;
  if (it == last_logged_.end() && last_logged_.size() >= kMaxTrackedPeers) return false;
  last_logged_[key] = now;
  return true;
}

ResponderStats ResponderCounters::snapshot() const {
  return {accepted.load(), refused.load(), echoed.load(), active.load()};
}

void record_refusal(Admission& admission, ResponderCounters& counters, const ResponderLog& log,
                    std::string_view listener, const PeerAddress& peer, const Decision& decision) {
  counters.refused.fetch_add(1, std::memory_order_relaxed);
  if (log &&
      admission.should_log_refusal(peer, decision.status, std::chrono::steady_clock::now())) {
    log(fmt::format("refused {} peer {}: {} ({})", listener, to_string(peer),
                    to_string(decision.status), decision.reason));
  }
}

}  // namespace rdmatop::probes
