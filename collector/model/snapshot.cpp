#include "collector/model/snapshot.h"

namespace rdmatop {

const char* to_string(SourceState state) {
  switch (state) {
    case SourceState::ok:
      return "ok";
    case SourceState::no_data:
      return "no_data";
    case SourceState::error:
      return "error";
  }
  return "unknown";
}

}  // namespace rdmatop
