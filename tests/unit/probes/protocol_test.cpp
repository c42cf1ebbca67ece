#include "probes/protocol.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

namespace rdmatop::probes {
namespace {

Hello sample_hello(TransportKind kind) {
  Hello hello;
  hello.kind = kind;
  hello.max_payload = 8192;
  hello.unix_seconds = 1'796'000'000;
  hello.nonce = {1, 2, 3, 4, 5, 6, 7, 8};
  if (kind == TransportKind::rc_write) {
    hello.reply_addr = 0x00007f1234560000ULL;
    hello.reply_rkey = 0x1234;
  }
  return hello;
}

Accept sample_accept() {
  Accept accept;
  accept.status = AcceptStatus::accepted;
  accept.max_payload = 8192;
  accept.write_addr = 0x00007fabcdef0000ULL;
  accept.write_rkey = 0x77;
  for (std::size_t i = 0; i < accept.nonce.size(); ++i) {
    accept.nonce[i] = static_cast<std::uint8_t>(0xa0 + i);
  }
  return accept;
}

std::vector<std::uint8_t> to_vector(std::span<const std::uint8_t> bytes) {
  return {bytes.begin(), bytes.end()};
}

}  // namespace

TEST_CASE("hello round-trips for every kind, with and without a secret", "[probes][protocol]") {
  for (const auto kind : {TransportKind::rc_send, TransportKind::rc_write, TransportKind::tcp}) {
    for (const std::string secret : {"", "s3cret"}) {
      CAPTURE(to_string(kind), secret);
      const Hello hello = sample_hello(kind);
      const auto bytes = encode_hello(hello, secret);
      REQUIRE(bytes.size() <= kRdmaCmConnectPrivateDataMax);
      const auto decoded = decode_hello(bytes, Padding::exact);
      REQUIRE(decoded.ok());
      CHECK(decoded->kind == kind);
      CHECK(decoded->max_payload == hello.max_payload);
      CHECK(decoded->unix_seconds == hello.unix_seconds);
      CHECK(decoded->nonce == hello.nonce);
      CHECK(decoded->reply_addr == hello.reply_addr);
      CHECK(decoded->reply_rkey == hello.reply_rkey);
      CHECK(decoded->has_proof == !secret.empty());
      CHECK(verify_hello_proof(*decoded, secret) == !secret.empty());
      // Re-encoding the decoded struct gives the same bytes.
      CHECK(encode_hello(*decoded, secret) == bytes);
    }
  }
}

TEST_CASE("hello proof fails with another secret or any changed field", "[probes][protocol]") {
  const Hello hello = sample_hello(TransportKind::rc_write);
  const auto decoded = decode_hello(encode_hello(hello, "right"), Padding::exact);
  REQUIRE(decoded.ok());
  CHECK(verify_hello_proof(*decoded, "right"));
  CHECK_FALSE(verify_hello_proof(*decoded, "wrong"));
  CHECK_FALSE(verify_hello_proof(*decoded, "righ"));
  CHECK_FALSE(verify_hello_proof(*decoded, ""));

  Hello tampered = *decoded;
  tampered.max_payload = 65536;
  CHECK_FALSE(verify_hello_proof(tampered, "right"));
  tampered = *decoded;
  tampered.nonce[0] ^= 1;
  CHECK_FALSE(verify_hello_proof(tampered, "right"));
  tampered = *decoded;
  tampered.unix_seconds += 1;
  CHECK_FALSE(verify_hello_proof(tampered, "right"));
  tampered = *decoded;
  tampered.reply_rkey ^= 1;
  CHECK_FALSE(verify_hello_proof(tampered, "right"));
  tampered = *decoded;
  tampered.proof[15] ^= 0x80;
  CHECK_FALSE(verify_hello_proof(tampered, "right"));
}

TEST_CASE("hello decoding refuses every invalid field", "[probes][protocol]") {
  const auto good = encode_hello(sample_hello(TransportKind::rc_send), "");
  struct Case {
    const char* name;
    std::size_t offset;
    std::uint8_t value;
    const char* message_part;
  };
  const Case cases[] = {
      {"magic", 0, 0x00, "bad magic"},
      {"magic last byte", 3, 0x00, "bad magic"},
      {"version 0", 4, 0, "unsupported version 0"},
      {"version 2", 4, 2, "unsupported version 2"},
      {"kind 3", 5, 3, "unknown transport kind 3"},
      {"kind 255", 5, 255, "unknown transport kind 255"},
      {"unknown flag", 6, 0x02, "unknown flags"},
      {"reserved", 7, 1, "reserved byte"},
      {"reply addr for rc_send", 28, 1, "reply buffer set"},
      {"reply rkey for rc_send", 39, 1, "reply buffer set"},
      {"proof without flag", 40, 1, "proof bytes set without the proof flag"},
      {"proof last byte without flag", 55, 1, "proof bytes set without the proof flag"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    auto bytes = to_vector(good);
    bytes[c.offset] = c.value;
    const auto decoded = decode_hello(bytes, Padding::exact);
    REQUIRE_FALSE(decoded.ok());
    CHECK_THAT(decoded.error().message, Catch::Contains(c.message_part));
    CHECK_THAT(decoded.error().message, Catch::StartsWith("handshake: "));
  }
  SECTION("max_payload zero and above the protocol ceiling") {
    for (const std::uint32_t payload : {0U, kProtocolMaxPayload + 1, 0xffffffffU}) {
      Hello hello = sample_hello(TransportKind::tcp);
      hello.max_payload = payload;
      const auto decoded = decode_hello(encode_hello(hello, ""), Padding::exact);
      REQUIRE_FALSE(decoded.ok());
      CHECK_THAT(decoded.error().message, Catch::Contains("max_payload"));
    }
    Hello hello = sample_hello(TransportKind::tcp);
    hello.max_payload = kProtocolMaxPayload;
    CHECK(decode_hello(encode_hello(hello, ""), Padding::exact).ok());
  }
}

TEST_CASE("hello truncated at every offset, over-long and padded", "[probes][protocol]") {
  const auto good = to_vector(encode_hello(sample_hello(TransportKind::rc_write), "k"));
  for (std::size_t len = 0; len < good.size(); ++len) {
    CAPTURE(len);
    const auto decoded =
        decode_hello(std::span(good).first(len), len % 2 ? Padding::exact : Padding::zeros_allowed);
    REQUIRE_FALSE(decoded.ok());
    CHECK_THAT(decoded.error().message, Catch::Contains("truncated"));
  }
  auto longer = good;
  longer.push_back(0);
  const auto exact = decode_hello(longer, Padding::exact);
  REQUIRE_FALSE(exact.ok());
  CHECK_THAT(exact.error().message, Catch::Contains("too long"));
  // rdma_cm pads private data with zeros: accepted as padding, but not a non-zero tail.
  CHECK(decode_hello(longer, Padding::zeros_allowed).ok());
  longer.back() = 7;
  const auto dirty = decode_hello(longer, Padding::zeros_allowed);
  REQUIRE_FALSE(dirty.ok());
  CHECK_THAT(dirty.error().message, Catch::Contains("non-zero bytes after"));
  std::vector<std::uint8_t> huge = good;
  huge.resize(kMaxPaddedSize + 1, 0);
  CHECK_FALSE(decode_hello(huge, Padding::zeros_allowed).ok());
}

TEST_CASE("accept round-trips and binds its proof to the hello nonce", "[probes][protocol]") {
  const Nonce hello_nonce{9, 8, 7, 6, 5, 4, 3, 2};
  const Accept accept = sample_accept();
  for (const std::string secret : {"", "key"}) {
    CAPTURE(secret);
    const auto bytes = encode_accept(accept, hello_nonce, secret);
    REQUIRE(bytes.size() <= kRdmaCmRejectPrivateDataMax);
    const auto decoded = decode_accept(bytes, Padding::exact);
    REQUIRE(decoded.ok());
    CHECK(decoded->status == AcceptStatus::accepted);
    CHECK(decoded->max_payload == accept.max_payload);
    CHECK(decoded->write_addr == accept.write_addr);
    CHECK(decoded->write_rkey == accept.write_rkey);
    CHECK(decoded->nonce == accept.nonce);
    CHECK(verify_accept_proof(*decoded, hello_nonce, secret) == !secret.empty());
  }
  const auto decoded = decode_accept(encode_accept(accept, hello_nonce, "key"), Padding::exact);
  REQUIRE(decoded.ok());
  Nonce other = hello_nonce;
  other[7] ^= 1;
  CHECK_FALSE(verify_accept_proof(*decoded, other, "key"));
  CHECK_FALSE(verify_accept_proof(*decoded, hello_nonce, "yek"));
  // A hello proof never verifies as an accept proof: different labels and layouts.
  Hello hello = sample_hello(TransportKind::tcp);
  const auto hello_decoded = decode_hello(encode_hello(hello, "key"), Padding::exact);
  REQUIRE(hello_decoded.ok());
  Accept forged = *decoded;
  forged.proof = hello_decoded->proof;
  CHECK_FALSE(verify_accept_proof(forged, hello_nonce, "key"));
}

TEST_CASE("refusals round-trip with every status and carry no connection fields",
          "[probes][protocol]") {
  for (std::uint8_t s = 1; s <= kMaxAcceptStatus; ++s) {
    Accept refusal;
    refusal.status = static_cast<AcceptStatus>(s);
    CAPTURE(to_string(refusal.status));
    const auto decoded = decode_accept(encode_accept(refusal, Nonce{}, ""), Padding::exact);
    REQUIRE(decoded.ok());
    CHECK(decoded->status == refusal.status);
    CHECK(std::string(to_string(refusal.status)) != "unknown status");
  }
  Accept refusal;
  refusal.status = AcceptStatus::busy;
  refusal.max_payload = 10;
  const auto decoded = decode_accept(encode_accept(refusal, Nonce{}, ""), Padding::exact);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("refusal carries connection fields"));
}

TEST_CASE("accept decoding refuses every invalid field and every truncation",
          "[probes][protocol]") {
  const auto good = to_vector(encode_accept(sample_accept(), Nonce{}, ""));
  struct Case {
    std::size_t offset;
    std::uint8_t value;
    const char* message_part;
  };
  const Case cases[] = {
      {0, 0x11, "bad magic"},
      {4, 9, "unsupported version"},
      {5, kMaxAcceptStatus + 1, "unknown status"},
      {6, 0x80, "unknown flags"},
      {7, 1, "reserved"},
      {25, 1, "reserved"},
      {44, 1, "proof bytes set"},
      {9, 0, "granted max_payload"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.offset, static_cast<int>(c.value));
    auto bytes = good;
    bytes[c.offset] = c.value;
    if (c.offset == 9) std::fill(bytes.begin() + 8, bytes.begin() + 12, std::uint8_t{0});
    const auto decoded = decode_accept(bytes, Padding::exact);
    REQUIRE_FALSE(decoded.ok());
    CHECK_THAT(decoded.error().message, Catch::Contains(c.message_part));
  }
  for (std::size_t len = 0; len < good.size(); ++len) {
    CAPTURE(len);
    const auto decoded = decode_accept(std::span(good).first(len), Padding::zeros_allowed);
    REQUIRE_FALSE(decoded.ok());
    CHECK_THAT(decoded.error().message, Catch::Contains("truncated"));
  }
  // rdma_cm hands the prober the REP private data padded to 196 bytes.
  auto padded = good;
  padded.resize(196, 0);
  CHECK(decode_accept(padded, Padding::zeros_allowed).ok());
  CHECK_FALSE(decode_accept(padded, Padding::exact).ok());
}

TEST_CASE("frame header round-trips and enforces the granted payload", "[probes][protocol]") {
  const FrameHeader header{4096, 0x0102030405060708ULL};
  const auto bytes = encode_frame_header(header);
  const auto decoded = decode_frame_header(bytes, 4096);
  REQUIRE(decoded.ok());
  CHECK(*decoded == header);
  const auto too_big = decode_frame_header(bytes, 4095);
  REQUIRE_FALSE(too_big.ok());
  CHECK_THAT(too_big.error().message, Catch::Contains("above the granted 4095"));
  auto bad_magic = to_vector(bytes);
  bad_magic[2] ^= 0xff;
  CHECK_THAT(decode_frame_header(bad_magic, 4096).error().message, Catch::Contains("bad magic"));
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    CHECK_FALSE(decode_frame_header(std::span(bytes).first(len), 4096).ok());
  }
  auto longer = to_vector(bytes);
  longer.push_back(0);
  CHECK_FALSE(decode_frame_header(longer, 4096).ok());
}

