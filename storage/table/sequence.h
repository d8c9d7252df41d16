// Sequences: PostgreSQL's number generators (CREATE SEQUENCE, and the ones
// SERIAL and identity columns get), as plain data and the rules that act on
// them. The Catalog keeps them as relations beside the tables (one name
// space, ids from the table id counter); the transaction changes them with
// undo and redo; the SQL front end calls nextval/currval/setval.
//
// A sequence is a definition (SequenceDef: what CREATE / ALTER SEQUENCE
// set) and a state (SequenceState: PostgreSQL's last_value and is_called).
// is_called false means nextval's next answer is last_value itself (a fresh
// sequence, RESTART, setval(s, n, false)); true means last_value was handed
// out and the next answer is last_value + increment.
//
// CACHE is accepted and stored (pg_sequence.seqcache shows it), but values
// are handed out one by one: in PostgreSQL a cache only lets each session
// pre-allocate values, which changes performance and the gaps other sessions
// see, never which values are valid. Every change of the state is logged
// with its transaction, so log_cnt (PostgreSQL's count of values logged
// ahead) is always 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "storage/ids.h"
#include "storage/value/types.h"

namespace forktail {

struct SequenceDef {
  std::string name;
  TypeId type = TypeId::kBigInt;  // kSmallInt, kInteger or kBigInt
  int64_t start = 1;
  int64_t increment = 1;
  int64_t min = 1;
  int64_t max = INT64_MAX;
  int64_t cache = 1;
  bool cycle = false;
  // OWNED BY table.column: dropping the column or its table drops the
  // sequence. owner_table 0: OWNED BY NONE. The column is named (not
  // numbered) so that dropping another column leaves it right; the catalog
  // follows renames and table rewrites.
  TableId owner_table{0};
  std::string owner_column;
  // The sequence of an identity column (pg_depend 'i' rather than 'a'): only
  // its column drops it, and its ownership cannot change.
  bool identity = false;

  bool owned() const { return owner_table.value() != 0; }
  friend bool operator==(const SequenceDef&, const SequenceDef&) = default;
};

struct SequenceState {
  int64_t last_value = 1;
  bool is_called = false;

  friend bool operator==(const SequenceState&, const SequenceState&) = default;
};

struct Sequence {
  TableId id;
  SequenceDef def;
  SequenceState state;
};

// The options of CREATE SEQUENCE / ALTER SEQUENCE (and of an identity
// column) that change the definition or the state; an absent field is not
// given. MINVALUE / MAXVALUE: a value, or NO MINVALUE / NO MAXVALUE (the
// inner optional empty). RESTART: RESTART WITH n, or RESTART alone (the
// inner optional empty: back to START).
struct SequenceOptions {
  std::optional<TypeId> type;  // AS type: any type; not an integer type is 22023
  std::optional<int64_t> increment;
  std::optional<bool> cycle;
  std::optional<std::optional<int64_t>> min;
  std::optional<std::optional<int64_t>> max;
  std::optional<int64_t> start;
  std::optional<std::optional<int64_t>> restart;
  std::optional<int64_t> cache;
};

// Applies `options` to a sequence being created (`init`: the defaults fill
// what is not given) or altered, as PostgreSQL's init_params does, in its
// order and with its messages (22023): the type must be an integer type;
// INCREMENT not 0; MINVALUE / MAXVALUE defaults by the sign of INCREMENT and
// the type (ALTER ... AS moves a bound that was the old type's limit to the
// new type's), in the type's range, MINVALUE < MAXVALUE; START (default MIN
// ascending, MAX descending) and the value RESTART or an ALTER leaves within
// them; CACHE > 0. `for_identity` words the type error for an identity
// column. Changes *def and *state only when everything is valid.
void ApplySequenceOptions(const SequenceOptions& options, bool init, bool for_identity,
                          SequenceDef* def, SequenceState* state);

// nextval: the value handed out and the state after it. 2200H "nextval:
// reached maximum value of sequence "s" (N)" (or minimum) without CYCLE;
// with CYCLE it wraps to MINVALUE (ascending) or MAXVALUE (descending).
int64_t NextSequenceValue(const SequenceDef& def, SequenceState* state);

// setval(s, value, is_called): 22003 "setval: value N is out of bounds for
// sequence "s" (MIN..MAX)" outside the bounds.
SequenceState CheckedSequenceValue(const SequenceDef& def, int64_t value, bool is_called);

// The smallest and largest value of a sequence type; its SQL name
// ("smallint", "integer", "bigint").
int64_t SequenceTypeMin(TypeId type);
int64_t SequenceTypeMax(TypeId type);
const char* SequenceTypeName(TypeId type);

// A name as PostgreSQL's quote_ident prints it: bare when it is a plain
// lower-case identifier, else double-quoted (keywords are not recognized
// here: the callers quote names Forktail makes up, never keywords).
std::string QuoteIdent(const std::string& name);
// The DEFAULT of a SERIAL column, as PostgreSQL shows it:
// nextval('t_id_seq'::regclass).
std::string NextvalDefault(const std::string& sequence_name);

}  // namespace forktail
