// ALTER TABLE (WriteExecutor::AlterTable), as PostgreSQL 15 answers it.
//
// A statement lists actions (comma-separated), applied in order to a working
// copy of the table's schema, with, for each column, where its values come
// from in the table as it is (storage/table/catalog.h ColumnSource). At the
// end, or before an action that needs the table itself (ADD PRIMARY KEY,
// ADD UNIQUE), the pending change is applied at once:
//   - columns added, dropped or retyped: Transaction::RewriteTable, a new
//     table filled from the old one's rows in one pass (ADD COLUMN's DEFAULT
//     is evaluated once, as PostgreSQL does for non-volatile defaults; a
//     DEFAULT that calls a sequence function on a table with rows is
//     0A000; SERIAL and IDENTITY make their sequence, number the existing
//     rows 1, 2, ... and continue after them, 0A000 for a sequence that
//     does not start at 1 by 1 when there are rows);
//   - DROP COLUMN drops the sequences the column owns (DEFAULTs of other
//     columns that call them: 2BP01, or CASCADE);
//   - only names or attributes changed (RENAME [COLUMN], SET / DROP DEFAULT,
//     SET / DROP NOT NULL, ADD CHECK): Transaction::ReplaceSchema, rows
//     untouched.
// Both are logged (kAlterTable) and undone with the transaction. CHECK
// constraints added, or over a retyped column, are checked on every row
// (23514 `check constraint "c" of relation "t" is violated by some row`).
//
// Foreign keys added (ADD FOREIGN KEY, ADD COLUMN ... REFERENCES) are bound
// and checked against every row once the other changes are applied, as
// PostgreSQL validates them last; DROP CONSTRAINT applies what is pending
// first.
//
// Dependencies, stored as SQL text here where PostgreSQL keeps parse trees:
//   - DROP COLUMN drops the indexes, the primary key, the CHECKs and the
//     table's own foreign keys that use the column (as PostgreSQL does); a
//     view that reads it, or another table's foreign key that references it:
//     2BP01, or with CASCADE the view or foreign key is dropped; other
//     tables' foreign keys that reference later columns follow the move;
//   - ALTER COLUMN TYPE of a column a view reads: 0A000 as in PostgreSQL; of
//     a column in a foreign key (either side): 0A000;
//   - RENAME TO renames the table in the foreign keys that reference it;
//   - RENAME COLUMN rewrites the CHECK texts that name the column; renaming
//     a column or table that a view reads is refused with 0A000 (PostgreSQL
//     allows it; a view here is its text and would no longer bind);
//   - a view over `*` keeps the columns it was created with when columns are
//     added (binder_query.cc), as in PostgreSQL.
// ALTER COLUMN ... RESTART / SET GENERATED / SET <sequence option> of an
// identity column alter its sequence (ADD GENERATED and DROP IDENTITY:
// 0A000, from the parser).
// Not supported (0A000): USING other than the column or a cast of it,
// RENAME CONSTRAINT, dropping a table's only column, and the forms that
// change storage, ownership or schemas (the parser refuses those).
#include <algorithm>
#include <memory>

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/binder/sequence_functions.h"
#include "olap/session/statement/write_executor.h"

