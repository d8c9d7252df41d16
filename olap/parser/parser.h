// The SQL parser: hand-written recursive descent over the lexer's tokens,
// producing the AST of ast.h. sql::Parse (declared in ast.h) is the entry
// point; the Parser class is internal to olap/parser/ and split by area:
//   parser.cc              token cursor, names, errors, statement dispatch
//   parser_expr.cc         expressions: Pratt loop with PostgreSQL's precedence
//   parser_primary.cc      primary expressions, names, function calls, CASE
//   parser_special.cc      parentheses, postfix forms, EXTRACT/SUBSTRING/TRIM/...
//   parser_types.cc        type names and typed literals
//   parser_select.cc       queries: SELECT, VALUES, set operations, FROM, WITH
//   parser_dml.cc          INSERT, UPDATE, DELETE
//   parser_ddl.cc          CREATE/DROP TABLE, CREATE INDEX, ALTER TABLE, TRUNCATE
//   parser_utility.cc      transactions, SET/SHOW/RESET, VACUUM/ANALYZE, COPY,
//                          EXPLAIN, DISCARD, DEALLOCATE
//   parser_cursor.cc       DECLARE, FETCH / MOVE, CLOSE
//
// Error reporting follows PostgreSQL's bison parser: the error points at the
// first token that cannot continue a valid statement ("syntax error at or near
// \"tok\"", or "syntax error at end of input"). Recursive descent finds the
// same token in nearly all cases because every production consumes tokens
// only when they fit and otherwise returns to a caller that expects a
// specific follower.
//
// Operator precedence, loosest first (PostgreSQL 15's gram.y):
//   OR < AND < NOT (prefix) < IS, ISNULL, NOTNULL < comparisons (= < > <= >=
//   <>, non-associative) < BETWEEN, IN, LIKE, ILIKE, SIMILAR (non-assoc.)
//   < other operators (||, ~, &, ...) < + - < * / % < ^ < AT TIME ZONE
//   < COLLATE < unary minus < [] subscript < :: cast < . field
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "olap/parser/ast.h"
#include "olap/parser/lexer.h"

namespace forktail::sql {

// Binding strength of the operator levels above (higher binds tighter).
enum Precedence : int {
  kPrecNone = 0,
  kPrecOr = 1,
  kPrecAnd,
  kPrecNot,
  kPrecIs,
  kPrecCompare,
  kPrecLike,  // BETWEEN IN LIKE ILIKE SIMILAR
  kPrecEscape,
  kPrecOp,  // any other operator, OPERATOR(...)
  kPrecAdd,
  kPrecMul,
  kPrecExp,
  kPrecAt,
  kPrecCollate,
  kPrecUnary,
};

class Parser {
 public:
  explicit Parser(std::string_view text);
  std::vector<StatementPtr> ParseAll();

  // Token cursor (parser.cc). Peek never moves past the last token (kEnd or
  // kError). Keyword tests match unquoted identifiers only.
  const Token& Peek(size_t k = 0) const;
  const Token& Advance();
  bool AtStatementEnd() const;  // ';' or end of input
  bool IsKw(std::string_view kw, size_t k = 0) const;
  bool AcceptKw(std::string_view kw);
  const Token& ExpectKw(std::string_view kw);
  bool IsOp(std::string_view op, size_t k = 0) const;
  bool AcceptOp(std::string_view op);
  const Token& ExpectOp(std::string_view op);
  bool IsPunct(char c, size_t k = 0) const;
  bool AcceptPunct(char c);
  const Token& ExpectPunct(char c);
  [[noreturn]] void ErrorAt(const Token& t) const;
  [[noreturn]] void ErrorAtCurrent() const { ErrorAt(Peek()); }
  // A statement PostgreSQL has and Forktail does not (CREATE VIEW, DECLARE,
  // SAVEPOINT, ...): 0A000 "<what> is not supported" at `t`, not a syntax
  // error, so the client learns the statement itself is missing.
  [[noreturn]] void NotSupportedAt(const Token& t, const std::string& what) const;
  // CREATE TABLE's ON COMMIT PRESERVE ROWS; 0A000 for PARTITION BY,
  // INHERITS, USING, TABLESPACE and the other ON COMMITs.
  void ParseTableClauses(bool temporary);
  // After CREATE / DROP: 0A000 for an object kind Forktail does not have,
  // else a syntax error at the current token.
  [[noreturn]] void RefuseMissingObject(const char* verb) const;
  [[noreturn]] void ErrorMessage(const Token& t, const std::string& message) const;