// Fuzz-style: random and mutated buffers never crash the decoders (CI runs this under ASan and
// UBSan) and every refusal says what was wrong. A fixed seed keeps failures reproducible.
TEST_CASE("decoders survive random and mutated input", "[probes][protocol][fuzz]") {
  std::mt19937_64 rng(0x9e3779b97f4a7c15ULL);
  const std::vector<std::vector<std::uint8_t>> seeds = {
      to_vector(encode_hello(sample_hello(TransportKind::rc_send), "")),
      to_vector(encode_hello(sample_hello(TransportKind::rc_write), "secret")),
      to_vector(encode_accept(sample_accept(), Nonce{}, "secret")),
      to_vector(encode_frame_header(FrameHeader{100, 7})),
  };
  std::size_t accepted = 0;
  std::size_t refused = 0;
  auto check = [&](const auto& result) {
    if (result.ok()) {
      ++accepted;
    } else {
      ++refused;
      REQUIRE_FALSE(result.error().message.empty());
      REQUIRE(result.error().code == EPROTO);
    }
  };
  std::vector<std::uint8_t> buf;
  for (int i = 0; i < 300'000; ++i) {
    if (i % 3 == 0) {
      buf.resize(rng() % 300);
      for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
    } else {
      buf = seeds[rng() % seeds.size()];
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        switch (rng() % 4) {
          case 0:
            buf[rng() % buf.size()] ^= static_cast<std::uint8_t>(1U << (rng() % 8));
            break;
          case 1:
            buf[rng() % buf.size()] = static_cast<std::uint8_t>(rng());
            break;
          case 2:
            buf.resize(rng() % (buf.size() + 1));
            if (buf.empty()) buf.push_back(0);
            break;
          default:
            buf.resize(buf.size() + rng() % 200, static_cast<std::uint8_t>(rng() % 2 ? 0 : rng()));
            break;
        }
      }
    }
    for (const auto padding : {Padding::exact, Padding::zeros_allowed}) {
      check(decode_hello(buf, padding));
      check(decode_accept(buf, padding));
    }
    check(decode_frame_header(buf, static_cast<std::uint32_t>(rng() % 70000)));
  }
  INFO("accepted " << accepted << ", refused " << refused);
  CHECK(refused > 0);
  CHECK(accepted > 0);  // mutations that keep a message valid (e.g. a nonce bit) still decode
}

}  // namespace rdmatop::probes
