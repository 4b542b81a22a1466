#include "core/status.h"

namespace tuplekv {

Status Status::Corruption(std::string msg) {
  return Status(StatusCode::kCorruption, std::move(msg));
}

Status Status::with_context(std::string_view prefix) const {
  if (ok()) return *this;
  Status s = *this;
  std::string m(prefix);
  m += ": ";
  m += message_;
  s.message_ = std::move(m);
  return s;
}

}  // namespace tuplekv
