#include "kube/http_transport.hpp"

namespace opctl::kube {

HttpResponse HttpTransport::stream(const HttpRequest& request, const ChunkHandler& on_chunk) {
  HttpResponse response = send(request);
  if (response.status >= 200 && response.status < 300) {
    if (!response.body.empty()) on_chunk(response.body);
    response.body.clear();
  }
  return response;
}

}  // namespace opctl::kube
