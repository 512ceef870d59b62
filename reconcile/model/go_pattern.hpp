// Regular expressions as Kubernetes and Go tools write them: RE2 syntax, run
// by RE2, as Go's regexp runs an OpenAPI `pattern` in the API server and SOPS
// runs its *_regex rules. std::regex (ECMAScript) reads some of them
// differently and cannot compile others, such as (?i).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace opctl::model {

class GoPattern {
 public:
  // nullopt when RE2 refuses `pattern`; `error` then says why.
  static std::optional<GoPattern> compile(const std::string& pattern, std::string& error);
  // Whether it matches anywhere in `text`, as Go's MatchString.
  bool search(std::string_view text) const;
  const std::string& text() const { return text_; }

 private:
  GoPattern(std::string text, std::shared_ptr<const re2::RE2> compiled)
      : text_(std::move(text)), compiled_(std::move(compiled)) {}

  std::string text_;
  std::shared_ptr<const re2::RE2> compiled_;
};

// Each pattern compiled once, by its text, for as long as the cache lives (a
// schema document's patterns run once per object of the set).
class GoPatternCache {
 public:
  // nullptr when RE2 refuses it; `error` then says why, every time.
  const GoPattern* get(const std::string& pattern, std::string& error);

 private:
  struct Entry {
    std::optional<GoPattern> compiled;
    std::string error;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace opctl::model
