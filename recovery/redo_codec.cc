#include "recovery/redo_codec.h"

#include <cstring>

namespace forktail::redo {
namespace {

constexpr uint8_t kNullBit = 0x80;

void PutFixed(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutSvarint(std::string* out, int64_t v) {
  PutVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

void PutBytes(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s);
}

// The type byte: the TypeId, with kArrayBit for an array (TEXT tagged with
// its element type, Type::ArrayText), whose tag follows in PutTypeParams.
// Logs written before arrays were persisted never set the bit.
constexpr uint8_t kArrayBit = 0x40;
static_assert(static_cast<uint8_t>(TypeId::kInterval) < kArrayBit);

void PutTypeByte(std::string* out, const Type& t, uint8_t flags = 0) {
  out->push_back(
      static_cast<char>(static_cast<uint8_t>(t.id) | flags | (t.IsArrayText() ? kArrayBit : 0)));
}

void PutTypeParams(std::string* out, const Type& t) {
  if (t.IsArrayText()) {
    out->push_back(static_cast<char>(t.precision));
  } else if (t.id == TypeId::kDecimal) {
    out->push_back(static_cast<char>(t.precision));
    out->push_back(static_cast<char>(t.scale));
  } else if (t.id == TypeId::kChar || t.id == TypeId::kVarchar) {
    PutVarint(out, t.length);
  }
}

Status Bad(const char* what) {
  return Status::Corruption(std::string("malformed redo payload: ") + what);
}

}  // namespace

void EncodeValue(const Value& v, std::string* out) {
  const Type& t = v.type();
  PutTypeByte(out, t, v.is_null() ? kNullBit : 0);
  PutTypeParams(out, t);
  if (v.is_null()) return;
  switch (t.id) {
    case TypeId::kBoolean:
      out->push_back(v.GetBool() ? 1 : 0);
      break;
    case TypeId::kDouble: {
      uint64_t bits;
      double d = v.GetDouble();
      std::memcpy(&bits, &d, 8);
      PutFixed(out, bits, 8);
      break;
    }
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kJsonb:
    case TypeId::kUuid:
    case TypeId::kBytea:
    case TypeId::kInterval:
    case TypeId::kTime:
    case TypeId::kJson:
      PutBytes(out, v.GetString());
      break;
    default:
      PutSvarint(out, v.GetInt());
  }
}

void EncodeRow(const Row& row, std::string* out) {
  PutVarint(out, row.size());
  for (const Value& v : row) EncodeValue(v, out);
}

// Tags of a schema's optional sections (EncodeSchema).
constexpr char kSchemaIndexes = 1;
constexpr char kSchemaDefaults = 2;
constexpr char kSchemaIdentities = 3;
constexpr char kSchemaChecks = 4;
constexpr char kSchemaForeignKeys = 5;
constexpr char kSchemaComments = 6;
// In kSchemaComments, the entry of the table's own comment.
constexpr uint16_t kTableCommentColumn = 0xffff;

void EncodeIndexDef(const IndexDef& index, std::string* out) {
  PutBytes(out, index.name);
  out->push_back(static_cast<char>((index.unique ? 1 : 0) | (index.constraint ? 2 : 0)));
  PutVarint(out, index.columns.size());
  for (ColumnId c : index.columns) PutFixed(out, c.value(), 2);
}

void EncodeForeignKeyDef(const ForeignKeyDef& fk, std::string* out) {
  PutBytes(out, fk.name);
  PutBytes(out, fk.referenced_table);
  PutVarint(out, fk.columns.size());
  for (size_t i = 0; i < fk.columns.size(); i++) {
    PutFixed(out, fk.columns[i].value(), 2);
    PutFixed(out, fk.referenced_columns[i].value(), 2);
  }
  out->push_back(static_cast<char>(fk.on_delete));
  out->push_back(static_cast<char>(fk.on_update));
  out->push_back(fk.match_full ? 1 : 0);
  PutVarint(out, fk.delete_set_columns.size());
  for (ColumnId c : fk.delete_set_columns) PutFixed(out, c.value(), 2);
}

void EncodeSchema(const TableSchema& schema, std::string* out) {
  PutBytes(out, schema.name);
  PutVarint(out, schema.columns.size());
  for (const ColumnDef& c : schema.columns) {
    PutBytes(out, c.name);
    PutTypeByte(out, c.type);
    PutTypeParams(out, c.type);
    out->push_back(c.not_null ? 1 : 0);
  }
  PutVarint(out, schema.primary_key.size());
  for (ColumnId k : schema.primary_key) PutFixed(out, k.value(), 2);
  // Optional sections, each a tag byte and its content; records written
  // before a section existed simply end earlier.
  if (!schema.indexes.empty()) {  // UNIQUE constraints declared with the table
    out->push_back(kSchemaIndexes);
    PutVarint(out, schema.indexes.size());
    for (const IndexDef& index : schema.indexes) EncodeIndexDef(index, out);
  }
  size_t defaults = 0;
  for (const ColumnDef& c : schema.columns) defaults += !c.default_sql.empty();
  if (defaults > 0) {
    out->push_back(kSchemaDefaults);
    PutVarint(out, defaults);
    for (size_t i = 0; i < schema.columns.size(); i++) {
      if (schema.columns[i].default_sql.empty()) continue;
      PutFixed(out, i, 2);
      PutBytes(out, schema.columns[i].default_sql);
    }
  }
  size_t identities = 0;
  for (const ColumnDef& c : schema.columns) identities += c.identity != ColumnIdentity::kNone;
  if (identities > 0) {
    out->push_back(kSchemaIdentities);
    PutVarint(out, identities);
    for (size_t i = 0; i < schema.columns.size(); i++) {
      if (schema.columns[i].identity == ColumnIdentity::kNone) continue;
      PutFixed(out, i, 2);
      out->push_back(static_cast<char>(schema.columns[i].identity));
    }
  }
  if (!schema.checks.empty()) {
    out->push_back(kSchemaChecks);
    PutVarint(out, schema.checks.size());
    for (const CheckDef& c : schema.checks) {
      PutBytes(out, c.name);
      PutBytes(out, c.sql);
    }
  }
  if (!schema.foreign_keys.empty()) {
    out->push_back(kSchemaForeignKeys);
    PutVarint(out, schema.foreign_keys.size());
    for (const ForeignKeyDef& fk : schema.foreign_keys) EncodeForeignKeyDef(fk, out);
  }
  size_t comments = !schema.comment.empty();
  for (const ColumnDef& c : schema.columns) comments += !c.comment.empty();
  if (comments > 0) {
    out->push_back(kSchemaComments);
    PutVarint(out, comments);
    if (!schema.comment.empty()) {
      PutFixed(out, kTableCommentColumn, 2);
      PutBytes(out, schema.comment);
    }
    for (size_t i = 0; i < schema.columns.size(); i++) {
      if (schema.columns[i].comment.empty()) continue;
      PutFixed(out, i, 2);
      PutBytes(out, schema.columns[i].comment);
    }
  }
}

bool Decoder::ReadU8(uint8_t* v) {
  if (p_.empty()) return false;
  *v = static_cast<uint8_t>(p_[0]);
  p_.remove_prefix(1);
  return true;
}

template <typename T>
static bool ReadFixed(std::string_view* p, T* v) {
  if (p->size() < sizeof(T)) return false;
  uint64_t x = 0;
  for (size_t i = 0; i < sizeof(T); i++) x |= uint64_t{static_cast<uint8_t>((*p)[i])} << (8 * i);
  *v = static_cast<T>(x);
  p->remove_prefix(sizeof(T));
  return true;
}

bool Decoder::ReadU16(uint16_t* v) { return ReadFixed(&p_, v); }
bool Decoder::ReadU32(uint32_t* v) { return ReadFixed(&p_, v); }
bool Decoder::ReadU64(uint64_t* v) { return ReadFixed(&p_, v); }

bool Decoder::ReadVarint(uint64_t* v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    uint8_t b;
    if (!ReadU8(&b)) return false;
    x |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

bool Decoder::ReadSvarint(int64_t* v) {
  uint64_t z;
  if (!ReadVarint(&z)) return false;
  *v = static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
  return true;
}

bool Decoder::ReadBytes(std::string* s) {
  uint64_t n;
  if (!ReadVarint(&n) || n > p_.size()) return false;
  s->assign(p_.data(), n);
  p_.remove_prefix(n);
  return true;
}

bool Decoder::ReadType(uint8_t type_id, Type* type) {
  if ((type_id & kArrayBit) != 0) {
    uint8_t tag;
    if (type_id != (static_cast<uint8_t>(TypeId::kText) | kArrayBit) || !ReadU8(&tag)) return false;
    const uint8_t element = static_cast<uint8_t>((tag & ~Type::kCatalogArray) - 1);
    if ((tag & ~Type::kCatalogArray) == 0 || !IsKnownTypeId(element)) return false;
    *type = Type::ArrayText(Type{static_cast<TypeId>(element)}, (tag & Type::kCatalogArray) != 0);
    return true;
  }
  if (!IsKnownTypeId(type_id)) return false;
  *type = Type{static_cast<TypeId>(type_id)};
  if (type->id == TypeId::kDecimal) {
    uint8_t p, s;
    if (!ReadU8(&p) || !ReadU8(&s) || p < 1 || p > kMaxDecimalPrecision || s > p) return false;
    type->precision = p;
    type->scale = s;
  } else if (type->id == TypeId::kChar || type->id == TypeId::kVarchar) {
    uint64_t n;
    // As SQL allows (the binder's 22023): a longer CHAR pads without bound.
    if (!ReadVarint(&n) || n > kMaxStringTypeLength) return false;
    type->length = static_cast<uint32_t>(n);
  }
  return true;
}

bool Decoder::ReadValue(Value* v) {
  uint8_t tag;
  Type t;
  if (!ReadU8(&tag) || !ReadType(tag & ~kNullBit, &t)) return false;
  if (tag & kNullBit) {
    *v = Value::Null(t);
    return true;
  }
  switch (t.id) {
    case TypeId::kBoolean: {
      uint8_t b;
      if (!ReadU8(&b) || b > 1) return false;
      *v = Value::Boolean(b != 0);
      return true;
    }
    case TypeId::kDouble: {
      uint64_t bits;
      if (!ReadU64(&bits)) return false;
      double d;
      std::memcpy(&d, &bits, 8);
      *v = Value::Double(d);
      return true;
    }
    case TypeId::kChar:
    case TypeId::kVarchar:
    case TypeId::kText:
    case TypeId::kJsonb:
    case TypeId::kUuid:
    case TypeId::kBytea:
    case TypeId::kInterval:
    case TypeId::kTime:
    case TypeId::kJson: {
      std::string s;
      if (!ReadBytes(&s)) return false;
      if (t.id == TypeId::kTime &&
          (s.size() != 8 || static_cast<uint64_t>(datetime::DecodeTime(s)) >
                                static_cast<uint64_t>(datetime::kMaxTime))) {
        return false;
      }
      *v = Value::String(t, std::move(s));
      return true;
    }
    default:
      break;
  }
  int64_t i;
  if (!ReadSvarint(&i)) return false;
  // Only values the type can hold: a date or timestamp outside years
  // 1..9999 overflowed later casts (found by fuzz/redo_record), and an
  // integer or decimal out of its range was cut silently.
  bool in_range = true;
  switch (t.id) {
    case TypeId::kSmallInt:
      in_range = i >= INT16_MIN && i <= INT16_MAX;
      break;
    case TypeId::kInteger:
      in_range = i >= INT32_MIN && i <= INT32_MAX;
      break;
    case TypeId::kDecimal:
      in_range = decimal::FitsPrecisionWide(i, t.precision);
      break;
    case TypeId::kDate:
      in_range = i >= datetime::kMinDate && i <= datetime::kMaxDate;
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      in_range = i >= datetime::kMinTimestamp && i <= datetime::kMaxTimestamp;
      break;
    default:
      break;
  }
  if (!in_range) return false;
  switch (t.id) {
    case TypeId::kSmallInt:
      *v = Value::SmallInt(static_cast<int16_t>(i));
      break;
    case TypeId::kInteger:
      *v = Value::Integer(static_cast<int32_t>(i));
      break;
    case TypeId::kBigInt:
      *v = Value::BigInt(i);
      break;
    case TypeId::kDecimal:
      *v = Value::Decimal(i, t.precision, t.scale);
      break;
    case TypeId::kDate:
      *v = Value::Date(static_cast<int32_t>(i));
      break;
    case TypeId::kTimestamp:
      *v = Value::Timestamp(i);
      break;
    case TypeId::kTimestampTz:
      *v = Value::TimestampTz(i);
      break;
    default:
      return false;
  }
  return true;
}

bool Decoder::ReadRow(Row* row) {
  uint64_t n;
  if (!ReadVarint(&n) || n > p_.size()) return false;
  row->resize(n);
  for (Value& v : *row) {
    if (!ReadValue(&v)) return false;
  }
  return true;
}

bool Decoder::ReadSchema(TableSchema* schema) {
  uint64_t n;
  if (!ReadBytes(&schema->name) || !ReadVarint(&n) || n > p_.size()) return false;
  schema->columns.resize(n);
  for (ColumnDef& c : schema->columns) {
    uint8_t type_id, not_null;
    if (!ReadBytes(&c.name) || !ReadU8(&type_id) || !ReadType(type_id, &c.type) ||
        !ReadU8(&not_null)) {
      return false;
    }
    c.not_null = not_null != 0;
  }
  if (!ReadVarint(&n) || n > p_.size()) return false;
  schema->primary_key.clear();
  for (uint64_t i = 0; i < n; i++) {
    uint16_t k;
    if (!ReadU16(&k)) return false;
    schema->primary_key.push_back(ColumnId(k));
  }
  schema->indexes.clear();
  while (!p_.empty()) {
    uint8_t tag;
    if (!ReadU8(&tag) || !ReadVarint(&n) || n > p_.size()) return false;
    if (tag == kSchemaIndexes) {
      schema->indexes.resize(n);
      for (IndexDef& index : schema->indexes) {
        if (!ReadIndexDef(&index)) return false;
      }
    } else if (tag == kSchemaDefaults) {
      for (uint64_t i = 0; i < n; i++) {
        uint16_t c;
        std::string text;
        if (!ReadU16(&c) || c >= schema->columns.size() || !ReadBytes(&text)) return false;
        schema->columns[c].default_sql = std::move(text);
      }
    } else if (tag == kSchemaIdentities) {
      for (uint64_t i = 0; i < n; i++) {
        uint16_t c;
        uint8_t kind;
        if (!ReadU16(&c) || c >= schema->columns.size() || !ReadU8(&kind) || kind == 0 ||
            kind > static_cast<uint8_t>(ColumnIdentity::kAlways)) {
          return false;
        }
        schema->columns[c].identity = static_cast<ColumnIdentity>(kind);
      }
    } else if (tag == kSchemaChecks) {
      schema->checks.resize(n);
      for (CheckDef& c : schema->checks) {
        if (!ReadBytes(&c.name) || !ReadBytes(&c.sql)) return false;
      }
    } else if (tag == kSchemaForeignKeys) {
      schema->foreign_keys.resize(n);
      for (ForeignKeyDef& fk : schema->foreign_keys) {
        if (!ReadForeignKeyDef(&fk)) return false;
      }
    } else if (tag == kSchemaComments) {
      for (uint64_t i = 0; i < n; i++) {
        uint16_t c;
        std::string text;
        if (!ReadU16(&c) || !ReadBytes(&text) || text.empty()) return false;
        if (c == kTableCommentColumn) {
          schema->comment = std::move(text);
        } else if (c < schema->columns.size()) {
          schema->columns[c].comment = std::move(text);
        } else {
          return false;
        }
      }
    } else {
      return false;
    }
  }
  return true;
}

bool Decoder::ReadForeignKeyDef(ForeignKeyDef* fk) {
  uint64_t n;
  if (!ReadBytes(&fk->name) || !ReadBytes(&fk->referenced_table) || !ReadVarint(&n) || n == 0 ||
      n > p_.size()) {
    return false;
  }
  fk->columns.clear();
  fk->referenced_columns.clear();
  for (uint64_t i = 0; i < n; i++) {
    uint16_t c, referenced;
    if (!ReadU16(&c) || !ReadU16(&referenced)) return false;
    fk->columns.push_back(ColumnId(c));
    fk->referenced_columns.push_back(ColumnId(referenced));
  }
  uint8_t actions[2], flags;
  if (!ReadU8(&actions[0]) || !ReadU8(&actions[1]) || !ReadU8(&flags)) return false;
  for (uint8_t a : actions) {
    if (std::string_view("arcnd").find(static_cast<char>(a)) == std::string_view::npos) {
      return false;
    }
  }
  fk->on_delete = static_cast<ForeignKeyAction>(actions[0]);
  fk->on_update = static_cast<ForeignKeyAction>(actions[1]);
  fk->match_full = (flags & 1) != 0;
  if (!ReadVarint(&n) || n > p_.size()) return false;
  fk->delete_set_columns.clear();
  for (uint64_t i = 0; i < n; i++) {
    uint16_t c;
    if (!ReadU16(&c)) return false;
    fk->delete_set_columns.push_back(ColumnId(c));
  }
  return true;
}

bool Decoder::ReadIndexDef(IndexDef* index) {
  uint8_t unique;
  uint64_t n;
  if (!ReadBytes(&index->name) || !ReadU8(&unique) || !ReadVarint(&n) || n == 0 || n > p_.size()) {
    return false;
  }
  index->unique = (unique & 1) != 0;
  index->constraint = (unique & 2) != 0;
  index->columns.clear();
  for (uint64_t i = 0; i < n; i++) {
    uint16_t c;
    if (!ReadU16(&c)) return false;
    index->columns.push_back(ColumnId(c));
  }
  return true;
}

std::string EncodeInsert(TableId table, TupleId tid, const Row& row) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  PutFixed(&out, tid.Pack(), 8);
  EncodeRow(row, &out);
  return out;
}

std::string EncodeUpdate(TableId table, TupleId tid, TupleId new_tid,
                         const Table::ColumnUpdates& updates) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  PutFixed(&out, tid.Pack(), 8);
  PutFixed(&out, new_tid.Pack(), 8);
  PutVarint(&out, updates.size());
  for (const auto& [col, v] : updates) {
    PutFixed(&out, col.value(), 2);
    EncodeValue(v, &out);
  }
  return out;
}

std::string EncodeDelete(TableId table, TupleId tid) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  PutFixed(&out, tid.Pack(), 8);
  return out;
}

