#include "exporters/http/http_request.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <vector>

namespace rdmatop::http {

namespace {

ParseResult refuse(int status, std::string reason) {
  ParseResult r;
  r.state = ParseResult::State::error;
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// tchar (RFC 9110 5.6.2): the characters of a method and of a field name.
bool is_token_char(char c) {
  static constexpr std::string_view kSpecials = "!#$%&'*+-.^_`|~";
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         kSpecials.find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_token_char);
}

/// The end of the header section (just past the empty line), or npos. Bare LF is accepted as a
/// line end (RFC 9112 2.2 allows a recipient to).
std::size_t header_end(std::string_view input) {
  for (std::size_t i = input.find('\n'); i != std::string_view::npos; i = input.find('\n', i + 1)) {
    if (i + 1 < input.size() && input[i + 1] == '\n') return i + 2;
    if (i + 2 < input.size() && input[i + 1] == '\r' && input[i + 2] == '\n') return i + 3;
  }
  return std::string_view::npos;
}

std::vector<std::string_view> split_lines(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    const std::size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    head.remove_prefix(nl + 1);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

/// origin-form "/p?q" or absolute-form "http://host/p" -> "/p"; "*" stays; else empty.
std::string path_of(std::string_view target) {
  if (target == "*") return "*";
  if (target.empty() || target.front() != '/') {
    const std::size_t scheme = target.find("://");
    if (scheme == std::string_view::npos) return {};
    const std::size_t slash = target.find('/', scheme + 3);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  return std::string(target.substr(0, target.find_first_of("?#")));
}

}  // namespace

ParseResult parse_request(std::string_view input, const RequestLimits& limits, Request& request) {
  // Empty lines before a request line are ignored (RFC 9112 2.2).
  std::size_t skipped = 0;
  while (skipped < input.size() && (input[skipped] == '\r' || input[skipped] == '\n')) ++skipped;
  const std::string_view rest = input.substr(skipped);
  const std::size_t end = header_end(rest);
  if (end == std::string_view::npos) {
    if (rest.size() >= limits.max_header_bytes) {
      return refuse(431, "request header section above " + std::to_string(limits.max_header_bytes) +
                             " bytes");
    }
    return {};
  }
  if (end > limits.max_header_bytes) {
    return refuse(
        431, "request header section above " + std::to_string(limits.max_header_bytes) + " bytes");
  }
  const std::vector<std::string_view> lines = split_lines(rest.substr(0, end));
  if (lines.empty()) return refuse(400, "no request line");

  // request-line = method SP request-target SP HTTP-version (RFC 9112 3).
  const std::string_view line = lines.front();
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return refuse(400, "malformed request line");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) return refuse(400, "malformed method");
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      std::isdigit(static_cast<unsigned char>(version[5])) == 0 ||
      std::isdigit(static_cast<unsigned char>(version[7])) == 0) {
    return refuse(400, "malformed HTTP version");
  }
  if (version[5] != '1') return refuse(505, "only HTTP/1.0 and HTTP/1.1 are served");
  Request parsed;
  parsed.method = std::string(method);
  parsed.minor_version = version[7] - '0';
  parsed.path = path_of(target);
  if (parsed.path.empty()) return refuse(400, "malformed request target");
  parsed.keep_alive = parsed.minor_version >= 1;

  bool have_length = false;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string_view field = lines[i];
    const std::size_t colon = field.find(':');
    // No whitespace before the colon, no obsolete line folding (RFC 9112 5.1, 5.2).
    if (colon == std::string_view::npos || !is_token(field.substr(0, colon))) {
      return refuse(400, "malformed header field");
    }
    const std::string_view name = field.substr(0, colon);
    const std::string_view value = trim(field.substr(colon + 1));
    if (iequals(name, "Content-Length")) {
      std::size_t length = 0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
      if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() ||
          (have_length && length != parsed.content_length)) {
        return refuse(400, "malformed Content-Length");
      }
      have_length = true;
      parsed.content_length = length;
    } else if (iequals(name, "Transfer-Encoding")) {
      // A server that does not understand a request's transfer coding answers 501 (RFC 9112
      // 6.1); a GET has no use for a body anyway.
      return refuse(501, "request bodies with a transfer coding are not accepted");
    } else if (iequals(name, "Authorization")) {
      parsed.authorization = std::string(value);
    } else if (iequals(name, "Accept-Encoding")) {
      parsed.accept_encoding = std::string(value);
    } else if (iequals(name, "Connection")) {
      std::string_view tokens = value;
      while (!tokens.empty()) {
        const std::size_t comma = tokens.find(',');
        const std::string_view token = trim(tokens.substr(0, comma));
        if (iequals(token, "close")) parsed.keep_alive = false;
        if (iequals(token, "keep-alive") && parsed.minor_version == 0) parsed.keep_alive = true;
        if (comma == std::string_view::npos) break;
        tokens.remove_prefix(comma + 1);
      }
    }
  }
  if (parsed.content_length > limits.max_body_bytes) {
    return refuse(413, "request body above " + std::to_string(limits.max_body_bytes) + " bytes");
  }
  const std::size_t total = skipped + end + parsed.content_length;
  if (input.size() < total) return {};
  request = std::move(parsed);
  ParseResult done;
  done.state = ParseResult::State::complete;
  done.consumed = total;
  return done;
}

std::optional<BasicCredentials> parse_basic_authorization(std::string_view value) {
  // credentials = auth-scheme 1*SP token68; the scheme is case-insensitive (RFC 9110 11.4,
  // RFC 7617 2).
  const std::size_t space = value.find(' ');
  if (space == std::string_view::npos || !iequals(value.substr(0, space), "Basic")) {
    return std::nullopt;
  }
  const std::string_view encoded = trim(value.substr(space + 1));
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string decoded;
  std::uint32_t bits = 0;
  int nbits = 0;
  std::size_t padding = 0;
  for (const char c : encoded) {
    if (c == '=') {
      ++padding;
      continue;
    }
    const std::size_t v = kAlphabet.find(c);
    if (v == std::string_view::npos || padding > 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      decoded.push_back(static_cast<char>((bits >> nbits) & 0xff));
    }
  }
  if (padding > 2 || (encoded.size() % 4) != 0) return std::nullopt;
  const std::size_t colon = decoded.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return BasicCredentials{decoded.substr(0, colon), decoded.substr(colon + 1)};
}

bool accepts_gzip(std::string_view accept_encoding) {
  std::string_view rest = accept_encoding;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    std::string_view coding = trim(item.substr(0, item.find(';')));
    bool zero = false;
    if (const std::size_t semi = item.find(';'); semi != std::string_view::npos) {
      std::string_view params = trim(item.substr(semi + 1));
      if (params.size() >= 2 && (params[0] == 'q' || params[0] == 'Q') && params[1] == '=') {
        const std::string_view q = trim(params.substr(2));
        zero = !q.empty() &&
               std::all_of(q.begin(), q.end(), [](char c) { return c == '0' || c == '.'; });
      }
    }
    if ((iequals(coding, "gzip") || coding == "*") && !zero) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace rdmatop::http
