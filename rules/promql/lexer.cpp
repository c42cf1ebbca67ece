#include "rules/promql/lexer.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace rdmatop::promql {

namespace {

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

Error lex_error(std::size_t pos, const std::string& message) {
  return Error{static_cast<int>(pos), message};
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Go string escapes as accepted by strconv.Unquote for "..." and '...'.
Result<std::string> unquote(const std::string& in, std::size_t& i, char quote) {
  std::string out;
  const std::size_t start = i;
  ++i;
  while (i < in.size() && in[i] != quote) {
    char c = in[i];
    if (c == '\n' && quote != '`') return lex_error(start, "unterminated quoted string");
    if (c == '\\' && quote != '`') {
      if (i + 1 >= in.size()) break;
      char e = in[++i];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'a':
          out += '\a';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'v':
          out += '\v';
          break;
        case '\\':
          out += '\\';
          break;
        case '"':
          out += '"';
          break;
        case '\'':
          out += '\'';
          break;
        default:
          return lex_error(i, std::string("unknown escape sequence '\\") + e + "'");
      }
      ++i;
      continue;
    }
    out += c;
    ++i;
  }
  if (i >= in.size()) return lex_error(start, "unterminated quoted string");
  ++i;  // closing quote
  return out;
}

}  // namespace

const char* to_string(TokenKind kind) {
  switch (kind) {
    case TokenKind::end:
      return "end of input";
    case TokenKind::identifier:
      return "identifier";
    case TokenKind::number:
      return "number";
    case TokenKind::duration:
      return "duration";
    case TokenKind::string:
      return "string";
    case TokenKind::lparen:
      return "\"(\"";
    case TokenKind::rparen:
      return "\")\"";
    case TokenKind::lbrace:
      return "\"{\"";
    case TokenKind::rbrace:
      return "\"}\"";
    case TokenKind::lbracket:
      return "\"[\"";
    case TokenKind::rbracket:
      return "\"]\"";
    case TokenKind::comma:
      return "\",\"";
    case TokenKind::colon:
      return "\":\"";
    case TokenKind::at:
      return "\"@\"";
    case TokenKind::assign:
      return "\"=\"";
    case TokenKind::eq:
      return "\"==\"";
    case TokenKind::ne:
      return "\"!=\"";
    case TokenKind::re:
      return "\"=~\"";
    case TokenKind::nre:
      return "\"!~\"";
    case TokenKind::lt:
      return "\"<\"";
    case TokenKind::gt:
      return "\">\"";
    case TokenKind::le:
      return "\"<=\"";
    case TokenKind::ge:
      return "\">=\"";
    case TokenKind::add:
      return "\"+\"";
    case TokenKind::sub:
      return "\"-\"";
    case TokenKind::mul:
      return "\"*\"";
    case TokenKind::div:
      return "\"/\"";
    case TokenKind::mod:
      return "\"%\"";
    case TokenKind::pow:
      return "\"^\"";
  }
  return "?";
}

Result<std::int64_t> parse_duration(const std::string& text) {
  // Units and their order as in prometheus/common/model.ParseDuration.
  static constexpr struct {
    const char* unit;
    std::int64_t ms;
  } kUnits[] = {{"y", 365LL * 24 * 3600 * 1000},
                {"w", 7LL * 24 * 3600 * 1000},
                {"d", 24LL * 3600 * 1000},
                {"h", 3600LL * 1000},
                {"m", 60LL * 1000},
                {"s", 1000},
                {"ms", 1}};
  if (text.empty()) return Error{0, "empty duration string"};
  std::int64_t total = 0;
  std::size_t i = 0;
  int last_unit = -1;
  while (i < text.size()) {
    std::size_t start = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (start == i) return Error{0, "not a valid duration string: \"" + text + "\""};
    if (i - start > 15) return Error{0, "duration out of range: \"" + text + "\""};
    std::int64_t n = std::strtoll(text.c_str() + start, nullptr, 10);
    std::size_t ustart = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string unit = text.substr(ustart, i - ustart);
    int found = -1;
    for (int u = 0; u < 7; ++u) {
      if (unit == kUnits[u].unit) found = u;
    }
    // Units must appear largest first, each at most once ("1h30m", never "30m1h").
    if (found < 0 || found <= last_unit) {
      return Error{0, "not a valid duration string: \"" + text + "\""};
    }
    last_unit = found;
    if (n >
        std::numeric_limits<std::int64_t>::max() / kUnits[found].ms - total / kUnits[found].ms) {
      return Error{0, "duration out of range: \"" + text + "\""};
    }
    total += n * kUnits[found].ms;
  }
  return total;
}

