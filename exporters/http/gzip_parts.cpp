#include "exporters/http/gzip_parts.h"

#include <zlib.h>

#include <array>

namespace rdmatop::http {

namespace {

// RFC 1952 2.3: ID1 ID2, CM = 8 (deflate), no flags, MTIME 0 (none), XFL 4 (fastest), OS 3
// (Unix).
constexpr std::array<char, 10> kHeader = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 4, 3};

/// Raw deflate (no zlib or gzip wrapper: windowBits negative, zlib.h deflateInit2) of `text`,
/// ended by `flush` (Z_FULL_FLUSH: the stream goes on elsewhere; Z_FINISH: it ends).
/// `window_bits` sizes the compressor's state: a short tail needs no 32 KiB window.
bool deflate_raw(std::string_view text, int flush, int window_bits, int mem_level,
                 std::string& out) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, -window_bits, mem_level,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return false;
  }
  const std::size_t start = out.size();
  // deflateBound covers Z_FINISH; a full flush adds an empty stored block (5 bytes).
  out.resize(start + deflateBound(&stream, static_cast<uLong>(text.size())) + 16);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data() + start);
  stream.avail_out = static_cast<uInt>(out.size() - start);
  const int rc = deflate(&stream, flush);
  const bool done = flush == Z_FINISH ? rc == Z_STREAM_END : rc == Z_OK && stream.avail_in == 0;
  out.resize(start + stream.total_out);
  deflateEnd(&stream);
  return done;
}

void put_le32(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint32_t crc_of(std::string_view text) {
  return static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
}

}  // namespace

std::optional<GzipFront> gzip_front(std::string_view text) {
  GzipFront front;
  front.bytes.assign(kHeader.begin(), kHeader.end());
  if (!deflate_raw(text, Z_FULL_FLUSH, 15, 8, front.bytes)) return std::nullopt;
  front.text_crc = crc_of(text);
  front.text_size = text.size();
  return front;
}

std::optional<std::string> gzip_tail(const GzipFront& front, std::string_view tail) {
  std::string out;
  // 512-byte window, the smallest raw deflate takes (zlib.h: windowBits 9..15), and the
  // smallest hash: the tail is a few hundred bytes, so the state stays small per response.
  if (!deflate_raw(tail, Z_FINISH, 9, 1, out)) return std::nullopt;
  // RFC 1952 2.3.1: CRC32, then ISIZE (the input size modulo 2^32), little-endian.
  put_le32(out, static_cast<std::uint32_t>(crc32_combine(front.text_crc, crc_of(tail),
                                                         static_cast<z_off_t>(tail.size()))));
  put_le32(out, static_cast<std::uint32_t>((front.text_size + tail.size()) & 0xffffffffU));
  return out;
}

}  // namespace rdmatop::http
