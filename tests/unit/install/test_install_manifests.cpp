#include <algorithm>
#include <catch2/catch.hpp>

#include "install/install_manifests.hpp"

using opctl::install::InstallOptions;
using opctl::install::RbacRules;
using opctl::model::Json;

namespace {

InstallOptions options() {
  InstallOptions options;
  options.config_name = "shop";
  options.image = "ghcr.io/opctl/opctl:0.1.0";
  options.config_text = opctl::install::minimal_config_text("shop", "opctl-system");
  options.repo = "https://git.example/ops.git";
  options.path = "prod";
  return options;
}

std::vector<std::string> kinds_of(const std::vector<Json>& objects) {
  std::vector<std::string> kinds;
  for (const auto& object : objects)
    kinds.push_back(object["kind"]);
  return kinds;
}

}  // namespace

TEST_CASE("given computed rules we should emit objects in the order they can be applied", "[install]") {
  RbacRules rbac;
  rbac.namespaced["shop"].allow("", "configmaps", {"get"});
  rbac.namespaced["opctl-system"].allow("", "secrets", {"create"});
  rbac.cluster.allow("", "namespaces", {"list"});
  auto objects = opctl::install::install_manifests(options(), rbac);
  CHECK(kinds_of(objects) == std::vector<std::string>{"Namespace", "Namespace", "ServiceAccount",
                                                      "ClusterRole", "ClusterRoleBinding", "Role",
                                                      "RoleBinding", "Role", "RoleBinding", "ConfigMap",
                                                      "CronJob"});
  CHECK(objects[1]["metadata"] == Json{{"name", "shop"}});
  CHECK(objects[3]["metadata"]["name"] == "opctl:opctl-system:shop");
  CHECK(objects[4]["subjects"][0]["name"] == "opctl-shop");
  CHECK(objects[4]["subjects"][0]["namespace"] == "opctl-system");
}

TEST_CASE("given --rbac cluster-admin we should bind cluster-admin and nothing else", "[install]") {
  auto install = options();
  install.cluster_admin = true;
  RbacRules rbac;
  rbac.namespaced["shop"].allow("", "configmaps", {"get"});
  auto objects = opctl::install::install_manifests(install, rbac);
  CHECK(kinds_of(objects) == std::vector<std::string>{"Namespace", "ServiceAccount", "ClusterRoleBinding",
                                                      "ConfigMap", "CronJob"});
  CHECK(objects[2]["roleRef"]["name"] == "cluster-admin");
}

TEST_CASE("given the defaults we should run a hardened CronJob that never overlaps", "[install]") {
  Json job = opctl::install::cron_job(options());
  const Json& spec = job["spec"];
  CHECK(spec["schedule"] == "*/5 * * * *");
  CHECK(spec["concurrencyPolicy"] == "Forbid");
  CHECK(spec.contains("startingDeadlineSeconds"));
  CHECK(spec["jobTemplate"]["spec"].contains("backoffLimit"));
  const Json& pod = spec["jobTemplate"]["spec"]["template"]["spec"];
  CHECK(pod["serviceAccountName"] == "opctl-shop");
  CHECK(pod["securityContext"]["runAsNonRoot"] == true);
  CHECK(pod["securityContext"]["runAsUser"] != 0);
  const Json& container = pod["containers"][0];
  CHECK(container["securityContext"]["readOnlyRootFilesystem"] == true);
  CHECK(container["securityContext"]["capabilities"]["drop"] == Json::array({"ALL"}));
  CHECK(container["resources"].contains("limits"));
  CHECK(container["args"] ==
        Json::array({"reconcile", "-f", "/etc/opctl/config/opctl.yaml", "--cache-dir", "/var/cache/opctl/git",
                     "--repo", "https://git.example/ops.git", "--path", "prod"}));
}