std::string EncodeCreateTable(TableId table, const TableOptions& options,
                              const TableSchema& schema) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  PutFixed(&out, options.max_rows_per_block, 4);
  EncodeSchema(schema, &out);
  return out;
}

std::string EncodeDropTable(TableId table) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  return out;
}

std::string EncodeAddPrimaryKey(TableId table, const std::vector<ColumnId>& key) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  PutVarint(&out, key.size());
  for (ColumnId c : key) PutFixed(&out, c.value(), 2);
  return out;
}

std::string EncodeCreateSecondaryIndex(TableId table, const IndexDef& index) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  EncodeIndexDef(index, &out);
  return out;
}

std::string EncodeCreateView(const ViewDef& view) {
  std::string out;
  PutBytes(&out, view.name);
  PutBytes(&out, view.sql);
  PutVarint(&out, view.column_names.size());
  for (size_t i = 0; i < view.column_names.size(); i++) {
    PutBytes(&out, view.column_names[i]);
    PutTypeByte(&out, view.column_types[i]);
    PutTypeParams(&out, view.column_types[i]);
  }
  PutVarint(&out, view.depends_on.size());
  for (const std::string& d : view.depends_on) PutBytes(&out, d);
  return out;
}

namespace {

void PutState(std::string* out, const SequenceState& state) {
  PutSvarint(out, state.last_value);
  out->push_back(state.is_called ? 1 : 0);
}

bool ReadState(Decoder& d, SequenceState* state) {
  uint8_t called;
  if (!d.ReadSvarint(&state->last_value) || !d.ReadU8(&called) || called > 1) return false;
  state->is_called = called != 0;
  return true;
}

}  // namespace

