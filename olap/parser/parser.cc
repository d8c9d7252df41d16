#include "olap/parser/parser.h"

#include <fmt/format.h>

#include <cctype>

#include "storage/error.h"

namespace forktail::sql {

namespace {

// A keyword as messages spell it ("COMMENT ON INDEX is not supported").
std::string Upper(std::string word) {
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return word;
}

}  // namespace

Parser::Parser(std::string_view text) : text_(text), tokens_(Tokenize(text)) {}

const Token& Parser::Peek(size_t k) const {
  size_t i = pos_ + k;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

const Token& Parser::Advance() {
  const Token& t = tokens_[pos_];
  if (t.kind == TokenKind::kEnd || t.kind == TokenKind::kError) ErrorAt(t);
  ++pos_;
  return t;
}

bool Parser::AtStatementEnd() const { return Peek().kind == TokenKind::kEnd || IsPunct(';'); }

bool Parser::IsKw(std::string_view kw, size_t k) const {
  const Token& t = Peek(k);
  return t.kind == TokenKind::kIdent && t.text == kw;
}

bool Parser::AcceptKw(std::string_view kw) {
  if (!IsKw(kw)) return false;
  ++pos_;
  return true;
}

const Token& Parser::ExpectKw(std::string_view kw) {
  if (!IsKw(kw)) ErrorAtCurrent();
  return tokens_[pos_++];
}

bool Parser::IsOp(std::string_view op, size_t k) const {
  const Token& t = Peek(k);
  return t.kind == TokenKind::kOp && t.text == op;
}

bool Parser::AcceptOp(std::string_view op) {
  if (!IsOp(op)) return false;
  ++pos_;
  return true;
}

const Token& Parser::ExpectOp(std::string_view op) {
  if (!IsOp(op)) ErrorAtCurrent();
  return tokens_[pos_++];
}

bool Parser::IsPunct(char c, size_t k) const {
  const Token& t = Peek(k);
  return t.kind == TokenKind::kPunct && t.text.size() == 1 && t.text[0] == c;
}

bool Parser::AcceptPunct(char c) {
  if (!IsPunct(c)) return false;
  ++pos_;
  return true;
}

const Token& Parser::ExpectPunct(char c) {
  if (!IsPunct(c)) ErrorAtCurrent();
  return tokens_[pos_++];
}

void Parser::ErrorAt(const Token& t) const {
  if (t.kind == TokenKind::kError) throw DbError(t.sqlstate, t.text, t.position);
  if (t.kind == TokenKind::kEnd) {
    throw DbError(sqlstate::kSyntaxError, "syntax error at end of input", t.position);
  }
  throw DbError(
      sqlstate::kSyntaxError,
      fmt::format("syntax error at or near \"{}\"", text_.substr(t.begin, t.end - t.begin)),
      t.position);
}

void Parser::NotSupportedAt(const Token& t, const std::string& what) const {
  throw DbError(sqlstate::kFeatureNotSupported, what + " is not supported", t.position);
}

void Parser::ErrorMessage(const Token& t, const std::string& message) const {
  if (t.kind == TokenKind::kError) ErrorAt(t);
  throw DbError(sqlstate::kSyntaxError, message, t.position);
}

void Parser::Nesting::Add() {
  ++added_;
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  bool deep_stack = p_.stack_base_ > here && p_.stack_base_ - here > kMaxStackBytes;
  if (++p_.nesting_ > kMaxNesting || deep_stack) {
    // PostgreSQL reports a too deeply nested statement the same way.
    throw DbError(sqlstate::kProgramLimitExceeded, "stack depth limit exceeded",
                  p_.Peek().position);
  }
}

bool Parser::IsColId(size_t k) const {
  const Token& t = Peek(k);
  if (t.kind == TokenKind::kQuotedIdent) return true;
  if (t.kind != TokenKind::kIdent) return false;
  return t.keyword == KeywordCategory::kNone || t.keyword == KeywordCategory::kUnreserved ||
         t.keyword == KeywordCategory::kColName;
}

bool Parser::IsTypeFuncName(size_t k) const {
  const Token& t = Peek(k);
  if (t.kind == TokenKind::kQuotedIdent) return true;
  if (t.kind != TokenKind::kIdent) return false;
  return t.keyword == KeywordCategory::kNone || t.keyword == KeywordCategory::kUnreserved ||
         t.keyword == KeywordCategory::kTypeFunc;
}

bool Parser::IsColLabel(size_t k) const {
  TokenKind kind = Peek(k).kind;
  return kind == TokenKind::kIdent || kind == TokenKind::kQuotedIdent;
}

std::string Parser::ParseColId() {
  if (!IsColId()) ErrorAtCurrent();
  return tokens_[pos_++].text;
}

std::string Parser::ParseColLabel() {
  if (!IsColLabel()) ErrorAtCurrent();
  return tokens_[pos_++].text;
}

QualifiedName Parser::ParseQualifiedName() {
  QualifiedName name;
  name.push_back(ParseColId());
  while (IsPunct('.') && IsColLabel(1)) {
    ++pos_;
    name.push_back(ParseColLabel());
  }
  return name;
}

std::vector<std::string> Parser::ParseColumnList() {
  ExpectPunct('(');
  std::vector<std::string> names;
  do {
    names.push_back(ParseColId());
  } while (AcceptPunct(','));
  ExpectPunct(')');
  return names;
}

// A value in SET, COPY options and WITH (...) options: a string's decoded
// text, a (signed) number as written, or an identifier / keyword.
std::string Parser::ParseOptionValue() {
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kString:
    case TokenKind::kInteger:
    case TokenKind::kNumeric:
    case TokenKind::kIdent:
    case TokenKind::kQuotedIdent:
      return Advance().text;
    case TokenKind::kOp:
      if ((t.text == "-" || t.text == "+") &&
          (Peek(1).kind == TokenKind::kInteger || Peek(1).kind == TokenKind::kNumeric)) {
        std::string sign = Advance().text == "-" ? "-" : "";
        return sign + Advance().text;
      }
      break;
    default:
      break;
  }
  ErrorAt(t);
}

int64_t Parser::ParseSignedInteger() {
  bool negative = AcceptOp("-");
  if (!negative) AcceptOp("+");
  const Token& t = Peek();
  if (t.kind != TokenKind::kInteger || t.text.size() > 18) ErrorAt(t);
  int64_t v = std::stoll(Advance().text);
  return negative ? -v : v;
}

StatementPtr Parser::MakeStatement(StatementKind kind) {
  auto stmt = std::make_unique<Statement>();
  stmt->kind = kind;
  return stmt;
}

ExprPtr Parser::MakeExpr(ExprKind kind, int position) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->position = position;
  return e;
}

