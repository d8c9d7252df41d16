// POSIX regular expressions as PostgreSQL's regexp functions use them.
//
// The C library's regcomp/regexec with REG_EXTENDED, i.e. POSIX EREs.
// PostgreSQL uses its own ARE dialect, a superset: EREs behave the same,
// but ARE-only syntax (\d \w \s escapes, lazy quantifiers *? +?, (?:...),
// lookahead, embedded options (?i)) is not understood here (glibc accepts
// \w and \s as GNU extensions). Invalid patterns raise 2201B "invalid
// regular expression: ...". A compiled Regex is immutable: regexec is
// thread-safe on it.
//
// Shared by the match operators and scalar functions (functions_regex.cc)
// and the set-returning regexp_matches / regexp_split_to_table (the
// binder's table functions).
#pragma once

#include <regex.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace forktail {

// The flags of the regexp functions, read left to right as PostgreSQL's:
// g (every match), i / c (case-insensitive / -sensitive, the default),
// n or m / s (newline-sensitive / not, the default), q (the pattern is a
// literal string), b / e (basic / extended syntax, the default), t (tight
// syntax, the only one here). 22023 for an unknown flag, 0A000 for x, p
// and w (expanded syntax, partial newline sensitivity).
struct RegexFlags {
  bool global = false;
  bool icase = false;
  bool newline = false;  // . and [^...] stop at a newline; ^ and $ match at one
  bool literal = false;
  bool basic = false;
};
RegexFlags ParseRegexFlags(std::string_view flags);

class Regex {
 public:
  // `captures`: the subexpressions' positions are needed (Replace, Groups,
  // Matches); Match alone does not need them.
  Regex(std::string_view pattern, const RegexFlags& flags, bool captures = true);
  ~Regex() { regfree(&re_); }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Whether s contains a match.
  bool Match(std::string_view s) const;

  // The first match of s (every one when `global`) replaced by
  // `replacement`, whose \1..\9 stand for the subexpressions, \& for the
  // whole match and \\ for a backslash; appended to *out.
  void Replace(std::string_view s, std::string_view replacement, bool global,
               std::string* out) const;

  // One match's text: each parenthesized subexpression's (NULL where it did
  // not take part), or the whole match when the pattern has none, as
  // regexp_match and regexp_matches return them.
  using Groups = std::vector<std::optional<std::string>>;

  // The first match (every one when `global`) as Groups. Empty matches count
  // (regexp_matches('abc', 'x*', 'g') has four rows of {""}).
  std::vector<Groups> Matches(std::string_view s, bool global) const;

  // How many matches s has from byte `from` on.
  size_t Count(std::string_view s, size_t from) const;

  // s cut at every match, as regexp_split_to_array: empty matches at the
  // start or end of s, or right after another match, do not cut.
  std::vector<std::string> Split(std::string_view s) const;

 private:
  struct Span {
    size_t start, end;
  };
  // Every match's positions from byte `from` on (the first one only unless
  // `global`); `skip_degenerate` drops the empty matches Split ignores.
  // `groups` (when not null) gets each match's subexpressions.
  std::vector<Span> Find(std::string_view s, size_t from, bool global, bool skip_degenerate,
                         std::vector<Groups>* groups) const;

  regex_t re_;
  bool captures_;
};

// A SIMILAR TO pattern (with its ESCAPE character; 0 for none) as the
// extended regular expression that matches the same strings, anchored at
// both ends. A pattern that ends in the escape character ignores it, as
// PostgreSQL's does.
std::string SimilarToRegex(std::string_view pattern, char escape);

}  // namespace forktail
