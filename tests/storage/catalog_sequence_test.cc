// Sequences in the Catalog: one name space and one id counter with the
// tables, ownership that follows renames and rewrites, and the catalog image
// (version 5, older versions still load).
#include <gtest/gtest.h>

#include <cstring>

#include "storage/storage.h"

namespace forktail {
namespace {

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
  return "no error";
}

SequenceDef Def(std::string name, TableId owner = TableId(0), std::string column = "") {
  SequenceDef d;
  d.name = std::move(name);
  d.owner_table = owner;
  d.owner_column = std::move(column);
  return d;
}

TEST(CatalogSequence, SharesNamesAndIdsWithTables) {
  Catalog catalog;
  Table& t = catalog.CreateTable({"t", {{"id", Type::Integer()}}, {}});
  const uint64_t version = catalog.schema_version();
  const TableId s = catalog.CreateSequence(Def("s"), {1, false});
  EXPECT_EQ(s, TableId(2));
  EXPECT_GT(catalog.schema_version(), version);
  EXPECT_EQ(catalog.CreateTable({"u", {{"a", Type::Integer()}}, {}}).id(), TableId(3));
  EXPECT_EQ(ErrorOf([&] { catalog.CreateSequence(Def("t"), {}); }),
            "42P07 relation \"t\" already exists");
  EXPECT_EQ(ErrorOf([&] {
              catalog.CreateTable({"s", {{"a", Type::Integer()}}, {}});
            }),
            "42P07 relation \"s\" already exists");
  EXPECT_EQ(catalog.ChooseIndexName("t", {"id"}, "seq"), "t_id_seq");
  catalog.CreateSequence(Def("t_id_seq", t.id(), "id"), {1, false});
  EXPECT_EQ(catalog.ChooseIndexName("t", {"id"}, "seq"), "t_id_seq1");
  EXPECT_EQ(catalog.ChooseIndexName("t", {"id"}, "seq", {"t_id_seq1"}), "t_id_seq2");
  EXPECT_EQ(catalog.OwnedSequences(t.id()), (std::vector<TableId>{TableId(4)}));
  EXPECT_EQ(catalog.IdentitySequence(t.id(), "id"), nullptr);  // OWNED BY, not identity

  // nextval's state change is not a schema change.
  const uint64_t before = catalog.schema_version();
  catalog.SetSequenceState(s, {7, true});
  EXPECT_EQ(catalog.schema_version(), before);
  EXPECT_EQ(catalog.FindSequence("s")->state, (SequenceState{7, true}));

  // ALTER SEQUENCE ... RENAME TO: the new name must be free; undone by
  // replacing it back.
  SequenceDef renamed = catalog.GetSequence(s)->def;
  renamed.name = "u";
  EXPECT_EQ(ErrorOf([&] {
              catalog.ReplaceSequence(s, renamed, {1, false});
            }),
            "42P07 relation \"u\" already exists");
  renamed.name = "s2";
  Sequence old = catalog.ReplaceSequence(s, renamed, {1, false});
  EXPECT_EQ(catalog.FindSequence("s"), nullptr);
  EXPECT_EQ(catalog.FindSequence("s2")->id, s);
  catalog.ReplaceSequence(s, old.def, old.state);
  EXPECT_EQ(catalog.FindSequence("s")->state, (SequenceState{7, true}));

  Sequence dropped = catalog.DropSequence(s);
  EXPECT_EQ(catalog.FindSequence("s"), nullptr);
  catalog.RestoreSequence(dropped);
  EXPECT_EQ(catalog.FindSequence("s")->id, s);
  // Ids are never reused.
  catalog.DropSequence(s);
  EXPECT_EQ(catalog.CreateSequence(Def("s"), {}), TableId(5));
  EXPECT_EQ(ErrorOf([&] { catalog.CreateSequence(Def("late"), {}, TableId(3)); }),
            "XX000 sequence \"late\" with id 3, but ids up to 5 are taken");
}

TEST(CatalogSequence, OwnershipFollowsRenamesAndRewrites) {
  Catalog catalog;
  Table& t = catalog.CreateTable({"t", {{"a", Type::Integer()}, {"b", Type::Integer()}}, {}});
  t.Insert({Value::Integer(1), Value::Integer(2)});
  const TableId old_id = t.id();
  const TableId s = catalog.CreateSequence(Def("t_b_seq", old_id, "b"), {1, false});
  // RENAME COLUMN b TO c
  TableSchema schema = t.schema();
  schema.columns[1].name = "c";
  TableSchema before = catalog.ReplaceSchema(old_id, schema);
  EXPECT_EQ(catalog.GetSequence(s)->def.owner_column, "c");
  catalog.ReplaceSchema(old_id, before);  // its undo
  EXPECT_EQ(catalog.GetSequence(s)->def.owner_column, "b");
  // DROP COLUMN a: the rewritten table has a new id, the sequence follows.
  TableSchema dropped{"t", {{"b", Type::Integer()}}, {}};
  const TableId new_id = catalog.RewriteTable(old_id, dropped, {ColumnSource::Column(ColumnId(1))});
  EXPECT_EQ(catalog.GetSequence(s)->def.owner_table, new_id);
  catalog.UndoRewrite(new_id, old_id);
  EXPECT_EQ(catalog.GetSequence(s)->def.owner_table, old_id);
}

// Every byte of a version 5 image with sequences is checked, and a version
// 4 image (no sequence section) still loads.
TEST(CatalogSequence, CatalogImage) {
  Catalog catalog;
  Table& t = catalog.CreateTable({"t", {{"id", Type::Integer()}}, {}});
  SequenceDef d = Def("t_id_seq", t.id(), "id");
  d.type = TypeId::kInteger;
  d.max = INT32_MAX;
  d.identity = true;
  d.cache = 20;
  catalog.CreateSequence(d, {41, true});
  SequenceDef down = Def("down");
  down.increment = -3;
  down.min = -100;
  down.max = -1;
  down.start = -1;
  down.cycle = true;
  catalog.CreateSequence(down, {-1, false});
  const std::string bytes = catalog.Serialize();

  Catalog copy;
  ASSERT_TRUE(copy.Deserialize(bytes).ok());
  ASSERT_NE(copy.FindSequence("t_id_seq"), nullptr);
  EXPECT_EQ(copy.FindSequence("t_id_seq")->def, d);
  EXPECT_EQ(copy.FindSequence("t_id_seq")->state, (SequenceState{41, true}));
  EXPECT_EQ(copy.IdentitySequence(t.id(), "id"), copy.FindSequence("t_id_seq"));
  EXPECT_EQ(copy.FindSequence("down")->def, down);
  EXPECT_EQ(copy.CreateTable({"n", {{"x", Type::Integer()}}, {}}).id(), TableId(4));
  for (size_t i = 0; i < bytes.size(); i++) {
    std::string bad = bytes;
    bad[i] ^= 0x10;
    Catalog again;
    ASSERT_EQ(again.Deserialize(bad).code(), Status::Code::kCorruption) << i;
  }

  // Version 4: the same layout without the sequence and comment counts at
  // the end; version 5 without the comment count.
  Catalog plain;
  plain.CreateTable({"t", {{"id", Type::Integer()}}, {}});
  // The image without its last `cut` bytes (the CRC, then the counts the
  // newer versions added), labelled `version`, with a fresh CRC.
  auto older_image = [&](size_t cut, uint32_t version) {
    std::string image = plain.Serialize();
    image.resize(image.size() - cut);
    std::memcpy(image.data() + 4, &version, 4);
    const uint32_t crc = crc32c::Mask(crc32c::Value(image.data(), image.size()));
    image.append(reinterpret_cast<const char*>(&crc), 4);
    return image;
  };
  Catalog older;
  ASSERT_TRUE(older.Deserialize(older_image(8, 5)).ok());  // the CRC and the comment count
  EXPECT_NE(older.FindTable("t"), nullptr);
  Catalog old;  // ... and the sequence count
  ASSERT_TRUE(old.Deserialize(older_image(12, 4)).ok());
  EXPECT_NE(old.FindTable("t"), nullptr);
  EXPECT_TRUE(old.sequences().empty());
}

}  // namespace
}  // namespace forktail
