// The built-in rule pack, compiled into the binary from rules/builtin/*.yaml
// (see rules/embed_builtin.cmake).
#pragma once

#include <string>
#include <vector>

#include "rules/rule_file.h"
#include "rules/rule_test.h"

namespace rdmatop {

struct EmbeddedFile {
  const char* name;     ///< file name, e.g. "pfc.yaml" or "pfc_test.yaml"
  const char* content;  ///< the YAML text
};

/// Every embedded file, sorted by name (rule files and their *_test.yaml unit tests).
const std::vector<EmbeddedFile>& builtin_files();

/// True for a rule file (not a *_test.yaml unit-test file).
bool is_builtin_rule_file(const std::string& name);

/// Parses every built-in rule file (errors here are build bugs; tests assert there are none).
RuleFileLoad load_builtin_rules();

/// A FileReader over the embedded files ("pfc.yaml" etc., with or without a directory), so
/// the built-in *_test.yaml files run without the source tree.
FileReader builtin_file_reader();

}  // namespace rdmatop
