// Why one notification could not be sent. Never a failed pass: the notifier
// turns it into a warning line.
#pragma once

#include <string>

#include "model/error.hpp"

namespace opctl::notify {

class NotificationError : public Error {
 public:
  explicit NotificationError(const std::string& message) : Error(ErrorCategory::cluster, message) {}
};

}  // namespace opctl::notify