std::string EncodeSequence(const Sequence& sequence) {
  const SequenceDef& def = sequence.def;
  std::string out;
  PutFixed(&out, sequence.id.value(), 4);
  PutBytes(&out, def.name);
  out.push_back(static_cast<char>(def.type));
  for (int64_t v : {def.start, def.increment, def.min, def.max, def.cache}) PutSvarint(&out, v);
  out.push_back(def.cycle ? 1 : 0);
  PutFixed(&out, def.owner_table.value(), 4);
  PutBytes(&out, def.owner_column);
  out.push_back(def.identity ? 1 : 0);
  PutState(&out, sequence.state);
  return out;
}

std::string EncodeSetSequence(TableId sequence, const SequenceState& state) {
  std::string out;
  PutFixed(&out, sequence.value(), 4);
  PutState(&out, state);
  return out;
}

Status DecodeSequence(std::string_view payload, Sequence* out) {
  Decoder d(payload);
  SequenceDef& def = out->def;
  uint32_t id, owner;
  uint8_t type, cycle, identity;
  if (!d.ReadU32(&id) || !d.ReadBytes(&def.name) || !d.ReadU8(&type)) return Bad("sequence");
  for (int64_t* v : {&def.start, &def.increment, &def.min, &def.max, &def.cache}) {
    if (!d.ReadSvarint(v)) return Bad("sequence");
  }
  if (!d.ReadU8(&cycle) || !d.ReadU32(&owner) || !d.ReadBytes(&def.owner_column) ||
      !d.ReadU8(&identity) || !ReadState(d, &out->state) || !d.done() || cycle > 1 ||
      identity > 1) {
    return Bad("sequence");
  }
  const auto t = static_cast<TypeId>(type);
  if (t != TypeId::kSmallInt && t != TypeId::kInteger && t != TypeId::kBigInt) {
    return Bad("sequence type");
  }
  out->id = TableId(id);
  def.type = t;
  def.cycle = cycle != 0;
  def.owner_table = TableId(owner);
  def.identity = identity != 0;
  return Status::Ok();
}