TEST_CASE("given a git secret we should mount it and point opctl at files, never copy it", "[install]") {
  auto install = options();
  install.git_secret = "ops-git";
  install.repo = "git@git.example:ops.git";
  auto args = opctl::install::reconcile_args(install);
  CHECK(std::find(args.begin(), args.end(), "/etc/opctl/git/ssh-privatekey") != args.end());
  install.repo = "https://git.example/ops.git";
  args = opctl::install::reconcile_args(install);
  CHECK(std::find(args.begin(), args.end(), "/etc/opctl/git/token") != args.end());
  Json pod = opctl::install::cron_job(install)["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  bool mounted = false;
  for (const auto& volume : pod["volumes"])
    if (volume.contains("secret")) mounted = volume["secret"]["secretName"] == "ops-git";
  CHECK(mounted);
}

TEST_CASE("given an age Secret we should mount only its identity and pass its path", "[install]") {
  auto install = options();
  install.sops_age_secret = "sops-age";
  auto args = opctl::install::reconcile_args(install);
  auto flag = std::find(args.begin(), args.end(), "--sops-age-key-file");
  REQUIRE(flag != args.end());
  CHECK(*(flag + 1) == "/etc/opctl/sops-age/age.agekey");
  Json pod = opctl::install::cron_job(install)["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  Json volume;
  for (const auto& candidate : pod["volumes"])
    if (candidate["name"] == "sops-age") volume = candidate;
  REQUIRE(volume.is_object());
  CHECK(volume["secret"]["secretName"] == "sops-age");
  CHECK(volume["secret"]["items"] == Json::parse(R"([{"key": "age.agekey", "path": "age.agekey"}])"));
  bool mounted_read_only = false;
  for (const auto& mount : pod["containers"][0]["volumeMounts"])
    if (mount["name"] == "sops-age")
      mounted_read_only = mount["readOnly"] == true && mount["mountPath"] == "/etc/opctl/sops-age";
  CHECK(mounted_read_only);
  install.sops_age_secret = "Not_A_Name";
  auto problems = opctl::install::option_problems(install);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "--sops-age-secret");
}

TEST_CASE("given commit verification we should mount the trust files the install verifies with",
          "[install]") {
  auto install = options();
  install.verify_commits = true;
  install.verify_ssh = true;
  install.verify_secret = "ops-trust";
  CHECK(opctl::install::option_problems(install).empty());
  auto args = opctl::install::reconcile_args(install);
  auto flag = std::find(args.begin(), args.end(), "--verify-allowed-signers");
  REQUIRE(flag != args.end());
  CHECK(*(flag + 1) == "/etc/opctl/verify/allowed_signers");
  CHECK(std::find(args.begin(), args.end(), "--verify-commits") != args.end());
  CHECK(std::find(args.begin(), args.end(), "--verify-gpg-keyring") == args.end());
  Json pod = opctl::install::cron_job(install)["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  Json items;
  for (const auto& volume : pod["volumes"])
    if (volume["name"] == "verify") items = volume["secret"]["items"];
  CHECK(items == Json::parse(R"([{"key": "allowed_signers", "path": "allowed_signers"}])"));

  install.verify_gpg = true;
  args = opctl::install::reconcile_args(install);
  CHECK(std::find(args.begin(), args.end(), "/etc/opctl/verify/keyring.gpg") != args.end());

  auto unverified = options();
  unverified.verify_secret = "ops-trust";
  auto problems = opctl::install::option_problems(unverified);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "--verify-secret");
  auto no_secret = options();
  no_secret.verify_commits = no_secret.verify_gpg = true;
  problems = opctl::install::option_problems(no_secret);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "--verify-commits");
}

TEST_CASE("given bad options we should name each flag", "[install]") {
  auto install = options();
  install.schedule = "every day";
  install.namespace_name = "Opctl_System";
  auto problems = opctl::install::option_problems(install);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].field == "--namespace");
  CHECK(problems[1].field == "--schedule");
}

TEST_CASE("given a repo URL with a password or token we should refuse it and point at --git-secret",
          "[install]") {
  for (std::string repo :
       {"https://user:hunter2@git.example/ops.git", "https://ghp_token@git.example/ops.git",
        "ssh://git:hunter2@git.example/ops.git"}) {
    auto install = options();
    install.repo = repo;
    auto problems = opctl::install::option_problems(install);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].field == "--repo");
    CHECK_THAT(problems[0].message, Catch::Contains("--git-secret"));
    CHECK(problems[0].message.find("hunter2") == std::string::npos);
    CHECK(problems[0].message.find("ghp_token") == std::string::npos);
  }
  auto ssh = options();
  ssh.repo = "git@git.example:ops.git";
  CHECK(opctl::install::option_problems(ssh).empty());
}

