#include "exporters/http/gzip_parts.h"

#include <zlib.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "tests/support/gunzip.h"

using namespace rdmatop::http;
using rdmatop::test::gunzip;

namespace {

std::string metrics_like(std::mt19937& rng, std::size_t lines) {
  std::string text;
  for (std::size_t i = 0; i < lines; ++i) {
    text += "rdma_port_rx_bytes_total{device=\"mlx5_" + std::to_string(rng() % 64) +
            "\",port=\"1\"} " + std::to_string(rng()) + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("a gzip head, a body and the trailer decode as one member holding both texts", "[gzip]") {
  std::mt19937 rng(7);
  for (const std::size_t body_lines : {0, 1, 30, 5000}) {
    for (const std::size_t head_lines : {0, 1, 12}) {
      const std::string body_text = metrics_like(rng, body_lines);
      const std::string head_text = metrics_like(rng, head_lines);
      const auto body = gzip_body(body_text);
      REQUIRE(body);
      CHECK(body->text_size == body_text.size());
      const auto head = gzip_head(head_text);
      REQUIRE(head);
      INFO(body_lines << " body lines, " << head_lines << " head lines");
      CHECK(gunzip(*head + body->bytes + gzip_trailer(head_text, *body)) == head_text + body_text);
    }
  }
}

TEST_CASE("one body serves many heads", "[gzip]") {
  std::mt19937 rng(11);
  const std::string body_text = metrics_like(rng, 800);
  const auto body = gzip_body(body_text);
  REQUIRE(body);
  CHECK(body->bytes.size() < body_text.size() / 2);  // it is compressed
  for (int scrape = 1; scrape <= 3; ++scrape) {
    const std::string head_text = "exposer_scrapes_total " + std::to_string(scrape) + "\n";
    const auto head = gzip_head(head_text);
    REQUIRE(head);
    CHECK(gunzip(*head + body->bytes + gzip_trailer(head_text, *body)) == head_text + body_text);
  }
}

TEST_CASE("a body of incompressible bytes fits the output bound and decodes", "[gzip]") {
  // Deflate stores what it cannot shrink, a few bytes larger per 64 KiB block (RFC 1951
  // 3.2.4): the body's scratch must hold that, for one block and for several.
  std::mt19937 rng(5);
  for (const std::size_t size : {std::size_t{100}, std::size_t{70'000}, std::size_t{300'000}}) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    const auto body = gzip_body(bytes);
    REQUIRE(body);
    const auto head = gzip_head("h\n");
    REQUIRE(head);
    INFO(size << " random bytes");
    CHECK(gunzip(*head + body->bytes + gzip_trailer("h\n", *body)) == "h\n" + bytes);
  }
}

TEST_CASE("a member whose body is cut short, or whose trailer lies, does not decode", "[gzip]") {
  std::mt19937 rng(3);
  const std::string body_text = metrics_like(rng, 100);
  const auto body = gzip_body(body_text);
  REQUIRE(body);
  const auto head = gzip_head("head\n");
  REQUIRE(head);
  const std::string trailer = gzip_trailer("head\n", *body);
  const auto fails = [&](std::string member) {
    z_stream stream{};
    REQUIRE(inflateInit2(&stream, 15 + 16) == Z_OK);
    std::string out(body_text.size() + 64, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(member.data());
    stream.avail_in = static_cast<uInt>(member.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&stream, Z_FINISH);
    inflateEnd(&stream);
    return rc != Z_STREAM_END;
  };
  CHECK_FALSE(fails(*head + body->bytes + trailer));
  std::string lying = *head + body->bytes + trailer;
  lying[lying.size() - 6] ^= 1;  // a bit of the CRC-32
  CHECK(fails(lying));
  CHECK(fails(*head + body->bytes.substr(0, body->bytes.size() / 2) + trailer));
}
