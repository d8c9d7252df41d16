// Payloads of the transaction engine's redo records, and the compact binary
// encoding of Values inside them. The log itself treats payloads as opaque
// bytes (wal_format.h); this file gives them meaning, and replay.h applies them.
//
// Model: a transaction buffers its redo records and appends them together
// with its commit record when it commits (aborted transactions log nothing),
// so in the log every record of transaction T lies contiguously before T's
// kCommit record. Redo is physical-logical: a record names the tuple id the
// change produced, and replay (an exact re-execution of the table primitive,
// table.h) must land on that same tuple id or it reports corruption.
//
// Integers are little-endian; "varint" is LEB128 (7 bits a byte, low first);
// "svarint" is a zig-zag varint.
//
//   kInsert       table u32 | tid u64 | row
//   kUpdate       table u32 | tid u64 | new tid u64 | count varint | (column u16 | value)*
//   kDelete       table u32 | tid u64
//   kCreateTable  table u32 | max_rows_per_block u32 | schema
//   kDropTable    table u32
//   kCreateIndex  table u32 | key count varint | key column u16*
//                 (ALTER TABLE ADD PRIMARY KEY: the table's primary-key index)
//   kAlterTable   kind u8 (1 rewrite, 2 schema) | table u32 |
//                 rewrite: new table u32 | max_rows_per_block u32 |
//                          source count varint | source* | schema
//                 schema:  schema
//                 (a schema's optional sections end at the payload's end: it
//                 always comes last)
//                 source = kind u8 (0 column: column u16; 1 constant: value;
//                          2 identity: nothing)
//   kAddForeignKey    table u32 | foreign key (ALTER TABLE ADD FOREIGN KEY)
//   kDropConstraint   table u32 | name (ALTER TABLE DROP CONSTRAINT of a
//                     foreign key or CHECK; DROP TABLE ... CASCADE)
//   kCreateSequence  sequence u32 | sequence def | state
//   kAlterSequence   sequence u32 | sequence def | state (all of it, as ALTER left it)
//   kDropSequence    sequence u32
//   kSetSequence     sequence u32 | state (nextval, setval)
//                 sequence def = name | type u8 | start, increment, min, max,
//                   cache svarint | cycle u8 | owner table u32 (0: none) |
//                   owner column name | identity u8
//                 state = last_value svarint | is_called u8
//   kCommit       (empty)
//
//   row    = count varint | value*
//   value  = tag u8 | [type parameters] | [data]
//            tag: bits 0-6 TypeId, bit 7 set = NULL (then no data follows)
//            type parameters: DECIMAL precision u8, scale u8;
//                             CHAR/VARCHAR length varint; none for other types
//            data: BOOLEAN u8; SMALLINT/INTEGER/BIGINT/DATE/TIMESTAMP/DECIMAL
//                  svarint (DECIMAL: the unscaled value); DOUBLE 8 bytes (IEEE);
//                  strings: byte length varint | bytes
//   schema = name | column count varint | (name | type | not_null u8)* |
//            key count varint | key column u16*
//            name = length varint | bytes;  type = tag without NULL bit + parameters
//            then optional sections, each tag u8 | count varint | items:
//            1 indexes, 2 defaults, 3 identities, 4 checks, 5 foreign keys
//   foreign key = name | referenced table name | count varint |
//            (column u16 | referenced column u16)* | on delete u8 | on update u8
//            (ForeignKeyAction letters) | flags u8 (1 MATCH FULL) |
//            delete-set count varint | column u16*
//
// Decoding never trusts the bytes: every read is bounds-checked and a short or
// malformed payload is Status::Corruption (which replay reports with the LSN).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/storage.h"

namespace forktail::redo {

// Appends the encodings to *out.
void EncodeValue(const Value& v, std::string* out);
void EncodeRow(const Row& row, std::string* out);
void EncodeSchema(const TableSchema& schema, std::string* out);
void EncodeIndexDef(const IndexDef& index, std::string* out);
void EncodeForeignKeyDef(const ForeignKeyDef& fk, std::string* out);

// A cursor over a payload; every Read* fails (returns false) past the end.
class Decoder {
 public:
  explicit Decoder(std::string_view bytes) : p_(bytes) {}
  bool ReadU8(uint8_t* v);
  bool ReadU16(uint16_t* v);
  bool ReadU32(uint32_t* v);
  bool ReadU64(uint64_t* v);
  bool ReadVarint(uint64_t* v);
  bool ReadSvarint(int64_t* v);
  bool ReadBytes(std::string* s);
  bool ReadValue(Value* v);
  bool ReadRow(Row* row);
  bool ReadSchema(TableSchema* schema);
  bool ReadIndexDef(IndexDef* index);
  bool ReadForeignKeyDef(ForeignKeyDef* fk);
  bool ReadType(uint8_t type_id, Type* type);
  bool done() const { return p_.empty(); }

