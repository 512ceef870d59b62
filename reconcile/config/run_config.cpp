#include "config/run_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string_view>

#include "model/error.hpp"
#include "model/redaction.hpp"
#include "model/yaml_document.hpp"

namespace opctl::config {
namespace {

using model::Json;

// Reads one mapping, field by field, recording a problem for anything wrong
// and for every field nobody asked for.
class FieldReader {
 public:
  FieldReader(const model::YamlDocument& document, std::vector<Problem>& problems, const std::string& file)
      : document_(document), problems_(problems), file_(file) {}

  void read_map(
      const std::string& pointer, const std::string& path,
      const std::map<std::string, std::function<void(const Json&, const std::string&, const std::string&)>>&
          fields) {
    const Json* value = at(pointer);
    if (value == nullptr || value->is_null()) return;
    if (!value->is_object()) {
      problem(pointer, path, "must be a mapping");
      return;
    }
    for (const auto& [key, child] : value->items()) {
      std::string child_pointer = pointer + "/" + key;
      std::string child_path = path.empty() ? key : path + "." + key;
      auto found = fields.find(key);
      if (found == fields.end()) {
        std::vector<std::string> known;
        for (const auto& [name, reader] : fields)
          known.push_back(name);
        problem(child_pointer, child_path,
                fmt::format("unknown field \"{}\" (known: {})", key, fmt::join(known, ", ")));
        continue;
      }
      found->second(child, child_pointer, child_path);
    }
  }

  void problem(const std::string& pointer, const std::string& path, const std::string& message) {
    problems_.push_back({file_, line_of(pointer), path, message});
  }

  int line_of(std::string pointer) const {
    while (!pointer.empty()) {
      if (auto found = document_.field_lines.find(pointer); found != document_.field_lines.end())
        return found->second;
      pointer = pointer.substr(0, pointer.rfind('/'));
    }
    return document_.line;
  }

  template <typename T>
  std::function<void(const Json&, const std::string&, const std::string&)> into(std::optional<T>& target) {
    return [this, &target](const Json& value, const std::string& pointer, const std::string& path) {
      if constexpr (std::is_same_v<T, std::string>) {
        if (!value.is_string()) return problem(pointer, path, "must be a string");
        target = value.get<std::string>();
      } else if constexpr (std::is_same_v<T, bool>) {
        if (!value.is_boolean()) return problem(pointer, path, "must be true or false");
        target = value.get<bool>();
      } else if constexpr (std::is_same_v<T, int>) {
        if (!value.is_number_integer()) return problem(pointer, path, "must be an integer");
        target = value.get<int>();
      } else if constexpr (std::is_same_v<T, double>) {
        if (!value.is_number()) return problem(pointer, path, "must be a number");
        target = value.get<double>();
      } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
        // A bare 0 is a YAML integer, and a duration as Go and kubectl read "0".
        bool zero = value.is_number_integer() && value.get<long long>() == 0;
        auto parsed = zero                ? std::optional(std::chrono::milliseconds(0))
                      : value.is_string() ? parse_duration(value.get<std::string>())
                                          : std::nullopt;
        if (!parsed)
          return problem(pointer, path, std::string("must be a duration such as ") + k_duration_examples);
        target = parsed;
      }
    };
  }

  std::function<void(const Json&, const std::string&, const std::string&)> into_string(std::string& target) {
    return [this, &target](const Json& value, const std::string& pointer, const std::string& path) {
      if (!value.is_string()) return problem(pointer, path, "must be a string");
      target = value.get<std::string>();
    };
  }

