#include "plan/group_kind.hpp"

namespace opctl::plan {

GroupKind GroupKind::parse(const std::string& text) {
  auto dot = text.find('.');
  if (dot == std::string::npos) return {"", text};
  return {text.substr(dot + 1), text.substr(0, dot)};
}

}  // namespace opctl::plan
