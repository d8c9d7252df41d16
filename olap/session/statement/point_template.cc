#include "olap/session/statement/point_template.h"

#include <atomic>
#include <charconv>
#include <limits>

#include "olap/parser/lexer.h"
#include "olap/plan/logical_util.h"
#include "storage/table/catalog.h"

namespace forktail {
namespace {

std::atomic<uint64_t> g_template_executions{0};

bool IsOp(const sql::Token& t, std::string_view op) {
  return t.kind == sql::TokenKind::kOp && t.text == op;
}
bool IsPunct(const sql::Token& t, std::string_view p) {
  return t.kind == sql::TokenKind::kPunct && t.text == p;
}

// `column = <digits>`, the digits ending the comparison.
bool IsKeyLiteral(const std::vector<sql::Token>& tokens, size_t i) {
  if (i < 2 || i + 1 >= tokens.size()) return false;
  const sql::Token& column = tokens[i - 2];
  if (column.kind != sql::TokenKind::kIdent && column.kind != sql::TokenKind::kQuotedIdent) {
    return false;
  }
  if (!IsOp(tokens[i - 1], "=")) return false;
  const sql::Token& next = tokens[i + 1];
  return next.kind == sql::TokenKind::kEnd || IsPunct(next, ")") || IsPunct(next, ";") ||
         (next.kind == sql::TokenKind::kIdent && next.text == "and");
}

// What a binder folds into a constant that a later statement of the same
// text must not repeat: now() and its SQL keyword forms, typed literals
// ('now'::timestamp, date 'today'), function calls of any kind. The text
// then gets no template (a plain column lookup has none of these).
bool FoldsTimeOrCalls(const std::vector<sql::Token>& tokens, size_t i) {
  const sql::Token& t = tokens[i];
  if (IsOp(t, "::")) return true;
  if (t.kind != sql::TokenKind::kIdent && t.kind != sql::TokenKind::kQuotedIdent) return false;
  const sql::Token& next = tokens[i + 1];
  if (next.kind == sql::TokenKind::kString) return true;  // date 'today'
  if (t.kind == sql::TokenKind::kIdent) {
    static constexpr std::string_view kValueFunctions[] = {
        "current_date",   "current_time",   "current_timestamp", "localtime",
        "localtimestamp", "current_user",   "session_user",      "user",
        "current_role",   "current_schema", "current_catalog",   "system_user"};
    for (std::string_view f : kValueFunctions) {
      if (t.text == f) return true;
    }
    if (IsPunct(next, "(")) {  // a call, unless a keyword that opens a parenthesis
      return t.text != "where" && t.text != "and" && t.text != "or" && t.text != "not" &&
             t.text != "select";
    }
    return false;
  }
  return IsPunct(next, "(");
}

std::optional<Value> IntegerOf(const Type& type, int64_t v) {
  switch (type.id) {
    case TypeId::kSmallInt:
      if (v < std::numeric_limits<int16_t>::min() || v > std::numeric_limits<int16_t>::max()) {
        return std::nullopt;
      }
      return Value::SmallInt(static_cast<int16_t>(v));
    case TypeId::kInteger:
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
        return std::nullopt;
      }
      return Value::Integer(static_cast<int32_t>(v));
    case TypeId::kBigInt:
      return Value::BigInt(v);
    default:
      return std::nullopt;
  }
}

}  // namespace

uint64_t PointTemplateExecutions() { return g_template_executions.load(std::memory_order_relaxed); }
void CountPointTemplateExecution() {
  g_template_executions.fetch_add(1, std::memory_order_relaxed);
}

