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

TEST_CASE("a gzip front and a tail decode as one member holding both texts", "[gzip]") {
  std::mt19937 rng(7);
  for (const std::size_t front_lines : {0, 1, 30, 5000}) {
    for (const std::size_t tail_lines : {0, 1, 12}) {
      const std::string front_text = metrics_like(rng, front_lines);
      const std::string tail_text = metrics_like(rng, tail_lines);
      const auto front = gzip_front(front_text);
      REQUIRE(front);
      CHECK(front->text_size == front_text.size());
      const auto tail = gzip_tail(*front, tail_text);
      REQUIRE(tail);
      INFO(front_lines << " front lines, " << tail_lines << " tail lines");
      CHECK(gunzip(front->bytes + *tail) == front_text + tail_text);
    }
  }
}

TEST_CASE("one front serves many tails", "[gzip]") {
  std::mt19937 rng(11);
  const std::string front_text = metrics_like(rng, 800);
  const auto front = gzip_front(front_text);
  REQUIRE(front);
  CHECK(front->bytes.size() < front_text.size() / 2);  // it is compressed
  for (int scrape = 1; scrape <= 3; ++scrape) {
    const std::string tail_text = "exposer_scrapes_total " + std::to_string(scrape) + "\n";
    const auto tail = gzip_tail(*front, tail_text);
    REQUIRE(tail);
    CHECK(gunzip(front->bytes + *tail) == front_text + tail_text);
  }
}

TEST_CASE("a member whose front is cut short, or whose trailer lies, does not decode", "[gzip]") {
  std::mt19937 rng(3);
  const std::string front_text = metrics_like(rng, 100);
  const auto front = gzip_front(front_text);
  REQUIRE(front);
  const auto tail = gzip_tail(*front, "tail\n");
  REQUIRE(tail);
  std::string member = front->bytes + *tail;
  member[member.size() - 6] ^= 1;  // a bit of the CRC-32
  z_stream stream{};
  REQUIRE(inflateInit2(&stream, 15 + 16) == Z_OK);
  std::string out(front_text.size() + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(member.data());
  stream.avail_in = static_cast<uInt>(member.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  CHECK(inflate(&stream, Z_FINISH) == Z_DATA_ERROR);
  inflateEnd(&stream);
}
