#include "source/git_tree.hpp"

#include <stdlib.h>

#include <fstream>

#include "model/error.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

FileTree::Kind kind_of_mode(git_filemode_t mode) {
  switch (mode) {
    case GIT_FILEMODE_TREE:
      return FileTree::Kind::directory;
    case GIT_FILEMODE_BLOB:
    case GIT_FILEMODE_BLOB_EXECUTABLE:
      return FileTree::Kind::file;
    case GIT_FILEMODE_LINK:
      return FileTree::Kind::symlink;
    default:
      return FileTree::Kind::other;  // symbolic links and submodules are not followed
  }
}

}  // namespace

GitTree::GitTree(git_repository& repository, git_commit& commit, std::string display_prefix)
    : repository_(repository), display_prefix_(std::move(display_prefix)) {
  git_tree* raw = nullptr;
  check_cache(git_commit_tree(&raw, &commit),
              "tree of commit " + std::string(git_oid_tostr_s(git_commit_id(&commit))));
  root_.reset(raw);
}

GitTree::~GitTree() {
  if (!materialised_.empty()) {
    std::error_code ignored;
    fs::remove_all(materialised_, ignored);
  }
}

GitTree::PathKind GitTree::kind_of(const std::string& path) const {
  if (path.empty()) return PathKind::directory;
  git_tree_entry* raw = nullptr;
  int code = git_tree_entry_bypath(&raw, root_.get(), path.c_str());
  if (code == GIT_ENOTFOUND) return PathKind::missing;
  check_cache(code, "tree entry " + path);
  TreeEntryPtr entry(raw);
  switch (kind_of_mode(git_tree_entry_filemode(entry.get()))) {
    case Kind::directory:
      return PathKind::directory;
    case Kind::file:
      return PathKind::file;
    case Kind::symlink:
    case Kind::other:
      break;
  }
  return PathKind::other;
}

TreePtr GitTree::subtree(const std::string& directory) const {
  git_tree* raw = nullptr;
  if (directory.empty()) {
    check_cache(git_tree_dup(&raw, root_.get()), "root tree");
    return TreePtr(raw);
  }
  git_tree_entry* entry_raw = nullptr;
  check_cache(git_tree_entry_bypath(&entry_raw, root_.get(), directory.c_str()), "tree entry " + directory);
  TreeEntryPtr entry(entry_raw);
  check_cache(git_tree_lookup(&raw, &repository_, git_tree_entry_id(entry.get())), "tree " + directory);
  return TreePtr(raw);
}

std::vector<FileTree::Entry> GitTree::list(const std::string& directory) const {
  TreePtr tree = subtree(directory);
  std::vector<Entry> entries;
  for (std::size_t i = 0, count = git_tree_entrycount(tree.get()); i < count; ++i) {
    const git_tree_entry* entry = git_tree_entry_byindex(tree.get(), i);
    entries.push_back({git_tree_entry_name(entry), kind_of_mode(git_tree_entry_filemode(entry))});
  }
  return entries;
}

std::string GitTree::read(const std::string& path) const {
  git_tree_entry* entry_raw = nullptr;
  check_cache(git_tree_entry_bypath(&entry_raw, root_.get(), path.c_str()), "tree entry " + path);
  TreeEntryPtr entry(entry_raw);
  git_blob* raw = nullptr;
  check_cache(git_blob_lookup(&raw, &repository_, git_tree_entry_id(entry.get())), "blob " + path);
  BlobPtr blob(raw);
  const char* content = static_cast<const char*>(git_blob_rawcontent(blob.get()));
  return std::string(content, static_cast<std::size_t>(git_blob_rawsize(blob.get())));
}

void GitTree::write_tree(git_tree& tree, const fs::path& target) const {
  fs::create_directories(target);
  for (std::size_t i = 0, count = git_tree_entrycount(&tree); i < count; ++i) {
    const git_tree_entry* entry = git_tree_entry_byindex(&tree, i);
    fs::path path = target / git_tree_entry_name(entry);
    git_object* raw = nullptr;
    Kind kind = kind_of_mode(git_tree_entry_filemode(entry));
    if (kind == Kind::other || kind == Kind::symlink) continue;
    check_cache(git_tree_entry_to_object(&raw, &repository_, entry), "object " + path.string());
    ObjectPtr object(raw);
    if (kind == Kind::directory) {
      write_tree(*reinterpret_cast<git_tree*>(object.get()), path);
      continue;
    }
    auto* blob = reinterpret_cast<git_blob*>(object.get());
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(git_blob_rawcontent(blob)),
              static_cast<std::streamsize>(git_blob_rawsize(blob)));
    if (!out) throw Error(ErrorCategory::internal, "cannot write " + path.string());
  }
}

fs::path GitTree::on_disk(const std::string& directory) {
  if (materialised_.empty()) {
    std::string pattern = (fs::temp_directory_path() / "opctl-git-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error(ErrorCategory::internal, "cannot create a temporary directory");
    materialised_ = pattern;
    write_tree(*root_, materialised_ / "tree");
  }
  return directory.empty() ? materialised_ / "tree" : materialised_ / "tree" / directory;
}

std::string GitTree::display(const std::string& path) const {
  return display_prefix_ + (path.empty() ? "." : path);
}

}  // namespace opctl::source