std::optional<PointQueryText> PointQueryTextOf(std::string_view sql) {
  std::vector<sql::Token> tokens = sql::Tokenize(sql);
  if (tokens.empty() || tokens[0].kind != sql::TokenKind::kIdent || tokens[0].text != "select") {
    return std::nullopt;
  }
  PointQueryText text;
  text.key.reserve(sql.size());
  for (size_t i = 0; i < tokens.size(); i++) {
    const sql::Token& t = tokens[i];
    if (t.kind != sql::TokenKind::kEnd && FoldsTimeOrCalls(tokens, i)) return std::nullopt;
    switch (t.kind) {
      case sql::TokenKind::kError:
      case sql::TokenKind::kParam:
        return std::nullopt;
      case sql::TokenKind::kEnd:
        break;
      case sql::TokenKind::kPunct:
        // One statement: only the end may follow a `;`.
        if (t.text == ";") {
          if (tokens[i + 1].kind != sql::TokenKind::kEnd) return std::nullopt;
          continue;  // the same statement with or without it
        }
        break;
      case sql::TokenKind::kInteger:
        if (IsKeyLiteral(tokens, i)) {
          int64_t v = 0;
          const char* end = t.text.data() + t.text.size();
          auto [ptr, ec] = std::from_chars(t.text.data(), end, v);
          if (ec != std::errc() || ptr != end) return std::nullopt;
          text.literals.push_back(v);
          text.key += "\x01?\x1f";
          continue;
        }
        break;
      default:
        break;
    }
    text.key += static_cast<char>('A' + static_cast<int>(t.kind));
    text.key += t.text;
    text.key += '\x1f';
  }
  if (text.literals.empty()) return std::nullopt;
  return text;
}

std::unique_ptr<PointTemplate> PointTemplate::Make(const PreBoundStatement& pre,
                                                   const Catalog& schemas,
                                                   const std::vector<int64_t>& literals) {
  const PointSelect* point = pre.point_select.get();
  if (point == nullptr || pre.bound.sequence_use != SequenceUse::kNone ||
      pre.bound.uses_server_state || point->where_ == nullptr) {
    return nullptr;
  }
  const Table* table = schemas.FindTable(point->table_);
  if (table == nullptr) return nullptr;
  const TableSchema& schema = table->schema();
  const size_t keys = schema.primary_key.size();
  std::vector<const Expression*> conjuncts;
  SplitConjuncts(*point->where_, &conjuncts);
  if (keys == 0 || conjuncts.size() != keys || literals.size() != keys) return nullptr;
  auto tmpl = std::unique_ptr<PointTemplate>(new PointTemplate());
  tmpl->literal_of_key_.assign(keys, SIZE_MAX);
  std::vector<bool> literal_taken(literals.size(), false);
  for (const Expression* c : conjuncts) {
    if (c->kind != ExprKind::kCompare || c->compare != CompareOp::kEq || c->children.size() != 2) {
      return nullptr;
    }
    const Expression* column = c->children[0].get();
    const Expression* constant = c->children[1].get();
    if (column->kind != ExprKind::kColumnRef) std::swap(column, constant);
    if (column->kind != ExprKind::kColumnRef || constant->kind != ExprKind::kConstant ||
        constant->constant.is_null() || !constant->type.IsInteger() ||
        column->column >= schema.columns.size() ||
        !schema.columns[column->column].type.IsInteger()) {
      return nullptr;
    }
    size_t k = 0;
    while (k < keys && schema.primary_key[k].value() != column->column) k++;
    if (k == keys || tmpl->literal_of_key_[k] != SIZE_MAX) return nullptr;
    // The one literal this constant is (distinct values: no guessing).
    size_t match = SIZE_MAX;
    for (size_t i = 0; i < literals.size(); i++) {
      if (literals[i] != constant->constant.GetInt()) continue;
      if (match != SIZE_MAX) return nullptr;
      match = i;
    }
    if (match == SIZE_MAX || literal_taken[match]) return nullptr;
    literal_taken[match] = true;
    tmpl->literal_of_key_[k] = match;
  }
  // The key values must be those constants, in key order, as PointKey took them.
  if (point->key_.size() != keys) return nullptr;
  for (size_t k = 0; k < keys; k++) {
    const Value& v = point->key_[k];
    if (!v.type().IsInteger() || v.GetInt() != literals[tmpl->literal_of_key_[k]]) return nullptr;
  }
  tmpl->schema_version_ = pre.schema_version;
  tmpl->prototype_ = point->ForKey(point->key_);
  return tmpl;
}

std::unique_ptr<PointSelect> PointTemplate::Instantiate(
    const std::vector<int64_t>& literals) const {
  if (literals.size() != literal_of_key_.size()) return nullptr;
  std::vector<Value> key;
  key.reserve(literal_of_key_.size());
  for (size_t k = 0; k < literal_of_key_.size(); k++) {
    std::optional<Value> v = IntegerOf(prototype_->key_[k].type(), literals[literal_of_key_[k]]);
    if (!v) return nullptr;
    key.push_back(std::move(*v));
  }
  return prototype_->ForKey(std::move(key));
}

}  // namespace forktail