Status DecodeSetSequence(std::string_view payload, TableId* sequence, SequenceState* state) {
  Decoder d(payload);
  uint32_t id;
  if (!d.ReadU32(&id) || !ReadState(d, state) || !d.done()) return Bad("set sequence");
  *sequence = TableId(id);
  return Status::Ok();
}

namespace {
constexpr uint8_t kAlterRewrite = 1;
constexpr uint8_t kAlterSchema = 2;
}  // namespace

std::string EncodeRewriteTable(TableId table, TableId new_table, uint32_t max_rows_per_block,
                               const TableSchema& schema,
                               const std::vector<ColumnSource>& sources) {
  std::string out;
  out.push_back(static_cast<char>(kAlterRewrite));
  PutFixed(&out, table.value(), 4);
  PutFixed(&out, new_table.value(), 4);
  PutFixed(&out, max_rows_per_block, 4);
  // The sources first: a schema's optional sections run to the payload's end.
  PutVarint(&out, sources.size());
  for (const ColumnSource& s : sources) {
    out.push_back(static_cast<char>(s.kind));
    if (s.kind == ColumnSource::Kind::kColumn) PutFixed(&out, s.column.value(), 2);
    if (s.kind == ColumnSource::Kind::kConstant) EncodeValue(s.constant, &out);
  }
  EncodeSchema(schema, &out);
  return out;
}

