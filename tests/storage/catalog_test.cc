#include <gtest/gtest.h>

#include <cstring>

#include "storage/crc32c.h"
#include "storage/storage.h"

namespace forktail {
namespace {

TableSchema Items() {
  return {"items",
          {{"i_id", Type::Integer(), true},
           {"i_name", Type::Varchar(24)},
           {"i_price", Type::Decimal(5, 2)},
           {"i_code", Type::Char(4)},
           {"i_at", Type::Timestamp()}},
          {ColumnId(0)}};
}

void ExpectError(const std::function<void()>& fn, const char* state, const std::string& msg) {
  try {
    fn();
    ADD_FAILURE() << "no error, expected " << state;
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), state);
    EXPECT_EQ(std::string(e.what()), msg);
  }
}

TEST(Catalog, CreateFindDrop) {
  Catalog catalog;
  Table& items = catalog.CreateTable(Items());
  Table& other = catalog.CreateTable({"Other", {{"a", Type::BigInt()}}, {}});
  EXPECT_EQ(items.id(), TableId(1));
  EXPECT_EQ(other.id(), TableId(2));
  EXPECT_EQ(catalog.FindTable("items"), &items);
  EXPECT_EQ(catalog.FindTable("other"), nullptr);  // names are exact
  EXPECT_EQ(catalog.FindTable("Other"), &other);
  EXPECT_EQ(&catalog.GetTable(TableId(2)), &other);
  EXPECT_EQ(catalog.ListTables(), (std::vector<TableId>{TableId(1), TableId(2)}));
  catalog.DropTable("items");
  EXPECT_EQ(catalog.FindTable("items"), nullptr);
  ExpectError([&] { catalog.GetTable(TableId(1)); }, sqlstate::kUndefinedTable,
              "relation with OID 1 does not exist");
  // Ids are never reused.
  EXPECT_EQ(catalog.CreateTable(Items()).id(), TableId(3));
}

TEST(Catalog, Errors) {
  Catalog catalog;
  catalog.CreateTable(Items());
  ExpectError([&] { catalog.CreateTable(Items()); }, sqlstate::kDuplicateTable,
              "relation \"items\" already exists");
  ExpectError([&] { catalog.DropTable("nope"); }, sqlstate::kUndefinedTable,
              "table \"nope\" does not exist");
  ExpectError(
      [&] {
        catalog.CreateTable({"t", {{"a", Type::Integer()}, {"a", Type::Text()}}, {}});
      },
      sqlstate::kDuplicateColumn, "column \"a\" specified more than once");
  ExpectError(
      [&] {
        catalog.CreateTable({"t", {{"a", Type::Integer()}}, {ColumnId(1)}});
      },
      sqlstate::kInvalidTableDefinition,
      "primary key of table \"t\" names column 1, which does not exist");
  ExpectError(
      [&] {
        catalog.CreateTable({"t", {{"a", Type::Integer()}}, {ColumnId(0), ColumnId(0)}});
      },
      sqlstate::kInvalidTableDefinition, "column \"a\" appears twice in primary key constraint");
  TableSchema wide{"w", {}, {}};
  for (int i = 0; i < 1601; i++) wide.columns.push_back({"c" + std::to_string(i), Type::Integer()});
  ExpectError([&] { catalog.CreateTable(wide); }, sqlstate::kProgramLimitExceeded,
              "tables can have at most 1600 columns");
  // Keys are ordered by bytes; arrays are not (storage/value/array_text.h).
  ExpectError(
      [&] {
        catalog.CreateTable({"t", {{"a", Type::ArrayText(Type::Integer())}}, {ColumnId(0)}});
      },
      sqlstate::kFeatureNotSupported,
      "column \"a\" is an array: keys and indexes on array columns are not supported");
  EXPECT_EQ(catalog.size(), 1u);
  EXPECT_EQ(catalog.CreateTable({"t", {{"a", Type::Integer()}}, {}}).id(), TableId(2));
}

