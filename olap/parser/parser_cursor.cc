// Cursors: DECLARE, FETCH / MOVE, CLOSE (PostgreSQL 15's gram.y:
// DeclareCursorStmt, FetchStmt, ClosePortalStmt), and the query a statement
// holds as a statement of its own (DECLARE ... FOR query, COPY (query) TO).
#include "olap/parser/parser.h"
#include "storage/error.h"

namespace forktail::sql {

namespace {
constexpr const char* kInvalidCursorDefinition = "42P11";
}  // namespace

StatementPtr Parser::ParseInnerQuery() {
  const Token& first = Peek();
  const size_t first_index = pos_;
  StatementPtr inner = MakeStatement(StatementKind::kSelect);
  inner->query = ParseQuery();
  inner->position = first.position;
  inner->begin = first.begin;
  inner->end = pos_ > first_index ? tokens_[pos_ - 1].end : first.end;
  inner->max_parameter = max_parameter_;
  return inner;
}

// DECLARE name cursor_options CURSOR opt_hold FOR SelectStmt, where
// cursor_options is any sequence of NO SCROLL, SCROLL, BINARY, ASENSITIVE
// and INSENSITIVE.
StatementPtr Parser::ParseDeclare() {
  ExpectKw("declare");
  auto declare = std::make_unique<DeclareStmt>();
  declare->name = ParseColId();
  bool scroll = false;
  bool no_scroll = false;
  bool asensitive = false;
  for (;;) {
    if (AcceptKw("no")) {
      ExpectKw("scroll");
      no_scroll = true;
    } else if (AcceptKw("scroll")) {
      scroll = true;
    } else if (AcceptKw("binary")) {
      declare->binary = true;
    } else if (AcceptKw("asensitive")) {
      asensitive = true;
    } else if (AcceptKw("insensitive")) {
      declare->insensitive = true;
    } else {
      break;
    }
  }
  ExpectKw("cursor");
  if (AcceptKw("with")) {
    ExpectKw("hold");
    declare->hold = true;
  } else if (AcceptKw("without")) {
    ExpectKw("hold");
  }
  ExpectKw("for");
  if (IsKw("insert") || IsKw("update") || IsKw("delete")) ErrorAtCurrent();
  declare->query = ParseInnerQuery();
  // transformDeclareCursorStmt's checks, before anything is bound.
  if (scroll && no_scroll) {
    throw DbError(kInvalidCursorDefinition, "cannot specify both SCROLL and NO SCROLL");
  }
  if (asensitive && declare->insensitive) {
    throw DbError(kInvalidCursorDefinition, "cannot specify both ASENSITIVE and INSENSITIVE");
  }
  declare->scroll = scroll ? 1 : no_scroll ? 0 : -1;
  StatementPtr stmt = MakeStatement(StatementKind::kDeclare);
  stmt->declare = std::move(declare);
  return stmt;
}

// FETCH / MOVE fetch_args (gram.y): [direction [count]] [FROM | IN] name.
StatementPtr Parser::ParseFetch() {
  auto fetch = std::make_unique<FetchStmt>();
  fetch->move = Advance().text == "move";
  // SignedIconst: a 32-bit integer, optionally signed.
  auto signed_count = [&]() -> int64_t {
    const bool negative = AcceptOp("-");
    if (!negative) AcceptOp("+");
    const Token& t = Peek();
    if (t.kind != TokenKind::kInteger || t.text.size() > 10 || std::stoll(t.text) > INT32_MAX) {
      ErrorAt(t);
    }
    const int64_t v = std::stoll(Advance().text);
    return negative ? -v : v;
  };
  auto starts_count = [&] { return Peek().kind == TokenKind::kInteger || IsOp("-") || IsOp("+"); };
  // A direction word alone is the cursor's name (`FETCH next` reads cursor
  // "next"), as bison resolves PostgreSQL's grammar.
  const bool name_only = IsColId() && (Peek(1).kind == TokenKind::kEnd || IsPunct(';', 1));
  if (name_only) {
  } else if (AcceptKw("next")) {
  } else if (AcceptKw("prior")) {
    fetch->direction = FetchDirection::kBackward;
  } else if (AcceptKw("first")) {
    fetch->direction = FetchDirection::kAbsolute;
  } else if (AcceptKw("last")) {
    fetch->direction = FetchDirection::kAbsolute;
    fetch->count = -1;
  } else if (AcceptKw("absolute")) {
    fetch->direction = FetchDirection::kAbsolute;
    fetch->count = signed_count();
  } else if (AcceptKw("relative")) {
    fetch->direction = FetchDirection::kRelative;
    fetch->count = signed_count();
  } else if (AcceptKw("all")) {
    fetch->count = kFetchAll;
  } else if (IsKw("forward") || IsKw("backward")) {
    if (Advance().text == "backward") fetch->direction = FetchDirection::kBackward;
    if (AcceptKw("all")) {
      fetch->count = kFetchAll;
    } else if (starts_count()) {
      fetch->count = signed_count();
    }
  } else if (starts_count()) {
    fetch->count = signed_count();
  }
  if (!AcceptKw("from")) AcceptKw("in");
  fetch->name = ParseColId();
  StatementPtr stmt = MakeStatement(StatementKind::kFetch);
  stmt->fetch = std::move(fetch);
  return stmt;
}

// CLOSE name | ALL
StatementPtr Parser::ParseClose() {
  ExpectKw("close");
  auto close = std::make_unique<CloseStmt>();
  if (AcceptKw("all")) {
    close->all = true;
  } else {
    close->name = ParseColId();
  }
  StatementPtr stmt = MakeStatement(StatementKind::kClose);
  stmt->close = std::move(close);
  return stmt;
}

}  // namespace forktail::sql
