// CopyParser: COPY's text and CSV formats, fed in chunks (copy_reader.h).
//
// Input is appended to buf_ and parsed from pos_; a row that is not complete
// yet stays in buf_ for the next Feed. The common case (no backslash in a
// text line, no quote in a CSV line) splits the line with memchr and hands out
// views into buf_; otherwise the fields are decoded into scratch_, reserved
// up front so that the views into it stay valid for the whole row.
#include <cstring>

#include "olap/session/format/copy_reader.h"

namespace forktail {

namespace {

// PostgreSQL shows at most this many bytes of a line in CONTEXT (copyfrom.c).
constexpr size_t kMaxDisplay = 100;

}  // namespace

std::string CopyContextText(std::string_view text) {
  if (text.size() <= kMaxDisplay) return std::string(text);
  size_t n = kMaxDisplay;
  // Do not cut a UTF-8 sequence in half.
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) n--;
  return std::string(text.substr(0, n)) + "...";
}

CopyParser::CopyParser(CopyOptions options, std::string relation, RowFn on_row)
    : options_(std::move(options)),
      relation_(std::move(relation)),
      on_row_(std::move(on_row)),
      delimiter_(options_.EffectiveDelimiter()),
      null_(options_.EffectiveNull()),
      header_pending_(options_.header) {
  options_.Validate();
}

CopyParser::~CopyParser() = default;

void CopyParser::Feed(std::string_view bytes) {
  if (ended_) return;
  bytes_seen_ += bytes.size();
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(bytes);
  Drain(false);
}

void CopyParser::Finish() {
  if (!ended_) Drain(true);
  buf_.clear();
  pos_ = 0;
}

void CopyParser::Drain(bool at_end) {
  const bool csv = options_.format == CopyFormat::kCsv;
  while (!ended_ && pos_ < buf_.size()) {
    if (!(csv ? NextCsv(at_end) : NextText(at_end))) break;
  }
}

void CopyParser::Fail(const char* sqlstate, const std::string& message, std::string_view raw) {
  throw DbError(sqlstate, message + "\nCONTEXT:  COPY " + relation_ + ", line " +
                              std::to_string(line_ + 1) + ": \"" + CopyContextText(raw) + "\"");
}

// `line` includes a trailing '\r' if there was one before the '\n'. Sets
// *had_cr if it is the \r\n line ending to strip, per the style fixed by the
// first line.
void CopyParser::CheckLineEnd(std::string_view line, bool* had_cr) {
  *had_cr = !line.empty() && line.back() == '\r';
  if (eol_crlf_ < 0) eol_crlf_ = *had_cr ? 1 : 0;
  if (eol_crlf_ == 1 && !*had_cr) {
    Fail(sqlstate::kBadCopyFileFormat, "literal newline found in data", line);
  }
  // In "\n" mode a '\r' before the newline stays in the line: the caller
  // reports it as a literal carriage return.
  if (eol_crlf_ == 0) *had_cr = false;
}

bool CopyParser::NextText(bool at_end) {
  const char* base = buf_.data();
  const size_t n = buf_.size();
  const size_t start = pos_;
  size_t scan = start;
  size_t nl;
  uint64_t escaped_newlines = 0;
  for (;;) {
    const void* p = std::memchr(base + scan, '\n', n - scan);
    if (p == nullptr) {
      if (!at_end) return false;
      nl = n;
      break;
    }
    nl = static_cast<const char*>(p) - base;
    // A newline after an odd run of backslashes is escaped: it is data.
    size_t run = 0;
    while (nl - run > start && base[nl - run - 1] == '\\') run++;
    if (run % 2 == 0) break;
    escaped_newlines++;
    scan = nl + 1;
  }
  std::string_view line(base + start, nl - start);
  if (nl < n) {
    bool had_cr;
    CheckLineEnd(line, &had_cr);
    if (had_cr) line.remove_suffix(1);
  }
  pos_ = nl < n ? nl + 1 : n;
  if (line.size() == 2 && line[0] == '\\' && line[1] == '.') {
    ended_ = true;
    return true;
  }
  if (const void* cr = std::memchr(line.data(), '\r', line.size());
      cr != nullptr && (cr == line.data() || static_cast<const char*>(cr)[-1] != '\\')) {
    Fail(sqlstate::kBadCopyFileFormat, "literal carriage return found in data", line);
  }
  SplitText(line);
  Emit(line);
  line_ += 1 + escaped_newlines;
  return true;
}