 private:
  std::string_view p_;
};

struct InsertRecord {
  TableId table;
  TupleId tid;
  Row row;
};
struct UpdateRecord {
  TableId table;
  TupleId tid;
  TupleId new_tid;
  Table::ColumnUpdates updates;
};
struct DeleteRecord {
  TableId table;
  TupleId tid;
};
struct CreateTableRecord {
  TableId table;
  TableOptions options;
  TableSchema schema;
};
struct DropTableRecord {
  TableId table;
};
struct AddPrimaryKeyRecord {
  TableId table;
  std::vector<ColumnId> key;
};

struct CreateSecondaryIndexRecord {
  TableId table;
  IndexDef index;
};
struct SetIdentityRecord {
  TableId table;
  ColumnId column;
  int64_t value;
};
struct DropIndexRecord {
  TableId table;
  std::string name;
};
// kAlterTable: either a rewrite (Catalog::RewriteTable: `table` becomes
// `new_table` with `schema`, filled as `sources` says) or a schema change in
// place (Catalog::ReplaceSchema: `rewrite` false, no sources).
struct AlterTableRecord {
  bool rewrite = false;
  TableId table;
  TableId new_table;
  TableOptions options;
  TableSchema schema;
  std::vector<ColumnSource> sources;
};
struct AddForeignKeyRecord {
  TableId table;
  ForeignKeyDef foreign_key;
};
struct DropConstraintRecord {
  TableId table;
  std::string name;
};

std::string EncodeInsert(TableId table, TupleId tid, const Row& row);
std::string EncodeUpdate(TableId table, TupleId tid, TupleId new_tid,
                         const Table::ColumnUpdates& updates);
std::string EncodeDelete(TableId table, TupleId tid);
std::string EncodeCreateTable(TableId table, const TableOptions& options,
                              const TableSchema& schema);
std::string EncodeDropTable(TableId table);
std::string EncodeAddPrimaryKey(TableId table, const std::vector<ColumnId>& key);
std::string EncodeCreateSecondaryIndex(TableId table, const IndexDef& index);
std::string EncodeDropIndex(TableId table, std::string_view name);
std::string EncodeSetIdentity(TableId table, ColumnId column, int64_t value);
std::string EncodeCreateView(const ViewDef& view);
std::string EncodeRewriteTable(TableId table, TableId new_table, uint32_t max_rows_per_block,
                               const TableSchema& schema, const std::vector<ColumnSource>& sources);
std::string EncodeReplaceSchema(TableId table, const TableSchema& schema);
std::string EncodeDropView(std::string_view name);
std::string EncodeAddForeignKey(TableId table, const ForeignKeyDef& fk);
std::string EncodeDropConstraint(TableId table, std::string_view name);
// kCreateSequence and kAlterSequence share a payload; kDropSequence's is
// EncodeDropTable's (the id).
std::string EncodeSequence(const Sequence& sequence);
std::string EncodeSetSequence(TableId sequence, const SequenceState& state);

Status DecodeInsert(std::string_view payload, InsertRecord* out);
Status DecodeUpdate(std::string_view payload, UpdateRecord* out);
Status DecodeDelete(std::string_view payload, DeleteRecord* out);
Status DecodeCreateTable(std::string_view payload, CreateTableRecord* out);
Status DecodeDropTable(std::string_view payload, DropTableRecord* out);
Status DecodeAddPrimaryKey(std::string_view payload, AddPrimaryKeyRecord* out);
Status DecodeCreateSecondaryIndex(std::string_view payload, CreateSecondaryIndexRecord* out);
Status DecodeDropIndex(std::string_view payload, DropIndexRecord* out);
Status DecodeSetIdentity(std::string_view payload, SetIdentityRecord* out);
Status DecodeCreateView(std::string_view payload, ViewDef* out);
Status DecodeAlterTable(std::string_view payload, AlterTableRecord* out);
Status DecodeDropView(std::string_view payload, std::string* name);
Status DecodeAddForeignKey(std::string_view payload, AddForeignKeyRecord* out);
Status DecodeDropConstraint(std::string_view payload, DropConstraintRecord* out);
Status DecodeSequence(std::string_view payload, Sequence* out);
Status DecodeSetSequence(std::string_view payload, TableId* sequence, SequenceState* state);

}  // namespace forktail::redo