ExprPtr Parser::MakeLiteral(LiteralKind kind, std::string text, int position) {
  ExprPtr e = MakeExpr(ExprKind::kLiteral, position);
  e->literal_kind = kind;
  e->text = std::move(text);
  return e;
}

StatementPtr Parser::ParseStatement() {
  const Token& t = Peek();
  if (IsKw("select") || IsKw("values") || IsKw("with") || IsKw("table") || IsPunct('(')) {
    auto stmt = std::make_unique<Statement>();
    stmt->kind = StatementKind::kSelect;
    stmt->query = ParseQuery();
    // SELECT .. INTO t (in the first SELECT of the statement's query) is
    // CREATE TABLE t AS the query.
    Query* first = stmt->query.get();
    while (first->kind == QueryKind::kSetOp) first = first->left.get();
    if (!first->into.empty()) {
      auto create = std::make_unique<CreateTableStmt>();
      create->table = std::move(first->into);
      first->into.clear();
      create->temporary = first->into_temporary;
      create->as_query = std::move(stmt->query);
      stmt->kind = StatementKind::kCreateTable;
      stmt->create_table = std::move(create);
    }
    return stmt;
  }
  if (t.kind != TokenKind::kIdent) ErrorAt(t);
  const std::string& kw = t.text;
  if (kw == "insert") return ParseInsert();
  if (kw == "update") return ParseUpdate();
  if (kw == "delete") return ParseDelete();
  if (kw == "create") return ParseCreate();
  if (kw == "drop") return ParseDrop();
  if (kw == "alter") return ParseAlter();
  if (kw == "truncate") return ParseTruncate();
  if (kw == "begin" || kw == "start" || kw == "commit" || kw == "end" || kw == "rollback" ||
      kw == "abort" || kw == "savepoint" || kw == "release") {
    return ParseTransaction();
  }
  if (kw == "set") return ParseSet();
  if (kw == "show") return ParseShow();
  if (kw == "reset") return ParseReset();
  if (kw == "vacuum" || kw == "analyze" || kw == "analyse") return ParseVacuum();
  if (kw == "copy") return ParseCopy();
  if (kw == "explain") return ParseExplain();
  if (kw == "discard") return ParseDiscard();
  if (kw == "deallocate") return ParseDeallocate();
  if (kw == "prepare") return ParsePrepare();
  if (kw == "execute") return ParseExecute();
  if (kw == "call") return ParseCall();
  if (kw == "declare") return ParseDeclare();
  if (kw == "fetch" || kw == "move") return ParseFetch();
  if (kw == "close") return ParseClose();
  if (kw == "checkpoint") {
    ExpectKw("checkpoint");
    return MakeStatement(StatementKind::kCheckpoint);
  }
  if (kw == "listen" || kw == "unlisten" || kw == "notify") return ParseListen();
  if (kw == "comment") return ParseComment();
  for (const char* missing : {"lock", "grant", "revoke", "do", "refresh", "reindex", "cluster"}) {
    if (kw == missing) NotSupportedAt(t, Upper(kw));
  }
  ErrorAt(t);
}

