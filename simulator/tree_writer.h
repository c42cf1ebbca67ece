// The simulator's only I/O: putting a TreeImage on disk so that the real collectors read it
// through the same code paths as on hardware (make_directory_file_source +
// make_dump_ethtool_source). Tests can substitute an in-memory writer.
#pragma once

#include <memory>
#include <string>

#include "collector/model/result.h"
#include "simulator/tree_render.h"

namespace rdmatop::sim {

class TreeWriter {
 public:
  virtual ~TreeWriter() = default;
  /// Makes the tree equal to `image`: writes changed files, creates links, removes files and
  /// links the image no longer has (a GID entry that went away, ...).
  virtual Result<bool> apply(const TreeImage& image) = 0;
  /// The directory holding `sys/` and `ethtool/`.
  virtual const std::string& root() const = 0;
};

/// A fresh private directory under $TMPDIR (or /tmp), removed with the writer.
Result<std::unique_ptr<TreeWriter>> make_temp_tree_writer();

}  // namespace rdmatop::sim