namespace forktail {
namespace {

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// A schema without column `c`: the key, indexes and CHECKs that use it are
// gone, later columns' ids move down by one.
TableSchema WithoutColumn(const TableSchema& schema, size_t c) {
  TableSchema out = schema;
  const std::string name = schema.columns[c].name;
  out.columns.erase(out.columns.begin() + static_cast<std::ptrdiff_t>(c));
  auto uses = [&](const std::vector<ColumnId>& ids) {
    return std::any_of(ids.begin(), ids.end(), [&](ColumnId id) { return id.value() == c; });
  };
  auto shift = [&](std::vector<ColumnId>* ids) {
    for (ColumnId& id : *ids) {
      if (id.value() > c) id = ColumnId(static_cast<uint16_t>(id.value() - 1));
    }
  };
  if (uses(out.primary_key)) out.primary_key.clear();
  shift(&out.primary_key);
  std::erase_if(out.indexes, [&](const IndexDef& index) { return uses(index.columns); });
  for (IndexDef& index : out.indexes) shift(&index.columns);
  std::erase_if(out.checks, [&](const CheckDef& check) {
    std::vector<std::string> names = CheckColumnNames(check);
    return std::find(names.begin(), names.end(), name) != names.end();
  });
  // The table's own foreign keys: gone if they use the column (on either
  // side of a self-reference), else their column ids move.
  std::erase_if(out.foreign_keys, [&](const ForeignKeyDef& fk) {
    return uses(fk.columns) || (fk.referenced_table == schema.name && uses(fk.referenced_columns));
  });
  for (ForeignKeyDef& fk : out.foreign_keys) {
    shift(&fk.columns);
    shift(&fk.delete_set_columns);
    if (fk.referenced_table == schema.name) shift(&fk.referenced_columns);
  }
  return out;
}

// Whether a foreign key of `table` uses its column `c`, or one of another
// table references it.
bool InForeignKey(const Catalog& catalog, const TableSchema& table, size_t c) {
  auto has = [&](const std::vector<ColumnId>& ids) {
    return std::any_of(ids.begin(), ids.end(), [&](ColumnId id) { return id.value() == c; });
  };
  for (const ForeignKeyDef& fk : table.foreign_keys) {
    if (has(fk.columns)) return true;
  }
  for (TableId id : catalog.ListTables()) {
    for (const ForeignKeyDef& fk : catalog.GetTable(id).schema().foreign_keys) {
      if (fk.referenced_table == table.name && has(fk.referenced_columns)) return true;
    }
  }
  return false;
}

// PostgreSQL's name of an action, as its errors give it.
std::string ActionName(const sql::AlterAction& a) {
  switch (a.kind) {
    case sql::AlterKind::kAddConstraint:
      return "ADD CONSTRAINT";
    case sql::AlterKind::kAddColumn:
      return "ADD COLUMN";
    case sql::AlterKind::kDropColumn:
      return "DROP COLUMN";
    case sql::AlterKind::kAlterColumnType:
      return "ALTER COLUMN TYPE";
    case sql::AlterKind::kSetDefault:
      return "ALTER COLUMN SET DEFAULT";
    case sql::AlterKind::kDropDefault:
      return "ALTER COLUMN DROP DEFAULT";
    case sql::AlterKind::kSetNotNull:
      return "ALTER COLUMN SET NOT NULL";
    case sql::AlterKind::kDropNotNull:
      return "ALTER COLUMN DROP NOT NULL";
    case sql::AlterKind::kRenameColumn:
      return "RENAME COLUMN";
    case sql::AlterKind::kRenameTable:
      return "RENAME";
    case sql::AlterKind::kAlterIdentity:
      return "ALTER COLUMN SET";
    case sql::AlterKind::kDropConstraint:
      return "DROP CONSTRAINT";
  }
  return "";
}

}  // namespace

// One ALTER TABLE statement being applied (see the header comment).
class TableAlteration {
 public:
  TableAlteration(WriteExecutor& executor, std::string table, StatementResult* result)
      : executor_(executor), txn_(executor.txn_), name_(std::move(table)), result_(result) {
    Reset();
  }

  void Apply(const sql::AlterAction& a) {
    switch (a.kind) {
      case sql::AlterKind::kAddColumn:
        return AddColumn(a);
      case sql::AlterKind::kDropColumn:
        return DropColumn(a);
      case sql::AlterKind::kAlterColumnType:
        return AlterType(a);
      case sql::AlterKind::kSetDefault:
      case sql::AlterKind::kDropDefault:
        return SetDefault(a);
      case sql::AlterKind::kSetNotNull:
      case sql::AlterKind::kDropNotNull:
        return SetNotNull(a);
      case sql::AlterKind::kRenameColumn:
        return RenameColumn(a);
      case sql::AlterKind::kRenameTable:
        return RenameTable(a);
      case sql::AlterKind::kAddConstraint:
        return AddConstraint(a);
      case sql::AlterKind::kAlterIdentity:
        return AlterIdentity(a);
      case sql::AlterKind::kDropConstraint:
        Flush();
        executor_.AlterTableDropConstraint(a, txn_.GetTable(name_), result_);
        return Reset();
    }
  }