  // Names (parser.cc). ColId: identifier, unreserved or col_name keyword;
  // type_function_name: identifier, unreserved or type_func_name keyword;
  // ColLabel: any identifier or keyword.
  bool IsColId(size_t k = 0) const;
  bool IsTypeFuncName(size_t k = 0) const;
  bool IsColLabel(size_t k = 0) const;
  std::string ParseColId();
  std::string ParseColLabel();
  QualifiedName ParseQualifiedName();          // ColId ('.' ColLabel)*
  std::vector<std::string> ParseColumnList();  // '(' ColId, ... ')'
  bool IsNameListThenAs() const;               // at '(': `(name, ...) AS` follows
  ColumnDef ParseLikeClause();                 // LIKE t [INCLUDING ..] in CREATE TABLE
  std::string ParseOptionValue();              // SET / COPY / WITH option values
  int64_t ParseSignedInteger();

  // Expressions (parser_expr.cc, parser_primary.cc).
  ExprPtr ParseExpr(int min_precedence = 0);
  std::vector<ExprPtr> ParseExprList();  // a, b, c (at least one)
  ExprPtr ParseQuantified(std::string op, std::string op_schema, ExprPtr left, int position);
  ExprPtr ParsePrimary();
  ExprPtr ParsePostfix(ExprPtr expr);     // [..], ::type, .field
  ExprPtr ParseParenthesized();           // '(' -> subquery, row or (expr)
  ExprPtr ParseNameExpression();          // column ref, function call, typed literal
  ExprPtr ParseFunctionArgs(ExprPtr fn);  // after the name; consumes (...) and suffixes
  ExprPtr ParseSpecialFunction();         // EXTRACT, SUBSTRING, POSITION, TRIM, ...
  ExprPtr ParseCase();
  std::unique_ptr<WindowSpec> ParseWindowSpec();
  std::vector<OrderItem> ParseOrderByList();  // after ORDER BY
  bool StartsQuery(size_t k) const;           // SELECT / VALUES / WITH / TABLE at k (skipping '(')

  // Types (parser_types.cc).
  bool StartsTypedLiteralKeyword() const;
  TypeName ParseTypeName(bool in_literal = false);
  void ParseIntervalFields(TypeName& type);
  ExprPtr ParseTypedLiteral();  // keyword types: DATE '..', INTERVAL '..' DAY, ...

  // Queries (parser_select.cc).
  QueryPtr ParseQuery();  // [WITH] set-operation tree [ORDER BY] [LIMIT..] [FOR ..]
  QueryPtr ParseSetOperation(int min_precedence, QueryPtr first = nullptr);
  QueryPtr ParseQueryAfterOperand(QueryPtr first);  // ((SELECT ..) UNION ..) inside '('
  QueryPtr ParseSelectPrimary();
  QueryPtr ParseSelectCore();
  QueryPtr ParseValues();
  void ParseQueryTail(Query& q);  // ORDER BY, LIMIT, OFFSET, FETCH, FOR UPDATE
  std::vector<SelectItem> ParseSelectList(bool allow_empty);
  void ParseGroupBy(Query& q);          // after GROUP BY
  GroupingElement ParseGroupingItem();  // one item of GROUP BY or GROUPING SETS
  std::vector<TableRefPtr> ParseFromList();
  TableRefPtr ParseTableRef();
  TableRefPtr ParseTablePrimary();
  void ParseAlias(TableRef& ref, bool required);
  std::vector<CommonTableExpr> ParseWith(bool& recursive);

