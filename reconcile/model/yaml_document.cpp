#include "model/yaml_document.hpp"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "model/error.hpp"
#include "model/yaml_events.hpp"
#include "model/yaml_scalar.hpp"

namespace opctl::model {
namespace {

// A problem of the documents' content (not of the YAML syntax). yaml-cpp
// parsed the whole stream before converting anything, so a syntax error
// later in the stream is reported instead of this one.
struct ConversionFailure {
  Problem problem;
};

// yaml-cpp made a null node (not a scalar) of a plain, untagged `~`, `null`,
// `Null`, `NULL` or nothing; such a document is skipped and such a key is "".
bool is_null_node(const YamlEvent& event) {
  if (event.kind != YamlEventKind::scalar || !event.plain || !event.tag.empty()) return false;
  const std::string& text = event.value;
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

// Tags as yaml-cpp named them: a quoted scalar without a tag has "!", a plain one "?".
Json convert_scalar(const YamlEvent& event, YamlEventStream& events) {
  if (is_null_node(event)) return nullptr;
  const std::string& tag = event.tag;
  if (tag.empty())
    return event.plain ? resolve_plain_scalar(events.take_value(event)) : Json(events.take_value(event));
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return events.take_value(event);
  if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" || tag == "tag:yaml.org,2002:bool" ||
      tag == "tag:yaml.org,2002:null")
    return resolve_plain_scalar(event.value);
  return events.take_value(event);  // unknown tags (e.g. !!binary) keep their text, as kubectl does
}

// go-yaml v2, kubectl's YAML reader (through sigs.k8s.io/yaml), merges at a
// plain `<<` key or one tagged !!merge; a quoted "<<" is an ordinary key.
bool is_merge_key(const YamlEvent& key) {
  return key.kind == YamlEventKind::scalar && key.value == "<<" &&
         ((key.plain && key.tag.empty()) || key.tag == "tag:yaml.org,2002:merge");
}

template <typename... Parts>
std::string fmt_message(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

// Builds one document's JSON from the events, keeping the line of every
// field. Aliases arrive expanded, so the limits count the expanded tree.
class DocumentBuilder {
 public:
  DocumentBuilder(YamlEventStream& events, const std::string& file, const YamlLimits& limits,
                  std::map<std::string, int>& lines)
      : events_(events), file_(file), limits_(limits), lines_(&lines) {}

  Json build(const YamlEvent& first, std::size_t depth) {
    count_node(first, depth);
    switch (first.kind) {
      case YamlEventKind::scalar:
        try {
          return convert_scalar(first, events_);
        } catch (const NumberOutOfRange& out_of_range) {
          fail(first.line + 1, out_of_range.what());
        }
      case YamlEventKind::sequence_start:
        return build_sequence(depth);
      case YamlEventKind::mapping_start:
        return build_mapping(depth);
      default:
        throw Error(ErrorCategory::internal, "YAML event out of place in " + file_);
    }
  }

 private:
  Json build_sequence(std::size_t depth) {
    Json array = Json::array();
    const std::size_t parent_size = pointer_.size();
    while (true) {
      const YamlEvent& event = events_.next();
      if (event.kind == YamlEventKind::sequence_end) break;
      pointer_ += '/';
      pointer_ += std::to_string(array.size());
      lines_->emplace(pointer_, event.line + 1);
      array.push_back(build(event, depth + 1));
      pointer_.resize(parent_size);
    }
    return array;
  }

  // Keys are set in the order written, as go-yaml v2 sets them: a merge
  // overwrites the keys written before it and loses to those written after.
  // A key written twice is still an error, merges or not.
  Json build_mapping(std::size_t depth) {
    Json object = Json::object();
    std::set<std::string> merged_only;  // keys set by a merge and not written in this mapping
    const std::size_t parent_size = pointer_.size();
    while (true) {
      const YamlEvent& key = events_.next();
      if (key.kind == YamlEventKind::mapping_end) break;
      if (key.kind != YamlEventKind::scalar) fail(key.line + 1, "mapping keys must be strings");
      const int key_line = key.line + 1;
      if (is_merge_key(key)) {
        merge(object, merged_only, key_line, depth + 1);
        continue;
      }
      std::string name = is_null_node(key) ? std::string() : key.value;
      auto [entry, inserted] = object.get_ref<Json::object_t&>().emplace(std::move(name), nullptr);
      if (!inserted && merged_only.erase(entry->first) == 0)
        fail(key_line, "duplicate key \"" + entry->first + "\"");
      pointer_ += '/';
      append_pointer_token(entry->first);
      if (!inserted) erase_lines_under(pointer_);
      lines_->emplace(pointer_, key_line);
      entry->second = build(events_.next(), depth + 1);
      pointer_.resize(parent_size);
    }
    return object;
  }

  // A merge value and the lines of its fields, relative to it.
  struct Detached {
    Json value;
    std::map<std::string, int> lines;
  };

  // `<<: MAP` or `<<: [MAP, ...]`, each MAP written in place or an alias: the
  // maps' keys set on `object`, the first map of a list winning (go-yaml v2
  // walks the list backwards). A nested map replaces, it is not merged.
  void merge(Json& object, std::set<std::string>& merged_only, int key_line, std::size_t depth) {
    const YamlEvent& value = events_.next();
    if (value.kind == YamlEventKind::mapping_start) {
      merge_into(object, merged_only, build_detached(value, depth));
      return;
    }
    if (value.kind != YamlEventKind::sequence_start || events_.expands_alias())
      fail_merge(key_line, value, "");
    count_node(value, depth);
    std::vector<Detached> maps;
    while (true) {
      const YamlEvent& item = events_.next();
      if (item.kind == YamlEventKind::sequence_end) break;
      if (item.kind != YamlEventKind::mapping_start) fail_merge(key_line, item, "a list holding ");
      maps.push_back(build_detached(item, depth + 1));
    }
    for (auto map = maps.rbegin(); map != maps.rend(); ++map)
      merge_into(object, merged_only, std::move(*map));
  }

  Detached build_detached(const YamlEvent& first, std::size_t depth) {
    Detached detached;
    std::string pointer = std::exchange(pointer_, std::string());
    std::map<std::string, int>* lines = std::exchange(lines_, &detached.lines);
    detached.value = build(first, depth);
    pointer_ = std::move(pointer);
    lines_ = lines;
    return detached;
  }

  void merge_into(Json& object, std::set<std::string>& merged_only, Detached map) {
    const std::size_t parent_size = pointer_.size();
    for (auto& [key, value] : map.value.get_ref<Json::object_t&>()) {
      auto [entry, inserted] = object.get_ref<Json::object_t&>().emplace(key, nullptr);
      if (inserted) {
        merged_only.insert(key);
      } else {
        pointer_ += '/';
        append_pointer_token(key);
        erase_lines_under(pointer_);
        pointer_.resize(parent_size);
      }
      entry->second = std::move(value);
    }
    for (const auto& [pointer, line] : map.lines)
      (*lines_)[pointer_ + pointer] = line;
  }

  // kubectl: "map merge requires map or sequence of maps as the value".
  [[noreturn]] void fail_merge(int key_line, const YamlEvent& found, const std::string& context) {
    std::string what = found.kind == YamlEventKind::sequence_start ? "a list"
                       : is_null_node(found)                       ? "null"
                                                                   : "the scalar \"" + found.value + "\"";
    if (events_.expands_alias()) what = "an alias to " + what;
    fail(key_line, "the merge key << needs a map or a list of maps as its value, not " + context + what);
  }

  // Forgets the lines of a field (and of what it held) that a later key replaces.
  void erase_lines_under(const std::string& pointer) {
    lines_->erase(pointer);
    const std::string below = pointer + '/';
    auto first = lines_->lower_bound(below);
    auto last = first;
    while (last != lines_->end() && last->first.starts_with(below))
      ++last;
    lines_->erase(first, last);
  }

  void count_node(const YamlEvent& event, std::size_t depth) {
    if (++nodes_ > limits_.max_nodes)
      fail(event.line + 1,
           fmt_message("document expands to more than ", limits_.max_nodes, " nodes (YAML alias bomb?)"));
    if (depth > limits_.max_depth)
      fail(event.line + 1, fmt_message("nesting deeper than ", limits_.max_depth, " levels"));
  }

  void append_pointer_token(const std::string& token) {
    if (token.find_first_of("~/") == std::string::npos) {
      pointer_ += token;
    } else {
      pointer_ += escape_pointer_token(token);
    }
  }

  [[noreturn]] void fail(int line, const std::string& message) {
    throw ConversionFailure{.problem = Problem{.file = file_, .line = line, .field = "", .message = message}};
  }

  YamlEventStream& events_;
  const std::string& file_;
  const YamlLimits& limits_;
  std::map<std::string, int>* lines_;  // a merge's value records its lines apart (see build_detached)
  std::string pointer_;                // JSON pointer of the node being built
  std::size_t nodes_ = 0;
};

// The next non-empty document, or nothing at the end of the stream.
std::optional<YamlDocument> next_document(YamlEventStream& events, const std::string& file,
                                          const YamlLimits& limits) {
  while (true) {
    const YamlEvent& start = events.next();
    if (start.kind == YamlEventKind::stream_start) continue;
    if (start.kind == YamlEventKind::stream_end) return std::nullopt;
    const YamlEvent& root = events.next();  // after document_start
    std::optional<YamlDocument> document;
    if (!is_null_node(root)) {
      document.emplace();
      document->line = root.line + 1;
      DocumentBuilder builder(events, file, limits, document->field_lines);
      document->value = builder.build(root, 0);
    }
    events.next();  // document_end
    if (document) return document;
  }
}

bool needs_quotes(const std::string& text) {
  if (text.empty()) return true;
  try {
    if (!resolve_plain_scalar(text).is_string()) return true;
  } catch (const NumberOutOfRange&) {
    return true;  // a number too, if one no double holds
  }
  static const std::string k_special = ":#{}[],&*!|>'\"%@`";
  if (k_special.find(text.front()) != std::string::npos || text.front() == '-' || text.front() == '?' ||
      text.front() == ' ' || text.back() == ' ')
    return true;
  return text.find(": ") != std::string::npos || text.find(" #") != std::string::npos ||
         text.find('\n') != std::string::npos || text.find('\t') != std::string::npos;
}

// yaml-cpp writes a literal block as a bare "|", which reads back with
// exactly one final newline and cannot start with a space; any other
// multi-line text is double-quoted (escaped), so it reads back as it was.
bool literal_reads_back(const std::string& text) {
  if (text.size() < 2 || text.back() != '\n' || text[text.size() - 2] == '\n') return false;
  if (text.front() == ' ' || text.front() == '\n') return false;
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return false;
  return true;
}

void emit(YAML::Emitter& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, child] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        emit(out, child);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& child : value)
        emit(out, child);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      if (text.find('\n') != std::string::npos && literal_reads_back(text)) {
        out << YAML::Literal << text;
      } else if (needs_quotes(text)) {
        out << YAML::DoubleQuoted << text;
      } else {
        out << text;
      }
      break;
    }
    case Json::value_t::null:
      out << YAML::Null;
      break;
    default:
      out << value.dump();
      break;
  }
}

}  // namespace

std::vector<YamlDocument> parse_yaml_documents(std::string_view text, const std::string& file,
                                               const YamlLimits& limits) {
  YamlEventStream events(text, file, limits.max_depth);
  std::vector<YamlDocument> documents;
  try {
    while (auto document = next_document(events, file, limits))
      documents.push_back(std::move(*document));
  } catch (const ConversionFailure& failure) {
    events.drain();
    throw InvalidInputError({failure.problem});
  }
  return documents;
}

std::string to_yaml(const Json& value) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  out.SetMapFormat(YAML::Block);
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

std::string escape_pointer_token(const std::string& token) {
  std::string escaped;
  for (char c : token) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

}  // namespace opctl::model