  // Applies what is pending to the table (see the header comment).
  void Flush() {
    if (rewrite_) {
      txn_.RewriteTable(name_, working_, sources_);
    } else if (!(working_ == current_)) {
      txn_.ReplaceSchema(name_, working_);
    }
    // The new sequences that numbered the rows continue after them.
    for (const auto& [id, rows] : numbered_) {
      const Sequence& sequence = txn_.GetSequence(id);
      txn_.AlterSequence(id, sequence.def, {rows, true});
    }
    numbered_.clear();
    name_ = working_.name;
    FollowInReferencingTables();
    if (validate_checks_) ValidateChecks();
    for (const sql::TableConstraint* k : foreign_keys_) {
      txn_.AddForeignKey(name_, BindForeignKey(*k, txn_.GetTable(name_).schema(), catalog()));
    }
    foreign_keys_.clear();
    Reset();
  }

 private:
  const Catalog& catalog() const { return *executor_.context_.catalog; }

  // The column of the table as it is that working column `c` comes from
  // (nullopt for a column this statement adds).
  std::optional<size_t> Original(size_t c) const {
    if (sources_[c].kind != ColumnSource::Kind::kColumn) return std::nullopt;
    return sources_[c].column.value();
  }

  // Other tables' foreign keys name this table and its columns (by name and
  // position): after a rename or a rewrite that moved columns, they follow.
  void FollowInReferencingTables() {
    std::vector<std::optional<uint16_t>> moved(current_.columns.size());
    for (size_t i = 0; i < working_.columns.size(); i++) {
      if (std::optional<size_t> from = Original(i)) moved[*from] = static_cast<uint16_t>(i);
    }
    for (TableId id : catalog().ListTables()) {
      TableSchema other = catalog().GetTable(id).schema();
      if (other.name == name_) continue;  // its own follow in working_
      bool changed = false;
      for (ForeignKeyDef& fk : other.foreign_keys) {
        if (fk.referenced_table != current_.name) continue;
        if (fk.referenced_table != name_) {
          fk.referenced_table = name_;
          changed = true;
        }
        for (ColumnId& r : fk.referenced_columns) {
          // A referenced column that went is not possible here: DropColumn
          // dropped its foreign keys first (or refused).
          if (moved[r.value()] && *moved[r.value()] != r.value()) {
            r = ColumnId(*moved[r.value()]);
            changed = true;
          }
        }
      }
      if (changed) {
        const std::string other_name = other.name;
        txn_.ReplaceSchema(other_name, std::move(other));
      }
    }
  }

  void Reset() {
    current_ = txn_.GetTable(name_).schema();
    working_ = current_;
    sources_.clear();
    for (size_t i = 0; i < current_.columns.size(); i++) {
      sources_.push_back(ColumnSource::Column(ColumnId(static_cast<uint16_t>(i))));
    }
    rewrite_ = false;
    validate_checks_ = false;
  }

  std::optional<size_t> Find(const std::string& column) const {
    std::optional<ColumnId> id = working_.FindColumn(column);
    if (!id) return std::nullopt;
    return id->value();
  }

  size_t FindOrThrow(const std::string& column) const {
    std::optional<size_t> c = Find(column);
    if (!c) {
      throw DbError(sqlstate::kUndefinedColumn, "column " + Quoted(column) + " of relation " +
                                                    Quoted(name_) + " does not exist");
    }
    return *c;
  }

  // Index and constraint names of the working schema (PostgreSQL keeps
  // them in one namespace per table).
  std::vector<std::string> TakenNames() const {
    std::vector<std::string> taken;
    for (const IndexDef& index : working_.indexes) taken.push_back(index.name);
    for (const CheckDef& check : working_.checks) taken.push_back(check.name);
    return taken;
  }