TEST(Catalog, SerializeRoundTrip) {
  Catalog catalog;
  catalog.CreateTable(Items());
  catalog.CreateTable({"gone", {{"x", Type::Double()}}, {}});
  catalog.CreateTable({"k2",
                       {{"a", Type::SmallInt()},
                        {"b", Type::Text()},
                        {"c", Type::Boolean()},
                        {"d", Type::Date()},
                        {"e", Type::Varchar()},
                        {"f", Type::ArrayText(Type::Decimal(18, 4))}},
                       {ColumnId(1), ColumnId(0)}},
                      {.max_rows_per_block = 640});
  catalog.DropTable("gone");
  TableSchema commented = catalog.GetTable(TableId(3)).schema();  // COMMENT ON
  commented.comment = "the k2 table";
  commented.columns[1].comment = "its b";
  catalog.ReplaceSchema(TableId(3), commented);
  catalog.FindTable("items")->Insert({Value::Integer(1), Value::Text("x"), Value::Text("1.5"),
                                      Value::Text("ab"), Value::Null(Type::Timestamp())});
  std::string bytes = catalog.Serialize();

  Catalog copy;
  ASSERT_TRUE(copy.Deserialize(bytes).ok());
  EXPECT_EQ(copy.ListTables(), (std::vector<TableId>{TableId(1), TableId(3)}));
  EXPECT_EQ(copy.GetTable(TableId(1)).schema(), Items());
  EXPECT_EQ(copy.GetTable(TableId(3)).schema(), catalog.GetTable(TableId(3)).schema());
  EXPECT_EQ(copy.GetTable(TableId(3)).options().max_rows_per_block, 640u);
  EXPECT_EQ(copy.GetTable(TableId(1)).live_row_count(), 0u);  // schemas, not data
  EXPECT_EQ(copy.CreateTable({"next", {{"x", Type::Integer()}}, {}}).id(), TableId(4));
  // The new table: id, name, max_rows_per_block, column count, its column
  // (name, type id, precision, scale, length, not null, default, identity),
  // key, index, check and foreign key counts.
  EXPECT_EQ(copy.Serialize().size(), bytes.size() + 4 + (4 + 4) + 4 + 2 +
                                         ((4 + 1) + 1 + 1 + 1 + 4 + 1 + 4 + 1) + 2 + 2 + 2 + 2);

  Catalog again;
  EXPECT_EQ(copy.Deserialize(bytes).code(), Status::Code::kInvalidArgument);  // not empty
  // Every single-byte flip and every truncation is detected.
  for (size_t i = 0; i < bytes.size(); i++) {
    std::string bad = bytes;
    bad[i] ^= 0x10;
    ASSERT_EQ(again.Deserialize(bad).code(), Status::Code::kCorruption) << i;
  }
  for (size_t n = 0; n < bytes.size(); n += 7) {
    ASSERT_EQ(again.Deserialize(bytes.substr(0, n)).code(), Status::Code::kCorruption) << n;
  }
  EXPECT_EQ(again.size(), 0u);
  ASSERT_TRUE(again.Deserialize(bytes).ok());
}

// p (id PRIMARY KEY, u with a unique index), and c referencing both keys.
TableSchema Parent() {
  TableSchema p{"p", {{"id", Type::Integer(), true}, {"u", Type::BigInt()}}, {ColumnId(0)}};
  p.indexes.push_back({"p_u_key", {ColumnId(1)}, true, true});
  return p;
}

ForeignKeyDef Fk(std::string name, std::vector<ColumnId> columns, std::string referenced,
                 std::vector<ColumnId> referenced_columns) {
  ForeignKeyDef fk;
  fk.name = std::move(name);
  fk.columns = std::move(columns);
  fk.referenced_table = std::move(referenced);
  fk.referenced_columns = std::move(referenced_columns);
  return fk;
}

TableSchema Child() {
  TableSchema c{"c",
                {{"id", Type::Integer(), true}, {"pid", Type::Integer()}, {"pu", Type::Integer()}},
                {ColumnId(0)}};
  c.foreign_keys.push_back(Fk("c_pid_fkey", {ColumnId(1)}, "p", {ColumnId(0)}));
  ForeignKeyDef by_u = Fk("c_pu_fkey", {ColumnId(2)}, "p", {ColumnId(1)});
  by_u.on_delete = ForeignKeyAction::kSetNull;
  by_u.on_update = ForeignKeyAction::kCascade;
  by_u.match_full = true;
  by_u.delete_set_columns = {ColumnId(2)};
  c.foreign_keys.push_back(by_u);
  return c;
}

