#include "set_lease.hpp"

namespace opctl::cli {

std::unique_ptr<apply::LeaseLock> lock_set(const CommonOptions& options, ClusterConnection& connection,
                                           const plan::ApplySetParent& parent) {
  if (!options.config.lease_enabled) return nullptr;
  // The same transport settings as every other request (user agent, -v logging, exec timeout).
  auto lease = apply::LeaseLock::acquire(
      kube::make_curl_transport(connection.config, transport_options(options)),
      {parent.name, parent.namespace_name, apply::default_lease_holder(), options.config.lease_duration});
  connection.client->set_write_gate([raw = lease.get()] { raw->ensure_held(); });
  return lease;
}

}  // namespace opctl::cli