std::string EncodeReplaceSchema(TableId table, const TableSchema& schema) {
  std::string out;
  out.push_back(static_cast<char>(kAlterSchema));
  PutFixed(&out, table.value(), 4);
  EncodeSchema(schema, &out);
  return out;
}

Status DecodeAlterTable(std::string_view payload, AlterTableRecord* out) {
  Decoder d(payload);
  uint8_t kind = 0;
  uint32_t t = 0;
  if (!d.ReadU8(&kind) || !d.ReadU32(&t)) return Bad("alter table");
  out->table = TableId(t);
  out->sources.clear();
  if (kind == kAlterSchema) {
    out->rewrite = false;
    if (!d.ReadSchema(&out->schema) || !d.done()) return Bad("alter table");
    return Status::Ok();
  }
  uint32_t new_table = 0;
  uint64_t n = 0;
  if (kind != kAlterRewrite || !d.ReadU32(&new_table) ||
      !d.ReadU32(&out->options.max_rows_per_block) || !d.ReadVarint(&n) || n > payload.size()) {
    return Bad("alter table");
  }
  out->rewrite = true;
  out->new_table = TableId(new_table);
  for (uint64_t i = 0; i < n; i++) {
    uint8_t source_kind = 0;
    if (!d.ReadU8(&source_kind)) return Bad("alter table");
    ColumnSource s;
    switch (source_kind) {
      case static_cast<uint8_t>(ColumnSource::Kind::kColumn): {
        uint16_t c = 0;
        if (!d.ReadU16(&c)) return Bad("alter table");
        s = ColumnSource::Column(ColumnId(c));
        break;
      }
      case static_cast<uint8_t>(ColumnSource::Kind::kConstant): {
        Value v;
        if (!d.ReadValue(&v)) return Bad("alter table");
        s = ColumnSource::Constant(std::move(v));
        break;
      }
      case static_cast<uint8_t>(ColumnSource::Kind::kIdentity):
        s = ColumnSource::Identity();
        break;
      default:
        return Bad("alter table");
    }
    out->sources.push_back(std::move(s));
  }
  if (!d.ReadSchema(&out->schema) || !d.done() || out->schema.columns.size() != n) {
    return Bad("alter table");
  }
  return Status::Ok();
}

