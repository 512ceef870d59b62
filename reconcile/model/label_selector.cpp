#include "model/label_selector.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "model/error.hpp"

namespace opctl::model {
namespace {

enum class Token {
  identifier,
  equals,
  double_equals,
  not_equals,
  bang,
  open,
  close,
  comma,
  greater,
  less,
  end
};

struct Lexeme {
  Token token = Token::end;
  std::string text;
  std::size_t position = 0;  // 0-based offset in the selector
};

bool is_special(char c) {
  return c == '!' || c == '=' || c == '(' || c == ')' || c == ',' || c == '<' || c == '>';
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The API machinery's lexer: special characters, and runs of anything else as identifiers.
std::vector<Lexeme> lex(std::string_view text) {
  std::vector<Lexeme> lexemes;
  std::size_t i = 0;
  while (true) {
    while (i < text.size() && is_space(text[i]))
      ++i;
    if (i == text.size()) break;
    std::size_t start = i;
    char c = text[i];
    auto two = [&](char next) { return i + 1 < text.size() && text[i + 1] == next; };
    if (c == '!' && two('=')) {
      lexemes.push_back({Token::not_equals, "!=", start});
      i += 2;
    } else if (c == '=' && two('=')) {
      lexemes.push_back({Token::double_equals, "==", start});
      i += 2;
    } else if (is_special(c)) {
      Token token = c == '!'   ? Token::bang
                    : c == '=' ? Token::equals
                    : c == '(' ? Token::open
                    : c == ')' ? Token::close
                    : c == ',' ? Token::comma
                    : c == '>' ? Token::greater
                               : Token::less;
      lexemes.push_back({token, std::string(1, c), start});
      ++i;
    } else {
      while (i < text.size() && !is_space(text[i]) && !is_special(text[i]))
        ++i;
      lexemes.push_back({Token::identifier, std::string(text.substr(start, i - start)), start});
    }
  }
  lexemes.push_back({Token::end, "", text.size()});
  return lexemes;
}

bool alphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A label value, or the name part of a key: at most 63 characters, alphanumerics at both ends,
// '-', '_' and '.' between (empty allowed for a value).
std::string name_problem(std::string_view name, std::string_view what) {
  if (name.size() > 63) return fmt::format("{} '{}' is longer than 63 characters", what, name);
  if (name.empty()) return "";
  if (!alphanumeric(name.front()) || !alphanumeric(name.back()))
    return fmt::format("{} '{}' must start and end with a letter or digit", what, name);
  for (char c : name)
    if (!alphanumeric(c) && c != '-' && c != '_' && c != '.')
      return fmt::format("{} '{}' may hold only letters, digits, '-', '_' and '.'", what, name);
  return "";
}

// A qualified key: an optional DNS subdomain prefix and '/', then a name.
std::string key_problem(std::string_view key) {
  auto slash = key.find('/');
  std::string_view name = slash == std::string_view::npos ? key : key.substr(slash + 1);
  if (slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    bool ok = !prefix.empty() && prefix.size() <= 253 && alphanumeric(prefix.front()) &&
              alphanumeric(prefix.back()) && std::all_of(prefix.begin(), prefix.end(), [](char c) {
                return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
              });
    if (!ok)
      return fmt::format("the prefix of key '{}' must be a lowercase DNS subdomain (example.com/name)", key);
  }
  if (name.empty()) return fmt::format("key '{}' has no name", key);
  return name_problem(name, "key");
}

std::optional<long long> integer_of(std::string_view text) {
  long long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& field) : text_(text), field_(field), lexemes_(lex(text)) {}

  LabelSelector parse() {
    std::vector<LabelRequirement> requirements;
    if (peek().token == Token::end) return LabelSelector();
    while (true) {
      requirements.push_back(requirement());
      const Lexeme& next = take();
      if (next.token == Token::end) break;
      if (next.token != Token::comma) fail(next, "expected ',' or the end after a requirement");
    }
    return LabelSelector(std::move(requirements));
  }

 private:
  const Lexeme& peek() const { return lexemes_[next_]; }
  const Lexeme& take() { return lexemes_[next_ == lexemes_.size() - 1 ? next_ : next_++]; }

  [[noreturn]] void fail(const Lexeme& at, const std::string& message) const {
    std::string found = at.token == Token::end ? "the end" : fmt::format("'{}'", at.text);
    throw InvalidInputError({Problem{
        "", 0, field_,
        fmt::format("at character {} of '{}': {}, found {}", at.position + 1, text_, message, found)}});
  }

  std::string key() {
    const Lexeme& at = take();
    if (at.token != Token::identifier || at.text == "in" || at.text == "notin")
      fail(at, "expected a label key");
    if (auto problem = key_problem(at.text); !problem.empty()) fail(at, problem);
    return at.text;
  }

  // The value after =, ==, != (may be empty: "tier=" selects tier set to "").
  std::string value() {
    const Lexeme& at = peek();
    if (at.token == Token::end || at.token == Token::comma) return "";
    take();
    if (at.token != Token::identifier) fail(at, "expected a label value");
    if (auto problem = name_problem(at.text, "value"); !problem.empty()) fail(at, problem);
    return at.text;
  }

  std::vector<std::string> value_set() {
    if (const Lexeme& open = take(); open.token != Token::open) fail(open, "expected '(' to open the values");
    std::vector<std::string> values;
    while (true) {
      const Lexeme& at = take();
      if (at.token == Token::identifier) {
        if (auto problem = name_problem(at.text, "value"); !problem.empty()) fail(at, problem);
        values.push_back(at.text);
        const Lexeme& after = take();
        if (after.token == Token::close) break;
        if (after.token != Token::comma) fail(after, "expected ',' or ')' after a value");
      } else if (at.token == Token::comma || at.token == Token::close) {
        values.emplace_back();  // an empty value, as kubectl reads "in (a,)" and "in ()"
        if (at.token == Token::close) break;
      } else {
        fail(at, "expected a value, ',' or ')'");
      }
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
  }

  LabelRequirement requirement() {
    LabelRequirement requirement;
    if (peek().token == Token::bang) {
      take();
      requirement.key = key();
      requirement.op = LabelOperator::does_not_exist;
      return requirement;
    }
    requirement.key = key();
    const Lexeme& op = peek();
    if (op.token == Token::end || op.token == Token::comma) return requirement;  // exists
    take();
    switch (op.token) {
      case Token::equals:
      case Token::double_equals:
        requirement.op = LabelOperator::equals;
        requirement.values = {value()};
        return requirement;
      case Token::not_equals:
        requirement.op = LabelOperator::not_equals;
        requirement.values = {value()};
        return requirement;
      case Token::greater:
      case Token::less: {
        requirement.op = op.token == Token::greater ? LabelOperator::greater_than : LabelOperator::less_than;
        const Lexeme& at = take();
        if (at.token != Token::identifier || !integer_of(at.text))
          fail(at, fmt::format("expected an integer after '{}'", op.text));
        requirement.values = {at.text};
        return requirement;
      }
      case Token::identifier:
        if (op.text == "in" || op.text == "notin") {
          requirement.op = op.text == "in" ? LabelOperator::in : LabelOperator::not_in;
          requirement.values = value_set();
          return requirement;
        }
        break;
      default:
        break;
    }
    fail(op, "expected an operator (=, ==, !=, in, notin, >, <), ',' or the end");
  }

  std::string_view text_;
  const std::string& field_;
  std::vector<Lexeme> lexemes_;
  std::size_t next_ = 0;
};

const std::string* label_of(const nlohmann::json& labels, const std::string& key) {
  if (!labels.is_object()) return nullptr;
  auto found = labels.find(key);
  if (found == labels.end() || !found->is_string()) return nullptr;
  return found->get_ptr<const std::string*>();
}

}  // namespace

bool LabelRequirement::matches(const nlohmann::json& labels) const {
  const std::string* value = label_of(labels, key);
  auto listed = [&] { return std::find(values.begin(), values.end(), *value) != values.end(); };
  switch (op) {
    case LabelOperator::exists:
      return value != nullptr;
    case LabelOperator::does_not_exist:
      return value == nullptr;
    case LabelOperator::equals:
    case LabelOperator::in:
      return value != nullptr && listed();
    case LabelOperator::not_equals:
    case LabelOperator::not_in:  // as kubectl: an object without the label matches
      return value == nullptr || !listed();
    case LabelOperator::greater_than:
    case LabelOperator::less_than: {
      auto have = value != nullptr ? integer_of(*value) : std::nullopt;
      auto bound = integer_of(values.front());
      if (!have || !bound) return false;
      return op == LabelOperator::greater_than ? *have > *bound : *have < *bound;
    }
  }
  return false;
}

bool LabelSelector::matches(const nlohmann::json& labels) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&labels](const LabelRequirement& requirement) { return requirement.matches(labels); });
}

