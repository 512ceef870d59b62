// Failures inside an instance: a PostgreSQL program that failed, a query
// that failed, a data directory in a state the manager cannot act on. The
// message is what the Pod's opctl.io/instance-error annotation shows.
#pragma once

#include <string>

#include "model/error.hpp"

namespace opctl::instance {

class InstanceError : public Error {
 public:
  explicit InstanceError(const std::string& message) : Error(ErrorCategory::cluster, message) {}
};

}  // namespace opctl::instance