  // Statements.
  StatementPtr ParseStatement();
  StatementPtr ParseInsert();
  StatementPtr ParseUpdate();
  StatementPtr ParseDelete();
  std::vector<SelectItem> ParseReturning();
  ExprPtr ParseWhereNotCurrentOf();          // after WHERE of UPDATE / DELETE
  std::vector<SetClause> ParseSetClauses();  // after SET: a = x, (b, c) = (y, z), ...
  std::unique_ptr<OnConflict> ParseOnConflict();
  StatementPtr ParseCreate();
  StatementPtr ParseCreateTable(bool temporary);
  StatementPtr ParseCreateIndex(bool unique);
  StatementPtr ParseCreateView(bool or_replace);
  StatementPtr ParseCreateSequence(bool temporary, bool unlogged);  // parser_sequence.cc
  StatementPtr ParseAlterSequence();
  bool IsSequenceOption(size_t k = 0) const;  // the k-th token starts one
  SequenceOption ParseSequenceOption();
  std::vector<SequenceOption> ParseSequenceOptions();  // zero or more
  ColumnDef ParseColumnDef();
  TableConstraint ParseTableConstraint();
  void ParseReferences(TableConstraint& c);
  std::vector<Option> ParseParenOptions();  // '(' name [=] [value], ... ')'
  StatementPtr ParseDrop();
  StatementPtr ParseAlter();
  AlterAction ParseAlterAction();
  StatementPtr ParseTruncate();
  StatementPtr ParseTransaction();
  void ParseTransactionModes(std::string& isolation, int& read_only);
  StatementPtr ParseSet();
  StatementPtr ParseShow();
  StatementPtr ParseReset();
  StatementPtr ParseVacuum();
  StatementPtr ParseCopy();
  StatementPtr ParseExplain();
  StatementPtr ParseDiscard();
  StatementPtr ParseDeallocate();
  StatementPtr ParsePrepare();
  StatementPtr ParseExecute();
  StatementPtr ParseCall();
  StatementPtr ParseDeclare();
  StatementPtr ParseFetch();  // FETCH and MOVE
  StatementPtr ParseClose();
  StatementPtr ParseListen();   // LISTEN / UNLISTEN / NOTIFY
  StatementPtr ParseComment();  // COMMENT ON TABLE / COLUMN
  StatementPtr ParseCreateSchema();
  // A query inside another statement (DECLARE ... FOR, COPY (query) TO) as a
  // kSelect statement spanning its own text (begin, end, position).
  StatementPtr ParseInnerQuery();

  // Node construction helpers.
  static ExprPtr MakeExpr(ExprKind kind, int position);
  static StatementPtr MakeStatement(StatementKind kind);
  static ExprPtr MakeLiteral(LiteralKind kind, std::string text, int position);

  int max_parameter_ = 0;  // highest $n in the current statement
  // True while parsing a select-list item outside any nested query: a keyword
  // operator (AND, LIKE, IS, ...) followed by a token that ends the item is a
  // bare column label there (`SELECT 'a' LIKE` names the column "like").
  bool in_select_item_ = false;
  bool EndsSelectItemAfter(size_t k) const;

  // Bounds the height of the trees built (and so the recursion depth of the
  // parser, the printer, the binder and the trees' destructors): every
  // recursive production and every operator / join / set operation / postfix
  // applied in a loop counts one level while its frame is active; the sum
  // over active frames bounds the height of any tree they build. Independently
  // the parser's own stack use is capped like PostgreSQL's max_stack_depth
  // (frames are several KiB in sanitizer builds). Either limit raises 54000
  // "stack depth limit exceeded".
  static constexpr int kMaxNesting = 1000;
  static constexpr size_t kMaxStackBytes = size_t{2} << 20;
  class Nesting {
   public:
    explicit Nesting(Parser& p) : p_(p) { Add(); }
    ~Nesting() { p_.nesting_ -= added_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    void Add();

   private:
    Parser& p_;
    int added_ = 0;
  };

 private:
  int nesting_ = 0;
  uintptr_t stack_base_ = 0;  // frame address when parsing started
  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace forktail::sql
