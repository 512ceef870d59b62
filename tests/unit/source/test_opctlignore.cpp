// .opctlignore: gitignore matching, and how the manifest walk applies it.
#include <catch2/catch.hpp>
#include <map>

#include "source/manifest_tree.hpp"
#include "source/opctlignore.hpp"
#include "support/memory_tree.hpp"

using opctl::source::CollectOptions;
using opctl::source::FileTree;
using opctl::source::glob_segment_match;
using opctl::source::IgnoreRules;

namespace {

using opctl::testing::MemoryTree;

struct Case {
  const char* rules;
  const char* path;
  bool is_directory;
  bool ignored;
};

bool ignored(const char* rules, const char* path, bool is_directory = false) {
  IgnoreRules ignore;
  ignore.add(rules);
  return ignore.ignored(path, is_directory);
}

std::vector<std::string> collected(MemoryTree tree, const std::string& root) {
  CollectOptions options{opctl::source::load_ignore_rules(tree, root),
                         [](const std::filesystem::path& directory, const std::string&) {
                           return "rendered " + directory.string();
                         },
                         {}};
  std::vector<std::string> paths;
  for (const auto& file : opctl::source::collect_manifests(tree, root, options))
    paths.push_back(file.path);
  return paths;
}

}  // namespace

TEST_CASE("gitignore patterns match as git matches them", "[opctlignore]") {
  // Given one rule set and a path, we should agree with `git check-ignore`.
  const Case cases[] = {
      {"*.yaml", "a.yaml", false, true},
      {"*.yaml", "deep/dir/a.yaml", false, true},  // no slash: any depth
      {"*.yaml", "a.json", false, false},
      {"/top.yaml", "top.yaml", false, true},  // leading slash anchors
      {"/top.yaml", "sub/top.yaml", false, false},
      {"sub/a.yaml", "sub/a.yaml", false, true},  // a middle slash anchors too
      {"sub/a.yaml", "x/sub/a.yaml", false, false},
      {"build/", "build", true, true},  // trailing slash: directories only
      {"build/", "build", false, false},
      {"build/", "x/build/file.yaml", false, true},  // ... and everything in them
      {"**/tests", "a/b/tests", true, true},
      {"**/tests", "tests", true, true},  // leading ** also matches nothing
      {"a/**/b.yaml", "a/b.yaml", false, true},
      {"a/**/b.yaml", "a/x/y/b.yaml", false, true},
      {"a/**", "a/x/y.yaml", false, true},
      {"a/**", "a", true, false},  // trailing ** is what is inside
      {"?.yaml", "a.yaml", false, true},
      {"?.yaml", "ab.yaml", false, false},
      {"[ab].yaml", "b.yaml", false, true},
      {"[!ab].yaml", "b.yaml", false, false},
      {"[a-c]*.yaml", "cat.yaml", false, true},
      {"*.yaml\n!keep.yaml", "keep.yaml", false, false},  // negation re-includes
      {"*.yaml\n!keep.yaml", "drop.yaml", false, true},
      {"dir/\n!dir/keep.yaml", "dir/keep.yaml", false, true},  // not inside an excluded directory
      {"dir/*\n!dir/keep.yaml", "dir/keep.yaml", false, false},
      {"# comment\n\n", "# comment", false, false},
      {"\\#hash.yaml", "#hash.yaml", false, true},
      {"\\!bang.yaml", "!bang.yaml", false, true},
      {"trailing.yaml   ", "trailing.yaml", false, true},  // unescaped trailing blanks dropped
      {"*.yaml\r\n", "a.yaml", false, true},               // CRLF files
      {"secret*", "secrets/x.yaml", false, true},          // directories match plain patterns too
  };
  for (const auto& c : cases) {
    INFO("rules: " << c.rules << "  path: " << c.path);
    CHECK(ignored(c.rules, c.path, c.is_directory) == c.ignored);
  }
}

TEST_CASE("rules of a nested ignore file only apply below its directory", "[opctlignore]") {
  // Given rules added with base "apps", we should not match outside apps/.
  IgnoreRules ignore;
  ignore.add("/local.yaml\n*.tmp.yaml", "apps");
  CHECK(ignore.ignored("apps/local.yaml", false));
  CHECK_FALSE(ignore.ignored("local.yaml", false));
  CHECK_FALSE(ignore.ignored("apps/sub/local.yaml", false));
  CHECK(ignore.ignored("apps/sub/x.tmp.yaml", false));
  CHECK_FALSE(ignore.ignored("other/x.tmp.yaml", false));
  CHECK_FALSE(ignore.ignored("appsx/x.tmp.yaml", false));
}

TEST_CASE("glob segments", "[opctlignore]") {
  CHECK(glob_segment_match("*", ""));
  CHECK(glob_segment_match("a*b*c", "aXXbYYc"));
  CHECK_FALSE(glob_segment_match("a*b*c", "aXXbYY"));
  CHECK(glob_segment_match("[", "["));  // an unterminated bracket is literal
  CHECK(glob_segment_match("\\*", "*"));
  CHECK_FALSE(glob_segment_match("\\*", "x"));
}

TEST_CASE("the manifest walk honours ignore files at, above and below the root", "[opctlignore]") {
  // Given ignore files at the repository root, the source root and below it, we should skip what each names.
  MemoryTree tree({{".opctlignore", "**/drafts/\n"},
                   {"apps/.opctlignore", "*.local.yaml\n"},
                   {"apps/a.yaml", "a"},
                   {"apps/a.local.yaml", "x"},
                   {"apps/drafts/d.yaml", "x"},
                   {"apps/sub/.opctlignore", "!b.local.yaml\nnope.yaml\n"},
                   {"apps/sub/b.local.yaml", "b"},
                   {"apps/sub/nope.yaml", "x"},
                   {"apps/sub/z.json", "z"},
                   {"apps/.hidden/h.yaml", "x"},
                   {"apps/readme.md", "x"},
                   {"other/o.yaml", "x"}});
  CHECK(collected(tree, "apps") == std::vector<std::string>{"repo@abc:apps/a.yaml",
                                                            "repo@abc:apps/sub/b.local.yaml",
                                                            "repo@abc:apps/sub/z.json"});
}

TEST_CASE("a directory with a kustomization becomes its rendered output", "[opctlignore]") {
  // Given a kustomization below the root, we should render it once and not read its files.
  MemoryTree tree(
      {{"a.yaml", "a"}, {"overlay/kustomization.yaml", "k"}, {"overlay/patch.yaml", "p"}, {"z.yaml", "z"}});
  auto paths = collected(tree, "");
  CHECK(paths == std::vector<std::string>{"repo@abc:a.yaml", "repo@abc:overlay (kustomize output)",
                                          "repo@abc:z.yaml"});
}

TEST_CASE("manifests are sorted by path part by part", "[opctlignore]") {
  // Given a-b.yaml next to a directory a, we should list a/ first (as std::filesystem::path orders).
  MemoryTree tree({{"a-b.yaml", "1"}, {"a/x.yaml", "2"}, {"B.yml", "3"}});
  CHECK(collected(tree, "") ==
        std::vector<std::string>{"repo@abc:B.yml", "repo@abc:a/x.yaml", "repo@abc:a-b.yaml"});
}
