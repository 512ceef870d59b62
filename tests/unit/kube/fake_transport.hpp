// A scripted HttpTransport for unit tests of the kube layer: answers by exact
// path (or path prefix), streams scripted chunks, and records every request.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "kube/http_transport.hpp"

namespace opctl::kube::testing {

class FakeTransport : public HttpTransport {
 public:
  struct Streamed {
    long status = 200;
    std::vector<std::string> chunks;
    std::string transport_error;  // set: the stream "broke off" after the chunks
  };

  std::vector<HttpRequest> requests;
  // path -> responses, used in order; the last one repeats.
  std::map<std::string, std::deque<HttpResponse>> responses;
  // Streams in the order the watch asks for them.
  std::deque<Streamed> streams;

  void answer(const std::string& path, long status, std::string body) {
    responses[path].push_back(HttpResponse{status, std::move(body), "", 1});
  }

  std::vector<HttpResponse> send_all(const std::vector<HttpRequest>& batch) override {
    std::vector<HttpResponse> out;
    for (const auto& request : batch) {
      requests.push_back(request);
      out.push_back(respond(request.path));
    }
    return out;
  }

  HttpResponse stream(const HttpRequest& request, const ChunkHandler& on_chunk) override {
    requests.push_back(request);
    if (streams.empty()) return HttpResponse{0, "", "no more scripted streams", 1};
    Streamed next = std::move(streams.front());
    streams.pop_front();
    HttpResponse response{next.status, "", next.transport_error, 1};
    for (const auto& chunk : next.chunks) {
      if (next.status != 200) {
        response.body += chunk;
      } else if (!on_chunk(chunk)) {
        response.transport_error.clear();
        return response;
      }
    }
    return response;
  }

  int count(const std::string& path_prefix) const {
    int n = 0;
    for (const auto& request : requests) n += request.path.rfind(path_prefix, 0) == 0 ? 1 : 0;
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