bool LabelSelector::matches_object(const nlohmann::json& object) const {
  if (requirements_.empty()) return true;
  if (!object.is_object()) return matches(nullptr);
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return matches(nullptr);
  auto labels = metadata->find("labels");
  return matches(labels == metadata->end() ? nlohmann::json() : *labels);
}

std::string LabelSelector::to_string() const {
  std::string text;
  for (const auto& requirement : requirements_) {
    if (!text.empty()) text += ',';
    const auto& values = requirement.values;
    switch (requirement.op) {
      case LabelOperator::exists:
        text += requirement.key;
        break;
      case LabelOperator::does_not_exist:
        text += "!" + requirement.key;
        break;
      case LabelOperator::equals:
        text += requirement.key + "=" + values.front();
        break;
      case LabelOperator::not_equals:
        text += requirement.key + "!=" + values.front();
        break;
      case LabelOperator::greater_than:
        text += requirement.key + ">" + values.front();
        break;
      case LabelOperator::less_than:
        text += requirement.key + "<" + values.front();
        break;
      case LabelOperator::in:
      case LabelOperator::not_in:
        text += fmt::format("{} {} ({})", requirement.key,
                            requirement.op == LabelOperator::in ? "in" : "notin", fmt::join(values, ","));
        break;
    }
  }
  return text;
}

LabelSelector parse_label_selector(std::string_view text, const std::string& field) {
  return Parser(text, field).parse();
}

}  // namespace opctl::model
