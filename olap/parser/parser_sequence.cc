// CREATE SEQUENCE, ALTER SEQUENCE and the sequence options of an identity
// column (PostgreSQL's SeqOptList: options one after another, no commas).
#include <cctype>
#include <string>

#include "olap/parser/parser.h"

namespace forktail::sql {

// A number as NumericOnly takes it: an integer or a decimal, with a sign.
static std::string ParseNumericOnly(Parser& p) {
  std::string sign;
  if (p.IsOp("-") || p.IsOp("+")) sign = p.Advance().text == "-" ? "-" : "";
  const Token& t = p.Peek();
  if (t.kind != TokenKind::kInteger && t.kind != TokenKind::kNumeric) p.ErrorAt(t);
  return sign + p.Advance().text;
}

bool Parser::IsSequenceOption(size_t k) const {
  for (const char* word : {"as", "cache", "cycle", "no", "increment", "maxvalue", "minvalue",
                           "owned", "sequence", "start", "restart"}) {
    if (IsKw(word, k)) return true;
  }
  return false;
}

SequenceOption Parser::ParseSequenceOption() {
  SequenceOption o;
  o.position = Peek().position;
  if (AcceptKw("as")) {
    o.name = "as";
    o.type = ParseTypeName();
  } else if (AcceptKw("cache")) {
    o.name = "cache";
    o.number = ParseNumericOnly(*this);
  } else if (AcceptKw("cycle")) {
    o.name = "cycle";
  } else if (AcceptKw("no")) {
    o.no = true;
    if (AcceptKw("cycle")) {
      o.name = "cycle";
    } else if (AcceptKw("maxvalue")) {
      o.name = "maxvalue";
    } else {
      ExpectKw("minvalue");
      o.name = "minvalue";
    }
  } else if (AcceptKw("increment")) {
    o.name = "increment";
    AcceptKw("by");
    o.number = ParseNumericOnly(*this);
  } else if (AcceptKw("maxvalue")) {
    o.name = "maxvalue";
    o.number = ParseNumericOnly(*this);
  } else if (AcceptKw("minvalue")) {
    o.name = "minvalue";
    o.number = ParseNumericOnly(*this);
  } else if (AcceptKw("owned")) {
    ExpectKw("by");
    o.name = "owned_by";
    o.names = ParseQualifiedName();
  } else if (AcceptKw("sequence")) {
    ExpectKw("name");
    o.name = "sequence_name";
    o.names = ParseQualifiedName();
  } else if (AcceptKw("start")) {
    o.name = "start";
    AcceptKw("with");
    o.number = ParseNumericOnly(*this);
  } else if (AcceptKw("restart")) {
    o.name = "restart";
    if (AcceptKw("with") || IsOp("-") || IsOp("+") || Peek().kind == TokenKind::kInteger ||
        Peek().kind == TokenKind::kNumeric) {
      o.number = ParseNumericOnly(*this);
    }
  } else {
    ErrorAtCurrent();
  }
  return o;
}

std::vector<SequenceOption> Parser::ParseSequenceOptions() {
  std::vector<SequenceOption> options;
  while (IsSequenceOption()) options.push_back(ParseSequenceOption());
  return options;
}

StatementPtr Parser::ParseCreateSequence(bool temporary, bool unlogged) {
  ExpectKw("sequence");
  auto create = std::make_unique<CreateSequenceStmt>();
  create->temporary = temporary;
  create->unlogged = unlogged;
  if (IsKw("if") && IsKw("not", 1) && IsKw("exists", 2)) {
    pos_ += 3;
    create->if_not_exists = true;
  }
  create->name = ParseQualifiedName();
  create->options = ParseSequenceOptions();
  StatementPtr stmt = MakeStatement(StatementKind::kCreateSequence);
  stmt->create_sequence = std::move(create);
  return stmt;
}

// ALTER SEQUENCE [IF EXISTS] name options | RENAME TO new_name; OWNER TO,
// SET SCHEMA and SET LOGGED / UNLOGGED are 0A000 (one role, one schema,
// every sequence logged).
StatementPtr Parser::ParseAlterSequence() {
  ExpectKw("sequence");
  auto alter = std::make_unique<AlterSequenceStmt>();
  if (IsKw("if") && IsKw("exists", 1)) {
    pos_ += 2;
    alter->if_exists = true;
  }
  alter->name = ParseQualifiedName();
  if (AcceptKw("rename")) {
    ExpectKw("to");
    alter->new_name = ParseColId();
  } else if (IsKw("owner") || IsKw("set")) {
    const Token& at = Peek();
    std::string what = IsKw("owner") ? "OWNER TO" : "SET " + Peek(1).text;
    for (char& c : what) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    NotSupportedAt(at, "ALTER SEQUENCE ... " + what);
  } else {
    if (!IsSequenceOption()) ErrorAtCurrent();
    alter->options = ParseSequenceOptions();
  }
  StatementPtr stmt = MakeStatement(StatementKind::kAlterSequence);
  stmt->alter_sequence = std::move(alter);
  return stmt;
}

}  // namespace forktail::sql