  std::function<void(const Json&, const std::string&, const std::string&)> into_strings(
      std::vector<std::string>& target) {
    return [this, &target](const Json& value, const std::string& pointer, const std::string& path) {
      if (!value.is_array()) return problem(pointer, path, "must be a list of strings");
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string()) {
          problem(fmt::format("{}/{}", pointer, i), fmt::format("{}[{}]", path, i), "must be a string");
          continue;
        }
        target.push_back(value[i].get<std::string>());
      }
    };
  }

  template <typename Item>
  std::function<void(const Json&, const std::string&, const std::string&)> into_list(
      std::vector<Item>& target,
      std::function<void(FieldReader&, Item&, const std::string&, const std::string&)> read_item) {
    return
        [this, &target, read_item](const Json& value, const std::string& pointer, const std::string& path) {
          if (!value.is_array()) return problem(pointer, path, "must be a list");
          for (std::size_t i = 0; i < value.size(); ++i) {
            Item item;
            read_item(*this, item, fmt::format("{}/{}", pointer, i), fmt::format("{}[{}]", path, i));
            target.push_back(std::move(item));
          }
        };
  }

 private:
  const Json* at(const std::string& pointer) const {
    Json::json_pointer path(pointer);
    return document_.value.contains(path) ? &document_.value.at(path) : nullptr;
  }

  const model::YamlDocument& document_;
  std::vector<Problem>& problems_;
  const std::string& file_;
};