std::string EncodeDropView(std::string_view name) {
  std::string out;
  PutBytes(&out, name);
  return out;
}

std::string EncodeSetIdentity(TableId table, ColumnId column, int64_t value) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  PutFixed(&out, column.value(), 2);
  PutFixed(&out, static_cast<uint64_t>(value), 8);
  return out;
}

std::string EncodeDropIndex(TableId table, std::string_view name) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  PutBytes(&out, name);
  return out;
}

std::string EncodeAddForeignKey(TableId table, const ForeignKeyDef& fk) {
  std::string out;
  PutFixed(&out, table.value(), 4);
  EncodeForeignKeyDef(fk, &out);
  return out;
}

std::string EncodeDropConstraint(TableId table, std::string_view name) {
  return EncodeDropIndex(table, name);  // the same shape: table and name
}

namespace {
bool ReadTableAndTid(Decoder& d, TableId* table, TupleId* tid) {
  uint32_t t;
  uint64_t packed;
  if (!d.ReadU32(&t) || !d.ReadU64(&packed)) return false;
  *table = TableId(t);
  *tid = TupleId::Unpack(packed);
  return true;
}
}  // namespace

Status DecodeInsert(std::string_view payload, InsertRecord* out) {
  Decoder d(payload);
  if (!ReadTableAndTid(d, &out->table, &out->tid) || !d.ReadRow(&out->row) || !d.done()) {
    return Bad("insert");
  }
  return Status::Ok();
}

