#include "exporters/http/gzip_parts.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>

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

/// This thread's deflate state and level-1 buffer: ~80 KiB and ~300 KiB that every call would
/// otherwise allocate (a stream is reset per body by isal_deflate_init).
struct ThreadDeflater {
  isal_zstream stream{};
  std::unique_ptr<std::uint8_t[]> level_buffer =
      std::make_unique_for_overwrite<std::uint8_t[]>(ISAL_DEF_LVL1_DEFAULT);
  // The compressed text goes here first, then is copied out at its size: a string sized to the
  // bound up front is zero-filled, which cost more than copying the ~13x smaller result.
  std::unique_ptr<std::uint8_t[]> scratch;
  std::size_t scratch_size = 0;
};

ThreadDeflater& thread_deflater() {
  thread_local const std::unique_ptr<ThreadDeflater> deflater = std::make_unique<ThreadDeflater>();
  return *deflater;
}

}  // namespace

std::optional<GzipBody> gzip_body(std::string_view text) {
  // isal_zstream counts in 32 bits; a page is well under a megabyte.
  if (text.size() > std::numeric_limits<std::uint32_t>::max() / 2) return std::nullopt;
  ThreadDeflater& d = thread_deflater();
  // Raw deflate can grow incompressible input by a stored block header per 64 KiB; the margin
  // covers that and the final block's header (RFC 1951 3.2.4).
  const std::size_t bound = text.size() + text.size() / 1024 + 1024;
  if (d.scratch_size < bound) {
    d.scratch = std::make_unique_for_overwrite<std::uint8_t[]>(bound);
    d.scratch_size = bound;
  }
  isal_zstream& stream = d.stream;
  isal_deflate_init(&stream);
  stream.level = 1;
  stream.level_buf = d.level_buffer.get();
  stream.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
  stream.gzip_flag = IGZIP_DEFLATE;  // raw deflate: the gzip wrapper is gzip_head's and ours
  stream.flush = NO_FLUSH;
  stream.end_of_stream = 1;  // the body's last block is the member's last
  stream.next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<std::uint32_t>(text.size());
  stream.next_out = d.scratch.get();
  stream.avail_out = static_cast<std::uint32_t>(bound);
  if (isal_deflate(&stream) != COMP_OK || stream.internal_state.state != ZSTATE_END) {
    return std::nullopt;
  }
  GzipBody body;
  body.bytes.assign(reinterpret_cast<const char*>(d.scratch.get()), stream.total_out);
  body.text_crc =
      crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(text.data()), text.size());
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