StatementPtr Parser::ParseListen() {
  auto listen = std::make_unique<ListenStmt>();
  using Action = ListenStmt::Action;
  if (AcceptKw("listen")) {
    listen->action = Action::kListen;
  } else if (AcceptKw("unlisten")) {
    listen->action = Action::kUnlisten;
  } else {
    ExpectKw("notify");
    listen->action = Action::kNotify;
  }
  if (listen->action == Action::kUnlisten && IsOp("*")) {
    Advance();
  } else {
    listen->channel = ParseColId();
  }
  if (listen->action == Action::kNotify && AcceptPunct(',')) {
    if (Peek().kind != TokenKind::kString) ErrorAt(Peek());
    listen->payload = Advance().text;
  }
  StatementPtr stmt = MakeStatement(StatementKind::kListen);
  stmt->listen = std::move(listen);
  return stmt;
}

StatementPtr Parser::ParseComment() {
  ExpectKw("comment");
  ExpectKw("on");
  auto comment = std::make_unique<CommentStmt>();
  const Token& kind = Peek();
  if (AcceptKw("column")) {
    comment->column = true;
  } else if (!AcceptKw("table")) {
    NotSupportedAt(kind, "COMMENT ON " + Upper(kind.text));
  }
  const int position = Peek().position;
  comment->name = ParseQualifiedName();
  if (comment->column && comment->name.size() < 2) {
    throw DbError(sqlstate::kSyntaxError, "column name must be qualified", position);
  }
  ExpectKw("is");
  if (!AcceptKw("null")) {
    if (Peek().kind != TokenKind::kString) ErrorAt(Peek());
    comment->text = Advance().text;
  }
  StatementPtr stmt = MakeStatement(StatementKind::kComment);
  stmt->comment = std::move(comment);
  return stmt;
}

StatementPtr Parser::ParseCreateSchema() {
  ExpectKw("schema");
  auto create = std::make_unique<CreateSchemaStmt>();
  if (IsKw("if") && IsKw("not", 1) && IsKw("exists", 2)) {
    pos_ += 3;
    create->if_not_exists = true;
  }
  if (!IsKw("authorization")) create->name = ParseColId();
  if (AcceptKw("authorization")) {
    // CURRENT_USER, SESSION_USER and CURRENT_ROLE are reserved words: kept
    // as written (lower case) for the session to resolve.
    if (IsKw("current_user") || IsKw("session_user") || IsKw("current_role")) {
      create->authorization = Advance().text;
      for (char& ch : create->authorization) ch = static_cast<char>(std::tolower(ch));
    } else {
      create->authorization = ParseColId();
    }
  }
  // Schema elements: what PostgreSQL would create inside the new schema.
  // They are not parsed here: the statement is refused or rejected whole.
  if (IsKw("create") || IsKw("grant")) {
    create->elements_position = Peek().position;
    while (Peek().kind != TokenKind::kEnd && !IsPunct(';')) Advance();
  }
  StatementPtr stmt = MakeStatement(StatementKind::kCreateSchema);
  stmt->create_schema = std::move(create);
  return stmt;
}

std::vector<StatementPtr> Parser::ParseAll() {
  stack_base_ = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  std::vector<StatementPtr> statements;
  while (true) {
    while (AcceptPunct(';')) {
    }
    if (Peek().kind == TokenKind::kEnd) break;
    max_parameter_ = 0;
    const Token& first = Peek();
    size_t first_index = pos_;
    StatementPtr stmt = ParseStatement();
    if (!AtStatementEnd()) ErrorAtCurrent();
    stmt->position = first.position;
    stmt->begin = first.begin;
    stmt->end = pos_ > first_index ? tokens_[pos_ - 1].end : first.end;
    stmt->max_parameter = max_parameter_;
    statements.push_back(std::move(stmt));
  }
  return statements;
}

std::vector<StatementPtr> Parse(std::string_view text) { return Parser(text).ParseAll(); }

}  // namespace forktail::sql