// A Kubernetes name: lowercase letters, digits and '-', starting and ending
// with a letter or digit; helm's release names are at most 53 characters.
bool is_release_name(const std::string& name) {
  static const std::regex k_name("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  return name.size() <= 53 && std::regex_match(name, k_name);
}

void read_helm_chart(FieldReader& reader, HelmChart& chart, const std::string& pointer,
                     const std::string& path) {
  std::optional<bool> skip_hooks;
  reader.read_map(pointer, path,
                  {{"chart", reader.into_string(chart.chart)},
                   {"releaseName", reader.into_string(chart.release_name)},
                   {"namespace", reader.into_string(chart.namespace_name)},
                   {"valuesFiles", reader.into_strings(chart.values_files)},
                   {"kubeVersion", reader.into_string(chart.kube_version)},
                   {"apiVersions", reader.into_strings(chart.api_versions)},
                   {"skipHooks", reader.into(skip_hooks)}});
  chart.skip_hooks = skip_hooks.value_or(false);
  chart.line = reader.line_of(pointer + "/chart");
  if (chart.chart.empty()) reader.problem(pointer, path, "a helm entry needs chart (the chart's directory)");
  // Absolute paths would read outside the source, and the tree of a commit has none.
  auto relative = [&](const std::string& value, const std::string& field) {
    if (value.starts_with('/'))
      reader.problem(pointer + "/" + field, path + "." + field,
                     fmt::format("\"{}\" must be relative to the source's path", value));
  };
  relative(chart.chart, "chart");
  for (const auto& values : chart.values_files)
    relative(values, "valuesFiles");
  if (!chart.release_name.empty() && !is_release_name(chart.release_name))
    reader.problem(
        pointer + "/releaseName", path + ".releaseName",
        "must be a lowercase name of letters, digits and '-', at most 53 characters (as helm requires)");
}

const std::map<std::string, NotificationType> k_notification_types = {{"webhook", NotificationType::webhook},
                                                                      {"slack", NotificationType::slack},
                                                                      {"github", NotificationType::github},
                                                                      {"gitlab", NotificationType::gitlab}};
const std::map<std::string, NotificationTrigger> k_notification_triggers = {
    {"failure", NotificationTrigger::failure},
    {"change", NotificationTrigger::change},
    {"success", NotificationTrigger::success},
    {"always", NotificationTrigger::always}};

bool is_http_url(const std::string& url) {
  return url.starts_with("http://") || url.starts_with("https://");
}

// What an entry may hold depends on its type: a message goes to a URL, a
// commit status to an API; GitHub and GitLab need a token, Slack's URL is one.
void check_notification(FieldReader& reader, const Notification& entry, const std::string& pointer,
                        const std::string& path) {
  auto field_problem = [&](const std::string& field, const std::string& message) {
    reader.problem(pointer + "/" + field, path + "." + field, message);
  };
  bool message_type = entry.type == NotificationType::webhook || entry.type == NotificationType::slack;
  int urls = !entry.url.empty() + !entry.url_file.empty() + !entry.url_env.empty();
  if (message_type && urls != 1)
    reader.problem(pointer, path, "a webhook or slack entry needs exactly one of url, urlFile or urlEnv");
  if (!message_type && urls != 0)
    reader.problem(pointer, path, "a commit status goes to apiURL (the API's base URL), not url");
  if (!entry.url.empty() && !is_http_url(entry.url))
    field_problem("url", "must be an http:// or https:// URL");
  if (!entry.url.empty() && model::url_has_credentials(entry.url))
    field_problem("url", "carries a credential: put the URL in a file (urlFile) or a variable (urlEnv)");
  if (entry.type == NotificationType::slack && entry.url.find("hooks.slack.com/") != std::string::npos)
    field_problem("url",
                  "a Slack webhook URL is a credential: put it in a file (urlFile) or a variable (urlEnv)");
  if (!entry.api_url.empty() && !is_http_url(entry.api_url))
    field_problem("apiURL", "must be an http:// or https:// URL");
  if (message_type && !entry.api_url.empty()) field_problem("apiURL", "is for github and gitlab entries");
  int tokens = !entry.token_file.empty() + !entry.token_env.empty();
  if (tokens > 1) reader.problem(pointer, path, "give at most one of tokenFile or tokenEnv");
  if (!message_type && tokens != 1)
    reader.problem(pointer, path, "a commit status needs a token: tokenFile or tokenEnv");
  if (entry.type == NotificationType::slack && tokens != 0)
    reader.problem(pointer, path, "a Slack webhook takes no token: its URL is the credential");
  int signing_keys = !entry.signing_key_file.empty() + !entry.signing_key_env.empty();
  if (signing_keys > 1) reader.problem(pointer, path, "give at most one of signingKeyFile or signingKeyEnv");
  if (signing_keys > 0 && entry.type != NotificationType::webhook)
    reader.problem(pointer, path, "signingKeyFile and signingKeyEnv are for webhook entries");
  if (message_type && !entry.repository.empty())
    field_problem("repository", "is for github and gitlab entries");
  if (entry.type != NotificationType::slack && !entry.channel.empty())
    field_problem("channel", "is for slack entries");
  if (entry.type == NotificationType::github && !entry.repository.empty() &&
      std::count(entry.repository.begin(), entry.repository.end(), '/') != 1)
    field_problem("repository", "must be owner/name");
  if (entry.retries < 0 || entry.retries > 10) field_problem("retries", "must be between 0 and 10");
  if (entry.timeout < std::chrono::seconds(1)) field_problem("timeout", "must be at least 1s");
}

// A field that would hold a credential itself: always a problem, naming where to put it instead.
std::function<void(const Json&, const std::string&, const std::string&)> credential_refused(
    FieldReader& reader, const std::string& instead) {
  return [&reader, instead](const Json&, const std::string& field_pointer, const std::string& field_path) {
    reader.problem(field_pointer, field_path,
                   "a credential is never written in opctl.yaml (it would be in git and in the "
                   "ConfigMap): use " +
                       instead);
  };
}

void read_metrics_push(FieldReader& reader, MetricsPushSettings& push, const std::string& pointer,
                       const std::string& path) {
  reader.read_map(pointer, path,
                  {{"url", reader.into_string(push.url)},
                   {"authFile", reader.into_string(push.auth_file)},
                   {"authEnv", reader.into_string(push.auth_env)},
                   {"authorization", credential_refused(reader, "authFile or authEnv")},
                   {"token", credential_refused(reader, "authFile or authEnv")},
                   {"password", credential_refused(reader, "authFile or authEnv")}});
  push.line = reader.line_of(pointer);
  if (push.url.empty())
    reader.problem(pointer, path, "needs url, the Pushgateway's (e.g. http://pushgateway:9091)");
  else if (!is_http_url(push.url))
    reader.problem(pointer + "/url", path + ".url", "must be an http:// or https:// URL");
  else if (model::url_has_credentials(push.url))
    reader.problem(pointer + "/url", path + ".url",
                   "carries a credential: put the Authorization header's value in a file (authFile) or a "
                   "variable (authEnv)");
  if (!push.auth_file.empty() && !push.auth_env.empty())
    reader.problem(pointer, path, "give at most one of authFile or authEnv");
}

void read_metrics(FieldReader& reader, MetricsSettings& metrics, const std::string& pointer,
                  const std::string& path) {
  reader.read_map(
      pointer, path,
      {{"file",
        [&](const Json& value, const std::string& field_pointer, const std::string& field_path) {
          if (!value.is_string() || value.get<std::string>().empty())
            return reader.problem(field_pointer, field_path,
                                  "must be the path of the file to write (for node-exporter's textfile "
                                  "collector, *.prom)");
          metrics.file = value.get<std::string>();
          metrics.file_line = reader.line_of(field_pointer);
        }},
       {"push", [&](const Json&, const std::string& field_pointer, const std::string& field_path) {
          read_metrics_push(reader, metrics.push.emplace(), field_pointer, field_path);
        }}});
}

void read_notification(FieldReader& reader, Notification& entry, const std::string& pointer,
                       const std::string& path) {
  std::optional<std::string> type;
  std::optional<std::chrono::milliseconds> timeout;
  std::optional<int> retries;
  std::vector<std::string> triggers;
  bool triggers_given = false;
  auto never_inline = [&](const std::string& instead) { return credential_refused(reader, instead); };
  reader.read_map(pointer, path,
                  {{"type", reader.into(type)},
                   {"name", reader.into_string(entry.name)},
                   {"url", reader.into_string(entry.url)},
                   {"urlFile", reader.into_string(entry.url_file)},
                   {"urlEnv", reader.into_string(entry.url_env)},
                   {"apiURL", reader.into_string(entry.api_url)},
                   {"repository", reader.into_string(entry.repository)},
                   {"project", reader.into_string(entry.repository)},
                   {"tokenFile", reader.into_string(entry.token_file)},
                   {"tokenEnv", reader.into_string(entry.token_env)},
                   {"token", never_inline("tokenFile or tokenEnv")},
                   {"password", never_inline("tokenFile or tokenEnv")},
                   {"signingKeyFile", reader.into_string(entry.signing_key_file)},
                   {"signingKeyEnv", reader.into_string(entry.signing_key_env)},
                   {"signingKey", never_inline("signingKeyFile or signingKeyEnv")},
                   {"context", reader.into_string(entry.context)},
                   {"targetURL", reader.into_string(entry.target_url)},
                   {"channel", reader.into_string(entry.channel)},
                   {"on",
                    [&](const Json& value, const std::string& field_pointer, const std::string& field_path) {
                      triggers_given = true;
                      reader.into_strings(triggers)(value, field_pointer, field_path);
                    }},
                   {"timeout", reader.into(timeout)},
                   {"retries", reader.into(retries)}});
  entry.line = reader.line_of(pointer);
  if (timeout) entry.timeout = *timeout;
  if (retries) entry.retries = *retries;
  auto found_type = type ? k_notification_types.find(*type) : k_notification_types.end();
  if (found_type == k_notification_types.end())
    return reader.problem(pointer + "/type", path + ".type", "must be webhook, slack, github or gitlab");
  entry.type = found_type->second;
  if (triggers_given) {
    entry.triggers.clear();
    for (const auto& trigger : triggers) {
      auto found = k_notification_triggers.find(trigger);
      if (found == k_notification_triggers.end())
        reader.problem(pointer + "/on", path + ".on",
                       fmt::format("\"{}\" is not failure, change, success or always", trigger));
      else
        entry.triggers.push_back(found->second);
    }
    if (triggers.empty()) reader.problem(pointer + "/on", path + ".on", "must name at least one trigger");
  }
  check_notification(reader, entry, pointer, path);
}

void read_spec(FieldReader& reader, RunConfig& config) {
  std::optional<std::string> lease_duration;
  std::optional<bool> lease_enabled;
  reader.read_map(
      "/spec", "spec",
      {{"repo", reader.into(config.repo)},
       {"ref", reader.into(config.ref)},
       {"path", reader.into(config.path)},
       {"cacheDir", reader.into(config.cache_dir)},
       {"git",
        [&](const Json&, const std::string& pointer, const std::string& path) {
          reader.read_map(pointer, path,
                          {{"tokenFile", reader.into(config.git.token_file)},
                           {"basicAuthFile", reader.into(config.git.basic_auth_file)},
                           {"sshKeyFile", reader.into(config.git.ssh_key_file)},
                           {"sshPassphraseFile", reader.into(config.git.ssh_passphrase_file)},
                           {"knownHostsFile", reader.into(config.git.known_hosts_file)},
                           {"insecureIgnoreHostKey", reader.into(config.git.insecure_ignore_host_key)}});
        }},
       {"verify",
        [&](const Json&, const std::string& pointer, const std::string& path) {
          reader.read_map(pointer, path,
                          {{"commits", reader.into(config.verify.commits)},
                           {"allowedSignersFile", reader.into(config.verify.allowed_signers_file)},
                           {"gpgKeyringFile", reader.into(config.verify.gpg_keyring_file)}});
        }},
       {"namespace", reader.into(config.default_namespace)},
       {"prune", reader.into(config.prune)},
       {"pruneNamespaces", reader.into(config.prune_namespaces)},
       {"pruneCRDs", reader.into(config.prune_crds)},
       {"pruneData", reader.into(config.prune_data)},
       {"allowEmpty", reader.into(config.allow_empty)},
       {"maxPrune",
        [&](const Json& value, const std::string& pointer, const std::string& path) {
          auto limit = value.is_number_integer() ? model::parse_prune_limit(std::to_string(value.get<long>()))
                       : value.is_string()       ? model::parse_prune_limit(value.get<std::string>())
                                                 : std::nullopt;
          if (!limit) return reader.problem(pointer, path, "must be a count (10) or a percentage (50%)");
          config.max_prune = limit;
        }},
       {"deletePropagation",
        [&](const Json& value, const std::string& pointer, const std::string& path) {
          static const std::set<std::string> k_allowed = {"Background", "Foreground", "Orphan"};
          if (!value.is_string() || !k_allowed.contains(value.get<std::string>()))
            return reader.problem(pointer, path, "must be Background, Foreground or Orphan");
          config.delete_propagation = value.get<std::string>();
        }},
       {"wait", reader.into(config.wait)},
       {"keepRunning", reader.into(config.keep_running)},
       {"timeout", reader.into(config.timeout)},
       {"execTimeout", reader.into(config.exec_timeout)},
       {"forceConflicts", reader.into(config.force_conflicts)},
       {"concurrency", reader.into(config.concurrency)},
       {"qps",
        [&](const Json& value, const std::string& pointer, const std::string& path) {
          std::optional<RequestRate> rate;
          if (value.is_number() && value.get<double>() >= 0) rate = RequestRate{value.get<double>()};
          if (value.is_string()) rate = parse_request_rate(value.get<std::string>());
          if (!rate)
            return reader.problem(
                pointer, path, "must be auto or a number of requests per second (0: no client-side limit)");
          config.qps = rate;
        }},
       {"burst", reader.into(config.burst)},
       {"ignoreDifferences",
        reader.into_list<IgnoreDifference>(
            config.ignore_differences,
            [](FieldReader& r, IgnoreDifference& rule, const std::string& pointer, const std::string& path) {
              r.read_map(pointer, path,
                         {{"group", r.into_string(rule.group)},
                          {"kind", r.into_string(rule.kind)},
                          {"namespace", r.into_string(rule.namespace_name)},
                          {"name", r.into_string(rule.name)},
                          {"jsonPointers", r.into_strings(rule.json_pointers)}});
              for (const auto& json_pointer : rule.json_pointers)
                if (!json_pointer.starts_with("/"))
                  r.problem(pointer + "/jsonPointers", path + ".jsonPointers",
                            fmt::format("\"{}\" is not a JSON pointer (it must start with /)", json_pointer));
            })},
       {"health", reader.into_list<HealthOverride>(config.health,
                                                   [](FieldReader& r, HealthOverride& rule,
                                                      const std::string& pointer, const std::string& path) {
                                                     std::optional<bool> skip;
                                                     r.read_map(pointer, path,
                                                                {{"group", r.into_string(rule.group)},
                                                                 {"kind", r.into_string(rule.kind)},
                                                                 {"skip", r.into(skip)}});
                                                     rule.skip = skip.value_or(false);
                                                   })},
       {"lease",
        [&](const Json&, const std::string& pointer, const std::string& path) {
          std::optional<std::chrono::milliseconds> duration;
          reader.read_map(pointer, path,
                          {{"duration", reader.into(duration)}, {"enabled", reader.into(lease_enabled)}});
          if (duration && (duration->count() % 1000 != 0 || *duration < std::chrono::seconds(1)))
            reader.problem(
                pointer + "/duration", path + ".duration",
                "must be whole seconds, at least 1s (a Lease's leaseDurationSeconds counts seconds)");
          else if (duration)
            config.lease_duration = std::chrono::duration_cast<std::chrono::seconds>(*duration);
        }},
       {"helm", reader.into_list<HelmChart>(config.helm, read_helm_chart)},
       {"notifications", reader.into_list<Notification>(config.notifications, read_notification)},
       {"metrics",
        [&](const Json&, const std::string& pointer, const std::string& path) {
          read_metrics(reader, config.metrics, pointer, path);
        }},
       {"clusterDefaults",
        [&](const Json&, const std::string& pointer, const std::string& path) {
          reader.read_map(pointer, path, {{"imageName", reader.into(config.cluster_defaults.image_name)}});
          if (config.cluster_defaults.image_name && config.cluster_defaults.image_name->empty())
            reader.problem(pointer + "/imageName", path + ".imageName",
                           "must name an image (leave it out for the built-in default)");
        }},
       {"kinds",
        reader.into_list<HookKind>(config.kinds, [](FieldReader& r, HookKind& kind,
                                                    const std::string& pointer, const std::string& path) {
          std::optional<std::chrono::milliseconds> timeout;
          std::optional<bool> finalize;
          r.read_map(
              pointer, path,
              {{"apiVersion", r.into_string(kind.api_version)},
               {"kind", r.into_string(kind.kind)},
               {"command", r.into_strings(kind.command)},
               {"url", r.into_string(kind.url)},
               {"timeout", r.into(timeout)},
               {"finalize", r.into(finalize)},
               {"children", r.into_list<HookChildKind>(kind.children, [](FieldReader& c, HookChildKind& child,
                                                                         const std::string& child_pointer,
                                                                         const std::string& child_path) {
                  c.read_map(child_pointer, child_path,
                             {{"apiVersion", c.into_string(child.api_version)},
                              {"kind", c.into_string(child.kind)}});
                  if (child.api_version.empty() || child.kind.empty())
                    c.problem(child_pointer, child_path, "a child kind needs apiVersion and kind");
                })}});
          if (timeout && timeout->count() <= 0)
            r.problem(pointer + "/timeout", path + ".timeout",
                      "must be more than 0 (the hook would be killed at once)");
          else if (timeout)
            kind.timeout = *timeout;
          if (finalize) kind.finalize = *finalize;
          if (!kind.url.empty() && !kind.url.starts_with("http://") && !kind.url.starts_with("https://"))
            r.problem(pointer + "/url", path + ".url", "must be an http:// or https:// URL");
          if (kind.api_version.empty() || kind.kind.empty())
            r.problem(pointer, path, "a hook kind needs apiVersion and kind");
          if (kind.command.empty() == kind.url.empty())
            r.problem(pointer, path, "a hook kind needs exactly one of command or url");
        })}});
  if (lease_enabled) config.lease_enabled = *lease_enabled;
}

}  // namespace