  // The views reading the table whose columns would change (or that would
  // not bind) if the table had `changed` instead of its working schema.
  std::vector<std::string> ViewsAffectedBy(const TableSchema& changed) const {
    std::vector<std::string> affected;
    std::vector<std::string> readers = catalog().DependentViews(current_.name);
    if (readers.empty()) return affected;
    std::unique_ptr<Catalog> before = catalog().CopySchemas();
    std::unique_ptr<Catalog> after = catalog().CopySchemas();
    // The copies hold no rows: their rewrites only change schemas.
    auto nulls = [](const TableSchema& schema) {
      std::vector<ColumnSource> sources;
      for (const ColumnDef& c : schema.columns)
        sources.push_back(ColumnSource::Constant(Value::Null(c.type)));
      return sources;
    };
    const TableId id = txn_.GetTable(name_).id();
    if (!(working_ == current_)) before->RewriteTable(id, working_, nulls(working_));
    after->RewriteTable(id, changed, nulls(changed));
    for (const std::string& name : readers) {
      const ViewDef& view = *catalog().FindView(name);
      std::vector<std::pair<std::string, Type>> was = BindViewColumns(view, *before);
      std::vector<std::pair<std::string, Type>> now;
      try {
        now = BindViewColumns(view, *after);
      } catch (const DbError&) {
        affected.push_back(name);
        continue;
      }
      const size_t n = view.column_names.size();
      if (now.size() < n ||
          !std::equal(was.begin(), was.begin() + static_cast<std::ptrdiff_t>(n), now.begin())) {
        affected.push_back(name);
      }
    }
    return affected;
  }

