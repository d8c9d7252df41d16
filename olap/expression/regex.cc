#include "olap/expression/regex.h"

#include "storage/error.h"

namespace forktail {

namespace {

// The bytes of the UTF-8 character that starts at s[i] (1 past the end).
size_t CharLength(std::string_view s, size_t i) {
  size_t len = 1;
  while (i + len < s.size() && (static_cast<uint8_t>(s[i + len]) & 0xC0) == 0x80) ++len;
  return len;
}

}  // namespace

RegexFlags ParseRegexFlags(std::string_view flags) {
  RegexFlags f;
  for (char c : flags) {
    if (c == 'g') {
      f.global = true;
    } else if (c == 'i') {
      f.icase = true;
    } else if (c == 'c') {
      f.icase = false;
    } else if (c == 'n' || c == 'm') {
      f.newline = true;
    } else if (c == 's') {
      f.newline = false;
    } else if (c == 'q') {
      f.literal = true;
    } else if (c == 'b') {
      f.basic = true;
    } else if (c == 'e') {
      f.basic = false;
    } else if (c == 't') {
      // tight syntax: the only one here
    } else if (c == 'x' || c == 'p' || c == 'w') {
      // Meaningful in PostgreSQL's dialect, not implemented over POSIX here.
      throw DbError(sqlstate::kFeatureNotSupported,
                    std::string("regular expression option \"") + c + "\" is not supported");
    } else {
      throw DbError("22023", std::string("invalid regular expression option: \"") + c + "\"");
    }
  }
  return f;
}

Regex::Regex(std::string_view pattern, const RegexFlags& flags, bool captures)
    : captures_(captures) {
  std::string p;
  if (flags.literal) {  // every character stands for itself
    for (char c : pattern) {
      if (std::string_view("\\^$.[]|()*+?{}").find(c) != std::string_view::npos) p.push_back('\\');
      p.push_back(c);
    }
  } else {
    p = pattern;
  }
  int rc = regcomp(&re_, p.c_str(),
                   (flags.basic && !flags.literal ? 0 : REG_EXTENDED) | (captures ? 0 : REG_NOSUB) |
                       (flags.icase ? REG_ICASE : 0) | (flags.newline ? REG_NEWLINE : 0));
  if (rc != 0) {
    char msg[256];
    regerror(rc, &re_, msg, sizeof msg);
    throw DbError("2201B", std::string("invalid regular expression: ") + msg);
  }
}

bool Regex::Match(std::string_view s) const {
  regmatch_t m[1];
  m[0].rm_so = 0;
  m[0].rm_eo = static_cast<regoff_t>(s.size());
  // REG_STARTEND: the subject is [rm_so, rm_eo) and need not end in NUL.
  return regexec(&re_, s.data(), 1, m, REG_STARTEND) == 0;
}

std::vector<Regex::Span> Regex::Find(std::string_view s, size_t from, bool global,
                                     bool skip_degenerate, std::vector<Groups>* groups) const {
  constexpr size_t kGroups = 10;
  std::vector<Span> spans;
  size_t prev_end = from;
  while (from <= s.size()) {
    regmatch_t m[kGroups];
    m[0].rm_so = static_cast<regoff_t>(from);
    m[0].rm_eo = static_cast<regoff_t>(s.size());
    // Offsets stay relative to s.data(); past the start, ^ must not match.
    const size_t wanted = captures_ ? kGroups : 1;
    if (regexec(&re_, s.data(), wanted, m, REG_STARTEND | (from > 0 ? REG_NOTBOL : 0)) != 0) {
      break;
    }
    const auto start = static_cast<size_t>(m[0].rm_so), end = static_cast<size_t>(m[0].rm_eo);
    // PostgreSQL's setup_regexp_matches: a split ignores an empty match at
    // the end, and one that ends where the previous match ended.
    if (!skip_degenerate || (start < s.size() && end > prev_end)) {
      spans.push_back({start, end});
      if (groups != nullptr) {
        Groups g;
        const size_t n = re_.re_nsub;
        if (n == 0) g.emplace_back(std::string(s.substr(start, end - start)));
        for (size_t k = 1; k <= n; k++) {
          if (k >= kGroups || m[k].rm_so < 0) {
            g.emplace_back(std::nullopt);
          } else {
            g.emplace_back(std::string(s.substr(m[k].rm_so, m[k].rm_eo - m[k].rm_so)));
          }
        }
        groups->push_back(std::move(g));
      }
    }
    prev_end = end;
    if (!global) break;
    // After an empty match, the next search starts a character later.
    from = end == start ? end + (end < s.size() ? CharLength(s, end) : 1) : end;
  }
  return spans;
}

void Regex::Replace(std::string_view s, std::string_view replacement, bool global,
                    std::string* out) const {
  constexpr size_t kGroups = 10;
  size_t from = 0;
  while (from <= s.size()) {
    regmatch_t m[kGroups];
    m[0].rm_so = static_cast<regoff_t>(from);
    m[0].rm_eo = static_cast<regoff_t>(s.size());
    if (regexec(&re_, s.data(), kGroups, m, REG_STARTEND | (from > 0 ? REG_NOTBOL : 0)) != 0) {
      break;
    }
    const auto start = static_cast<size_t>(m[0].rm_so), end = static_cast<size_t>(m[0].rm_eo);
    out->append(s.substr(from, start - from));
    for (size_t i = 0; i < replacement.size(); ++i) {
      const char c = replacement[i];
      if (c != '\\' || i + 1 == replacement.size()) {
        out->push_back(c);
        continue;
      }
      const char next = replacement[++i];
      if (next >= '1' && next <= '9') {
        const regmatch_t& g = m[next - '0'];
        if (g.rm_so >= 0) out->append(s.substr(g.rm_so, g.rm_eo - g.rm_so));
      } else if (next == '&') {
        out->append(s.substr(start, end - start));
      } else if (next == '\\') {
        out->push_back('\\');
      } else {
        out->push_back('\\');
        out->push_back(next);
      }
    }
    if (end == start) {  // an empty match: keep the next character, go on after it
      if (start < s.size()) out->push_back(s[start]);
      from = start + 1;
    } else {
      from = end;
    }
    if (!global) break;
  }
  if (from < s.size()) out->append(s.substr(from));
}

std::vector<Regex::Groups> Regex::Matches(std::string_view s, bool global) const {
  std::vector<Groups> groups;
  Find(s, 0, global, /*skip_degenerate=*/false, &groups);
  return groups;
}

size_t Regex::Count(std::string_view s, size_t from) const {
  return Find(s, from, /*global=*/true, /*skip_degenerate=*/false, nullptr).size();
}

std::vector<std::string> Regex::Split(std::string_view s) const {
  std::vector<std::string> parts;
  size_t piece = 0;
  for (const Span& m : Find(s, 0, /*global=*/true, /*skip_degenerate=*/true, nullptr)) {
    parts.emplace_back(s.substr(piece, m.start - piece));
    piece = m.end;
  }
  parts.emplace_back(s.substr(piece));
  return parts;
}

std::string SimilarToRegex(std::string_view pattern, char escape) {
  // As PostgreSQL's similar_escape: % is .*, _ is ., the escape character
  // makes the next one literal, [...] passes through, the ERE specials
  // SIMILAR TO does not have (. ^ $ and a backslash that is not the escape)
  // are quoted, and | * + ? {m,n} ( ) keep their meaning. An escaped
  // double quote (substring's separator) only groups, which does not
  // change what matches.
  std::string re = "^(";
  bool after_escape = false;
  int bracket = 0;  // 0: outside [...]; else characters since its '['
  for (char c : pattern) {
    if (after_escape) {
      after_escape = false;
      if (c == '"' && bracket == 0) {
        re += ")(";
      } else if (bracket != 0) {
        re.push_back(c);
        ++bracket;
      } else if (c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W') {
        // The class escapes PostgreSQL's regex dialect gives them.
        const char* classes[] = {"[0-9]",        "[^0-9]",       "[[:space:]]",
                                 "[^[:space:]]", "[[:alnum:]_]", "[^[:alnum:]_]"};
        re += classes[std::string_view("dDsSwW").find(c)];
      } else if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
        re.push_back(c);
      } else {
        re.push_back('\\');
        re.push_back(c);
      }
      continue;
    }
    if (escape != 0 && c == escape) {
      after_escape = true;
      continue;
    }
    if (bracket != 0) {
      // ']' right after '[' or '[^' is a member, not the end.
      const bool first = bracket == 1 || (bracket == 2 && re.back() == '^');
      if (c == ']' && !first)
        bracket = 0;
      else
        ++bracket;
      re.push_back(c);
      continue;
    }
    switch (c) {
      case '[':
        bracket = 1;
        re.push_back(c);
        break;
      case '%':
        re += ".*";
        break;
      case '_':
        re.push_back('.');
        break;
      case '.':
      case '^':
      case '$':
      case '\\':
        re.push_back('\\');
        re.push_back(c);
        break;
      default:
        re.push_back(c);
    }
  }
  re += ")$";
  return re;
}

}  // namespace forktail
