// The events of a YAML stream, read with libyaml's event parser, with aliases
// expanded in place. Checks what yaml-cpp's parser checked, so that
// parse_yaml_documents reports the same syntax errors it did.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct yaml_parser_s;

namespace opctl::model {

enum class YamlEventKind {
  stream_start,
  stream_end,
  document_start,
  document_end,
  mapping_start,
  mapping_end,
  sequence_start,
  sequence_end,
  scalar,
  alias,
};

struct YamlEvent {
  YamlEventKind kind = YamlEventKind::stream_end;
  int line = 0;             // 0-based line where the event starts (a node's anchor or tag, if it has one)
  bool plain = false;       // a scalar written without quotes or block indicator
  bool empty_node = false;  // a null that libyaml supplied for a missing node, such as a bare `-`;
                            // its line is that of the next token, as yaml-cpp had it
  std::string tag;          // as resolved (`!!str` is tag:yaml.org,2002:str); empty when none was written
  std::string anchor;       // the node's anchor; for an alias the anchor it names
  std::string value;        // a scalar's text
};

class YamlEventStream {
 public:
  // `max_depth` only names the limit in the error that yaml-cpp's own nesting
  // guard used to raise (see k_parser_depth_limit in the .cpp).
  YamlEventStream(std::string_view text, const std::string& file, std::size_t max_depth);
  ~YamlEventStream();
  YamlEventStream(const YamlEventStream&) = delete;
  YamlEventStream& operator=(const YamlEventStream&) = delete;

  // The next event, with aliases already replaced by the events of their
  // anchored node (an alias to a node still open repeats without end; the
  // caller's limits stop it). The reference holds until the next call.
  // Throws InvalidInputError naming the file and line on a syntax error.
  const YamlEvent& next();

  // Whether the event last returned by next() starts the expansion of an
  // alias: `<<: *list` is refused where `<<: [*a, *b]` is not.
  bool expands_alias() const { return expands_alias_; }

  // The text of a scalar event from next(): moved out when the event was
  // read from the text, copied when it is replayed for an alias.
  std::string take_value(const YamlEvent& scalar);

  // Reads the rest of the stream only to find a syntax error in it (thrown
  // as from next()); used after a conversion error, which yaml-cpp reported
  // only when the whole stream had parsed.
  void drain();

 private:
  struct Recorded {
    YamlEvent event;
    std::size_t alias_target = 0;  // for an alias: index in anchors_ of the anchor it named when read
  };
  struct Anchor {
    std::size_t begin = 0;  // in recorded_
    std::size_t end = 0;    // in recorded_; k_open while the node has not ended
  };
  struct OpenAnchor {
    std::size_t depth = 0;  // collections open around the anchored node
    std::size_t anchor = 0;
  };
  struct Replay {
    std::size_t next = 0;
    std::size_t end = 0;
  };
  struct ParserDeleter {
    void operator()(yaml_parser_s* parser) const;
  };

  void read_live();
  void note_anchors_and_depth();
  int next_token_line(std::size_t line, std::size_t column);
  std::size_t alias_target(const YamlEvent& alias) const;
  void push_replay(std::size_t anchor);
  [[noreturn]] void throw_libyaml_error() const;

  std::string_view text_;
  const std::string& file_;
  std::size_t max_depth_;
  std::unique_ptr<yaml_parser_s, ParserDeleter> parser_;
  YamlEvent live_;
  std::size_t live_alias_target_ = 0;  // when live_ is an alias: the index in anchors_ of its anchor
  bool expands_alias_ = false;
  std::size_t depth_ = 0;                 // collections open in the text (aliases not expanded)
  std::vector<std::size_t> line_starts_;  // offset of each line in text_, filled when first needed

  // Anchors of the current document (yaml-cpp scoped them to a document):
  // the events of each anchored node are recorded so an alias can replay them.
  std::vector<Recorded> recorded_;
  std::vector<Anchor> anchors_;
  std::unordered_map<std::string, std::size_t> anchor_by_name_;
  std::vector<OpenAnchor> open_anchors_;
  std::vector<Replay> replays_;
};

}  // namespace opctl::model
