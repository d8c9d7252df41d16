// PostgreSQL's sequence functions in the SQL stack: nextval(regclass),
// currval(regclass), setval(regclass, bigint [, boolean]), lastval(), and
// the binding of CREATE / ALTER SEQUENCE's options.
//
// nextval and setval change a sequence, currval and lastval read what this
// session drew. The binder cannot do either alone (nothing below session/
// knows about transactions), so a call is bound to a kernel that asks the
// statement's SequenceAccess (BindOptions::sequences) at run time: the
// session implements it over the transaction the statement runs in and the
// session's SequenceSessionState. A statement bound without one (off the
// transaction thread, in a snapshot process) fails when the kernel runs, as
// PostgreSQL's nextval fails in a read-only transaction (25006); the session
// routes statements that call them to the transaction thread
// (BoundStatement::sequence_use) and runs them on one thread, in row order.
//
// The argument is a regclass: a string constant is resolved when the call
// is bound (42P01 at its position, as PostgreSQL resolves 's'::regclass at
// parse time; 'S' folds to s, '"S"' keeps its case, 'public.s' is s), an
// OID or a text computed per row is resolved when the kernel runs. "\"t\"
// is not a sequence" (42809) is a run-time error, as in PostgreSQL.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "olap/plan/binder/binder.h"
#include "storage/table/catalog.h"

namespace forktail {

namespace sql {
struct SequenceOption;
}  // namespace sql

// What a session remembers of its sequences (currval, lastval). DISCARD
// SEQUENCES / DISCARD ALL forget it.
struct SequenceSessionState {
  // The value nextval last gave this session for each sequence (setval with
  // is_called true sets it too).
  std::map<TableId, int64_t> currval;
  // The sequence of the session's last nextval.
  std::optional<TableId> last_used;
};

// The sequences of the transaction a statement runs in, and the session's
// state. Calls come from one thread at a time.
class SequenceAccess {
 public:
  virtual ~SequenceAccess() = default;
  virtual const Catalog& catalog() const = 0;
  // Transaction::NextVal / SetVal: the change is logged and kept even if the
  // statement fails.
  virtual int64_t NextVal(TableId sequence) = 0;
  virtual void SetVal(TableId sequence, int64_t value, bool is_called) = 0;
  virtual SequenceSessionState& session() = 0;
};

// The options of CREATE SEQUENCE / ALTER SEQUENCE / an identity column,
// checked as PostgreSQL's parser and init_params check them before applying
// (42601 "conflicting or redundant options" at the repeated one; numbers
// 22P02 / 22003 as bigint input; AS a type name, 42704 if unknown; OWNED BY
// and SEQUENCE NAME only where they are allowed).
struct BoundSequenceOptions {
  SequenceOptions options;
  bool owned_by_given = false;
  std::vector<std::string> owned_by;  // {"none"}: OWNED BY NONE
  int owned_by_position = 0;
  std::optional<std::string> sequence_name;  // identity columns' SEQUENCE NAME
};
enum class SequenceOptionsOf { kCreate, kAlter, kIdentity };
BoundSequenceOptions BindSequenceOptions(const std::vector<sql::SequenceOption>& options,
                                         SequenceOptionsOf of);

// OWNED BY table.column of sequence `sequence`: the owner (TableId 0 for
// NONE), as PostgreSQL's process_owned_by checks it: 42601 "invalid OWNED BY
// option" (with its hint) for a bare name, 42P01 for an unknown table,
// 42809 for a relation that cannot own a sequence, 42703 for an unknown
// column.
std::pair<TableId, std::string> ResolveOwnedBy(const std::vector<std::string>& names,
                                               const Catalog& catalog);

// A column DEFAULT as stored (ColumnDef::default_sql): the expression's
// text, with the sequence of a nextval / currval / setval call named as
// PostgreSQL shows it, nextval('s'::regclass) (the name resolved now:
// 42P01 if unknown). Storage keeps names, not OIDs: RenameSequenceInDefault
// follows an ALTER SEQUENCE ... RENAME TO, DefaultUsesSequence finds what
// DROP SEQUENCE would break.
std::string StoredDefaultText(const sql::Expr& e, const Catalog& catalog);
bool DefaultUsesSequence(const std::string& default_sql, const std::string& sequence);
std::string RenameSequenceInDefault(const std::string& default_sql, const std::string& from,
                                    const std::string& to);

// Whether a stored DEFAULT calls nextval / currval / setval / lastval: its
// value must then be computed for each row, in the row's transaction.
bool CallsSequenceFunctions(const std::string& default_sql);

// A relation name as regclass input reads it ('public."Mixed"' ->
// {"public", "Mixed"}): dots split, double quotes keep case, the rest is
// folded to lower case. 42602 "invalid name syntax" when malformed.
std::vector<std::string> ParseRegclassText(const std::string& text);

}  // namespace forktail
