#include "instance/custom_queries.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "instance/metrics_exposition.hpp"
#include "model/error.hpp"
#include "model/yaml_document.hpp"

namespace opctl::instance {
namespace {

using model::Json;
namespace fs = std::filesystem;

// The keys postgres_exporter's format has that opctl does not act on, and
// would be wrong to ignore silently.
constexpr const char* k_unsupported_keys[] = {"runonserver", "cache_seconds"};
constexpr std::size_t k_max_query_file_bytes = 1 << 20;

std::string usage_error(const std::string& usage) {
  return fmt::format("usage \"{}\": must be COUNTER, GAUGE, LABEL or DISCARD", usage);
}

// One entry of `metrics`: a mapping of exactly one column name to its settings.
std::string parse_column(const Json& entry, QueryColumn& out) {
  if (!entry.is_object() || entry.size() != 1)
    return "each entry of metrics must map one column name to its usage and description";
  const std::string name = entry.begin().key();
  const Json& settings = entry.begin().value();
  out.name = name;
  if (!settings.is_object()) return fmt::format("column {}: must be a mapping with usage", name);
  for (const auto& [key, value] : settings.items())
    if (key != "usage" && key != "description")
      return fmt::format("column {}: unknown key {} (usage, description)", name, key);
  std::string usage = settings.value("usage", "");
  if (usage == "COUNTER")
    out.usage = ColumnUsage::counter;
  else if (usage == "GAUGE")
    out.usage = ColumnUsage::gauge;
  else if (usage == "LABEL")
    out.usage = ColumnUsage::label;
  else if (usage == "DISCARD")
    out.usage = ColumnUsage::discard;
  else
    return fmt::format("column {}: {}", name, usage_error(usage));
  if (settings.contains("description") && settings["description"].is_string())
    out.description = settings["description"].get<std::string>();
  bool needs_valid_name = out.usage != ColumnUsage::discard;
  if (needs_valid_name && !valid_label_name(out.name))
    return fmt::format("column {}: not a valid metric or label name ([a-zA-Z_][a-zA-Z0-9_]*)", name);
  return "";
}

std::string parse_targets(const Json& value, std::vector<std::string>& out) {
  if (!value.is_array()) return "target_databases must be a list of database names";
  for (const auto& database : value) {
    if (!database.is_string() || database.get<std::string>().empty())
      return "target_databases must be a list of database names";
    out.push_back(database.get<std::string>());
  }
  return "";
}

std::string parse_query_body(const Json& body, CustomQuery& query) {
  if (!valid_metric_name(query.name) || query.name.find(':') != std::string::npos)
    return "the query's name must be a valid metric name ([a-zA-Z_][a-zA-Z0-9_]*)";
  if (!body.is_object()) return "must be a mapping with query and metrics";
  for (const char* key : k_unsupported_keys)
    if (body.contains(key)) return fmt::format("{} is not supported by opctl", key);
  for (const auto& [key, value] : body.items())
    if (key != "query" && key != "metrics" && key != "primary" && key != "master" &&
        key != "target_databases" && key != "description" && key != "runonserver" && key != "cache_seconds")
      return fmt::format("unknown key {}", key);
  if (!body.contains("query") || !body["query"].is_string() || body["query"].get<std::string>().empty())
    return "query: a SQL statement is required";
  query.sql = body["query"].get<std::string>();
  for (const char* key : {"primary", "master"})
    if (body.contains(key)) {
      if (!body[key].is_boolean()) return fmt::format("{} must be true or false", key);
      query.primary_only = query.primary_only || body[key].get<bool>();
    }
  if (body.contains("target_databases"))
    if (auto error = parse_targets(body["target_databases"], query.target_databases); !error.empty())
      return error;
  if (!body.contains("metrics") || !body["metrics"].is_array() || body["metrics"].empty())
    return "metrics: a list of the query's columns is required";
  for (const auto& entry : body["metrics"]) {
    QueryColumn column;
    if (auto error = parse_column(entry, column); !error.empty()) return error;
    for (const auto& other : query.columns)
      if (other.name == column.name) return fmt::format("column {} appears twice", column.name);
    query.columns.push_back(std::move(column));
  }
  bool any_value = std::any_of(query.columns.begin(), query.columns.end(), [](const QueryColumn& column) {
    return column.usage == ColumnUsage::counter || column.usage == ColumnUsage::gauge;
  });
  if (!any_value) return "metrics: at least one column must be a COUNTER or a GAUGE";
  return "";
}

CustomQuery failed_file(const std::string& source, const std::string& error) {
  CustomQuery query;
  query.name = source;
  query.source = source;
  query.error = error;
  return query;
}

}  // namespace

std::vector<CustomQuery> parse_custom_queries(std::string_view text, const std::string& source) {
  std::vector<model::YamlDocument> documents;
  try {
    documents = model::parse_yaml_documents(text, source);
  } catch (const Error& error) {
    return {failed_file(source, error.what())};
  }
  std::vector<CustomQuery> out;
  for (const auto& document : documents) {
    if (!document.value.is_object())
      return {failed_file(source, "must be a mapping of query names to queries")};
    for (const auto& [name, body] : document.value.items()) {
      CustomQuery query;
      query.name = name;
      query.source = source;
      query.error = parse_query_body(body, query);
      out.push_back(std::move(query));
    }
  }
  return out;
}

std::vector<CustomQuery> load_custom_queries(const std::string& directory) {
  std::vector<CustomQuery> out;
  std::error_code error;
  if (directory.empty() || !fs::is_directory(directory, error)) return out;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(directory, error))
    if (!entry.path().filename().string().starts_with(".") && fs::is_regular_file(entry.path(), error))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::string source = path.filename().string();
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open()) {
      out.push_back(failed_file(source, "cannot be read"));
      continue;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().size() > k_max_query_file_bytes) {
      out.push_back(failed_file(source, "is larger than 1 MiB"));
      continue;
    }
    for (auto& query : parse_custom_queries(text.str(), source))
      out.push_back(std::move(query));
  }
  return out;
}

}  // namespace opctl::instance
