// A manifest file as read from a directory or a git tree, before parsing.
#pragma once

#include <string>
#include <vector>

namespace opctl::source {

struct ManifestFile {
  std::string path;  // as shown to the user in messages: relative to the source root
  std::string content;
  bool rendered = false;       // kustomize's output for a directory, not a file of the source
  bool sops_metadata = false;  // decrypted from SOPS: each document's top-level `sops` block is not a field
};

struct FileLimits {
  std::size_t max_file_bytes = 8 * 1024 * 1024;
};

// True for the file names opctl reads: *.yaml, *.yml, *.json.
bool is_manifest_file_name(const std::string& name);

}  // namespace opctl::source