  void AddColumn(const sql::AlterAction& a) {
    const sql::ColumnDef& c = a.column;
    if (Find(c.name)) {
      std::string message =
          "column " + Quoted(c.name) + " of relation " + Quoted(name_) + " already exists";
      if (!a.if_exists) throw DbError(sqlstate::kDuplicateColumn, message);
      result_->notices.push_back(message + ", skipping");
      return;
    }
    std::vector<Sequence> sequences;
    ColumnDef def = BindAddedColumn(c, name_, catalog(), &sequences);
    const ColumnId id(static_cast<uint16_t>(working_.columns.size()));
    working_.columns.push_back(def);
    const uint64_t rows = txn_.GetTable(name_).live_row_count();
    if (!sequences.empty()) {
      // SERIAL / IDENTITY: the existing rows get 1, 2, ... (nextval of the
      // new sequence, row after row, as PostgreSQL fills them).
      Sequence& sequence = sequences.front();
      if (rows > 0 && (sequence.def.start != 1 || sequence.def.increment != 1)) {
        throw DbError(sqlstate::kFeatureNotSupported,
                      "ADD COLUMN whose sequence does not start at 1 by 1 on a table with rows is "
                      "not supported");
      }
      if (rows > 0 && static_cast<uint64_t>(sequence.def.max) < rows) {
        throw DbError("2200H", "nextval: reached maximum value of sequence " +
                                   Quoted(sequence.def.name) + " (" +
                                   std::to_string(sequence.def.max) + ")");
      }
      sequence.def.owner_table = txn_.GetTable(name_).id();
      const TableId seq = txn_.CreateSequence(sequence.def, sequence.state);
      if (rows > 0) numbered_.push_back({seq, static_cast<int64_t>(rows)});
      sources_.push_back(ColumnSource::Identity());
    } else if (rows > 0 && CallsSequenceFunctions(def.default_sql)) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "ADD COLUMN with a DEFAULT that calls a sequence function on a table with "
                    "rows is not supported");
    } else if (rows == 0) {
      sources_.push_back(ColumnSource::Constant(Value::Null(def.type)));
    } else {
      sources_.push_back(ColumnSource::Constant(EvaluateColumnDefault(def)));
    }
    if (c.primary_key) {
      if (!working_.primary_key.empty()) {
        throw DbError(sqlstate::kInvalidTableDefinition,
                      "multiple primary keys for table " + Quoted(name_) + " are not allowed",
                      c.position);
      }
      working_.primary_key = {id};
      working_.columns.back().not_null = true;
    }
    if (c.unique) {
      IndexDef index;
      index.name = catalog().ChooseIndexName(name_, {c.name}, "key", TakenNames());
      index.columns = {id};
      index.unique = true;
      index.constraint = true;
      working_.indexes.push_back(std::move(index));
    }
    for (const sql::TableConstraint& k : c.constraints) {
      if (k.kind == sql::ConstraintKind::kCheck) AddCheck(k, c.name);
      if (k.kind == sql::ConstraintKind::kForeignKey) foreign_keys_.push_back(&k);
    }
    rewrite_ = true;
  }

  void DropColumn(const sql::AlterAction& a) {
    std::optional<size_t> c = Find(a.column_name);
    if (!c) {
      std::string message =
          "column " + Quoted(a.column_name) + " of relation " + Quoted(name_) + " does not exist";
      if (!a.if_exists) throw DbError(sqlstate::kUndefinedColumn, message);
      result_->notices.push_back(message + ", skipping");
      return;
    }
    if (working_.columns.size() == 1) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "dropping the only column of a table is not supported (tables without "
                    "columns are not)",
                    a.position);
    }
    TableSchema changed = WithoutColumn(working_, *c);
    // What reads the column: views (and the views that read them), and other
    // tables' foreign keys that reference it. 2BP01, or dropped with CASCADE.
    const std::string column = "column " + a.column_name + " of table " + name_;
    std::vector<WriteExecutor::Dependent> dependents;
    for (const std::string& v : ViewsAffectedBy(changed)) {
      dependents.push_back({"view " + v, column, v, "", ""});
      for (WriteExecutor::Dependent& d : executor_.RelationDependents(v, "view", {})) {
        dependents.push_back(std::move(d));
      }
    }
    if (std::optional<size_t> original = Original(*c)) {
      for (TableId id : catalog().ListTables()) {
        const TableSchema& other = catalog().GetTable(id).schema();
        if (other.name == current_.name) continue;  // its own: WithoutColumn
        for (const ForeignKeyDef& fk : other.foreign_keys) {
          if (fk.referenced_table != current_.name) continue;
          for (ColumnId r : fk.referenced_columns) {
            if (r.value() != *original) continue;
            dependents.push_back({"constraint " + fk.name + " on table " + other.name, column, "",
                                  other.name, fk.name});
            break;
          }
        }
      }
    }
    executor_.DropDependents(column, dependents, a.cascade, result_);
    // The sequences the column owns (SERIAL, identity, OWNED BY) go with it.
    executor_.DropOwnedSequences(name_, a.column_name, a.cascade, result_);
    working_ = std::move(changed);
    sources_.erase(sources_.begin() + static_cast<std::ptrdiff_t>(*c));
    rewrite_ = true;
  }

  void AlterType(const sql::AlterAction& a) {
    const size_t c = FindOrThrow(a.column_name);
    ColumnDef& col = working_.columns[c];
    Type type = TypeFromName(a.type);
    if (type.IsWideDecimal()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "numeric precision " + std::to_string(type.precision) +
                        " is not supported for a table column (at most " +
                        std::to_string(kMaxNarrowDecimalPrecision) + " digits)",
                    a.type.position);
    }
    if (col.identity != ColumnIdentity::kNone && !type.IsInteger()) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "identity column type must be smallint, integer, or bigint");
    }
    std::optional<size_t> original = Original(c);
    if (original && InForeignKey(catalog(), current_, *original)) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "ALTER COLUMN ... TYPE of a column in a foreign key is not supported");
    }
    if (!a.expr && !AssignmentCastExists(col.type, type)) {
      throw DbError(
          sqlstate::kDatatypeMismatch,
          "column " + Quoted(col.name) + " cannot be cast automatically to type " + type.ToString())
          .WithHint("You might need to specify \"USING " + col.name + "::" + type.ToString() +
                    "\".");
    }
    if (CallsSequenceFunctions(col.default_sql)) {
      // nextval's bigint must go into the new type (it is not evaluated
      // here: that would draw a value).
      if (!AssignmentCastExists(Type::BigInt(), type)) {
        throw DbError(sqlstate::kDatatypeMismatch, "default for column " + Quoted(col.name) +
                                                       " cannot be cast automatically to type " +
                                                       type.ToString());
      }
    } else if (!col.default_sql.empty()) {
      ColumnDef probe = col;
      probe.type = type;
      try {
        EvaluateColumnDefault(probe);
      } catch (const DbError& e) {
        if (std::string_view(e.sqlstate()) != sqlstate::kDatatypeMismatch) throw;
        throw DbError(sqlstate::kDatatypeMismatch, "default for column " + Quoted(col.name) +
                                                       " cannot be cast automatically to type " +
                                                       type.ToString());
      }
    }
    std::vector<std::string> views = ViewsAffectedBy(WithoutColumn(working_, c));
    if (!views.empty()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "cannot alter type of a column used by a view or rule\nDETAIL:  rule _RETURN "
                    "on view " +
                        views.front() + " depends on column " + Quoted(col.name));
    }
    if (a.expr) {
      // USING the column or a cast of it: the values are cast explicitly.
      const sql::Expr* e = a.expr.get();
      if (e->kind == sql::ExprKind::kCast) e = e->children[0].get();
      const bool column_itself = e->kind == sql::ExprKind::kColumnRef && !e->names.empty() &&
                                 e->names.back() == col.name &&
                                 (e->names.size() == 1 || e->names[0] == name_);
      if (!column_itself) {
        throw DbError(sqlstate::kFeatureNotSupported,
                      "ALTER COLUMN ... TYPE ... USING an expression other than the column or a "
                      "cast of it is not supported",
                      a.expr->position);
      }
    }
    if (col.identity != ColumnIdentity::kNone) {
      // Its sequence follows the type, as ALTER SEQUENCE ... AS would.
      const Table& table = txn_.GetTable(name_);
      if (const Sequence* sequence = catalog().IdentitySequence(table.id(), col.name)) {
        SequenceDef def = sequence->def;
        SequenceState state = sequence->state;
        SequenceOptions options;
        options.type = type.id;
        ApplySequenceOptions(options, /*init=*/false, /*for_identity=*/true, &def, &state);
        txn_.AlterSequence(sequence->id, std::move(def), state);
      }
    }
    col.type = type;
    ColumnSource& source = sources_[c];
    if (source.kind == ColumnSource::Kind::kConstant)
      source.constant = source.constant.CastTo(type);
    validate_checks_ = validate_checks_ || !working_.checks.empty();
    rewrite_ = true;
  }

  [[noreturn]] void IdentityColumn(const ColumnDef& col) const {
    throw DbError(sqlstate::kSyntaxError, "column " + Quoted(col.name) + " of relation " +
                                              Quoted(name_) + " is an identity column");
  }

  void SetDefault(const sql::AlterAction& a) {
    ColumnDef& col = working_.columns[FindOrThrow(a.column_name)];
    if (col.identity == ColumnIdentity::kByDefault || col.identity == ColumnIdentity::kAlways) {
      IdentityColumn(col);
    }
    col.default_sql =
        a.kind == sql::AlterKind::kSetDefault ? BindDefaultText(*a.expr, col, catalog()) : "";
  }

  // ALTER COLUMN c RESTART / SET option / SET GENERATED of an identity
  // column: its sequence altered (ALTER SEQUENCE's rules), its kind changed.
  void AlterIdentity(const sql::AlterAction& a) {
    ColumnDef& col = working_.columns[FindOrThrow(a.column_name)];
    const Sequence* sequence =
        col.identity == ColumnIdentity::kNone
            ? nullptr
            : catalog().IdentitySequence(txn_.GetTable(name_).id(), col.name);
    if (sequence == nullptr) {
      throw DbError("55000", "column " + Quoted(col.name) + " of relation " + Quoted(name_) +
                                 " is not an identity column");
    }
    if (a.set_generated != 0) {
      col.identity = a.set_generated == 2 ? ColumnIdentity::kAlways : ColumnIdentity::kByDefault;
    }
    if (a.identity_options.empty()) return;
    BoundSequenceOptions bound = BindSequenceOptions(a.identity_options, SequenceOptionsOf::kAlter);
    if (bound.owned_by_given) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "OWNED BY of an identity column's sequence is not supported");
    }
    SequenceDef def = sequence->def;
    SequenceState state = sequence->state;
    ApplySequenceOptions(bound.options, /*init=*/false, /*for_identity=*/true, &def, &state);
    txn_.AlterSequence(sequence->id, std::move(def), state);
  }

  void SetNotNull(const sql::AlterAction& a) {
    const size_t c = FindOrThrow(a.column_name);
    ColumnDef& col = working_.columns[c];
    if (a.kind == sql::AlterKind::kSetNotNull) {
      col.not_null = true;  // checked when applied (23502 if a row holds NULL)
      return;
    }
    if (working_.IsKeyColumn(ColumnId(static_cast<uint16_t>(c)))) {
      throw DbError(sqlstate::kInvalidTableDefinition,
                    "column " + Quoted(col.name) + " is in a primary key");
    }
    if (col.identity == ColumnIdentity::kByDefault || col.identity == ColumnIdentity::kAlways) {
      IdentityColumn(col);
    }
    col.not_null = false;
  }

  void RenameColumn(const sql::AlterAction& a) {
    std::optional<size_t> c = Find(a.column_name);
    if (!c) {
      throw DbError(sqlstate::kUndefinedColumn,
                    "column " + Quoted(a.column_name) + " does not exist");
    }
    if (Find(a.new_name)) {
      throw DbError(sqlstate::kDuplicateColumn, "column " + Quoted(a.new_name) + " of relation " +
                                                    Quoted(name_) + " already exists");
    }
    TableSchema changed = working_;
    changed.columns[*c].name = a.new_name;
    for (CheckDef& check : changed.checks) {
      check.sql = RenameColumnInCheck(check, a.column_name, a.new_name);
    }
    std::vector<std::string> views = ViewsAffectedBy(changed);
    if (!views.empty()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "cannot rename column " + Quoted(a.column_name) + " of table " + Quoted(name_) +
                        ": view " + views.front() +
                        " reads it (renaming a column that a view reads is not supported)");
    }
    working_ = std::move(changed);
  }

  void RenameTable(const sql::AlterAction& a) {
    if (catalog().FindTable(a.new_name) || catalog().FindView(a.new_name) ||
        catalog().FindIndex(a.new_name) || catalog().FindSequence(a.new_name)) {
      throw DbError(sqlstate::kDuplicateTable,
                    "relation " + Quoted(a.new_name) + " already exists");
    }
    std::vector<std::string> views = catalog().DependentViews(current_.name);
    if (!views.empty()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "cannot rename table " + Quoted(name_) + ": view " + views.front() +
                        " reads it (renaming a table that a view reads is not supported)");
    }
    working_.name = a.new_name;  // 42P07 when applied if the name is taken
    for (ForeignKeyDef& fk : working_.foreign_keys) {
      if (fk.referenced_table == current_.name) fk.referenced_table = a.new_name;
    }
  }

  // A CHECK constraint of ADD COLUMN (`column`: its column) or ADD CHECK
  // (`column` empty), named as PostgreSQL names it.
  void AddCheck(const sql::TableConstraint& k, const std::string& column) {
    std::vector<std::string> columns;
    if (!column.empty()) {
      columns.push_back(column);
    } else {
      CheckDef probe;
      probe.sql = sql::ToString(*k.check);
      columns = CheckColumnNames(probe);
      if (columns.size() != 1) columns.clear();  // PostgreSQL: t_check
    }
    std::vector<std::string> taken = TakenNames();
    CheckDef check;
    check.name =
        k.name.empty() ? catalog().ChooseIndexName(name_, columns, "check", taken) : k.name;
    if (std::find(taken.begin(), taken.end(), check.name) != taken.end()) {
      throw DbError("42710", "constraint " + Quoted(check.name) + " for relation " + Quoted(name_) +
                                 " already exists");
    }
    check.sql = BindCheckText(*k.check, working_);
    working_.checks.push_back(std::move(check));
    validate_checks_ = true;
  }

  void AddConstraint(const sql::AlterAction& a) {
    const sql::TableConstraint& k = a.constraint;
    switch (k.kind) {
      case sql::ConstraintKind::kCheck:
        return AddCheck(k, "");
      case sql::ConstraintKind::kForeignKey:
        foreign_keys_.push_back(&k);  // bound and checked once the rest is applied
        return;
      case sql::ConstraintKind::kPrimaryKey:
      case sql::ConstraintKind::kUnique:
        break;
    }
    Flush();  // the key or index is built over the table's rows as they now are
    std::vector<ColumnId> columns;
    for (const std::string& name : k.columns) {
      std::optional<size_t> c = Find(name);
      if (!c) {
        throw DbError(sqlstate::kUndefinedColumn, "column " + Quoted(name) + " of relation " +
                                                      Quoted(name_) + " does not exist");
      }
      const ColumnId id(static_cast<uint16_t>(*c));
      if (std::find(columns.begin(), columns.end(), id) != columns.end()) {
        throw DbError(sqlstate::kDuplicateColumn,
                      "column " + Quoted(name) + " appears twice in " +
                          (k.kind == sql::ConstraintKind::kPrimaryKey ? "primary key" : "unique") +
                          " constraint",
                      k.position);
      }
      columns.push_back(id);
    }
    if (k.kind == sql::ConstraintKind::kPrimaryKey) {
      if (!working_.primary_key.empty()) {
        throw DbError(sqlstate::kInvalidTableDefinition,
                      "multiple primary keys for table " + Quoted(name_) + " are not allowed",
                      k.position);
      }
      txn_.AddPrimaryKey(name_, columns);
    } else {
      IndexDef index;
      index.name = k.name.empty() ? catalog().ChooseIndexName(name_, k.columns, "key", TakenNames())
                                  : k.name;
      index.columns = std::move(columns);
      index.unique = true;
      index.constraint = true;
      txn_.CreateIndex(name_, std::move(index));
    }
    Reset();
  }

  // Every row against every CHECK of the (new) table.
  void ValidateChecks() {
    const TableSchema& schema = txn_.GetTable(name_).schema();
    if (schema.checks.empty()) return;
    const std::vector<ExprPtr> checks = BindChecks(schema);
    std::vector<Row> batch;
    auto check_batch = [&] {
      std::optional<WriteExecutor::CheckViolation> violation =
          WriteExecutor::FindCheckViolation(schema, checks, batch);
      batch.clear();
      if (!violation) return;
      throw DbError("23514", "check constraint " + Quoted(schema.checks[violation->check].name) +
                                 " of relation " + Quoted(name_) + " is violated by some row");
    };
    txn_.Scan(name_, [&](TupleId, const Row& row) {
      batch.push_back(row);
      if (batch.size() == 64 * 1024) check_batch();
      return true;
    });
    check_batch();
  }

  WriteExecutor& executor_;
  Transaction& txn_;
  std::string name_;
  StatementResult* result_;
  TableSchema current_;                // the table's schema as it is
  TableSchema working_;                // as the actions so far leave it
  std::vector<ColumnSource> sources_;  // per working column, from the table as it is
  bool rewrite_ = false;               // columns added, dropped or retyped
  bool validate_checks_ = false;       // a CHECK was added or reads a retyped column
  // Sequences of added SERIAL / IDENTITY columns and how many rows they
  // number: their state once the rewrite is done.
  std::vector<std::pair<TableId, int64_t>> numbered_;
  // ADD FOREIGN KEY and ADD COLUMN ... REFERENCES, added by Flush.
  std::vector<const sql::TableConstraint*> foreign_keys_;
};

StatementResult WriteExecutor::AlterTable(const sql::Statement& statement) {
  const sql::AlterTableStmt& alter = *statement.alter_table;
  std::string name = TableNameOf(alter.table, statement.position);
  StatementResult result;
  result.command_tag = "ALTER TABLE";
  if (context_.catalog->FindTable(name) == nullptr) {
    if (context_.catalog->FindView(name) != nullptr) {
      throw DbError("42809", "ALTER action " + ActionName(alter.actions.front()) +
                                 " cannot be performed on relation " + Quoted(name) +
                                 "\nDETAIL:  This operation is not supported for views.");
    }
    if (alter.if_exists) {
      result.notices.push_back("relation " + Quoted(name) + " does not exist, skipping");
      return result;
    }
    throw DbError(sqlstate::kUndefinedTable, "relation " + Quoted(name) + " does not exist",
                  alter.table_position);
  }
  TableAlteration alteration(*this, name, &result);
  for (const sql::AlterAction& action : alter.actions) alteration.Apply(action);
  alteration.Flush();
  return result;
}

}  // namespace forktail
