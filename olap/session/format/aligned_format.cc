#include "olap/session/format/aligned_format.h"

#include <algorithm>
#include <vector>

namespace forktail {
namespace {

// Display width: UTF-8 code points (no East Asian width tables).
size_t Width(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (;;) {
    size_t nl = s.find('\n', start);
    lines.push_back(s.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) return lines;
    start = nl + 1;
  }
}

}  // namespace

std::string FormatAligned(const StatementResult& result) {
  if (result.columns.empty()) return result.command_tag + "\n";
  const size_t n = result.columns.size();
  std::vector<size_t> width(n);
  std::vector<bool> right(n);
  for (size_t c = 0; c < n; c++) {
    width[c] = Width(result.columns[c].name);
    right[c] = result.columns[c].type.IsNumeric();
  }
  // Cells as lines.
  std::vector<std::vector<std::vector<std::string>>> cells;
  for (const Row& row : result.rows) {
    std::vector<std::vector<std::string>> r;
    for (size_t c = 0; c < n; c++) {
      std::vector<std::string> lines = c < row.size() && !row[c].is_null()
                                           ? SplitLines(row[c].ToString())
                                           : std::vector<std::string>{""};
      for (const std::string& l : lines) width[c] = std::max(width[c], Width(l));
      r.push_back(std::move(lines));
    }
    cells.push_back(std::move(r));
  }
  std::string out;
  auto pad = [&](size_t k) { out.append(k, ' '); };
  // Header: names centered; psql keeps the trailing blank here.
  for (size_t c = 0; c < n; c++) {
    const std::string& name = result.columns[c].name;
    size_t extra = width[c] - Width(name);
    out += " ";
    pad(extra / 2);
    out += name;
    pad(extra - extra / 2);
    out += c + 1 < n ? " |" : " ";
  }
  out += "\n";
  for (size_t c = 0; c < n; c++) {
    out.append(width[c] + 2, '-');
    if (c + 1 < n) out += "+";
  }
  out += "\n";
  for (const auto& r : cells) {
    size_t height = 0;
    for (const auto& lines : r) height = std::max(height, lines.size());
    for (size_t h = 0; h < height; h++) {
      std::string line;
      for (size_t c = 0; c < n; c++) {
        const std::string cell = h < r[c].size() ? r[c][h] : "";
        bool continues = h + 1 < r[c].size();
        size_t extra = width[c] - Width(cell);
        line += " ";
        if (right[c]) line.append(extra, ' ');
        line += cell;
        if (!right[c]) line.append(extra, ' ');
        line += continues ? "+" : " ";
        if (c + 1 < n) line += "|";
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  }
  out += "(" + std::to_string(result.rows.size()) + (result.rows.size() == 1 ? " row)" : " rows)");
  out += "\n";
  return out;
}

}  // namespace forktail