std::optional<RequestRate> parse_request_rate(const std::string& text) {
  if (text == "auto") return RequestRate{};
  double qps = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), qps);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(qps) ||
      qps < 0)
    return std::nullopt;
  return RequestRate{qps};
}

std::optional<std::chrono::milliseconds> parse_duration(const std::string& text) {
  if (text == "0") return std::chrono::milliseconds(0);
  // Nanoseconds in a unit; "µs" in both of its Unicode spellings, as Go's time.ParseDuration.
  const std::pair<std::string_view, long double> units[] = {{"ns", 1},        {"us", 1e3},  {"\u00b5s", 1e3},
                                                            {"\u03bcs", 1e3}, {"ms", 1e6},  {"s", 1e9},
                                                            {"m", 60e9},      {"h", 3600e9}};
  std::string_view rest = text;
  long double total = 0;
  if (rest.empty()) return std::nullopt;
  while (!rest.empty()) {
    std::size_t digits = 0, fraction = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits])))
      ++digits;
    std::size_t number = digits;
    if (number < rest.size() && rest[number] == '.') {
      ++number;
      while (number < rest.size() && std::isdigit(static_cast<unsigned char>(rest[number]))) {
        ++number;
        ++fraction;
      }
    }
    if (digits + fraction == 0 || number > 40) return std::nullopt;  // ".s", "s", absurd lengths
    long double amount = std::stold(std::string(rest.substr(0, number)));
    rest.remove_prefix(number);
    std::size_t unit_length = 0;
    while (unit_length < rest.size() && !std::isdigit(static_cast<unsigned char>(rest[unit_length])) &&
           rest[unit_length] != '.')
      ++unit_length;
    std::string_view unit = rest.substr(0, unit_length);
    const auto* found = std::find_if(std::begin(units), std::end(units),
                                     [unit](const auto& entry) { return entry.first == unit; });
    if (found == std::end(units)) return std::nullopt;  // a missing or unknown unit
    total += amount * found->second;
    rest.remove_prefix(unit_length);
  }
  if (total > 1e18L) return std::nullopt;  // past 31 years: a typo, and past what the clocks hold
  // Rounded up to whole milliseconds: "1ns" is no instant.
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(total / 1e6L)));
}

