#include "model/go_pattern.hpp"

#include <re2/re2.h>

namespace opctl::model {

std::optional<GoPattern> GoPattern::compile(const std::string& pattern, std::string& error) {
  RE2::Options options;
  options.set_log_errors(false);  // the caller reports it, with the file and field
  auto compiled = std::make_shared<const RE2>(pattern, options);
  if (!compiled->ok()) {
    error = compiled->error();
    return std::nullopt;
  }
  return GoPattern(pattern, std::move(compiled));
}

bool GoPattern::search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *compiled_);
}

const GoPattern* GoPatternCache::get(const std::string& pattern, std::string& error) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(pattern);
  if (found == entries_.end()) {
    Entry entry;
    entry.compiled = GoPattern::compile(pattern, entry.error);
    found = entries_.emplace(pattern, std::move(entry)).first;
  }
  error = found->second.error;
  return found->second.compiled ? &*found->second.compiled : nullptr;
}

}  // namespace opctl::model
