// Decodes one gzip member with zlib's inflate (windowBits 15 + 16: gzip only), an independent
// decoder for the exporter's compressed bodies. A body that is not exactly one whole member
// (truncated, trailing bytes, a bad CRC-32 or size in the trailer) fails the calling test.
#pragma once

#include <zlib.h>

#include <catch2/catch.hpp>
#include <string>

namespace rdmatop::test {

inline std::string gunzip(const std::string& member) {
  z_stream stream{};
  REQUIRE(inflateInit2(&stream, 15 + 16) == Z_OK);
  std::string out;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(member.data()));
  stream.avail_in = static_cast<uInt>(member.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    char chunk[16384];
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof(chunk);
    rc = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - stream.avail_out);
    if (rc == Z_BUF_ERROR && stream.avail_in == 0) break;  // the input ended early
  }
  const uInt left = stream.avail_in;
  inflateEnd(&stream);
  CHECK(rc == Z_STREAM_END);
  CHECK(left == 0);
  return out;
}

}  // namespace rdmatop::test
