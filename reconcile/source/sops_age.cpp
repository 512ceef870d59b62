#include "source/sops_age.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "process/child_process.hpp"
#include "source/kustomize.hpp"

namespace opctl::source::sops {
namespace {

constexpr std::size_t k_data_key_bytes = 32;

// age's last line of complaint, without its "age: error: " prefix.
std::string age_complaint(const std::string& err) {
  std::string text = err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  auto last = text.rfind('\n');
  if (last != std::string::npos) text = text.substr(last + 1);
  for (std::string_view prefix : {"age: error: ", "age: "})
    if (text.starts_with(prefix)) text = text.substr(prefix.size());
  return text.empty() ? "no output" : text;
}

}  // namespace

std::string unwrap_data_key(const std::vector<AgeStanza>& stanzas, const AgeIdentities& identities,
                            const std::string& file, int line, std::vector<Problem>& problems) {
  const char* search_path = std::getenv("PATH");
  auto age = find_program("age", search_path != nullptr ? search_path : "/usr/bin:/bin");
  if (!age) {
    problems.push_back({file, line, "sops.age",
                        "is SOPS-encrypted with age, and the 'age' program is not on PATH "
                        "(Debian and Ubuntu: apt-get install age)"});
    return "";
  }
  std::vector<std::string> argv = {age->string(), "--decrypt"};
  for (const auto& identity : identities.files) {
    argv.push_back("--identity");
    argv.push_back(identity);
  }
  std::string last_complaint;
  for (const auto& stanza : stanzas) {
    process::ProcessOptions options;
    options.input = stanza.armored_data_key;
    options.timeout = identities.timeout;
    auto result = process::run_process(argv, options);
    if (result.timed_out) {
      last_complaint = fmt::format("age did not finish within {}s", identities.timeout.count());
      continue;
    }
    if (result.exit_code == 0 && result.out.size() == k_data_key_bytes) return result.out;
    last_complaint =
        result.exit_code == 0 ? "age printed a data key of the wrong size" : age_complaint(result.err);
  }
  std::vector<std::string> recipients;
  for (const auto& stanza : stanzas)
    recipients.push_back(stanza.recipient);
  problems.push_back({file, line, "sops.age",
                      fmt::format("no age identity opens this file's data key (recipients: {}; age said: {})",
                                  fmt::join(recipients, ", "), last_complaint)});
  return "";
}

}  // namespace opctl::source::sops
