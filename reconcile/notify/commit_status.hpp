// Commit statuses on the commit a pass applied: GitHub's
// POST /repos/{owner}/{repo}/statuses/{sha} (Authorization: Bearer) and
// GitLab's POST /projects/{id}/statuses/{sha} (PRIVATE-TOKEN). The API base
// URL and the repository come from the entry, or from the source's git URL.
#pragma once

#include <string>

#include "config/run_config.hpp"
#include "notify/http_poster.hpp"
#include "notify/pass_event.hpp"

namespace opctl::notify {

// The API base URL without a trailing '/': apiURL, else from the source's host
// (api.github.com for github.com, https://<host>/api/v3 for GitHub
// Enterprise, https://<host>/api/v4 for GitLab), else the public service's.
std::string api_base_url(const config::Notification& entry, const PassEvent& event);

// "opctl/<set>" ("opctl" for an unnamed set) unless the entry names one.
std::string status_context(const config::Notification& entry, const PassEvent& event);

// The request for a github or gitlab entry. Throws NotificationError when
// there is no commit to mark (a plain directory, a work tree with changes) or
// no repository can be told.
HttpRequest commit_status_request(const config::Notification& entry, const PassEvent& event,
                                  const std::string& token);

}  // namespace opctl::notify
