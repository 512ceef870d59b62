#include "source/sops_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "source/sops_cipher.hpp"
#include "source/sops_metadata.hpp"
#include "source/sops_scalar.hpp"

namespace opctl::source {
namespace {

// SOPS seeds the hash with these bytes when only encrypted values count, so the
// two kinds of MAC never match each other.
constexpr unsigned char k_mac_only_encrypted_seed[] = {
    0x8a, 0x3f, 0xd2, 0xad, 0x54, 0xce, 0x66, 0x52, 0x7b, 0x10, 0x34, 0xf3, 0xd1, 0x47, 0xbe, 0x0b,
    0x0b, 0x97, 0x5b, 0x3b, 0xf4, 0x4f, 0x72, 0xc6, 0xfd, 0xad, 0xec, 0x81, 0x76, 0xf2, 0x7d, 0x69};

int line_of(const YAML::Node& node) {
  return node.Mark().is_null() ? 0 : node.Mark().line + 1;
}

std::string dotted(const std::vector<std::string>& path) {
  return fmt::format("{}", fmt::join(path, "."));
}

struct Replacement {
  std::size_t offset;
  std::size_t length;
  std::string text;
};

// Where the scalar starting at `offset` ends: after its closing quote, or
// after the `]` of a plain ENC[...] (base64 holds no ']').
std::optional<std::size_t> scalar_length(const std::string& content, std::size_t offset) {
  if (offset >= content.size()) return std::nullopt;
  char quote = content[offset];
  std::size_t start = (quote == '"' || quote == '\'') ? offset + 1 : offset;
  if (content.compare(start, 4, "ENC[") != 0) return std::nullopt;
  std::size_t close = content.find(']', start);
  if (close == std::string::npos) return std::nullopt;
  std::size_t end = close + 1;
  if (start != offset) {
    if (end >= content.size() || content[end] != quote) return std::nullopt;
    ++end;
  }
  return end - offset;
}

// One SOPS file: the walk SOPS's Tree.Decrypt makes, in document and key
// order, each value's path as additional data, every value into the MAC.
class FileDecryption {
 public:
  FileDecryption(const ManifestFile& file, const sops::Metadata& metadata, std::string key,
                 std::vector<Problem>& problems)
      : file_(file), metadata_(metadata), key_(std::move(key)), problems_(problems) {
    if (metadata_.mac_only_encrypted)
      hash_.add({reinterpret_cast<const char*>(k_mac_only_encrypted_seed), sizeof k_mac_only_encrypted_seed});
  }

  void document(const YAML::Node& document, int index) {
    if (!document.IsMap()) return;
    std::vector<std::string> path;
    for (const auto& entry : document) {
      std::string key = entry.first.Scalar();
      if (key == "sops") continue;
      path.assign(1, key);
      walk(entry.second, path);
    }
    check_kind(document, index);
  }

  // The MAC SOPS wrote, against the one computed; then the text with every
  // ciphertext replaced. Empty when anything failed (problems say what).
  std::optional<std::string> finish() {
    if (failed_) return std::nullopt;
    auto mac = sops::parse_encrypted_value(metadata_.mac);
    auto written = mac ? sops::decrypt_value(*mac, key_, metadata_.last_modified) : std::nullopt;
    if (!written || *written != hash_.hex()) {
      problems_.push_back(
          {file_.path, metadata_.mac_line, "sops.mac",
           "the MAC does not match: the file was changed after it was encrypted (edit it with "
           "'sops', never by hand)"});
      return std::nullopt;
    }
    std::string content = file_.content;
    std::sort(replacements_.begin(), replacements_.end(),
              [](const Replacement& a, const Replacement& b) { return a.offset > b.offset; });
    for (const auto& replacement : replacements_)
      content.replace(replacement.offset, replacement.length, replacement.text);
    return content;
  }

 private:
  void walk(const YAML::Node& node, std::vector<std::string>& path) {
    if (node.IsMap()) {
      for (const auto& entry : node) {
        path.push_back(entry.first.Scalar());
        walk(entry.second, path);
        path.pop_back();
      }
    } else if (node.IsSequence()) {
      for (const auto& item : node)
        walk(item, path);  // SOPS adds no index to the path
    } else if (node.IsScalar()) {
      leaf(node, path);
    }
  }

  void leaf(const YAML::Node& node, const std::vector<std::string>& path) {
    const std::string& text = node.Scalar();
    bool plain = node.Tag() == "?";
    bool encrypted =
        metadata_.comment_rules ? sops::looks_encrypted(text) : metadata_.should_be_encrypted(path);
    if (!encrypted) {
      if (metadata_.mac_only_encrypted) return;
      if (plain) {
        if (auto bytes = sops::mac_bytes_of_plain_scalar(text)) hash_.add(*bytes);
      } else {
        hash_.add(text);
      }
      return;
    }
    if (text.empty()) return;  // SOPS leaves an empty value as it is
    auto value = sops::parse_encrypted_value(text);
    if (!value) {
      fail(node, path, "should be encrypted but is not an ENC[AES256_GCM,...] value (changed by hand?)");
      return;
    }
    std::string additional_data = fmt::format("{}:", fmt::join(path, ":"));
    auto plaintext = sops::decrypt_value(*value, key_, additional_data);
    if (!plaintext) {
      fail(node, path, "cannot be decrypted: the data key does not open it, or it was moved or changed");
      return;
    }
    auto scalar = sops::decrypted_scalar(*plaintext, value->type);
    if (!scalar) {
      fail(node, path,
           fmt::format("decrypts to something a manifest cannot hold as type \"{}\"", value->type));
      return;
    }
    hash_.add(scalar->mac_bytes);
    auto offset = static_cast<std::size_t>(node.Mark().pos);
    auto length = scalar_length(file_.content, offset);
    if (!length) {
      fail(node, path, "cannot find the encrypted value in the file's text");
      return;
    }
    if (path.size() == 1) top_level_[path.front()] = *plaintext;
    replacements_.push_back({offset, *length, std::move(scalar->yaml)});
  }