Status DecodeUpdate(std::string_view payload, UpdateRecord* out) {
  Decoder d(payload);
  uint64_t new_tid, n;
  if (!ReadTableAndTid(d, &out->table, &out->tid) || !d.ReadU64(&new_tid) || !d.ReadVarint(&n) ||
      n > payload.size()) {
    return Bad("update");
  }
  out->new_tid = TupleId::Unpack(new_tid);
  out->updates.clear();
  for (uint64_t i = 0; i < n; i++) {
    uint16_t col;
    Value v;
    if (!d.ReadU16(&col) || !d.ReadValue(&v)) return Bad("update");
    out->updates.emplace_back(ColumnId(col), std::move(v));
  }
  return d.done() ? Status::Ok() : Bad("update");
}

Status DecodeDelete(std::string_view payload, DeleteRecord* out) {
  Decoder d(payload);
  if (!ReadTableAndTid(d, &out->table, &out->tid) || !d.done()) return Bad("delete");
  return Status::Ok();
}

Status DecodeCreateTable(std::string_view payload, CreateTableRecord* out) {
  Decoder d(payload);
  uint32_t t;
  if (!d.ReadU32(&t) || !d.ReadU32(&out->options.max_rows_per_block) ||
      !d.ReadSchema(&out->schema) || !d.done()) {
    return Bad("create table");
  }
  out->table = TableId(t);
  return Status::Ok();
}

