// Parsing for validation: like source::parse_manifests, but a bad document
// does not hide the rest, so one run reports every problem of every file.
#pragma once

#include <vector>

#include "model/error.hpp"
#include "model/object.hpp"
#include "source/manifest_file.hpp"

namespace opctl::validate {

struct LoadedManifests {
  std::vector<model::Object> objects;  // every object with a valid identity
  std::vector<Problem> problems;       // syntax, encoding, size, identity, duplicates
};

// Parses file by file. In a file with problems, the documents that are
// still objects with a valid identity are kept for the later checks
// (the items of a `kind: List` in such a file are not).
LoadedManifests load_manifests(const std::vector<source::ManifestFile>& files);

}  // namespace opctl::validate