void CopyParser::SplitText(std::string_view line) {
  fields_.clear();
  const char* s = line.data();
  const size_t n = line.size();
  if (std::memchr(s, '\\', n) == nullptr) {
    size_t p = 0;
    for (;;) {
      const void* d = std::memchr(s + p, delimiter_, n - p);
      size_t e = d == nullptr ? n : static_cast<const char*>(d) - s;
      std::string_view f(s + p, e - p);
      fields_.push_back({f, f == null_});
      if (d == nullptr) return;
      p = e + 1;
    }
  }
  // Decoded text is never longer than the raw text: no reallocation below.
  scratch_.clear();
  scratch_.reserve(n);
  size_t i = 0;
  for (;;) {
    const size_t raw_start = i;
    const size_t out_start = scratch_.size();
    while (i < n && s[i] != delimiter_) {
      char c = s[i++];
      if (c != '\\' || i == n) {
        scratch_.push_back(c);
        continue;
      }
      c = s[i++];
      switch (c) {
        case 'b':
          scratch_.push_back('\b');
          break;
        case 'f':
          scratch_.push_back('\f');
          break;
        case 'n':
          scratch_.push_back('\n');
          break;
        case 'r':
          scratch_.push_back('\r');
          break;
        case 't':
          scratch_.push_back('\t');
          break;
        case 'v':
          scratch_.push_back('\v');
          break;
        case 'x': {
          int v = i < n ? HexValue(s[i]) : -1;
          if (v < 0) {
            scratch_.push_back('x');
            break;
          }
          i++;
          if (i < n && HexValue(s[i]) >= 0) v = v * 16 + HexValue(s[i++]);
          scratch_.push_back(static_cast<char>(v));
          break;
        }
        default:
          if (c >= '0' && c <= '7') {
            int v = c - '0';
            for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++) {
              v = v * 8 + (s[i++] - '0');
            }
            scratch_.push_back(static_cast<char>(v & 0xFF));
          } else {
            scratch_.push_back(c);  // \\, \<delimiter>, \<newline>, \.
          }
      }
    }
    std::string_view raw(s + raw_start, i - raw_start);
    fields_.push_back({std::string_view(scratch_).substr(out_start), raw == null_});
    if (i >= n) return;
    i++;  // the delimiter
  }
}

bool CopyParser::NextCsv(bool at_end) {
  const char* base = buf_.data();
  const size_t n = buf_.size();
  const size_t start = pos_;
  const void* p = std::memchr(base + start, '\n', n - start);
  if (p == nullptr && !at_end) return false;
  const size_t nl = p == nullptr ? n : static_cast<const char*>(p) - base;
  std::string_view line(base + start, nl - start);
  if (std::memchr(line.data(), options_.quote, line.size()) == nullptr) {
    // Fast path: one physical line, no quoting.
    if (nl < n) {
      bool had_cr;
      CheckLineEnd(line, &had_cr);
      if (had_cr) line.remove_suffix(1);
    }
    pos_ = nl < n ? nl + 1 : n;
    if (line.size() == 2 && line[0] == '\\' && line[1] == '.') {
      ended_ = true;
      return true;
    }
    if (std::memchr(line.data(), '\r', line.size()) != nullptr) {
      Fail(sqlstate::kBadCopyFileFormat, "literal carriage return found in data", line);
    }
    fields_.clear();
    size_t q = 0;
    for (;;) {
      const void* d = std::memchr(line.data() + q, delimiter_, line.size() - q);
      size_t e = d == nullptr ? line.size() : static_cast<const char*>(d) - line.data();
      std::string_view f = line.substr(q, e - q);
      fields_.push_back({f, f == null_});
      if (d == nullptr) break;
      q = e + 1;
    }
    Emit(line);
    line_ += 1;
    return true;
  }
  size_t consumed = 0;
  uint64_t newlines = 0;
  if (!ParseCsvRecord(start, at_end, &consumed, &newlines)) return false;
  pos_ = start + consumed;
  line_ += 1 + newlines;
  return true;
}