TEST_CASE("given --name we should pass it on to the CronJob's runs", "[install]") {
  auto install = options();
  install.set_name = "shop";
  auto args = opctl::install::reconcile_args(install);
  auto found = std::find(args.begin(), args.end(), "--name");
  REQUIRE(found != args.end());
  CHECK(*(found + 1) == "shop");
}

TEST_CASE("given a notify secret we should mount all of it read-only at /etc/opctl/notify",
          "[install][notify]") {
  auto install = options();
  install.notify_secret = "opctl-notify";
  CHECK(opctl::install::option_problems(install).empty());
  Json pod = opctl::install::cron_job(install)["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  Json volume;
  for (const auto& found : pod["volumes"])
    if (found["name"] == "notify") volume = found;
  CHECK(volume["secret"] == Json::parse(R"({"secretName": "opctl-notify", "defaultMode": 288})"));
  bool mounted_read_only = false;
  for (const auto& mount : pod["containers"][0]["volumeMounts"])
    if (mount["name"] == "notify")
      mounted_read_only = mount["readOnly"] == true && mount["mountPath"] == "/etc/opctl/notify";
  CHECK(mounted_read_only);
  install.notify_secret = "Not_A_Name";
  auto problems = opctl::install::option_problems(install);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "--notify-secret");
}

TEST_CASE("given a metrics push and its secret we should pass the URL and mount only the authorization key",
          "[install][metrics]") {
  auto install = options();
  install.metrics_push_url = "http://pushgateway.monitoring:9091";
  install.metrics_push_auth_secret = "opctl-metrics";
  CHECK(opctl::install::option_problems(install).empty());
  auto args = opctl::install::reconcile_args(install);
  auto push = std::find(args.begin(), args.end(), "--metrics-push");
  REQUIRE(push != args.end());
  CHECK(*(push + 1) == "http://pushgateway.monitoring:9091");
  auto auth = std::find(args.begin(), args.end(), "--metrics-push-auth-file");
  REQUIRE(auth != args.end());
  CHECK(*(auth + 1) == "/etc/opctl/metrics-push/authorization");
  Json pod = opctl::install::cron_job(install)["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  Json volume;
  for (const auto& found : pod["volumes"])
    if (found["name"] == "metrics-push") volume = found;
  CHECK(volume["secret"] == Json::parse(R"({"secretName": "opctl-metrics", "defaultMode": 288,
      "items": [{"key": "authorization", "path": "authorization"}]})"));
  bool mounted_read_only = false;
  for (const auto& mount : pod["containers"][0]["volumeMounts"])
    if (mount["name"] == "metrics-push")
      mounted_read_only = mount["readOnly"] == true && mount["mountPath"] == "/etc/opctl/metrics-push";
  CHECK(mounted_read_only);
}

TEST_CASE("without a metrics push the CronJob pushes nothing and mounts nothing for it",
          "[install][metrics]") {
  auto args = opctl::install::reconcile_args(options());
  CHECK(std::find(args.begin(), args.end(), "--metrics-push") == args.end());
  CHECK(std::find(args.begin(), args.end(), "--metrics-push-auth-file") == args.end());
}

TEST_CASE("a metrics push URL that is not http or carries credentials is refused", "[install][metrics]") {
  auto install = options();
  install.metrics_push_url = "pushgateway:9091";
  auto problems = opctl::install::option_problems(install);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "--metrics-push");
  install.metrics_push_url = "https://user:hunter2@gw.example";
  problems = opctl::install::option_problems(install);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0].message, Catch::Contains("--metrics-push-auth-secret"));
  CHECK_THAT(problems[0].message, !Catch::Contains("hunter2"));
  install.metrics_push_url.clear();
  install.metrics_push_auth_secret = "Not_A_Name";
  problems = opctl::install::option_problems(install);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "--metrics-push-auth-secret");
}