std::string format_duration(std::int64_t ms) {
  if (ms == 0) return "0s";
  std::string out;
  if (ms < 0) {
    out += '-';
    ms = -ms;
  }
  auto unit = [&](const char* name, std::int64_t size, bool exact) {
    if (exact && ms % size != 0) return;
    if (ms / size > 0) {
      out += std::to_string(ms / size) + name;
      ms %= size;
    }
  };
  unit("y", 365LL * 86400000, true);
  unit("w", 7LL * 86400000, true);
  unit("d", 86400000, false);
  unit("h", 3600000, false);
  unit("m", 60000, false);
  unit("s", 1000, false);
  unit("ms", 1, false);
  return out;
}

Result<std::vector<Token>> lex(const std::string& in) {
  std::vector<Token> out;
  std::size_t i = 0;
  int bracket_depth = 0;  // inside [...] a ':' separates a subquery's range and step
  auto push = [&](TokenKind kind, std::size_t pos, std::size_t len) {
    Token t;
    t.kind = kind;
    t.pos = pos;
    t.text = in.substr(pos, len);
    out.push_back(std::move(t));
    i = pos + len;
  };
  while (i < in.size()) {
    const char c = in[i];
    const char next = i + 1 < in.size() ? in[i + 1] : '\0';
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
      continue;
    }
    if (c == '#') {  // comment to end of line
      while (i < in.size() && in[i] != '\n') ++i;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80) {
      return lex_error(i, "unexpected character outside ASCII in expression");
    }
    if (is_digit(c) || (c == '.' && is_digit(next))) {
      const std::size_t start = i;
      if (c == '0' && (next == 'x' || next == 'X')) {
        i += 2;
        while (i < in.size() && std::isxdigit(static_cast<unsigned char>(in[i])) != 0) ++i;
      } else {
        while (i < in.size() && (is_digit(in[i]) || in[i] == '.')) ++i;
        if (i < in.size() && (in[i] == 'e' || in[i] == 'E')) {
          std::size_t j = i + 1;
          if (j < in.size() && (in[j] == '+' || in[j] == '-')) ++j;
          if (j < in.size() && is_digit(in[j])) {
            i = j;
            while (i < in.size() && is_digit(in[i])) ++i;
          }
        }
      }
      // A digit run followed by a unit letter is a duration ("5m", "1h30m").
      if (i < in.size() && std::isalpha(static_cast<unsigned char>(in[i])) != 0) {
        while (i < in.size() && std::isalnum(static_cast<unsigned char>(in[i])) != 0) ++i;
        std::string text = in.substr(start, i - start);
        auto ms = parse_duration(text);
        if (!ms) return lex_error(start, "bad number or duration syntax: \"" + text + "\"");
        Token t;
        t.kind = TokenKind::duration;
        t.text = text;
        t.duration_ms = *ms;
        t.pos = start;
        out.push_back(std::move(t));
        continue;
      }
      std::string text = in.substr(start, i - start);
      char* endp = nullptr;
      double v = text.size() > 1 && (text[1] == 'x' || text[1] == 'X')
                     ? static_cast<double>(std::strtoull(text.c_str(), &endp, 16))
                     : std::strtod(text.c_str(), &endp);
      if (endp == nullptr || *endp != '\0') {
        return lex_error(start, "bad number syntax: \"" + text + "\"");
      }
      Token t;
      t.kind = TokenKind::number;
      t.text = text;
      t.number = v;
      t.pos = start;
      out.push_back(std::move(t));
      continue;
    }
    if (c == ':' && bracket_depth > 0) {
      Token t;
      t.kind = TokenKind::colon;
      t.text = ":";
      t.pos = i++;
      out.push_back(std::move(t));
      continue;
    }
    if (is_ident_start(c)) {
      const std::size_t start = i;
      while (i < in.size() && is_ident_char(in[i])) ++i;
      std::string text = in.substr(start, i - start);
      Token t;
      t.pos = start;
      t.text = text;
      const std::string l = lower(text);
      if (l == "inf" || l == "nan") {
        t.kind = TokenKind::number;
        t.number = l == "inf" ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
      } else {
        t.kind = TokenKind::identifier;
        // lex.go `key`: operators, aggregators, keywords and the @ preprocessors.
        static const char* const kKeywords[] = {
            "and",          "or",          "unless", "atan2",  "sum",     "avg",  "count",
            "min",          "max",         "group",  "stddev", "stdvar",  "topk", "bottomk",
            "count_values", "quantile",    "offset", "by",     "without", "on",   "ignoring",
            "group_left",   "group_right", "bool",   "start",  "end"};
        for (const char* k : kKeywords) {
          if (l == k) t.keyword = l;
        }
      }
      out.push_back(std::move(t));
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') {
      const std::size_t start = i;
      auto s = unquote(in, i, c);
      if (!s) return s.error();
      Token t;
      t.kind = TokenKind::string;
      t.text = *s;
      t.pos = start;
      out.push_back(std::move(t));
      continue;
    }
    switch (c) {
      case '(':
        push(TokenKind::lparen, i, 1);
        continue;
      case ')':
        push(TokenKind::rparen, i, 1);
        continue;
      case '{':
        push(TokenKind::lbrace, i, 1);
        continue;
      case '}':
        push(TokenKind::rbrace, i, 1);
        continue;
      case '[':
        ++bracket_depth;
        push(TokenKind::lbracket, i, 1);
        continue;
      case ']':
        --bracket_depth;
        push(TokenKind::rbracket, i, 1);
        continue;
      case ',':
        push(TokenKind::comma, i, 1);
        continue;
      case ':':
        push(TokenKind::colon, i, 1);
        continue;
      case '@':
        push(TokenKind::at, i, 1);
        continue;
      case '+':
        push(TokenKind::add, i, 1);
        continue;
      case '-':
        push(TokenKind::sub, i, 1);
        continue;
      case '*':
        push(TokenKind::mul, i, 1);
        continue;
      case '/':
        push(TokenKind::div, i, 1);
        continue;
      case '%':
        push(TokenKind::mod, i, 1);
        continue;
      case '^':
        push(TokenKind::pow, i, 1);
        continue;
      case '=':
        if (next == '=')
          push(TokenKind::eq, i, 2);
        else if (next == '~')
          push(TokenKind::re, i, 2);
        else
          push(TokenKind::assign, i, 1);
        continue;
      case '!':
        if (next == '=')
          push(TokenKind::ne, i, 2);
        else if (next == '~')
          push(TokenKind::nre, i, 2);
        else
          return lex_error(i, "unexpected character after '!': '" + std::string(1, next) + "'");
        continue;
      case '<':
        if (next == '=')
          push(TokenKind::le, i, 2);
        else
          push(TokenKind::lt, i, 1);
        continue;
      case '>':
        if (next == '=')
          push(TokenKind::ge, i, 2);
        else
          push(TokenKind::gt, i, 1);
        continue;
      default:
        return lex_error(i, std::string("unexpected character: '") + c + "'");
    }
  }
  Token end;
  end.kind = TokenKind::end;
  end.pos = in.size();
  out.push_back(std::move(end));
  return out;
}

}  // namespace rdmatop::promql
