#include "kinds/object_store.hpp"

#include "kinds/cluster/cluster_names.hpp"

namespace opctl::kinds {
namespace {

using model::Json;

const Json& member(const Json& object, const char* name) {
  static const Json absent;
  if (!object.is_object()) return absent;
  auto found = object.find(name);
  return found == object.end() ? absent : *found;
}

std::string text(const Json& object, const char* name) {
  const Json& value = member(object, name);
  return value.is_string() ? value.get<std::string>() : std::string();
}

SecretKeyRef secret_key(const Json& selector) {
  return {text(selector, "name"), text(selector, "key")};
}

// optional: a missing Secret or key must not keep a container from starting (an instance that cannot archive
// still serves); the tool then fails for want of keys, and says so.
Json from_secret(const char* variable, const SecretKeyRef& ref) {
  Json selector = {{"name", ref.name}, {"key", ref.key}, {"optional", true}};
  return {{"name", variable}, {"valueFrom", {{"secretKeyRef", selector}}}};
}

}  // namespace

std::optional<ObjectStore> read_object_store(const Json& backup_spec) {
  const Json& store = member(member(backup_spec, "target"), "objectStore");
  if (!store.is_object()) return std::nullopt;
  ObjectStore result;
  result.destination_path = text(store, "destinationPath");
  result.endpoint_url = text(store, "endpointURL");
  result.region = text(store, "region");
  if (member(store, "endpointCA").is_object()) result.endpoint_ca = secret_key(member(store, "endpointCA"));
  const Json& credentials = member(store, "s3Credentials");
  result.access_key_id = secret_key(member(credentials, "accessKeyId"));
  result.secret_access_key = secret_key(member(credentials, "secretAccessKey"));
  result.data_compression = text(member(store, "data"), "compression");
  result.data_encryption = text(member(store, "data"), "encryption");
  result.wal_compression = text(member(store, "wal"), "compression");
  result.wal_encryption = text(member(store, "wal"), "encryption");
  return result;
}

std::string bucket_of(const std::string& destination_path) {
  constexpr std::string_view scheme = "s3://";
  if (destination_path.rfind(scheme, 0) != 0) return "";
  std::string rest = destination_path.substr(scheme.size());
  return rest.substr(0, rest.find('/'));
}

Json object_store_env(const ObjectStore& store) {
  Json env = Json::array({from_secret("AWS_ACCESS_KEY_ID", store.access_key_id),
                          from_secret("AWS_SECRET_ACCESS_KEY", store.secret_access_key)});
  if (!store.region.empty()) env.push_back({{"name", "AWS_DEFAULT_REGION"}, {"value", store.region}});
  if (store.endpoint_ca)
    env.push_back({{"name", "AWS_CA_BUNDLE"},
                   {"value", std::string(k_object_store_ca_mount) + "/" + k_object_store_ca_file}});
  return env;
}

std::optional<Json> object_store_ca_volume(const ObjectStore& store) {
  if (!store.endpoint_ca) return std::nullopt;
  return Json{
      {"name", k_object_store_ca_volume},
      {"secret",
       {{"secretName", store.endpoint_ca->name},
        {"items", Json::array({{{"key", store.endpoint_ca->key}, {"path", k_object_store_ca_file}}})}}}};
}

std::optional<Json> object_store_ca_mount(const ObjectStore& store) {
  if (!store.endpoint_ca) return std::nullopt;
  return Json{{"name", k_object_store_ca_volume}, {"mountPath", k_object_store_ca_mount}, {"readOnly", true}};
}

std::vector<std::string> barman_cloud_options(const ObjectStore& store, StoreUse use) {
  std::vector<std::string> options = {"--cloud-provider", "aws-s3"};
  if (!store.endpoint_url.empty()) {
    options.push_back("--endpoint-url");
    options.push_back(store.endpoint_url);
  }
  if (use == StoreUse::read) return options;
  const std::string& compression = use == StoreUse::data ? store.data_compression : store.wal_compression;
  const std::string& encryption = use == StoreUse::data ? store.data_encryption : store.wal_encryption;
  if (compression == "gzip") options.push_back("--gzip");
  if (compression == "bzip2") options.push_back("--bzip2");
  if (compression == "snappy") options.push_back("--snappy");
  if (!encryption.empty()) {
    options.push_back("--encryption");
    options.push_back(encryption);
  }
  return options;
}

std::vector<std::string> wal_archive_argv(const ObjectStore& store, const std::string& server_name) {
  std::vector<std::string> argv = {"barman-cloud-wal-archive"};
  for (auto& option : barman_cloud_options(store, StoreUse::wal))
    argv.push_back(std::move(option));
  argv.push_back(store.destination_path);
  argv.push_back(server_name);
  return argv;
}

namespace {

std::vector<std::string> read_argv(const char* tool, const ObjectStore& store) {
  std::vector<std::string> argv = {tool};
  for (auto& option : barman_cloud_options(store, StoreUse::read))
    argv.push_back(std::move(option));
  return argv;
}

}  // namespace

std::string command_word(const std::string& text) {
  std::string quoted = "'";
  for (char c : text)
    quoted += c == '\'' ? std::string("'\\''") : c == '%' ? std::string("%%") : std::string(1, c);
  return quoted + "'";
}

std::vector<std::string> backup_list_argv(const ObjectStore& store, const std::string& server_name) {
  std::vector<std::string> argv = read_argv("barman-cloud-backup-list", store);
  argv.insert(argv.end(), {"--format", "json", store.destination_path, server_name});
  return argv;
}

std::vector<std::string> store_restore_argv(const ObjectStore& store, const std::string& server_name) {
  std::vector<std::string> argv = read_argv("barman-cloud-restore", store);
  argv.insert(argv.end(), {store.destination_path, server_name});
  return argv;
}

std::string wal_restore_command(const ObjectStore& store, const std::string& server_name) {
  std::vector<std::string> argv = read_argv("barman-cloud-wal-restore", store);
  argv.insert(argv.end(), {store.destination_path, server_name});
  std::string command;
  for (const auto& word : argv)
    command += command_word(word) + " ";
  return command + "%f %p";
}

std::vector<std::string> store_backup_argv(const ObjectStore& store, const std::string& server_name) {
  std::vector<std::string> argv = {"barman-cloud-backup"};
  for (auto& option : barman_cloud_options(store, StoreUse::data))
    argv.push_back(std::move(option));
  argv.push_back(store.destination_path);
  argv.push_back(server_name);
  return argv;
}

std::vector<std::string> wal_archive_check_argv(const ObjectStore& store, const std::string& server_name) {
  std::vector<std::string> argv = {"barman-cloud-check-wal-archive"};
  for (auto& option : barman_cloud_options(store, StoreUse::read))
    argv.push_back(std::move(option));
  argv.push_back(store.destination_path);
  argv.push_back(server_name);
  return argv;
}

std::string store_backup_service_account(const std::string& backup_name) {
  return backup_name + "-backup";
}

Json store_backup_pod_template(const ObjectStore& store, const StoreJobInput& input) {
  auto field_env = [](const char* name, const char* path) {
    return Json{{"name", name}, {"valueFrom", {{"fieldRef", {{"fieldPath", path}}}}}};
  };
  std::vector<std::string> remove = read_argv("barman-cloud-backup-delete", store);
  remove.insert(remove.end(), {store.destination_path, input.cluster});
  Json env = Json::array(
      {field_env("NAMESPACE", "metadata.namespace"),
       field_env("POD_NAME", "metadata.name"),
       field_env("POD_UID", "metadata.uid"),
       {{"name", "CLUSTER_NAME"}, {"value", input.cluster}},
       {{"name", "BACKUP_NAME"}, {"value", input.backup_name}},
       {{"name", "OPCTL_BACKUP_LIST"}, {"value", Json(backup_list_argv(store, input.cluster)).dump()}},
       {{"name", "OPCTL_BACKUP_DELETE"}, {"value", Json(remove).dump()}}});
  if (input.keep) env.push_back({{"name", "BACKUP_KEEP"}, {"value", std::to_string(*input.keep)}});
  if (input.max_age)
    env.push_back(
        {{"name", "BACKUP_MAX_AGE_MINUTES"}, {"value", std::to_string(input.max_age->count() / 60)}});
  for (const auto& variable : object_store_env(store))
    env.push_back(variable);
  Json container = {{"name", "backup"},
                    {"image", input.image},
                    {"command", {"opctl", "instance", "backup"}},
                    {"env", std::move(env)},
                    {"volumeMounts", Json::array()}};
  Json volumes = Json::array();
  if (auto mount = object_store_ca_mount(store)) container["volumeMounts"].push_back(*mount);
  if (auto volume = object_store_ca_volume(store)) volumes.push_back(*volume);
  return {{"metadata", {{"labels", {{cluster::k_backup_request_label, input.cluster}}}}},
          {"spec",
           {{"restartPolicy", "Never"},
            {"serviceAccountName", store_backup_service_account(input.backup_name)},
            {"securityContext",
             {{"runAsUser", input.uid}, {"runAsGroup", input.gid}, {"runAsNonRoot", input.uid != 0}}},
            {"containers", Json::array({container})},
            {"volumes", std::move(volumes)}}}};
}

}  // namespace opctl::kinds
