// DDL: CREATE TABLE, CREATE INDEX, DROP TABLE / INDEX, ALTER TABLE, TRUNCATE.
#include <cctype>
#include <string>

#include "olap/parser/parser.h"
#include "storage/error.h"

namespace forktail::sql {
std::vector<Option> Parser::ParseParenOptions() {
  std::vector<Option> options;
  ExpectPunct('(');
  do {
    Option option;
    option.position = Peek().position;
    option.name = ParseColLabel();
    AcceptOp("=");
    if (IsPunct('(')) {
      // FORCE_NOT_NULL (a, b) and the like: a column list.
      ++pos_;
      do {
        if (!option.value.empty()) option.value += ',';
        option.value += IsOp("*") ? Advance().text : ParseColLabel();
      } while (AcceptPunct(','));
      ExpectPunct(')');
      option.has_value = true;
    } else if (IsOp("*")) {
      option.value = Advance().text;
      option.has_value = true;
    } else if (!IsPunct(',') && !IsPunct(')')) {
      option.value = ParseOptionValue();
      option.has_value = true;
    }
    options.push_back(std::move(option));
  } while (AcceptPunct(','));
  ExpectPunct(')');
  return options;
}

void Parser::RefuseMissingObject(const char* verb) const {
  // Objects PostgreSQL has and Forktail does not: 0A000, not a syntax error.
  const Token& at = Peek();
  std::string what = verb;
  size_t ahead = 0;
  if (std::string(verb) == "CREATE" && IsKw("or") && IsKw("replace", 1)) {
    what += " OR REPLACE";
    ahead = 2;
  }
  for (const char* object :
       {"view", "materialized", "function", "procedure", "trigger", "schema", "type", "extension",
        "role", "user", "database", "domain", "rule", "policy", "aggregate", "operator"}) {
    if (IsKw(object, ahead)) {
      std::string name = object;
      if (name == "materialized") name = "materialized view";
      for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      NotSupportedAt(at, what + " " + name);
    }
  }
  ErrorAtCurrent();
}

StatementPtr Parser::ParseCreate() {
  ExpectKw("create");
  if (AcceptKw("unique")) {
    if (!IsKw("index")) ErrorAtCurrent();
    return ParseCreateIndex(true);
  }
  if (IsKw("index")) return ParseCreateIndex(false);
  if (IsKw("schema")) return ParseCreateSchema();
  if (IsKw("view")) return ParseCreateView(false);
  if (IsKw("or") && IsKw("replace", 1) && IsKw("view", 2)) {
    pos_ += 2;
    return ParseCreateView(true);
  }
  bool temporary = false;
  bool unlogged = false;
  if (AcceptKw("temp") || AcceptKw("temporary")) {
    temporary = true;
  } else if (AcceptKw("local") || AcceptKw("global")) {
    if (!AcceptKw("temp")) ExpectKw("temporary");
    temporary = true;
  } else {
    unlogged = AcceptKw("unlogged");
  }
  if (IsKw("sequence")) return ParseCreateSequence(temporary, unlogged);
  if (temporary && (IsKw("view") || (IsKw("recursive") && IsKw("view", 1)))) {
    NotSupportedAt(Peek(), "CREATE TEMPORARY VIEW");
  }
  if (!IsKw("table")) RefuseMissingObject("CREATE");
  return ParseCreateTable(temporary);
}

StatementPtr Parser::ParseCreateView(bool or_replace) {
  ExpectKw("view");
  auto create = std::make_unique<CreateViewStmt>();
  create->or_replace = or_replace;
  create->name = ParseQualifiedName();
  if (IsPunct('(')) create->column_names = ParseColumnList();
  if (IsKw("with")) NotSupportedAt(Peek(), "CREATE VIEW ... WITH (options)");
  ExpectKw("as");
  create->query = ParseQuery();
  if (IsKw("with")) NotSupportedAt(Peek(), "WITH CHECK OPTION");
  StatementPtr stmt = MakeStatement(StatementKind::kCreateView);
  stmt->create_view = std::move(create);
  return stmt;
}

// LIKE source [{INCLUDING | EXCLUDING} option ...], as a placeholder column.
ColumnDef Parser::ParseLikeClause() {
  ColumnDef like;
  like.position = ExpectKw("like").position;
  like.like = ParseQualifiedName();
  static constexpr std::pair<const char*, uint32_t> kOptions[] = {
      {"comments", kLikeComments},       {"compression", kLikeCompression},
      {"constraints", kLikeConstraints}, {"defaults", kLikeDefaults},
      {"generated", kLikeGenerated},     {"identity", kLikeIdentity},
      {"indexes", kLikeIndexes},         {"statistics", kLikeStatistics},
      {"storage", kLikeStorage},         {"all", kLikeAll}};
  while (IsKw("including") || IsKw("excluding")) {
    const bool including = Advance().text == "including";
    uint32_t bits = 0;
    for (const auto& [word, bit] : kOptions) {
      if (IsKw(word)) bits = bit;
    }
    if (bits == 0) ErrorAtCurrent();
    ++pos_;
    like.like_including = including ? like.like_including | bits : like.like_including & ~bits;
  }
  return like;
}

// At '(': whether `(name, ...) AS` follows (CREATE TABLE AS's column
// names) rather than column definitions.
bool Parser::IsNameListThenAs() const {
  for (size_t k = 1;; k += 2) {
    const TokenKind kind = Peek(k).kind;
    if (kind != TokenKind::kIdent && kind != TokenKind::kQuotedIdent) return false;
    if (IsPunct(')', k + 1)) return IsKw("as", k + 2);
    if (!IsPunct(',', k + 1)) return false;
  }
}

StatementPtr Parser::ParseCreateTable(bool temporary) {
  ExpectKw("table");
  auto create = std::make_unique<CreateTableStmt>();
  create->temporary = temporary;
  if (IsKw("if") && IsKw("not", 1) && IsKw("exists", 2)) {
    pos_ += 3;
    create->if_not_exists = true;
  }
  create->table = ParseQualifiedName();
  if (IsPunct('(') && IsNameListThenAs()) create->as_column_names = ParseColumnList();
  if (!IsPunct('(')) ParseTableClauses(temporary);  // before AS
  if (AcceptKw("as")) {
    create->as_query = ParseQuery();
    if (AcceptKw("with")) {  // WITH [NO] DATA
      create->with_data = !AcceptKw("no");
      ExpectKw("data");
    }
  } else {
    ExpectPunct('(');
    if (!IsPunct(')')) {
      do {
        if (IsKw("constraint") || IsKw("primary") || IsKw("unique") || IsKw("check") ||
            IsKw("foreign")) {
          create->constraints.push_back(ParseTableConstraint());
        } else if (IsKw("like")) {
          create->columns.push_back(ParseLikeClause());
        } else {
          create->columns.push_back(ParseColumnDef());
        }
      } while (AcceptPunct(','));
    }
    ExpectPunct(')');
    ParseTableClauses(temporary);
    if (IsKw("with") && IsPunct('(', 1)) {
      ++pos_;
      create->options = ParseParenOptions();
    } else if (IsKw("without") && IsKw("oids", 1)) {
      pos_ += 2;
    }
  }
  ParseTableClauses(temporary);
  StatementPtr stmt = MakeStatement(StatementKind::kCreateTable);
  stmt->create_table = std::move(create);
  return stmt;
}

// CREATE TABLE's clauses after the column list: ON COMMIT PRESERVE ROWS, what
// a temporary table does anyway; those PostgreSQL has and Forktail does not
// fail with 0A000 (feature not supported), not as syntax errors.
void Parser::ParseTableClauses(bool temporary) {
  if (IsKw("on") && IsKw("commit", 1) && IsKw("preserve", 2) && IsKw("rows", 3)) {
    if (!temporary) {
      throw DbError(sqlstate::kInvalidTableDefinition,
                    "ON COMMIT can only be used on temporary tables", Peek().position);
    }
    pos_ += 4;
  }
  if (IsKw("partition") && IsKw("by", 1)) {
    NotSupportedAt(Peek(), "CREATE TABLE ... PARTITION BY (partitioned tables)");
  }
  if (IsKw("inherits")) NotSupportedAt(Peek(), "CREATE TABLE ... INHERITS (table inheritance)");
  if (IsKw("using")) NotSupportedAt(Peek(), "CREATE TABLE ... USING (table access methods)");
  if (IsKw("tablespace")) NotSupportedAt(Peek(), "CREATE TABLE ... TABLESPACE");
  if (IsKw("on") && IsKw("commit", 1)) {
    NotSupportedAt(Peek(), "CREATE TABLE ... ON COMMIT DROP / DELETE ROWS");
  }
}

// REFERENCES t [(cols)] [MATCH FULL|SIMPLE] [ON DELETE|UPDATE action]...
// [[NOT] DEFERRABLE] [INITIALLY DEFERRED|IMMEDIATE], in any order.
void Parser::ParseReferences(TableConstraint& c) {
  ExpectKw("references");
  c.ref_table = ParseQualifiedName();
  if (IsPunct('(')) c.ref_columns = ParseColumnList();
  while (true) {
    if (IsKw("match")) {
      const Token& match = Peek();
      ++pos_;
      if (AcceptKw("full")) {
        c.match_full = true;
      } else if (IsKw("partial")) {
        throw DbError(sqlstate::kFeatureNotSupported, "MATCH PARTIAL not yet implemented",
                      match.position);
      } else {
        ExpectKw("simple");
      }
    } else if (IsKw("on")) {
      const Token& on = Peek();
      ++pos_;
      const bool on_delete = AcceptKw("delete");
      if (!on_delete) ExpectKw("update");
      ReferentialAction& action = on_delete ? c.on_delete : c.on_update;
      if (AcceptKw("cascade")) {
        action = ReferentialAction::kCascade;
      } else if (AcceptKw("restrict")) {
        action = ReferentialAction::kRestrict;
      } else if (AcceptKw("no")) {
        ExpectKw("action");
        action = ReferentialAction::kNoAction;
      } else {
        ExpectKw("set");
        const bool set_null = AcceptKw("null");
        if (!set_null) ExpectKw("default");
        action = set_null ? ReferentialAction::kSetNull : ReferentialAction::kSetDefault;
        if (IsPunct('(')) {
          if (!on_delete) {
            throw DbError(sqlstate::kFeatureNotSupported,
                          std::string("a column list with ") +
                              (set_null ? "SET NULL" : "SET DEFAULT") +
                              " is only supported for ON DELETE actions",
                          on.position);
          }
          c.delete_set_columns = ParseColumnList();
        }
      }
    } else if (IsKw("deferrable")) {
      c.deferrable_position = Peek().position;
      ++pos_;
    } else if (IsKw("not") && IsKw("deferrable", 1)) {
      pos_ += 2;
    } else if (IsKw("initially")) {
      const Token& initially = Peek();
      ++pos_;
      if (AcceptKw("deferred")) {
        c.deferrable_position = initially.position;
      } else {
        ExpectKw("immediate");
      }
    } else {
      return;
    }
  }
}

ColumnDef Parser::ParseColumnDef() {
  ColumnDef col;
  col.position = Peek().position;
  col.name = ParseColId();
  col.type = ParseTypeName();
  // CONSTRAINT name names the CHECK or REFERENCES that follows (and is
  // dropped before the others, whose names Forktail chooses).
  std::string name;
  while (true) {
    if (AcceptKw("constraint")) name = ParseColId();
    if (IsKw("not") && IsKw("null", 1)) {
      pos_ += 2;
      col.not_null = true;
    } else if (AcceptKw("null")) {
      col.null_seen = true;
    } else if (AcceptKw("default")) {
      col.default_value = ParseExpr(kPrecCompare);
    } else if (IsKw("generated")) {
      const Token& generated = Peek();
      ++pos_;
      if (AcceptKw("always")) {
        col.identity = 2;
      } else {
        ExpectKw("by");
        ExpectKw("default");
        col.identity = 1;
      }
      ExpectKw("as");
      if (!IsKw("identity")) NotSupportedAt(generated, "GENERATED ... AS (expression)");
      ++pos_;
      if (AcceptPunct('(')) {
        // At least one option, as PostgreSQL's grammar asks.
        if (!IsSequenceOption()) ErrorAtCurrent();
        col.identity_options = ParseSequenceOptions();
        ExpectPunct(')');
      }
    } else if (IsKw("primary") && IsKw("key", 1)) {
      pos_ += 2;
      col.primary_key = true;
      col.not_null = true;
    } else if (AcceptKw("unique")) {
      col.unique = true;
    } else if (IsKw("check")) {
      TableConstraint check;
      check.kind = ConstraintKind::kCheck;
      check.name = std::move(name);
      check.position = Peek().position;
      ++pos_;
      ExpectPunct('(');
      check.check = ParseExpr();
      ExpectPunct(')');
      col.constraints.push_back(std::move(check));
    } else if (IsKw("references")) {
      TableConstraint references;
      references.kind = ConstraintKind::kForeignKey;
      references.name = std::move(name);
      references.position = Peek().position;
      references.columns = {col.name};
      ParseReferences(references);
      col.constraints.push_back(std::move(references));
    } else if (AcceptKw("collate")) {
      ParseQualifiedName();
    } else {
      return col;
    }
  }
}

TableConstraint Parser::ParseTableConstraint() {
  TableConstraint c;
  c.position = Peek().position;
  if (AcceptKw("constraint")) c.name = ParseColId();
  if (IsKw("primary")) {
    ++pos_;
    ExpectKw("key");
    c.kind = ConstraintKind::kPrimaryKey;
    c.columns = ParseColumnList();
  } else if (AcceptKw("unique")) {
    c.kind = ConstraintKind::kUnique;
    c.columns = ParseColumnList();
  } else if (AcceptKw("check")) {
    c.kind = ConstraintKind::kCheck;
    ExpectPunct('(');
    c.check = ParseExpr();
    ExpectPunct(')');
  } else if (AcceptKw("foreign")) {
    ExpectKw("key");
    c.kind = ConstraintKind::kForeignKey;
    c.columns = ParseColumnList();
    ParseReferences(c);
  } else {
    ErrorAtCurrent();
  }
  return c;
}

StatementPtr Parser::ParseCreateIndex(bool unique) {
  ExpectKw("index");
  auto index = std::make_unique<CreateIndexStmt>();
  index->unique = unique;
  AcceptKw("concurrently");
  if (IsKw("if") && IsKw("not", 1) && IsKw("exists", 2)) {
    pos_ += 3;
    index->if_not_exists = true;
  }
  if (!IsKw("on")) index->name = ParseColId();
  ExpectKw("on");
  AcceptKw("only");
  index->table = ParseQualifiedName();
  if (AcceptKw("using")) index->method = ParseColId();
  ExpectPunct('(');
  do {
    OrderItem key;
    key.position = Peek().position;
    key.expr = IsPunct('(') ? ParseParenthesized() : ParseExpr(kPrecUnary);
    if (AcceptKw("desc")) {
      key.direction = SortDirection::kDesc;
    } else {
      AcceptKw("asc");
    }
    if (IsKw("nulls") && (IsKw("first", 1) || IsKw("last", 1))) {
      ++pos_;
      key.nulls = AcceptKw("first") ? NullsOrder::kFirst : (ExpectKw("last"), NullsOrder::kLast);
    }
    index->keys.push_back(std::move(key));
  } while (AcceptPunct(','));
  ExpectPunct(')');
  if (AcceptKw("include")) ParseColumnList();
  if (IsKw("with") && IsPunct('(', 1)) {
    ++pos_;
    ParseParenOptions();
  }
  if (AcceptKw("where")) index->where = ParseExpr();
  StatementPtr stmt = MakeStatement(StatementKind::kCreateIndex);
  stmt->create_index = std::move(index);
  return stmt;
}

StatementPtr Parser::ParseDrop() {
  ExpectKw("drop");
  auto drop = std::make_unique<DropStmt>();
  if (AcceptKw("index")) {
    drop->object = "index";
    AcceptKw("concurrently");
  } else if (AcceptKw("view")) {
    drop->object = "view";
  } else if (AcceptKw("sequence")) {
    drop->object = "sequence";
  } else {
    if (!IsKw("table")) RefuseMissingObject("DROP");
    ExpectKw("table");
  }
  if (IsKw("if") && IsKw("exists", 1)) {
    pos_ += 2;
    drop->if_exists = true;
  }
  do {
    drop->name_positions.push_back(Peek().position);
    drop->names.push_back(ParseQualifiedName());
  } while (AcceptPunct(','));
  if (AcceptKw("cascade")) {
    drop->cascade = true;
  } else {
    AcceptKw("restrict");
  }
  StatementPtr stmt = MakeStatement(StatementKind::kDropTable);
  stmt->drop = std::move(drop);
  return stmt;
}

namespace {
// A keyword as an error message spells it.
std::string UpperWord(const Token& t) {
  std::string word = t.text;
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return word;
}
}  // namespace

// ALTER TABLE [IF EXISTS] [ONLY] name action [, action ...] | RENAME ...
StatementPtr Parser::ParseAlter() {
  ExpectKw("alter");
  if (IsKw("sequence")) return ParseAlterSequence();
  if (!IsKw("table")) {
    // ALTER INDEX, VIEW, SEQUENCE, ...: objects or forms Forktail lacks.
    const Token& at = Peek();
    if (at.kind != TokenKind::kEnd) NotSupportedAt(at, "ALTER " + UpperWord(at));
    ErrorAtCurrent();
  }
  ExpectKw("table");
  auto alter = std::make_unique<AlterTableStmt>();
  if (IsKw("if") && IsKw("exists", 1)) {
    pos_ += 2;
    alter->if_exists = true;
  }
  AcceptKw("only");
  alter->table_position = Peek().position;
  alter->table = ParseQualifiedName();
  AcceptOp("*");
  if (IsKw("rename")) {
    AlterAction a;
    a.position = Peek().position;
    pos_++;
    if (AcceptKw("to")) {
      a.kind = AlterKind::kRenameTable;
    } else {
      if (IsKw("constraint")) NotSupportedAt(Peek(), "ALTER TABLE ... RENAME CONSTRAINT");
      AcceptKw("column");
      a.kind = AlterKind::kRenameColumn;
      a.column_name = ParseColId();
      ExpectKw("to");
    }
    a.new_name = ParseColId();
    alter->actions.push_back(std::move(a));
  } else {
    do {
      alter->actions.push_back(ParseAlterAction());
    } while (AcceptPunct(','));
  }
  StatementPtr stmt = MakeStatement(StatementKind::kAlterTable);
  stmt->alter_table = std::move(alter);
  return stmt;
}

AlterAction Parser::ParseAlterAction() {
  AlterAction a;
  const Token& first = Peek();
  a.position = first.position;
  if (AcceptKw("add")) {
    if (IsKw("constraint") || IsKw("primary") || IsKw("unique") || IsKw("check") ||
        IsKw("foreign") || IsKw("exclude")) {
      if (IsKw("exclude")) NotSupportedAt(Peek(), "EXCLUDE constraints");
      a.kind = AlterKind::kAddConstraint;
      a.constraint = ParseTableConstraint();
      return a;
    }
    a.kind = AlterKind::kAddColumn;
    AcceptKw("column");
    if (IsKw("if") && IsKw("not", 1) && IsKw("exists", 2)) {
      pos_ += 3;
      a.if_exists = true;
    }
    a.column = ParseColumnDef();
    return a;
  }
  if (AcceptKw("drop")) {
    a.kind = AcceptKw("constraint") ? AlterKind::kDropConstraint : AlterKind::kDropColumn;
    if (a.kind == AlterKind::kDropColumn) AcceptKw("column");
    if (IsKw("if") && IsKw("exists", 1)) {
      pos_ += 2;
      a.if_exists = true;
    }
    a.column_name = ParseColId();
    if (AcceptKw("cascade")) {
      a.cascade = true;
    } else {
      AcceptKw("restrict");
    }
    return a;
  }
  if (AcceptKw("alter")) {
    AcceptKw("column");
    a.column_name = ParseColId();
    const Token& what = Peek();
    if (IsKw("restart") || (IsKw("set") && (IsKw("generated", 1) || IsSequenceOption(1)))) {
      // An identity column's options, one after another (PostgreSQL's
      // alter_identity_column_option_list).
      a.kind = AlterKind::kAlterIdentity;
      for (;;) {
        if (IsKw("restart")) {
          a.identity_options.push_back(ParseSequenceOption());
        } else if (IsKw("set") && IsKw("generated", 1)) {
          pos_ += 2;
          if (AcceptKw("always")) {
            a.set_generated = 2;
          } else {
            ExpectKw("by");
            ExpectKw("default");
            a.set_generated = 1;
          }
        } else if (IsKw("set") && IsSequenceOption(1)) {
          ++pos_;
          a.identity_options.push_back(ParseSequenceOption());
        } else {
          return a;
        }
      }
    }
    if (AcceptKw("type") || (IsKw("set") && IsKw("data", 1) && IsKw("type", 2))) {
      if (IsKw("set")) pos_ += 3;
      a.kind = AlterKind::kAlterColumnType;
      a.type = ParseTypeName();
      if (IsKw("collate")) NotSupportedAt(Peek(), "COLLATE");
      if (AcceptKw("using")) a.expr = ParseExpr();
      return a;
    }
    if (AcceptKw("set")) {
      if (AcceptKw("default")) {
        a.kind = AlterKind::kSetDefault;
        a.expr = ParseExpr();
        return a;
      }
      if (AcceptKw("not")) {
        ExpectKw("null");
        a.kind = AlterKind::kSetNotNull;
        return a;
      }
      NotSupportedAt(what, "ALTER TABLE ... ALTER COLUMN ... SET " + UpperWord(Peek()));
    }
    if (AcceptKw("drop")) {
      if (AcceptKw("default")) {
        a.kind = AlterKind::kDropDefault;
        return a;
      }
      if (AcceptKw("not")) {
        ExpectKw("null");
        a.kind = AlterKind::kDropNotNull;
        return a;
      }
      NotSupportedAt(what, "ALTER TABLE ... ALTER COLUMN ... DROP " + UpperWord(Peek()));
    }
    if (what.kind == TokenKind::kEnd) ErrorAtCurrent();
    NotSupportedAt(what, "ALTER TABLE ... ALTER COLUMN ... " + UpperWord(what));
  }
  if (first.kind == TokenKind::kEnd) ErrorAtCurrent();
  // OWNER TO, SET SCHEMA, SET (storage options), ENABLE TRIGGER, ...
  NotSupportedAt(first, "ALTER TABLE ... " + UpperWord(first));
}

StatementPtr Parser::ParseTruncate() {
  ExpectKw("truncate");
  AcceptKw("table");
  auto truncate = std::make_unique<TruncateStmt>();
  do {
    AcceptKw("only");
    truncate->tables.push_back(ParseQualifiedName());
    AcceptOp("*");
  } while (AcceptPunct(','));
  if (AcceptKw("restart")) {
    ExpectKw("identity");
    truncate->restart_identity = true;
  } else if (AcceptKw("continue")) {
    ExpectKw("identity");
  }
  if (AcceptKw("cascade")) {
    truncate->cascade = true;
  } else {
    AcceptKw("restrict");
  }
  StatementPtr stmt = MakeStatement(StatementKind::kTruncate);
  stmt->truncate = std::move(truncate);
  return stmt;
}

}  // namespace forktail::sql
