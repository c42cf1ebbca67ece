// PromQL lexer: text -> tokens, following prometheus/promql/parser/lex.go for the subset we
// parse (identifiers may contain ':', durations are numbers with unit suffixes, `inf`/`nan`
// are numbers, strings take "..", '..' and `..` quotes with Go escapes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collector/model/result.h"

namespace rdmatop::promql {

enum class TokenKind : std::uint8_t {
  end,
  identifier,  ///< metric names, label names, keywords, function names
  number,
  duration,  ///< 5m, 1h30m, 100ms
  string,    ///< unquoted content in `text`
  lparen,
  rparen,
  lbrace,
  rbrace,
  lbracket,
  rbracket,
  comma,
  colon,
  at,
  assign,  ///< =
  eq,
  ne,
  re,
  nre,  ///< == != =~ !~
  lt,
  gt,
  le,
  ge,
  add,
  sub,
  mul,
  div,
  mod,
  pow,
};

struct Token {
  TokenKind kind = TokenKind::end;
  std::string text;   ///< identifier / number text / unquoted string / duration text
  double number = 0;  ///< number
  std::int64_t duration_ms = 0;
  std::size_t pos = 0;  ///< byte offset in the input
  /// For an identifier that is a PromQL keyword in any case (`SUM`, `By`, `AND`), the keyword
  /// in lower case; else empty. Keywords are case-insensitive, function names are not
  /// (prometheus/promql/parser/lex.go lexKeywordOrIdentifier).
  std::string keyword;
};

const char* to_string(TokenKind kind);

/// Tokenises a whole expression. Errors carry the byte offset in `code`.
Result<std::vector<Token>> lex(const std::string& input);

/// Parses a duration such as "1h30m" into milliseconds; errors on empty/unknown units.
Result<std::int64_t> parse_duration(const std::string& text);

/// Prometheus's duration text (model.Duration.String): "1h30m", "90d", "0s"; years and weeks
/// only when they divide exactly.
std::string format_duration(std::int64_t ms);

}  // namespace rdmatop::promql
