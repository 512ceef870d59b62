// A scripted HttpTransport for unit tests of the kube layer: answers by exact
// path (or path prefix) and records every request.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "kube/http_transport.hpp"

namespace opctl::kube::testing {

class FakeTransport : public HttpTransport {
 public:
  std::vector<HttpRequest> requests;
  std::vector<std::size_t> batch_sizes;  // requests per send_all call
  // path -> responses, used in order; the last one repeats.
  std::map<std::string, std::deque<HttpResponse>> responses;

  void answer(const std::string& path, long status, std::string body) {
    responses[path].push_back(HttpResponse{status, std::move(body), "", 1});
  }

  std::vector<HttpResponse> send_all(const std::vector<HttpRequest>& batch) override {
    std::vector<HttpResponse> out;
    batch_sizes.push_back(batch.size());
    for (const auto& request : batch) {
      requests.push_back(request);
      out.push_back(respond(request.path));
    }
    return out;
  }

  int count(const std::string& path_prefix) const {
    int n = 0;
    for (const auto& request : requests)
      n += request.path.rfind(path_prefix, 0) == 0 ? 1 : 0;
    return n;
  }

 private:
  HttpResponse respond(const std::string& path) {
    auto found = responses.find(path);
    if (found == responses.end()) {
      // The longest scripted prefix of the path (query strings vary).
      std::size_t best = 0;
      for (auto it = responses.begin(); it != responses.end(); ++it)
        if (path.rfind(it->first, 0) == 0 && it->first.size() > best) {
          best = it->first.size();
          found = it;
        }
    }
    if (found == responses.end() || found->second.empty())
      return HttpResponse{
          404, R"({"kind":"Status","reason":"NotFound","message":"not scripted: )" + path + "\"}", "", 1};
    HttpResponse response = found->second.front();
    if (found->second.size() > 1) found->second.pop_front();
    return response;
  }
};

}  // namespace opctl::kube::testing