TEST(Catalog, ForeignKeysAreCheckedAndKnownToTheTablesTheyReference) {
  Catalog catalog;
  TableSchema orphan = Child();
  ExpectError([&] { catalog.CreateTable(orphan); }, sqlstate::kUndefinedTable,
              "relation \"p\" does not exist");
  Table& p = catalog.CreateTable(Parent());
  TableSchema unmatched = Child();
  unmatched.foreign_keys[0].referenced_columns = {ColumnId(0), ColumnId(1)};
  ExpectError([&] { catalog.CreateTable(unmatched); }, "42830",
              "number of referencing and referenced columns for foreign key disagree");
  unmatched.foreign_keys[0].columns = {ColumnId(1), ColumnId(2)};
  ExpectError([&] { catalog.CreateTable(unmatched); }, "42830",
              "there is no unique constraint matching given keys for referenced table \"p\"");
  TableSchema clash = Child();
  clash.foreign_keys[1].name = "c_pkey";
  ExpectError([&] { catalog.CreateTable(clash); }, sqlstate::kDuplicateObject,
              "constraint \"c_pkey\" for relation \"c\" already exists");
  TableSchema self{"s", {{"id", Type::Integer(), true}, {"up", Type::Integer()}}, {ColumnId(0)}};
  self.foreign_keys.push_back(Fk("s_up_fkey", {ColumnId(1)}, "s", {ColumnId(0)}));
  Table& s = catalog.CreateTable(self);
  Table& c = catalog.CreateTable(Child());
  EXPECT_EQ(p.referenced_by(), (std::vector<ForeignKeyRef>{{c.id(), 0}, {c.id(), 1}}));
  EXPECT_EQ(s.referenced_by(), (std::vector<ForeignKeyRef>{{s.id(), 0}}));
  EXPECT_TRUE(c.referenced_by().empty());
  // The unique index c_pu_fkey finds p's rows through.
  EXPECT_EQ(catalog.ForeignKeysUsingIndex(p.id(), 0), (std::vector<ForeignKeyRef>{{c.id(), 1}}));

  // Names: every table's constraints are taken.
  EXPECT_TRUE(catalog.ConstraintNameExists("c_pid_fkey"));
  EXPECT_TRUE(catalog.ConstraintNameExists("p_u_key"));
  EXPECT_TRUE(catalog.ConstraintNameExists("s_pkey"));
  EXPECT_EQ(catalog.ChooseConstraintName("c", {"pid"}, "fkey"), "c_pid_fkey1");
  EXPECT_EQ(catalog.ChooseConstraintName("d", {"a", "b"}, "fkey", {"d_a_b_fkey"}), "d_a_b_fkey1");
  EXPECT_EQ(catalog.ChooseConstraintName(std::string(59, 't'), {std::string(44, 'c')}, "fkey"),
            std::string(29, 't') + "_" + std::string(28, 'c') + "_fkey");

  // Dropped, restored, added: the references follow.
  ForeignKeyDef dropped = catalog.DropForeignKey(c.id(), 0);
  EXPECT_EQ(dropped.name, "c_pid_fkey");
  EXPECT_EQ(p.referenced_by(), (std::vector<ForeignKeyRef>{{c.id(), 0}}));
  catalog.RestoreForeignKey(c.id(), 0, dropped);
  EXPECT_EQ(c.schema(), Child());
  ExpectError([&] { catalog.AddForeignKey(c.id(), dropped); }, sqlstate::kDuplicateObject,
              "constraint \"c_pid_fkey\" for relation \"c\" already exists");
  catalog.AddForeignKey(c.id(), Fk("again", {ColumnId(1)}, "p", {ColumnId(0)}));
  EXPECT_EQ(p.referenced_by().size(), 3u);
  catalog.DropTable("c");
  EXPECT_TRUE(p.referenced_by().empty());
}

