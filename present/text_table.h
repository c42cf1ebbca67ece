// Left-aligned plain-text columns sized to their widest cell; used by the text report and,
// later, the TUI's batch mode.
#pragma once

#include <string>
#include <vector>

namespace rdmatop {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add_row(std::vector<std::string> cells);
  /// True when no data row was added (the header does not count).
  bool empty() const { return rows_.size() <= 1; }
  /// Each line is prefixed with `indent`; columns are separated by two spaces; no trailing
  /// spaces.
  std::string render(const std::string& indent = "") const;

 private:
  std::vector<std::vector<std::string>> rows_;  // rows_[0] is the header
};

}  // namespace rdmatop