std::string format_duration(std::chrono::milliseconds duration) {
  long long ms = duration.count();
  if (ms == 0) return "0s";
  if (ms < 1000) return fmt::format("{}ms", ms);
  std::string out;
  long long hours = ms / 3'600'000, minutes = ms / 60'000 % 60, seconds = ms / 1000 % 60, rest = ms % 1000;
  if (hours > 0) out += fmt::format("{}h", hours);
  if (hours > 0 || minutes > 0) out += fmt::format("{}m", minutes);
  if (rest == 0) return out + fmt::format("{}s", seconds);
  std::string fraction = fmt::format("{:03}", rest);
  fraction.erase(fraction.find_last_not_of('0') + 1);
  return out + fmt::format("{}.{}s", seconds, fraction);
}

RunConfig parse_run_config(const std::string& text, const std::string& file) {
  auto documents = model::parse_yaml_documents(text, file);
  if (documents.size() != 1)
    throw InvalidInputError({Problem{file, 1, "", "a config file holds exactly one Config document"}});
  const auto& document = documents.front();
  std::vector<Problem> problems;
  FieldReader reader(document, problems, file);
  RunConfig config;
  config.file = file;
  std::optional<std::string> api_version, kind;
  reader.read_map("", "",
                  {{"apiVersion", reader.into(api_version)},
                   {"kind", reader.into(kind)},
                   {"metadata",
                    [&](const Json&, const std::string& pointer, const std::string& path) {
                      reader.read_map(pointer, path,
                                      {{"name", reader.into_string(config.name)},
                                       {"namespace", reader.into_string(config.namespace_name)}});
                    }},
                   {"spec", [](const Json&, const std::string&, const std::string&) {}}});
  if (api_version != k_config_api_version)
    reader.problem("/apiVersion", "apiVersion", fmt::format("must be {}", k_config_api_version));
  if (kind != k_config_kind) reader.problem("/kind", "kind", "must be Config");
  read_spec(reader, config);
  if (!problems.empty()) throw InvalidInputError(std::move(problems));
  return config;
}

const char* to_string(NotificationType type) {
  switch (type) {
    case NotificationType::webhook:
      return "webhook";
    case NotificationType::slack:
      return "slack";
    case NotificationType::github:
      return "github";
    case NotificationType::gitlab:
      return "gitlab";
  }
  return "webhook";
}

std::string set_object_name(const std::string& config_name) {
  return "opctl-" + config_name;
}

bool is_config_file_path(const std::string& path) {
  const std::string name = k_config_file_name;
  if (path == name) return true;
  if (path.size() <= name.size() || !path.ends_with(name)) return false;
  char before = path[path.size() - name.size() - 1];
  return before == '/' || before == ':';
}

}  // namespace opctl::config