TEST(Catalog, ForeignKeysSurviveTheImageAndVersion3ImagesStillLoad) {
  Catalog catalog;
  catalog.CreateTable(Parent());
  catalog.CreateTable(Child());
  std::string bytes = catalog.Serialize();
  Catalog copy;
  ASSERT_TRUE(copy.Deserialize(bytes).ok());
  EXPECT_EQ(copy.FindTable("c")->schema(), Child());
  EXPECT_EQ(copy.FindTable("p")->referenced_by().size(), 2u);
  for (size_t i = 0; i < bytes.size(); i++) {
    std::string bad = bytes;
    bad[i] ^= 0x10;
    Catalog again;
    ASSERT_EQ(again.Deserialize(bad).code(), Status::Code::kCorruption) << i;
  }

  // A version 3 image (before foreign keys): no foreign key counts.
  Catalog old;
  old.CreateTable(Parent());
  std::string v6 = old.Serialize();
  // ... | foreign key count u16 (0) | view count u32 | sequence count u32 |
  // comment count u32 | crc u32
  std::string v3 = v6.substr(0, v6.size() - 18) + v6.substr(v6.size() - 16, 4);
  const uint32_t version = 3;
  std::memcpy(v3.data() + 4, &version, 4);
  const uint32_t crc = crc32c::Mask(crc32c::Value(v3.data(), v3.size()));
  v3.append(reinterpret_cast<const char*>(&crc), 4);
  Catalog loaded;
  ASSERT_TRUE(loaded.Deserialize(v3).ok());
  EXPECT_EQ(loaded.FindTable("p")->schema(), Parent());
  EXPECT_EQ(loaded.Serialize(), v6);
}

}  // namespace
}  // namespace forktail

