// Type names (casts, column definitions, typed literals) with PostgreSQL's
// canonical spellings for the SQL-standard multi-word and keyword types (see
// the list in ast.h), and typed literals such as DATE '1998-12-01' or
// INTERVAL '3' MONTH.
#include "olap/parser/parser.h"

namespace forktail::sql {
namespace {

bool IsIntervalField(const Parser& p, size_t k = 0) {
  return p.IsKw("year", k) || p.IsKw("month", k) || p.IsKw("day", k) || p.IsKw("hour", k) ||
         p.IsKw("minute", k) || p.IsKw("second", k);
}

}  // namespace

bool Parser::StartsTypedLiteralKeyword() const {
  const Token& t = Peek();
  if (t.kind != TokenKind::kIdent) return false;
  const std::string& w = t.text;
  const Token& next = Peek(1);
  bool string_or_paren = next.kind == TokenKind::kString || IsPunct('(', 1);
  if (w == "double") return IsKw("precision", 1);
  if (w == "national") return IsKw("char", 1) || IsKw("character", 1);
  if (w == "char" || w == "character" || w == "nchar" || w == "bit") {
    return string_or_paren || IsKw("varying", 1);
  }
  if (w == "time" || w == "timestamp") {
    return string_or_paren || IsKw("with", 1) || IsKw("without", 1);
  }
  return (w == "bigint" || w == "boolean" || w == "dec" || w == "decimal" || w == "float" ||
          w == "int" || w == "integer" || w == "interval" || w == "numeric" || w == "real" ||
          w == "smallint" || w == "varchar") &&
         string_or_paren;
}

// `in_literal`: CHAR without a length means char(1) except in a typed
// literal (CHAR 'abc'), as in PostgreSQL.
TypeName Parser::ParseTypeName(bool in_literal) {
  TypeName type;
  type.position = Peek().position;
  AcceptKw("setof");
  const Token& t = Peek();
  std::string w = t.kind == TokenKind::kIdent ? t.text : std::string();
  auto modifiers = [&] {
    if (!AcceptPunct('(')) return;
    do {
      type.modifiers.push_back(ParseSignedInteger());
    } while (AcceptPunct(','));
    ExpectPunct(')');
  };
  auto time_zone = [&](const char* with_zone) {
    if (IsKw("with") && IsKw("time", 1) && IsKw("zone", 2)) {
      pos_ += 3;
      type.name = with_zone;
    } else if (IsKw("without") && IsKw("time", 1) && IsKw("zone", 2)) {
      pos_ += 3;
    }
  };
  if (w == "int" || w == "integer") {
    ++pos_;
    type.name = "int4";
  } else if (w == "smallint") {
    ++pos_;
    type.name = "int2";
  } else if (w == "bigint") {
    ++pos_;
    type.name = "int8";
  } else if (w == "real") {
    ++pos_;
    type.name = "float4";
  } else if (w == "float") {
    ++pos_;
    type.name = "float8";
    if (AcceptPunct('(')) {
      const Token& p = Peek();
      int64_t precision = ParseSignedInteger();
      if (precision < 1) ErrorMessage(p, "precision for type float must be at least 1 bit");
      if (precision > 53) ErrorMessage(p, "precision for type float must be less than 54 bits");
      if (precision <= 24) type.name = "float4";
      ExpectPunct(')');
    }
  } else if (w == "double" && IsKw("precision", 1)) {
    pos_ += 2;
    type.name = "float8";
  } else if (w == "decimal" || w == "dec" || w == "numeric") {
    ++pos_;
    type.name = "numeric";
    modifiers();
  } else if (w == "boolean") {
    ++pos_;
    type.name = "bool";
  } else if (w == "char" || w == "character" || w == "nchar" || w == "national") {
    ++pos_;
    if (w == "national") {
      if (!AcceptKw("char")) ExpectKw("character");
    }
    bool varying = AcceptKw("varying");
    type.name = varying ? "varchar" : "bpchar";
    modifiers();
    if (!varying && type.modifiers.empty() && !in_literal) type.modifiers.push_back(1);
  } else if (w == "varchar") {
    ++pos_;
    type.name = "varchar";
    modifiers();
  } else if (w == "bit") {
    ++pos_;
    bool varying = AcceptKw("varying");
    type.name = varying ? "varbit" : "bit";
    modifiers();
    if (!varying && type.modifiers.empty() && !in_literal) type.modifiers.push_back(1);
  } else if (w == "timestamp" || w == "time") {
    ++pos_;
    type.name = w;
    modifiers();
    time_zone(w == "timestamp" ? "timestamptz" : "timetz");
  } else if (w == "interval") {
    ++pos_;
    type.name = "interval";
    if (IsPunct('(')) {
      modifiers();
    } else {
      ParseIntervalFields(type);
    }
  } else {
    // Generic type: type_function_name [. ColLabel] [(typmods)].
    if (!IsTypeFuncName()) ErrorAtCurrent();
    type.name = Advance().text;
    while (IsPunct('.') && IsColLabel(1)) {
      ++pos_;
      if (!type.schema.empty()) type.schema += '.';
      type.schema += type.name;
      type.name = Advance().text;
    }
    modifiers();
  }
  // Array bounds: [] / [n] repeated, or ARRAY / ARRAY[n].
  if (AcceptKw("array")) {
    ++type.array_bounds;
    if (AcceptPunct('[')) {
      if (Peek().kind == TokenKind::kInteger) ++pos_;
      ExpectPunct(']');
    }
  } else {
    while (IsPunct('[')) {
      ++pos_;
      if (Peek().kind == TokenKind::kInteger) ++pos_;
      ExpectPunct(']');
      ++type.array_bounds;
    }
  }
  return type;
}

// YEAR | MONTH | DAY | HOUR | MINUTE | SECOND [(p)] and the X TO Y forms.
// A leading-field precision (DAY (3), as the TPC-H text writes it) is
// accepted into `modifiers` although PostgreSQL rejects it.
void Parser::ParseIntervalFields(TypeName& type) {
  if (!IsIntervalField(*this)) return;
  type.interval_fields = Advance().text;
  if (AcceptKw("to")) {
    // Valid ranges: YEAR TO MONTH; DAY TO HOUR|MINUTE|SECOND; HOUR TO
    // MINUTE|SECOND; MINUTE TO SECOND.
    const std::string& from = type.interval_fields;
    bool ok = (from == "year" && IsKw("month")) ||
              (from == "day" && (IsKw("hour") || IsKw("minute") || IsKw("second"))) ||
              (from == "hour" && (IsKw("minute") || IsKw("second"))) ||
              (from == "minute" && IsKw("second"));
    if (!ok) ErrorAtCurrent();
    type.interval_fields += " to " + Advance().text;
  }
  if (IsPunct('(') && Peek(1).kind == TokenKind::kInteger && IsPunct(')', 2)) {
    ++pos_;
    type.modifiers.push_back(ParseSignedInteger());
    ExpectPunct(')');
  }
}

ExprPtr Parser::ParseTypedLiteral() {
  int position = Peek().position;
  TypeName type = ParseTypeName(/*in_literal=*/true);
  if (Peek().kind != TokenKind::kString) ErrorAtCurrent();
  ExprPtr e = MakeLiteral(LiteralKind::kTyped, Advance().text, position);
  if (type.name == "interval" && type.interval_fields.empty()) ParseIntervalFields(type);
  e->type = std::move(type);
  return e;
}

}  // namespace forktail::sql
