// An immutable string shared by every copy: a series' name and origin.
//
// A tick copies each series several times (the report's ports, the next tick's rate base) and
// made its name and origin afresh every tick; most are longer than a std::string holds without
// allocating ("rdma_pfc_pause_seconds_total", "hw_counters/np_cnp_sent"), so each copy was an
// allocation and a free (issue 18, bench/README.md). Copies of a SharedText share its string,
// and the Normalizer gives a series the name and origin its position had last tick when they
// are equal, so a host's series names are made once, not once per tick.
#pragma once

#include <compare>
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace rdmatop {

class SharedText {
 public:
  SharedText() = default;
  // Implicit, as a std::string member's initialisers are: `Series{"rdma_port_state", ...}`.
  SharedText(std::string text);  // NOLINT(google-explicit-constructor)
  SharedText(const char* text) : SharedText(std::string(text)) {}       // NOLINT
  SharedText(std::string_view text) : SharedText(std::string(text)) {}  // NOLINT

  const std::string& str() const { return text_ != nullptr ? *text_ : empty_text(); }
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return str(); }    // NOLINT(google-explicit-constructor)

  std::size_t size() const { return str().size(); }
  bool empty() const { return str().empty(); }
  const char* data() const { return str().data(); }
  const char* c_str() const { return str().c_str(); }
  bool starts_with(std::string_view prefix) const { return str().starts_with(prefix); }
  bool ends_with(std::string_view suffix) const { return str().ends_with(suffix); }
  bool contains(std::string_view part) const { return str().find(part) != std::string::npos; }

  /// Whether both hold the same string (then they are equal without comparing).
  bool shares_with(const SharedText& other) const { return text_ == other.text_; }

  friend bool operator==(const SharedText& a, const SharedText& b) {
    return a.text_ == b.text_ || a.str() == b.str();
  }
  // Exact overloads for the other string types, so that no comparison needs a choice between
  // converting this to a string and converting that to a SharedText.
  friend bool operator==(const SharedText& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const SharedText& a, const char* b) { return a.str() == b; }
  friend std::strong_ordering operator<=>(const SharedText& a, const SharedText& b) {
    return a.str() <=> b.str();
  }
  friend std::strong_ordering operator<=>(const SharedText& a, const std::string& b) {
    return a.str() <=> b;
  }
  friend std::strong_ordering operator<=>(const SharedText& a, std::string_view b) {
    return std::string_view(a.str()) <=> b;
  }
  friend std::ostream& operator<<(std::ostream& out, const SharedText& text) {
    return out << text.str();
  }

 private:
  static const std::string& empty_text();
  std::shared_ptr<const std::string> text_;  ///< null: ""
};

/// Appends `text` (std::string's operator+ is a template: it does not look through conversions).
inline std::string operator+(const SharedText& text, std::string_view more) {
  std::string out = text.str();
  out += more;
  return out;
}
inline std::string operator+(std::string_view more, const SharedText& text) {
  std::string out(more);
  out += text.str();
  return out;
}

}  // namespace rdmatop
