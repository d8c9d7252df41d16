// Database::MigrateIdentityColumns: identity and SERIAL columns made before
// sequences existed kept their last value in a per-table counter
// (Table::identity_value: catalog images of versions 3 and 4, kSetIdentity
// log records). At open, after recovery, each such column gets the sequence
// PostgreSQL would have made for it (named "<table>_<column>_seq", owned by
// the column, continuing from the counter), and a SERIAL column's DEFAULT
// becomes nextval of it, as PostgreSQL shows it. The change is one logged
// transaction, so a crash before the next checkpoint replays it after the
// records it continues; once done, nothing is left to migrate.
#include "forktail/database.h"
#include "txn/database_impl.h"

namespace forktail {
namespace {

bool NeedsSequence(const Catalog& catalog, const Table& table, const ColumnDef& column) {
  if (column.identity == ColumnIdentity::kSerial) return true;
  return column.identity != ColumnIdentity::kNone &&
         catalog.IdentitySequence(table.id(), column.name) == nullptr;
}

void Migrate(const Catalog& catalog, Transaction& txn) {
  for (TableId id : catalog.ListTables()) {
    const Table& table = catalog.GetTable(id);
    TableSchema schema = table.schema();
    bool serial = false;
    for (size_t i = 0; i < schema.columns.size(); i++) {
      ColumnDef& column = schema.columns[i];
      if (!NeedsSequence(catalog, table, column)) continue;
      SequenceDef def;
      SequenceState state;
      SequenceOptions options;
      options.type = column.type.id;
      ApplySequenceOptions(options, /*init=*/true, /*for_identity=*/true, &def, &state);
      def.name = catalog.ChooseIndexName(schema.name, {column.name}, "seq");
      def.owner_table = id;
      def.owner_column = column.name;
      def.identity = column.identity != ColumnIdentity::kSerial;
      const int64_t last = table.identity_value(ColumnId(static_cast<uint16_t>(i)));
      if (last > 0) state = {last, true};
      txn.CreateSequence(def, state);
      if (column.identity == ColumnIdentity::kSerial) {
        column.identity = ColumnIdentity::kNone;
        column.default_sql = NextvalDefault(def.name);
        serial = true;
      }
    }
    if (serial) {
      const std::string name = schema.name;  // the schema is moved from
      txn.ReplaceSchema(name, std::move(schema));
    }
  }
}

}  // namespace

void Database::MigrateIdentityColumns() {
  const Catalog& catalog = impl_->catalog;
  bool any = false;
  for (TableId id : catalog.ListTables()) {
    const Table& table = catalog.GetTable(id);
    for (const ColumnDef& column : table.schema().columns) {
      any = any || NeedsSequence(catalog, table, column);
    }
  }
  if (!any) return;
  TxnResult r = impl_->engine->Run([&](Transaction& txn) { Migrate(catalog, txn); });
  r.ThrowIfError();
}

}  // namespace forktail
