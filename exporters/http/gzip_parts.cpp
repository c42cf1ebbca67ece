#include "exporters/http/gzip_parts.h"

#include <libdeflate.h>
#include <zlib.h>

#include <array>

namespace rdmatop::http {

namespace {

// RFC 1952 2.3: ID1 ID2, CM = 8 (deflate), no flags, MTIME 0 (none), XFL 4 (fastest), OS 3
// (Unix).
constexpr std::array<char, 10> kHeader = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 4, 3};

/// Raw deflate (no zlib or gzip wrapper: windowBits negative, zlib.h deflateInit2) of `text`,
/// ended by a full flush (the stream goes on elsewhere). `window_bits` and `mem_level` size the
/// compressor's state: a short head needs no 32 KiB window.
bool deflate_raw(std::string_view text, int window_bits, int mem_level, std::string& out) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, -window_bits, mem_level,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return false;
  }
  const std::size_t start = out.size();
  // deflateBound covers a finished stream; a full flush adds an empty stored block (5 bytes).
  out.resize(start + deflateBound(&stream, static_cast<uLong>(text.size())) + 16);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data() + start);
  stream.avail_out = static_cast<uInt>(out.size() - start);
  const int rc = deflate(&stream, Z_FULL_FLUSH);
  const bool done = rc == Z_OK && stream.avail_in == 0;
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

/// The compressor of this thread, made at its first body: libdeflate_alloc_compressor allocates
/// its match finder's tables, which every call would otherwise allocate again.
libdeflate_compressor* thread_compressor() {
  struct Owner {
    libdeflate_compressor* compressor = libdeflate_alloc_compressor(1);  // the fastest level
    ~Owner() { libdeflate_free_compressor(compressor); }
  };
  thread_local const Owner owner;
  return owner.compressor;
}

}  // namespace

std::optional<GzipBody> gzip_body(std::string_view text) {
  libdeflate_compressor* compressor = thread_compressor();
  if (compressor == nullptr) return std::nullopt;
  GzipBody body;
  body.bytes.resize(libdeflate_deflate_compress_bound(compressor, text.size()));
  const std::size_t size = libdeflate_deflate_compress(compressor, text.data(), text.size(),
                                                       body.bytes.data(), body.bytes.size());
  if (size == 0) return std::nullopt;  // the bound was not enough: cannot happen
  body.bytes.resize(size);
  body.text_crc = libdeflate_crc32(0, text.data(), text.size());
  body.text_size = text.size();
  return body;
}

std::optional<std::string> gzip_head(std::string_view head) {
  std::string out(kHeader.begin(), kHeader.end());
  // 512-byte window, the smallest raw deflate takes (zlib.h: windowBits 9..15), and the
  // smallest hash: the head is a few hundred bytes, so the state stays small per response.
  if (!deflate_raw(head, 9, 1, out)) return std::nullopt;
  return out;
}

std::string gzip_trailer(std::string_view head, const GzipBody& body) {
  std::string out;
  // RFC 1952 2.3.1: CRC32, then ISIZE (the input size modulo 2^32), little-endian.
  put_le32(out, static_cast<std::uint32_t>(crc32_combine(crc_of(head), body.text_crc,
                                                         static_cast<z_off_t>(body.text_size))));
  put_le32(out, static_cast<std::uint32_t>((head.size() + body.text_size) & 0xffffffffU));
  return out;
}

}  // namespace rdmatop::http
