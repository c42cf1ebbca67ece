#include "collector/normalize/shared_text.h"

#include <utility>

namespace rdmatop {

SharedText::SharedText(std::string text)
    : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}

const std::string& SharedText::empty_text() {
  static const std::string empty;
  return empty;
}

}  // namespace rdmatop
