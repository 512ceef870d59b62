#include "model/error.hpp"

#include <fmt/format.h>

namespace opctl {

std::string Problem::to_string() const {
  std::string where = file;
  if (line > 0) where += fmt::format(":{}", line);
  std::string text = where.empty() ? "" : where + ": ";
  if (!field.empty()) text += field + ": ";
  return text + message;
}

namespace {
std::string join_problems(const std::vector<Problem>& problems) {
  std::string text;
  for (const auto& problem : problems) {
    if (!text.empty()) text += "\n";
    text += problem.to_string();
  }
  return text;
}
}  // namespace

InvalidInputError::InvalidInputError(std::vector<Problem> problems)
    : Error(ErrorCategory::invalid_input, join_problems(problems)), problems_(std::move(problems)) {}

}  // namespace opctl
