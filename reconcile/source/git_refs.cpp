#include "source/git_refs.hpp"

#include <algorithm>
#include <cctype>

namespace opctl::source {

namespace {
bool is_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}
}  // namespace

bool is_full_commit_id(std::string_view ref) {
  return ref.size() == 40 && is_hex(ref);
}

RefCandidates ref_candidates(std::string_view ref) {
  RefCandidates candidates;
  candidates.commit_first = is_full_commit_id(ref);
  candidates.may_be_commit = ref.size() >= 4 && ref.size() <= 40 && is_hex(ref);
  std::string name(ref);
  if (name.starts_with("refs/heads/")) {
    candidates.references.push_back(std::string(k_remote_branches) + name.substr(11));
  } else if (name.starts_with("refs/")) {
    candidates.references.push_back(name);
  } else {
    candidates.references.push_back("refs/tags/" + name);
    candidates.references.push_back(std::string(k_remote_branches) + name);
  }
  return candidates;
}

std::string branch_short_name(std::string_view reference) {
  for (std::string_view prefix : {std::string_view("refs/heads/"), k_remote_branches})
    if (reference.starts_with(prefix)) return std::string(reference.substr(prefix.size()));
  return std::string(reference);
}

}  // namespace opctl::source
