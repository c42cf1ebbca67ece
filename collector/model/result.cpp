#include "collector/model/result.h"

#include <cstring>

namespace rdmatop {

Error errno_error(int code, const std::string& what) {
  return Error{code, what + ": " + std::strerror(code)};
}

}  // namespace rdmatop
