// A gzip member (RFC 1952) sent as two parts: a front compressed once and shared by many
// responses, and a short tail compressed per response. The front's deflate stream (RFC 1951)
// ends at a full flush: byte-aligned, with no block marked final and no back-reference that a
// later block could need, so the tail's own deflate stream may follow it inside the same member.
// The trailer's CRC-32 of the whole text is combined from the two parts' (zlib crc32_combine).
// One member, not two concatenated ones, because not every gzip reader goes past the first
// member.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rdmatop::http {

struct GzipFront {
  std::string bytes;           ///< the gzip header and the deflated text, to a full flush
  std::uint32_t text_crc = 0;  ///< CRC-32 of the text
  std::uint64_t text_size = 0;
};

/// The front of a member holding `text`; none if zlib fails (out of memory).
std::optional<GzipFront> gzip_front(std::string_view text);

/// What completes the member after `front`: `tail` deflated, ending the stream, and the
/// trailer over front and tail together. None if zlib fails.
std::optional<std::string> gzip_tail(const GzipFront& front, std::string_view tail);

}  // namespace rdmatop::http