namespace forktail {
namespace {

// ALTER TABLE's storage primitives: a rewrite into a new table (rows in
// tuple-id order, deleted slots left behind, columns from their sources),
// its undo and finish, and a schema replaced in place.
TEST(Catalog, RewriteTableFillsTheNewColumnsAndCanBeUndone) {
  Catalog catalog;
  Table& t = catalog.CreateTable(
      {"t", {{"id", Type::Integer(), true}, {"a", Type::Varchar(10)}}, {ColumnId(0)}});
  for (int i = 1; i <= 5; i++) {
    t.Insert({Value::Integer(i), Value::String(Type::Varchar(10), std::to_string(i * 10))});
  }
  t.Delete(*t.LookupKey({Value::Integer(2)}));
  TableSchema wider = t.schema();
  wider.columns[1].type = Type::Integer();  // ALTER COLUMN a TYPE int
  wider.columns.push_back({"c", Type::BigInt(), true});
  wider.columns.push_back({"s", Type::Integer(), true, "", ColumnIdentity::kSerial});
  const TableId old_id = t.id();
  const TableId new_id =
      catalog.RewriteTable(old_id, wider,
                           {ColumnSource::Column(ColumnId(0)), ColumnSource::Column(ColumnId(1)),
                            ColumnSource::Constant(Value::BigInt(7)), ColumnSource::Identity()});
  EXPECT_EQ(new_id, TableId(2));
  Table& fresh = *catalog.FindTable("t");
  EXPECT_EQ(fresh.id(), new_id);
  EXPECT_EQ(fresh.live_row_count(), 4u);
  EXPECT_EQ(*fresh.Read({BlockNo(0), SlotNo(1)}),
            (Row{Value::Integer(3), Value::Integer(30), Value::BigInt(7), Value::Integer(2)}));
  EXPECT_EQ(fresh.identity_value(ColumnId(3)), 4);
  EXPECT_TRUE(fresh.LookupKey({Value::Integer(5)}).has_value());
  catalog.UndoRewrite(new_id, old_id);
  EXPECT_EQ(catalog.FindTable("t")->id(), old_id);
  EXPECT_EQ(catalog.FindTable("t")->live_row_count(), 4u);
  ExpectError([&] { catalog.GetTable(new_id); }, sqlstate::kUndefinedTable,
              "relation with OID 2 does not exist");
  // Ids are never reused, also those of undone rewrites.
  const TableId again =
      catalog.RewriteTable(old_id, wider,
                           {ColumnSource::Column(ColumnId(0)), ColumnSource::Column(ColumnId(1)),
                            ColumnSource::Constant(Value::BigInt(7)), ColumnSource::Identity()});
  EXPECT_EQ(again, TableId(3));
  catalog.FinishRewrite(old_id);
  EXPECT_EQ(catalog.ListTables(), std::vector<TableId>{TableId(3)});
}

TEST(Catalog, RewriteTableChecksEveryRowBeforeChangingAnything) {
  Catalog catalog;
  Table& t = catalog.CreateTable(
      {"t", {{"id", Type::Integer(), true}, {"a", Type::Text()}}, {ColumnId(0)}});
  t.Insert({Value::Integer(1), Value::Null(Type::Text())});
  t.Insert({Value::Integer(2), Value::Text("long text")});
  TableSchema schema = t.schema();
  schema.columns[1].not_null = true;
  ExpectError(
      [&] {
        catalog.RewriteTable(
            t.id(), schema, {ColumnSource::Column(ColumnId(0)), ColumnSource::Column(ColumnId(1))});
      },
      sqlstate::kNotNullViolation, "column \"a\" of relation \"t\" contains null values");
  schema.columns[1] = {"a", Type::Varchar(3)};
  ExpectError(
      [&] {
        catalog.RewriteTable(
            t.id(), schema, {ColumnSource::Column(ColumnId(0)), ColumnSource::Column(ColumnId(1))});
      },
      sqlstate::kStringDataRightTruncation, "value too long for type character varying(3)");
  schema.columns[1] = {"a", Type::Text()};
  schema.columns.push_back({"b", Type::Integer(), true});
  ExpectError(
      [&] {
        catalog.RewriteTable(t.id(), schema,
                             {ColumnSource::Column(ColumnId(0)), ColumnSource::Column(ColumnId(1)),
                              ColumnSource::Constant(Value::Null(Type::Integer()))});
      },
      sqlstate::kNotNullViolation, "column \"b\" of relation \"t\" contains null values");
  EXPECT_EQ(catalog.FindTable("t"), &t);
  EXPECT_EQ(t.live_row_count(), 2u);
}

TEST(Catalog, ReplaceSchemaRenamesAndChecksNotNull) {
  Catalog catalog;
  Table& t =
      catalog.CreateTable({"t", {{"id", Type::Integer(), true}, {"a", Type::Integer()}}, {}});
  catalog.CreateTable({"u", {{"x", Type::Integer()}}, {}});
  t.Insert({Value::Integer(1), Value::Null(Type::Integer())});
  TableSchema schema = t.schema();
  schema.name = "u";
  ExpectError([&] { catalog.ReplaceSchema(t.id(), schema); }, sqlstate::kDuplicateTable,
              "relation \"u\" already exists");
  schema.name = "t2";
  schema.columns[1].name = "b";
  TableSchema before = catalog.ReplaceSchema(t.id(), schema);
  EXPECT_EQ(before.name, "t");
  EXPECT_EQ(catalog.FindTable("t"), nullptr);
  EXPECT_EQ(catalog.FindTable("t2"), &t);
  EXPECT_TRUE(t.schema().FindColumn("b").has_value());
  schema.columns[1].not_null = true;
  ExpectError([&] { catalog.ReplaceSchema(t.id(), schema); }, sqlstate::kNotNullViolation,
              "column \"b\" of relation \"t2\" contains null values");
  schema.columns[1].type = Type::BigInt();
  schema.columns[1].not_null = false;
  ExpectError([&] { catalog.ReplaceSchema(t.id(), schema); }, sqlstate::kInvalidTableDefinition,
              "table \"t2\": a schema change that keeps the rows must keep the column types, the "
              "key and the indexes");
  catalog.ReplaceSchema(t.id(), before);
  EXPECT_EQ(catalog.FindTable("t"), &t);
}

}  // namespace
}  // namespace forktail
