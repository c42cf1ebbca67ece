// A gzip member (RFC 1952) sent as three parts: a short head compressed per response, a body
// compressed once and shared by many responses, and the trailer. The head's deflate stream
// (RFC 1951) ends at a full flush: byte-aligned, with no block marked final and no back-reference
// that a later block could need, so the body's own deflate stream may follow it inside the same
// member and end it. The body is deflated whole by ISA-L's igzip at level 1, which on a 16-port
// host's 660 KB /metrics page takes about a quarter of libdeflate's CPU (level 1, used before)
// and a sixth of zlib's fastest level, for a body as large as zlib's and 10% larger than
// libdeflate's (bench/gzip_bench.cpp, bench/README.md "Session 27"); the head, a few hundred
// bytes, by zlib, which can stop a stream at a full flush. The trailer's CRC-32 of the whole
// text is combined from the two parts' (zlib crc32_combine). One member, not two concatenated
// ones, because not every gzip reader goes past the first member (curl stops there).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rdmatop::http {

struct GzipBody {
  std::string bytes;           ///< the text deflated, ending the stream (no gzip header)
  std::uint32_t text_crc = 0;  ///< CRC-32 of the text
  std::uint64_t text_size = 0;
};

/// The body of members whose text ends with `text`; none if igzip fails (it cannot on a page).
std::optional<GzipBody> gzip_body(std::string_view text);

/// The gzip header and `head` deflated to a full flush: what goes before a body. None if zlib
/// fails.
std::optional<std::string> gzip_head(std::string_view head);

/// The trailer of the member holding `head` then `body`'s text.
std::string gzip_trailer(std::string_view head, const GzipBody& body);

}  // namespace rdmatop::http
