#include "model/yaml_events.hpp"

#include <yaml.h>

#include <algorithm>
#include <limits>
#include <new>

#include "model/error.hpp"

namespace opctl::model {
namespace {

constexpr std::size_t k_open = std::numeric_limits<std::size_t>::max();

// yaml-cpp refused, while parsing, any node nested this deep (its DepthGuard
// of 500 calls, the document's root being the first). The same check here
// keeps such a stream an error of the parse, reported before any conversion
// error of an earlier document, as it was.
constexpr std::size_t k_parser_depth_limit = 499;

// Frees what libyaml allocated for one event, however the scope is left.
class EventHolder {
 public:
  EventHolder() = default;
  ~EventHolder() {
    if (filled_) yaml_event_delete(&event_);
  }
  EventHolder(const EventHolder&) = delete;
  EventHolder& operator=(const EventHolder&) = delete;
  yaml_event_t* fill_target() { return &event_; }
  void mark_filled() { filled_ = true; }
  const yaml_event_t& event() const { return event_; }

 private:
  yaml_event_t event_{};
  bool filled_ = false;
};

void assign(std::string& target, const yaml_char_t* text) {
  if (text == nullptr) {
    target.clear();
  } else {
    target.assign(reinterpret_cast<const char*>(text));
  }
}

bool starts_node(YamlEventKind kind) {
  return kind == YamlEventKind::scalar || kind == YamlEventKind::mapping_start ||
         kind == YamlEventKind::sequence_start || kind == YamlEventKind::alias;
}

void copy_event(const yaml_event_t& from, YamlEvent& to) {
  to.line = static_cast<int>(from.start_mark.line);
  to.plain = false;
  to.empty_node = false;
  to.tag.clear();
  to.anchor.clear();
  to.value.clear();
  switch (from.type) {
    case YAML_STREAM_START_EVENT:
      to.kind = YamlEventKind::stream_start;
      break;
    case YAML_NO_EVENT:
    case YAML_STREAM_END_EVENT:
      to.kind = YamlEventKind::stream_end;
      break;
    case YAML_DOCUMENT_START_EVENT:
      to.kind = YamlEventKind::document_start;
      break;
    case YAML_DOCUMENT_END_EVENT:
      to.kind = YamlEventKind::document_end;
      break;
    case YAML_ALIAS_EVENT:
      to.kind = YamlEventKind::alias;
      assign(to.anchor, from.data.alias.anchor);
      break;
    case YAML_SCALAR_EVENT: {
      const auto& scalar = from.data.scalar;
      to.kind = YamlEventKind::scalar;
      to.plain = scalar.style == YAML_PLAIN_SCALAR_STYLE;
      assign(to.tag, scalar.tag);
      assign(to.anchor, scalar.anchor);
      to.value.assign(reinterpret_cast<const char*>(scalar.value), scalar.length);
      // libyaml makes up an empty plain scalar, with no extent, where a node
      // is missing; yaml-cpp placed such a null elsewhere (see the builder).
      to.empty_node = to.plain && scalar.length == 0 && scalar.tag == nullptr && scalar.anchor == nullptr &&
                      from.start_mark.index == from.end_mark.index;
      break;
    }
    case YAML_SEQUENCE_START_EVENT:
      to.kind = YamlEventKind::sequence_start;
      assign(to.tag, from.data.sequence_start.tag);
      assign(to.anchor, from.data.sequence_start.anchor);
      break;
    case YAML_SEQUENCE_END_EVENT:
      to.kind = YamlEventKind::sequence_end;
      break;
    case YAML_MAPPING_START_EVENT:
      to.kind = YamlEventKind::mapping_start;
      assign(to.tag, from.data.mapping_start.tag);
      assign(to.anchor, from.data.mapping_start.anchor);
      break;
    case YAML_MAPPING_END_EVENT:
      to.kind = YamlEventKind::mapping_end;
      break;
  }
}

}  // namespace

void YamlEventStream::ParserDeleter::operator()(yaml_parser_s* parser) const {
  yaml_parser_delete(parser);
  delete parser;
}

YamlEventStream::YamlEventStream(std::string_view text, const std::string& file, std::size_t max_depth)
    : text_(text), file_(file), max_depth_(max_depth), parser_(new yaml_parser_t{}) {
  if (yaml_parser_initialize(parser_.get()) == 0) throw std::bad_alloc();
  yaml_parser_set_input_string(parser_.get(), reinterpret_cast<const unsigned char*>(text_.data()),
                               text_.size());
}

YamlEventStream::~YamlEventStream() = default;

const YamlEvent& YamlEventStream::next() {
  expands_alias_ = false;
  while (true) {
    if (!replays_.empty()) {
      Replay& replay = replays_.back();
      if (replay.next == replay.end) {
        replays_.pop_back();
        continue;
      }
      const Recorded& recorded = recorded_[replay.next++];
      if (recorded.event.kind != YamlEventKind::alias) return recorded.event;
      push_replay(recorded.alias_target);
      expands_alias_ = true;
      continue;
    }
    read_live();
    if (live_.kind != YamlEventKind::alias) return live_;
    push_replay(live_alias_target_);
    expands_alias_ = true;
  }
}

std::string YamlEventStream::take_value(const YamlEvent& scalar) {
  if (&scalar == &live_) return std::move(live_.value);
  return scalar.value;
}

void YamlEventStream::drain() {
  replays_.clear();
  while (live_.kind != YamlEventKind::stream_end)
    read_live();
}

void YamlEventStream::read_live() {
  EventHolder holder;
  if (yaml_parser_parse(parser_.get(), holder.fill_target()) == 0) throw_libyaml_error();
  holder.mark_filled();
  copy_event(holder.event(), live_);
  if (live_.empty_node)
    live_.line = next_token_line(holder.event().start_mark.line, holder.event().start_mark.column);
  note_anchors_and_depth();
}

// Registers anchors, records the events of anchored nodes, checks aliases and
// nesting: what yaml-cpp did while parsing, before building any node.
void YamlEventStream::note_anchors_and_depth() {
  const YamlEventKind kind = live_.kind;
  if (kind == YamlEventKind::document_start) {
    recorded_.clear();
    anchors_.clear();
    anchor_by_name_.clear();
    open_anchors_.clear();
    return;
  }
  if (starts_node(kind) && !live_.empty_node && depth_ >= k_parser_depth_limit)
    throw InvalidInputError(
        {Problem{.file = file_,
                 .line = live_.line + 1,
                 .field = "",
                 .message = "nesting deeper than " + std::to_string(max_depth_) + " levels"}});
  if (kind == YamlEventKind::alias) live_alias_target_ = alias_target(live_);  // throws for an unknown anchor
  if (starts_node(kind) && !live_.anchor.empty() && kind != YamlEventKind::alias) {
    // Registered when the node starts, so an alias inside it refers to it.
    anchors_.push_back(Anchor{.begin = recorded_.size(), .end = k_open});
    anchor_by_name_[live_.anchor] = anchors_.size() - 1;
    open_anchors_.push_back(OpenAnchor{.depth = depth_, .anchor = anchors_.size() - 1});
  }
  if (kind == YamlEventKind::mapping_start || kind == YamlEventKind::sequence_start) ++depth_;
  if (kind == YamlEventKind::mapping_end || kind == YamlEventKind::sequence_end) --depth_;
  if (open_anchors_.empty()) return;
  recorded_.push_back(Recorded{.event = live_, .alias_target = live_alias_target_});
  while (!open_anchors_.empty() && open_anchors_.back().depth == depth_ &&
         kind != YamlEventKind::mapping_start && kind != YamlEventKind::sequence_start) {
    anchors_[open_anchors_.back().anchor].end = recorded_.size();
    open_anchors_.pop_back();
  }
}

// yaml-cpp gave a missing node the position of the token after it (the next
// `-` of a sequence, say, or the key after `key:`), where libyaml puts it
// right after the `-` or `:`; field lines and errors keep yaml-cpp's line.
int YamlEventStream::next_token_line(std::size_t line, std::size_t column) {
  if (line_starts_.empty()) {
    line_starts_.push_back(0);
    for (std::size_t at = text_.find('\n'); at != std::string_view::npos; at = text_.find('\n', at + 1))
      line_starts_.push_back(at + 1);
  }
  if (line >= line_starts_.size()) return static_cast<int>(line);
  std::size_t at = line_starts_[line];
  for (std::size_t skipped = 0; skipped < column && at < text_.size(); ++skipped) {
    ++at;  // the column counts characters: skip a UTF-8 sequence's continuation bytes
    while (at < text_.size() && (static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80)
      ++at;
  }
  int next_line = static_cast<int>(line);
  for (bool in_comment = false; at < text_.size(); ++at) {
    const char c = text_[at];
    if (c == '\n') {
      ++next_line;
      in_comment = false;
    } else if (c == '#') {
      in_comment = true;
    } else if (c != ' ' && c != '\t' && c != '\r' && !in_comment) {
      break;
    }
  }
  return next_line;
}

std::size_t YamlEventStream::alias_target(const YamlEvent& alias) const {
  auto found = anchor_by_name_.find(alias.anchor);
  if (found == anchor_by_name_.end())
    throw InvalidInputError(
        {Problem{.file = file_,
                 .line = alias.line + 1,
                 .field = "",
                 .message = "YAML syntax error: the referenced anchor is not defined: " + alias.anchor}});
  return found->second;
}

void YamlEventStream::push_replay(std::size_t anchor) {
  // An anchor still open replays what has been read of it so far, which ends
  // with the alias itself: a node that contains itself, as yaml-cpp built it.
  const Anchor& target = anchors_[anchor];
  replays_.push_back(
      Replay{.next = target.begin, .end = target.end == k_open ? recorded_.size() : target.end});
}

[[noreturn]] void YamlEventStream::throw_libyaml_error() const {
  const yaml_parser_t& parser = *parser_;
  if (parser.error == YAML_MEMORY_ERROR) throw std::bad_alloc();
  std::string message = "YAML syntax error: ";
  message += parser.problem != nullptr ? parser.problem : "unknown error";
  int line = static_cast<int>(parser.problem_mark.line) + 1;
  if (parser.error == YAML_READER_ERROR) {
    // The reader (bad UTF-8, say) gives a byte offset, not a mark.
    const std::size_t offset = std::min(parser.problem_offset, text_.size());
    line = static_cast<int>(
               std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(offset), '\n')) +
           1;
  } else if (parser.context != nullptr) {
    message += std::string(" (") + parser.context + " that started at line " +
               std::to_string(parser.context_mark.line + 1) + ")";
  }
  throw InvalidInputError({Problem{.file = file_, .line = line, .field = "", .message = message}});
}

}  // namespace opctl::model
