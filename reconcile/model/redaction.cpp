#include "model/redaction.hpp"

#include <algorithm>
#include <cctype>

#include "model/ascii_case.hpp"

namespace opctl::model {

std::string redact_credentials(std::string_view text, const std::vector<std::string>& secrets) {
  std::string out;
  std::size_t position = 0;
  while (true) {
    auto separator = text.find("://", position);
    if (separator == std::string_view::npos) break;
    std::size_t scheme_start = separator;
    while (scheme_start > position && (std::isalnum(static_cast<unsigned char>(text[scheme_start - 1])) ||
                                       text[scheme_start - 1] == '+' || text[scheme_start - 1] == '-'))
      --scheme_start;
    std::size_t authority_start = separator + 3;
    std::size_t authority_end = text.find_first_of("/ \t\n\"'?#", authority_start);
    if (authority_end == std::string_view::npos) authority_end = text.size();
    std::string_view authority = text.substr(authority_start, authority_end - authority_start);
    out.append(text.substr(position, authority_start - position));
    position = authority_start;
    auto at = authority.rfind('@');
    if (at == std::string_view::npos) continue;
    std::string scheme = ascii_lower(text.substr(scheme_start, separator - scheme_start));
    std::string_view userinfo = authority.substr(0, at);
    if (scheme != "http" && scheme != "https") {
      auto colon = userinfo.find(':');
      out.append(userinfo.substr(0, colon));
      if (colon != std::string_view::npos) out.append(":***");
      out.push_back('@');
    }
    position = authority_start + at + 1;
  }
  out.append(text.substr(position));
  for (const auto& secret : secrets) {
    if (secret.empty()) continue;
    for (auto found = out.find(secret); found != std::string::npos; found = out.find(secret, found + 3))
      out.replace(found, secret.size(), "***");
  }
  return out;
}

bool url_has_credentials(std::string_view url) {
  return redact_credentials(url) != url;
}

}  // namespace opctl::model