  // Only a Secret's values are masked by opctl diff, so only Secrets may be encrypted.
  void check_kind(const YAML::Node& document, int index) {
    auto value = [&](const char* key) {
      if (auto found = top_level_.find(key); found != top_level_.end()) return found->second;
      const YAML::Node node = document[key];
      return node && node.IsScalar() ? node.Scalar() : std::string();
    };
    std::string api_version = value("apiVersion"), kind = value("kind");
    top_level_.clear();
    if (api_version == "v1" && kind == "Secret") return;
    problems_.push_back(
        {file_.path, line_of(document), "kind",
         fmt::format("document {} of a SOPS-encrypted file is a {} {}: opctl decrypts Secrets only "
                     "(diffs mask a Secret's values, and nothing else's); move it to a file of its "
                     "own",
                     index + 1, api_version.empty() ? "(no apiVersion)" : api_version,
                     kind.empty() ? "(no kind)" : kind)});
    failed_ = true;
  }

  void fail(const YAML::Node& node, const std::vector<std::string>& path, const std::string& why) {
    problems_.push_back({file_.path, line_of(node), dotted(path), why});
    failed_ = true;
  }

  const ManifestFile& file_;
  const sops::Metadata& metadata_;
  std::string key_;
  std::vector<Problem>& problems_;
  sops::MacHash hash_;
  std::vector<Replacement> replacements_;
  std::map<std::string, std::string> top_level_;
  bool failed_ = false;
};

// A ciphertext in a file without a sops block would be applied as it is.
void find_stray_ciphertexts(const YAML::Node& node, const std::string& file, std::vector<Problem>& problems) {
  if (node.IsMap()) {
    for (const auto& entry : node)
      find_stray_ciphertexts(entry.second, file, problems);
  } else if (node.IsSequence()) {
    for (const auto& item : node)
      find_stray_ciphertexts(item, file, problems);
  } else if (node.IsScalar() && sops::looks_encrypted(node.Scalar())) {
    problems.push_back(
        {file, line_of(node), "",
         "holds a SOPS ciphertext (ENC[...]) but the file has no sops block: it would be applied "
         "encrypted (was the sops block removed?)"});
  }
}

bool may_hold_sops(const std::string& content) {
  return content.find("ENC[") != std::string::npos;
}

void decrypt_file(ManifestFile& file, const SopsOptions& options, std::vector<Problem>& problems) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(file.content);
  } catch (const YAML::Exception&) {
    return;  // the manifest parser reports the syntax error with its line
  }
  std::optional<sops::Metadata> metadata;
  for (const auto& document : documents)
    if ((metadata = sops::read_metadata(document, file.path, problems))) break;
  if (!metadata) {
    for (const auto& document : documents)
      find_stray_ciphertexts(document, file.path, problems);
    return;
  }
  if (file.rendered) {
    problems.push_back(
        {file.path, 0, "",
         "kustomize output holds a SOPS-encrypted document: opctl decrypts files it reads itself, "
         "not what kustomize renders (list the Secret outside the kustomization)"});
    return;
  }
  int line = line_of(documents.front()["sops"]);
  if (metadata->key_groups) {
    problems.push_back(
        {file.path, line, "sops.key_groups", "SOPS key groups (Shamir's secret sharing) are not supported"});
    return;
  }
  if (metadata->age.empty()) {
    problems.push_back({file.path, line, "sops",
                        fmt::format("is encrypted for {} only: opctl unwraps data keys with age identities",
                                    metadata->other_key_types.empty()
                                        ? std::string("no key")
                                        : fmt::format("{}", fmt::join(metadata->other_key_types, ", ")))});
    return;
  }
  if (options.files.empty()) {
    problems.push_back({file.path, line, "sops",
                        "is SOPS-encrypted and no age identity is given: pass --sops-age-key-file (or set "
                        "SOPS_AGE_KEY_FILE)"});
    return;
  }
  std::size_t before = problems.size();
  std::string key = sops::unwrap_data_key(metadata->age, options, file.path, line, problems);
  if (problems.size() != before) return;
  FileDecryption decryption(file, *metadata, std::move(key), problems);
  for (std::size_t index = 0; index < documents.size(); ++index)
    decryption.document(documents[index], static_cast<int>(index));
  if (auto content = decryption.finish()) {
    file.content = std::move(*content);
    file.sops_metadata = true;
  }
}

}  // namespace

std::vector<ManifestFile> decrypt_sops_files(std::vector<ManifestFile> files, const SopsOptions& options) {
  std::vector<Problem> problems;
  for (auto& file : files)
    if (may_hold_sops(file.content)) decrypt_file(file, options, problems);
  if (!problems.empty()) throw InvalidInputError(std::move(problems));
  return files;
}

}  // namespace opctl::source
