#include "model/yaml_document.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

#include "model/error.hpp"

namespace opctl::model {
namespace {

// Plain (unquoted, untagged) scalars are resolved like go-yaml v2, which is
// what kubectl and the API machinery use, so `on` is a boolean here too.
Json resolve_plain_scalar(const std::string& text) {
  static const std::regex k_integer(R"([-+]?(0|[1-9][0-9_]*))");
  static const std::regex k_hex(R"([-+]?0x[0-9a-fA-F_]+)");
  static const std::regex k_float(R"([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?)");
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE" || text == "yes" || text == "Yes" || text == "YES" ||
      text == "on" || text == "On" || text == "ON" || text == "y" || text == "Y")
    return true;
  if (text == "false" || text == "False" || text == "FALSE" || text == "no" || text == "No" || text == "NO" ||
      text == "off" || text == "Off" || text == "OFF" || text == "n" || text == "N")
    return false;
  std::string digits;
  for (char c : text)
    if (c != '_') digits += c;
  try {
    if (std::regex_match(text, k_integer)) return std::stoll(digits);
    if (std::regex_match(text, k_hex)) return std::stoll(digits, nullptr, 16);
    if (std::regex_match(text, k_float)) return std::stod(digits);
  } catch (const std::out_of_range&) {
    return std::stod(digits);
  }
  if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf") return text;
  return text;
}

class Converter {
 public:
  Converter(const std::string& file, const YamlLimits& limits, std::map<std::string, int>& lines)
      : file_(file), limits_(limits), lines_(lines) {}

  Json convert(const YAML::Node& node, const std::string& pointer, std::size_t depth) {
    if (++nodes_ > limits_.max_nodes)
      fail(node,
           fmt_message("document expands to more than ", limits_.max_nodes, " nodes (YAML alias bomb?)"));
    if (depth > limits_.max_depth)
      fail(node, fmt_message("nesting deeper than ", limits_.max_depth, " levels"));
    if (!pointer.empty() && !lines_.contains(pointer)) lines_[pointer] = node.Mark().line + 1;
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return nullptr;
      case YAML::NodeType::Scalar:
        return convert_scalar(node);
      case YAML::NodeType::Sequence: {
        Json array = Json::array();
        std::size_t index = 0;
        for (const auto& item : node)
          array.push_back(convert(item, pointer + "/" + std::to_string(index++), depth + 1));
        return array;
      }
      case YAML::NodeType::Map: {
        Json object = Json::object();
        for (const auto& entry : node) {
          // A plain `null` or `~` key is a Null node whose text is still the key.
          if (!entry.first.IsScalar() && !entry.first.IsNull())
            fail(entry.first, "mapping keys must be strings");
          const std::string key = entry.first.Scalar();
          if (object.contains(key)) fail(entry.first, "duplicate key \"" + key + "\"");
          std::string child = pointer + "/" + escape_pointer_token(key);
          lines_[child] = entry.first.Mark().line + 1;
          object[key] = convert(entry.second, child, depth + 1);
        }
        return object;
      }
    }
    return nullptr;
  }

 private:
  Json convert_scalar(const YAML::Node& node) {
    const std::string& tag = node.Tag();
    const std::string& text = node.Scalar();
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return text;
    if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" ||
        tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null")
      return resolve_plain_scalar(text);
    if (tag == "?" || tag.empty()) return resolve_plain_scalar(text);
    return text;  // unknown tags (e.g. !!binary) keep their text, as kubectl does
  }

  template <typename... Parts>
  static std::string fmt_message(const Parts&... parts) {
    std::ostringstream out;
    (out << ... << parts);
    return out.str();
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) {
    throw InvalidInputError({Problem{file_, node.Mark().line + 1, "", message}});
  }

  const std::string& file_;
  const YamlLimits& limits_;
  std::map<std::string, int>& lines_;
  std::size_t nodes_ = 0;
};

bool needs_quotes(const std::string& text) {
  if (text.empty()) return true;
  Json resolved = resolve_plain_scalar(text);
  if (!resolved.is_string()) return true;
  static const std::string k_special = ":#{}[],&*!|>'\"%@`";
  if (k_special.find(text.front()) != std::string::npos || text.front() == '-' || text.front() == '?' ||
      text.front() == ' ' || text.back() == ' ')
    return true;
  return text.find(": ") != std::string::npos || text.find(" #") != std::string::npos ||
         text.find('\n') != std::string::npos || text.find('\t') != std::string::npos;
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
      if (text.find('\n') != std::string::npos) {
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
  std::vector<YAML::Node> nodes;
  try {
    nodes = YAML::LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& error) {
    // yaml-cpp's own guard, far above ours, says only "bad file".
    throw InvalidInputError({Problem{file, std::max(error.mark.line, 0) + 1, "",
                                     "nesting deeper than " + std::to_string(limits.max_depth) + " levels"}});
  } catch (const YAML::Exception& error) {
    throw InvalidInputError({Problem{file, error.mark.line + 1, "", "YAML syntax error: " + error.msg}});
  }
  std::vector<YamlDocument> documents;
  for (const auto& node : nodes) {
    if (node.IsNull()) continue;
    YamlDocument document;
    document.line = node.Mark().line + 1;
    Converter converter(file, limits, document.field_lines);
    document.value = converter.convert(node, "", 0);
    documents.push_back(std::move(document));
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
