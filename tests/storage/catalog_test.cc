#include <gtest/gtest.h>

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
                        {"e", Type::Varchar()}},
                       {ColumnId(1), ColumnId(0)}},
                      {.max_rows_per_block = 640});
  catalog.DropTable("gone");
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
  // key, index and check counts.
  EXPECT_EQ(copy.Serialize().size(), bytes.size() + 4 + (4 + 4) + 4 + 2 +
                                         ((4 + 1) + 1 + 1 + 1 + 4 + 1 + 4 + 1) + 2 + 2 + 2);

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
