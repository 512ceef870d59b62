#include <catch2/catch.hpp>

#include "validate/reference_checks.hpp"
#include "validate_fixtures.hpp"

using opctl::validate::DesiredIndex;
using opctl::validate::Finding;
using opctl::validate::reference_findings;
namespace testing = opctl::validate::testing;

namespace {

std::vector<std::string> warnings_for(const std::string& yaml) {
  auto objects = testing::objects_from(yaml);
  DesiredIndex desired(objects);
  std::vector<std::string> lines;
  for (const auto& finding : reference_findings(desired)) {
    CHECK(finding.severity == Finding::Severity::warning);
    lines.push_back(finding.problem.to_string());
  }
  return lines;
}

const char* k_rbac = R"(apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: shop}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: raeder}
subjects: [{kind: ServiceAccount, name: web}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: viewers, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: other-namespace, namespace: blog}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
)";

const char* k_workload = R"(apiVersion: v1
kind: ConfigMap
metadata: {name: web-config, namespace: shop}
data: {LOG_LEVEL: info}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      serviceAccountName: web
      containers:
        - name: web
          envFrom:
            - configMapRef: {name: web-config}
            - configMapRef: {name: web-confg}
            - secretRef: {name: web-secret}
          env:
            - name: A
              valueFrom: {configMapKeyRef: {name: web-config, key: MISSING}}
            - name: B
              valueFrom: {configMapKeyRef: {name: elsewhere, key: x, optional: true}}
      volumes:
        - name: config
          configMap: {name: files}
        - name: ca
          configMap: {name: kube-root-ca.crt}
)";

}  // namespace

TEST_CASE("a RoleBinding to a Role not in the set is a warning with a suggestion", "[validate][references]") {
  // Given Roles in the set, we should warn about the misspelt one and the one in another namespace, but not
  // about the built-in ClusterRole view or ServiceAccounts (the set has none).
  CHECK(warnings_for(k_rbac) ==
        std::vector<std::string>{
            "test.yaml:8: roleRef.name: Role shop/raeder is not in the manifests (did you "
            "mean \"reader\"?)",
            "test.yaml:19: roleRef.name: Role blog/reader is not in the manifests",
        });
}

TEST_CASE("references are checked only for kinds the set has", "[validate][references]") {
  // Given ConfigMaps but no Secrets and no ServiceAccounts in the set, we should only warn about ConfigMaps.
  CHECK(warnings_for(k_workload) ==
        std::vector<std::string>{
            "test.yaml:17: spec.template.spec.containers[0].envFrom[1].configMapRef.name: ConfigMap "
            "shop/web-confg "
            "is not in the manifests (did you mean \"web-config\"?)",
            "test.yaml:21: spec.template.spec.containers[0].env[0].valueFrom.configMapKeyRef.key: ConfigMap "
            "shop/web-config has no key \"MISSING\"",
            "test.yaml:26: spec.template.spec.volumes[0].configMap.name: ConfigMap shop/files is not in the "
            "manifests",
        });
}

TEST_CASE("a set without the referenced kinds has no reference warnings", "[validate][references]") {
  CHECK(warnings_for(R"(apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: shop}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: backup
          containers: [{name: c, envFrom: [{secretRef: {name: creds}}]}]
)")
            .empty());
}

TEST_CASE("a CronJob's ServiceAccount must be in the set when the set has ServiceAccounts",
          "[validate][references]") {
  CHECK(warnings_for(R"(apiVersion: v1
kind: ServiceAccount
metadata: {name: web, namespace: shop}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: shop}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: backup
)") == std::vector<std::string>{"test.yaml:13: spec.jobTemplate.spec.template.spec.serviceAccountName: "
                                "ServiceAccount shop/backup is not in the manifests"});
}

TEST_CASE("an object without a namespace matches any namespace", "[validate][references]") {
  // Given no default namespace is known, we should not guess that these differ.
  CHECK(warnings_for(R"(apiVersion: v1
kind: Secret
metadata: {name: creds}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: shop}
spec:
  containers: [{name: c, env: [{name: P, valueFrom: {secretKeyRef: {name: creds, key: password}}}]}]
  imagePullSecrets: [{name: creds}]
)") == std::vector<std::string>{"test.yaml:9: spec.containers[0].env[0].valueFrom.secretKeyRef.key: Secret "
                                "shop/creds has no key \"password\""});
}
