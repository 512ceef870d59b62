#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "kube/api_error.hpp"
#include "model/error.hpp"
#include "validate/schema_source.hpp"

namespace opctl::validate {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_index_path = "/openapi/v3";
// Enough of the content hash to name a cache entry.
constexpr std::size_t k_cache_hash_length = 32;
// What the server answers for a hash that is no longer current.
constexpr long k_moved_permanently = 301;
constexpr long k_not_found = 404;
// The waits before each new read of the index while documents keep moving (the
// first at once): after a CRD changes, the API server rebuilds its group's
// document for a few seconds (longer on a loaded machine), so a pass gives it
// about 16 s in all.
constexpr std::array k_moved_backoff = {std::chrono::milliseconds(0),    std::chrono::milliseconds(250),
                                        std::chrono::milliseconds(500),  std::chrono::milliseconds(1000),
                                        std::chrono::milliseconds(2000), std::chrono::milliseconds(4000),
                                        std::chrono::milliseconds(8000)};

std::string cache_stem(const std::string& group_version) {
  std::string name = schema_file_name(group_version);
  return name.substr(0, name.size() - std::string(".json").size());
}

model::Json parse_body(const std::string& body, const std::string& what) {
  model::Json json = model::Json::parse(body, nullptr, false);
  if (json.is_discarded()) throw ClusterError(fmt::format("{}: the response is not JSON", what));
  return json;
}

// The part of a URL before "?hash=", for messages.
std::string without_query(const std::string& url) {
  return url.substr(0, url.find('?'));
}

}  // namespace

std::string url_hash(const std::string& server_relative_url) {
  auto query = server_relative_url.find('?');
  if (query == std::string::npos) return "";
  std::string_view rest(server_relative_url);
  rest.remove_prefix(query + 1);
  while (!rest.empty()) {
    auto end = rest.find('&');
    std::string_view parameter = rest.substr(0, end);
    if (parameter.starts_with("hash=")) return std::string(parameter.substr(5));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return "";
}

void ClusterSchemaSource::load_index() {
  kube::HttpRequest request;
  request.path = k_index_path;
  auto response = transport_.send(request);
  auto status = kube::decode_status(response, std::string("GET ") + k_index_path);
  if (!status.ok()) throw kube::ApiError(status);
  index_ = parse_body(response.body, std::string("GET ") + k_index_path);
  if (!index_.contains("paths") || !index_["paths"].is_object())
    throw ClusterError(
        fmt::format("GET {}: the response has no paths (OpenAPI v3 needs Kubernetes >= 1.27)", k_index_path));
}

SchemaSet ClusterSchemaSource::load(const std::set<std::string>& group_versions) {
  if (index_.is_null()) load_index();
  SchemaSet set;
  std::set<std::string> moved = fetch(group_versions, set);
  // The server answers a URL whose hash is no longer current with 301 (a CRD
  // of that group changed since the index was read). Read the index again and
  // ask for the new hash, at once and then with growing waits.
  std::chrono::milliseconds waited{0};
  for (auto wait : k_moved_backoff) {
    if (moved.empty()) break;
    if (wait.count() > 0) pause_(wait);
    waited += wait;
    load_index();
    moved = fetch(moved, set);
  }
  for (const auto& group_version : moved)
    set.unsettled[group_version] = fmt::format(
        "GET /openapi/v3/{}: the document changed {} times in {} s while it was read (a CRD of its group "
        "keeps changing?)",
        openapi_path(group_version), k_moved_backoff.size() + 1, waited.count() / 1000);
  return set;
}

void ClusterSchemaSource::sleep_for(std::chrono::milliseconds duration) {
  std::this_thread::sleep_for(duration);
}

std::set<std::string> ClusterSchemaSource::fetch(const std::set<std::string>& group_versions,
                                                 SchemaSet& set) {
  std::vector<std::string> fetched;  // group-versions, in the order of `requests`
  std::vector<kube::HttpRequest> requests;
  for (const auto& group_version : group_versions) {
    const auto& paths = index_["paths"];
    auto entry = paths.find(openapi_path(group_version));
    if (entry == paths.end() || !entry->is_object() || !entry->contains("serverRelativeURL")) {
      set.missing[group_version] = "the cluster serves no OpenAPI document for it";
      continue;
    }
    std::string url = entry->value("serverRelativeURL", "");
    if (auto cached = from_cache(group_version, url_hash(url))) {
      set.documents[group_version] = cached;
      continue;
    }
    kube::HttpRequest request;
    request.path = url;
    requests.push_back(request);
    fetched.push_back(group_version);
  }
  std::set<std::string> moved;
  auto responses = transport_.send_all(requests);
  for (std::size_t i = 0; i < responses.size(); ++i) {
    if (responses[i].status == k_moved_permanently) {
      moved.insert(fetched[i]);
      continue;
    }
    if (responses[i].status == k_not_found) {  // its last CRD went away since the index was read
      set.missing[fetched[i]] = "the cluster no longer serves an OpenAPI document for it";
      continue;
    }
    std::string what = "GET " + without_query(requests[i].path);
    auto status = kube::decode_status(responses[i], what);
    if (!status.ok()) throw kube::ApiError(status);
    model::Json document = parse_without_descriptions(responses[i].body);
    if (document.is_discarded()) throw ClusterError(fmt::format("{}: the response is not JSON", what));
    set.documents[fetched[i]] = std::make_shared<const OpenApiDocument>(std::move(document), what);
    store(fetched[i], url_hash(requests[i].path), responses[i].body);
  }
  return moved;
}

std::shared_ptr<const OpenApiDocument> ClusterSchemaSource::from_cache(const std::string& group_version,
                                                                       const std::string& hash) const {
  if (cache_dir_.empty() || hash.empty()) return nullptr;
  fs::path path = fs::path(cache_dir_) /
                  (cache_stem(group_version) + "." + hash.substr(0, k_cache_hash_length) + ".json");
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  std::ostringstream text;
  text << in.rdbuf();
  model::Json document = parse_without_descriptions(text.str());
  if (document.is_discarded()) return nullptr;  // a torn or damaged entry: fetch again
  try {
    return std::make_shared<const OpenApiDocument>(std::move(document), path.string());
  } catch (const Error&) {
    return nullptr;
  }
}

// Best effort: a cache that cannot be written only costs a download next time.
// The entry is written aside and renamed, so a reader never sees half of it,
// and older entries of the same group-version are removed.
void ClusterSchemaSource::store(const std::string& group_version, const std::string& hash,
                                const std::string& body) const {
  if (cache_dir_.empty() || hash.empty()) return;
  std::error_code error;
  fs::create_directories(cache_dir_, error);
  std::string stem = cache_stem(group_version);
  fs::path path = fs::path(cache_dir_) / (stem + "." + hash.substr(0, k_cache_hash_length) + ".json");
  fs::path temporary = path;
  temporary += fmt::format(".tmp{}", getpid());
  {
    std::ofstream out(temporary, std::ios::binary);
    out << body;
    if (!out) {
      fs::remove(temporary, error);
      return;
    }
  }
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, error);
    return;
  }
  for (const auto& entry : fs::directory_iterator(cache_dir_, error)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with(stem + ".") && name.ends_with(".json") && entry.path() != path &&
        name.find('.', stem.size() + 1) == name.size() - 5)
      fs::remove(entry.path(), error);
  }
}

}  // namespace opctl::validate