Status DecodeDropTable(std::string_view payload, DropTableRecord* out) {
  Decoder d(payload);
  uint32_t t;
  if (!d.ReadU32(&t) || !d.done()) return Bad("drop table");
  out->table = TableId(t);
  return Status::Ok();
}

Status DecodeAddPrimaryKey(std::string_view payload, AddPrimaryKeyRecord* out) {
  Decoder d(payload);
  uint32_t t;
  uint64_t n;
  if (!d.ReadU32(&t) || !d.ReadVarint(&n) || n == 0 || n > payload.size()) {
    return Bad("create index");
  }
  out->table = TableId(t);
  out->key.clear();
  for (uint64_t i = 0; i < n; i++) {
    uint16_t c;
    if (!d.ReadU16(&c)) return Bad("create index");
    out->key.push_back(ColumnId(c));
  }
  return d.done() ? Status::Ok() : Bad("create index");
}

Status DecodeCreateSecondaryIndex(std::string_view payload, CreateSecondaryIndexRecord* out) {
  Decoder d(payload);
  uint32_t t;
  if (!d.ReadU32(&t) || !d.ReadIndexDef(&out->index) || !d.done()) return Bad("create index");
  out->table = TableId(t);
  return Status::Ok();
}

Status DecodeDropIndex(std::string_view payload, DropIndexRecord* out) {
  Decoder d(payload);
  uint32_t t;
  if (!d.ReadU32(&t) || !d.ReadBytes(&out->name) || !d.done()) return Bad("drop index");
  out->table = TableId(t);
  return Status::Ok();
}

Status DecodeSetIdentity(std::string_view payload, SetIdentityRecord* out) {
  Decoder d(payload);
  uint32_t t;
  uint16_t c;
  uint64_t v;
  if (!d.ReadU32(&t) || !d.ReadU16(&c) || !d.ReadU64(&v) || !d.done()) return Bad("set identity");
  out->table = TableId(t);
  out->column = ColumnId(c);
  out->value = static_cast<int64_t>(v);
  return Status::Ok();
}

Status DecodeCreateView(std::string_view payload, ViewDef* out) {
  Decoder d(payload);
  uint64_t n;
  if (!d.ReadBytes(&out->name) || !d.ReadBytes(&out->sql) || !d.ReadVarint(&n) ||
      n > payload.size()) {
    return Bad("create view");
  }
  out->column_names.assign(n, "");
  out->column_types.assign(n, Type());
  for (uint64_t i = 0; i < n; i++) {
    uint8_t type_id;
    if (!d.ReadBytes(&out->column_names[i]) || !d.ReadU8(&type_id) ||
        !d.ReadType(type_id, &out->column_types[i])) {
      return Bad("create view");
    }
  }
  if (!d.ReadVarint(&n) || n > payload.size()) return Bad("create view");
  out->depends_on.assign(n, "");
  for (uint64_t i = 0; i < n; i++) {
    if (!d.ReadBytes(&out->depends_on[i])) return Bad("create view");
  }
  return d.done() ? Status::Ok() : Bad("create view");
}

Status DecodeDropView(std::string_view payload, std::string* name) {
  Decoder d(payload);
  if (!d.ReadBytes(name) || !d.done()) return Bad("drop view");
  return Status::Ok();
}

Status DecodeAddForeignKey(std::string_view payload, AddForeignKeyRecord* out) {
  Decoder d(payload);
  uint32_t t;
  if (!d.ReadU32(&t) || !d.ReadForeignKeyDef(&out->foreign_key) || !d.done()) {
    return Bad("add foreign key");
  }
  out->table = TableId(t);
  return Status::Ok();
}

Status DecodeDropConstraint(std::string_view payload, DropConstraintRecord* out) {
  Decoder d(payload);
  uint32_t t;
  if (!d.ReadU32(&t) || !d.ReadBytes(&out->name) || !d.done()) return Bad("drop constraint");
  out->table = TableId(t);
  return Status::Ok();
}

}  // namespace forktail::redo
