// Changes a caching file source cannot see for itself, announced to it by the kernel: sysfs sends
// no inotify events, so what the cache keeps of it rests on a refresh period unless something
// else says when it changed (cached_file_source.h, FileCacheOptions::announcements).
#pragma once

#include <string>

namespace rdmatop {

class ChangeFeed {
 public:
  virtual ~ChangeFeed() = default;
  /// Takes in what arrived since the last call, without waiting. True when it may have changed
  /// an announced value (FileSource::derive_static with Changes::announced), or when what
  /// arrived cannot be told apart (notifications lost or damaged).
  virtual bool changed() = 0;
  /// Why nothing can be announced (the subscription failed); "" when the feed works. Settled
  /// when the feed is made: a caching source asks once.
  virtual std::string unavailable() const = 0;
};

}  // namespace rdmatop
