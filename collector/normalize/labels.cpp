#include "collector/normalize/labels.h"

namespace rdmatop {

SharedLabels::SharedLabels(Labels labels)
    : labels_(labels.empty() ? nullptr : std::make_shared<Labels>(std::move(labels))) {}

SharedLabels::SharedLabels(std::initializer_list<value_type> labels)
    : SharedLabels(Labels(labels)) {}

Labels& SharedLabels::edit() {
  // use_count() is exact here: only a holder can copy the pointer, and this holder is not
  // copying it while it edits.
  if (labels_ == nullptr) {
    labels_ = std::make_shared<Labels>();
  } else if (labels_.use_count() > 1) {
    labels_ = std::make_shared<Labels>(*labels_);
  }
  return *labels_;
}

const Labels& SharedLabels::empty_labels() {
  static const Labels empty;
  return empty;
}

}  // namespace rdmatop
