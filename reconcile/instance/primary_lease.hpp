// The Cluster's primary Lease (coordination.k8s.io/v1, "<cluster>-primary",
// created by the pass, owned by the Cluster) as the instance manager reads
// and writes it. Every write is conditional: it carries the resourceVersion
// last read, so of two writers after the same read only one succeeds.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "instance/leadership.hpp"
#include "kube/http_transport.hpp"
#include "model/object.hpp"

namespace opctl::instance {

enum class WriteOutcome { written, conflict, failed };

class LeaseStore {
 public:
  virtual ~LeaseStore() = default;
  // The Lease now; nullopt while it does not exist (the pass creates it).
  // Throws an opctl::Error when it cannot be read.
  virtual std::optional<LeaseRecord> read() = 0;
  // Writes `record` if the Lease still has record.resource_version; on
  // success `record` carries the new version. `error` says why it failed.
  virtual WriteOutcome write(LeaseRecord& record, std::string& error) = 0;
};

// Through the API server, with a transport of its own (short timeouts, no
// retries: a renewal that cannot land within its retry period is retried by
// the next one, never queued behind it).
class KubeLeaseStore : public LeaseStore {
 public:
  KubeLeaseStore(std::unique_ptr<kube::HttpTransport> transport, std::string namespace_name,
                 std::string name);
  std::optional<LeaseRecord> read() override;
  WriteOutcome write(LeaseRecord& record, std::string& error) override;

 private:
  std::string path() const;
  std::unique_ptr<kube::HttpTransport> transport_;
  std::string namespace_name_;
  std::string name_;
  model::Json last_;  // the Lease as last read or written: metadata is written back as it was
};

// The Lease's JSON <-> the record (annotations opctl.io/synchronous-standbys "2:db-2,db-3" and
// opctl.io/timeline).
LeaseRecord lease_record(const model::Json& lease);
void put_record(model::Json& lease, const LeaseRecord& record);

}  // namespace opctl::instance