// Parses one CSV record starting at buf_[start] that contains a quote. Returns
// false if the buffer ends inside the record and more input may come.
bool CopyParser::ParseCsvRecord(size_t start, bool at_end, size_t* consumed, uint64_t* newlines) {
  const char* s = buf_.data();
  const size_t n = buf_.size();
  const char quote = options_.quote;
  const char escape = options_.EffectiveEscape();
  fields_.clear();
  scratch_.clear();
  scratch_.reserve(n - start);
  struct Span {
    size_t offset, length;
    bool is_null;
  };
  std::vector<Span> spans;
  size_t i = start;
  size_t record_end = start;  // end of the record's text (before its line ending)
  for (;;) {
    const size_t out_start = scratch_.size();
    bool quoted = false;
    bool end_of_record = false;
    for (;;) {
      if (i == n) {
        if (!at_end) return false;
        end_of_record = true;
        record_end = i;
        break;
      }
      char c = s[i];
      if (c == delimiter_) break;
      if (c == '\n' || c == '\r') {
        record_end = i;
        end_of_record = true;
        break;
      }
      if (c != quote) {
        scratch_.push_back(c);
        i++;
        continue;
      }
      quoted = true;
      i++;
      for (;;) {  // inside quotes
        if (i == n) {
          if (!at_end) return false;
          *newlines = 0;
          Fail(sqlstate::kBadCopyFileFormat, "unterminated CSV quoted field",
               std::string_view(s + start, n - start));
        }
        c = s[i];
        if (c == escape) {
          if (i + 1 == n && !at_end) return false;
          if (i + 1 < n && (s[i + 1] == quote || s[i + 1] == escape)) {
            scratch_.push_back(s[i + 1]);
            i += 2;
            continue;
          }
        }
        if (c == quote) {
          i++;
          break;
        }
        if (c == '\n') ++*newlines;
        scratch_.push_back(c);
        i++;
      }
    }
    std::string_view text = std::string_view(scratch_).substr(out_start);
    spans.push_back({out_start, text.size(), !quoted && text == null_});
    if (end_of_record) break;
    i++;  // the delimiter
  }
  // The record's line ending.
  std::string_view raw(s + start, record_end - start);
  size_t end = record_end;
  if (end < n) {
    if (s[end] == '\r') {
      if (end + 1 == n && !at_end) return false;
      if (end + 1 == n || s[end + 1] != '\n') {
        Fail(sqlstate::kBadCopyFileFormat, "literal carriage return found in data", raw);
      }
      if (eol_crlf_ < 0) eol_crlf_ = 1;
      if (eol_crlf_ == 0) {
        Fail(sqlstate::kBadCopyFileFormat, "literal carriage return found in data", raw);
      }
      end += 2;
    } else {
      if (eol_crlf_ < 0) eol_crlf_ = 0;
      if (eol_crlf_ == 1) Fail(sqlstate::kBadCopyFileFormat, "literal newline found in data", raw);
      end += 1;
    }
  }
  for (const Span& span : spans) {
    fields_.push_back({std::string_view(scratch_).substr(span.offset, span.length), span.is_null});
  }
  *consumed = end - start;
  Emit(raw);
  return true;
}

void CopyParser::Emit(std::string_view raw) {
  if (header_pending_) {
    header_pending_ = false;
    return;
  }
  for (const CopyField& f : fields_) {  // after unescaping: \xff spells a byte
    if (f.is_null) continue;
    if (size_t bad = FindInvalidUtf8(f.text); bad != std::string_view::npos) {
      Fail(sqlstate::kCharacterNotInRepertoire, InvalidUtf8Message(f.text, bad), raw);
    }
  }
  CopyRow row{fields_, line_ + 1, raw};
  on_row_(row);
}

}  // namespace forktail
