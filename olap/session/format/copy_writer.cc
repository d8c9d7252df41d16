// CopyWriter: COPY TO's three formats (copy_writer.h), following
// PostgreSQL's CopyAttributeOutText / CopyAttributeOutCSV / CopyOneRowTo.
#include "olap/session/format/copy_writer.h"

#include "olap/session/format/copy_binary.h"
#include "storage/value/pg_binary.h"

namespace forktail {
namespace {

void PutInt(std::string* out, uint32_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void EndMessage(CopyOutData* out) { out->message_ends.push_back(out->data.size()); }

}  // namespace

CopyWriter::CopyWriter(const CopyOptions& options, std::vector<std::string> names,
                       std::vector<bool> force_quote)
    : options_(options),
      names_(std::move(names)),
      force_quote_(std::move(force_quote)),
      delimiter_(options.EffectiveDelimiter()),
      null_(options.EffectiveNull()) {
  force_quote_.resize(names_.size(), false);
}

void CopyWriter::Text(std::string_view value, std::string* out) const {
  size_t start = 0;
  for (size_t i = 0; i < value.size(); i++) {
    const char c = value[i];
    char escaped = 0;
    if (static_cast<unsigned char>(c) < 0x20) {
      switch (c) {
        case '\b':
          escaped = 'b';
          break;
        case '\f':
          escaped = 'f';
          break;
        case '\n':
          escaped = 'n';
          break;
        case '\r':
          escaped = 'r';
          break;
        case '\t':
          escaped = 't';
          break;
        case '\v':
          escaped = 'v';
          break;
        default:
          if (c == delimiter_) escaped = c;
      }
    } else if (c == '\\' || c == delimiter_) {
      escaped = c;
    }
    if (escaped == 0) continue;
    out->append(value.substr(start, i - start));
    out->push_back('\\');
    out->push_back(escaped);
    start = i + 1;
  }
  out->append(value.substr(start));
}

void CopyWriter::Csv(std::string_view value, bool force_quote, std::string* out) const {
  const char quote = options_.quote;
  const char escape = options_.EffectiveEscape();
  bool quoted = force_quote || value == null_;
  if (!quoted) {
    // "\." alone on a line would end COPY FROM's data.
    if (names_.size() == 1 && value == "\\.") {
      quoted = true;
    } else {
      for (char c : value) {
        if (c == delimiter_ || c == quote || c == '\n' || c == '\r') {
          quoted = true;
          break;
        }
      }
    }
  }
  if (!quoted) {
    out->append(value);
    return;
  }
  out->push_back(quote);
  size_t start = 0;
  for (size_t i = 0; i < value.size(); i++) {
    if (value[i] != quote && value[i] != escape) continue;
    out->append(value.substr(start, i - start));
    out->push_back(escape);
    start = i;  // the character itself goes out with the next run
  }
  out->append(value.substr(start));
  out->push_back(quote);
}

void CopyWriter::Begin(CopyOutData* out) const {
  out->binary = options_.format == CopyFormat::kBinary;
  out->columns = static_cast<int>(names_.size());
  if (out->binary) {
    // Signature, flags 0, no header extension; sent with the first row.
    out->data.append(kCopyBinarySignature);
    PutInt(&out->data, 0, 4);
    PutInt(&out->data, 0, 4);
    return;
  }
  if (!options_.header) return;
  for (size_t i = 0; i < names_.size(); i++) {
    if (i > 0) out->data.push_back(delimiter_);
    if (options_.format == CopyFormat::kCsv) {
      Csv(names_[i], false, &out->data);
    } else {
      Text(names_[i], &out->data);
    }
  }
  out->data.push_back('\n');
  EndMessage(out);
}

void CopyWriter::Append(const Row& row, CopyOutData* out) const {
  std::string& data = out->data;
  if (options_.format == CopyFormat::kBinary) {
    PutInt(&data, static_cast<uint16_t>(row.size()), 2);
    for (const Value& v : row) {
      if (v.is_null()) {
        PutInt(&data, 0xFFFFFFFFu, 4);
        continue;
      }
      const std::string bytes = PgBinarySend(v);
      PutInt(&data, static_cast<uint32_t>(bytes.size()), 4);
      data.append(bytes);
    }
    EndMessage(out);
    return;
  }
  const bool csv = options_.format == CopyFormat::kCsv;
  for (size_t i = 0; i < row.size(); i++) {
    if (i > 0) data.push_back(delimiter_);
    const Value& v = row[i];
    if (v.is_null()) {
      data.append(null_);
      continue;
    }
    const std::string text = v.ToString();
    if (csv) {
      Csv(text, options_.force_quote_all || (i < force_quote_.size() && force_quote_[i]), &data);
    } else {
      Text(text, &data);
    }
  }
  data.push_back('\n');
  EndMessage(out);
}

void CopyWriter::End(CopyOutData* out) const {
  if (options_.format != CopyFormat::kBinary) return;
  PutInt(&out->data, 0xFFFF, 2);
  EndMessage(out);
}

CopyOutData FormatCopyOut(const CopyOptions& options, const std::vector<std::string>& names,
                          const std::vector<bool>& force_quote, const std::vector<Row>& rows) {
  CopyWriter writer(options, names, force_quote);
  CopyOutData out;
  writer.Begin(&out);
  for (const Row& row : rows) writer.Append(row, &out);
  writer.End(&out);
  return out;
}

}  // namespace forktail
