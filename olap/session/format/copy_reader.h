// COPY ... FROM: PostgreSQL's two textual input formats, parsed incrementally,
// and loading the rows into a table (the binary format's parser is
// copy_binary.h; the same builder and loader take its rows).
//
// Three layers, each usable alone:
//
//   bytes --CopyParser--> rows of text fields --CopyRowBuilder--> Row --CopyLoader--> table
//         (BinaryCopyParser: rows of binary fields)
//
// CopyParser is fed byte chunks split anywhere (COPY FROM STDIN arrives in
// CopyData messages that need not end at line boundaries) and calls back once
// per complete row. Formats, as PostgreSQL defines them (COPY's doc page,
// "File Formats"):
//   text  fields separated by DELIMITER (default tab); NULL is the *raw* field
//         text equal to the NULL string (default \N); backslash escapes \b \f
//         \n \r \t \v, \digits (octal, 1-3), \xhh (hex, 1-2), \<any other> =
//         that character (so \\ and \<delimiter>); a backslash before a newline
//         makes the newline data; a line holding only \. ends the data (the
//         rest of the input is ignored).
//   csv   fields separated by DELIMITER (default ','); QUOTE (default ") quotes
//         a field or a part of it, and inside quotes delimiters and newlines
//         are data and ESCAPE (default: QUOTE) escapes a QUOTE or ESCAPE (so
//         "" is one quote); an UNQUOTED field equal to the NULL string
//         (default empty) is NULL, a quoted one never is; HEADER skips line 1;
//         an unquoted line \. ends the data.
// Line endings: \n or \r\n, detected from the first line and then required
// (PostgreSQL also accepts a bare \r; Forktail reports it as a literal
// carriage return). The last line may lack its newline.
// Line numbers are physical lines counted from 1 (the header is line 1), as
// PostgreSQL's CONTEXT reports them.
//
// Errors (DbError) carry PostgreSQL's message and SQLSTATE, with PostgreSQL's
// CONTEXT line appended after "\nCONTEXT:  " (the server may split it off into
// the ErrorResponse 'W' field):
//   22P04 extra data after last expected column        COPY t, line 3: "1|2|3"
//   22P04 missing data for column "c"                  COPY t, line 3: "1"
//   22P04 unterminated CSV quoted field                COPY t, line 3: "..."
//   22P04 literal carriage return found in data / literal newline found in data
//   22P02 etc. from the column type's text input       COPY t, line 3, column c: "abc"
//   23xxx from the insert (duplicate key, NOT NULL)    COPY t, line 3
//
// Speed: rows without quotes/backslashes are split with memchr over the input
// buffer without copying; fields are views into it (or into a per-row scratch
// buffer when escapes had to be decoded).
//
// Contract with the SQL session (olap/session/sql_session.*, ENGINE):
//   - COPY t [(cols)] FROM 'file' [WITH (...)]: ParseCopyOptions(generic
//     options) then CopyIntoTable(db, "t", cols, options, FileByteSource(path),
//     batch_rows) — returns the row count for the "COPY n" tag.
//   - COPY t FROM STDIN: a CopyLoader; CopyIn -> Feed(bytes), CopyDone ->
//     Finish() (row count), CopyFail -> Abort(). Inside a transaction block (or
//     for all-or-nothing loading) construct the loader over the block's
//     Transaction& instead of the Database: every row goes into that
//     transaction and it must only be fed on the transaction thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "forktail/database.h"
#include "forktail/transaction.h"
#include "olap/session/format/copy_options.h"
#include "storage/storage.h"

namespace forktail {

struct CopyField {
  std::string_view text;  // decoded; valid only during the row callback
  bool is_null = false;
};

// One input row, valid only during the callback.
struct CopyRow {
  std::span<const CopyField> fields;
  uint64_t line = 0;     // line number of the row's first line
  std::string_view raw;  // the row's raw text, for error context
  bool binary = false;   // FORMAT binary: fields hold binary forms (copy_binary.h)
};

class CopyParser {
 public:
  using RowFn = std::function<void(const CopyRow&)>;
  // `relation` only names the table in error context lines.
  CopyParser(CopyOptions options, std::string relation, RowFn on_row);
  ~CopyParser();
  CopyParser(const CopyParser&) = delete;
  CopyParser& operator=(const CopyParser&) = delete;

  // Parses every complete row in `bytes` (plus what earlier calls left over).
  // Throws DbError; the parser is then unusable.
  void Feed(std::string_view bytes);
  // End of input: the last line may lack its newline.
  void Finish();
  // The \. end marker was seen; further input is ignored.
  bool ended() const { return ended_; }
  uint64_t lines() const { return line_; }
  uint64_t bytes_seen() const { return bytes_seen_; }

 private:
  // Parses rows from buf_[pos_...]; `at_end`: no more input will come.
  void Drain(bool at_end);
  // Returns false if [start, ...) holds no complete row yet.
  bool NextText(bool at_end);
  bool NextCsv(bool at_end);
  void SplitText(std::string_view line);
  bool ParseCsvRecord(size_t start, bool at_end, size_t* consumed, uint64_t* newlines);
  void CheckLineEnd(std::string_view line_with_cr, bool* had_cr);
  void Emit(std::string_view raw);
  [[noreturn]] void Fail(const char* sqlstate, const std::string& message, std::string_view raw);

  const CopyOptions options_;
  const std::string relation_;
  const RowFn on_row_;
  const char delimiter_;
  const std::string null_;
  std::string buf_;  // unparsed input
  size_t pos_ = 0;   // parse position in buf_
  std::vector<CopyField> fields_;
  std::string scratch_;  // decoded fields of the current row
  uint64_t line_ = 0;    // lines consumed so far
  uint64_t bytes_seen_ = 0;
  int eol_crlf_ = -1;  // -1 unknown, 0 "\n", 1 "\r\n"
  bool header_pending_;
  bool ended_ = false;
};

// Converts a parsed row to a Row of the table's columns, in table order:
// `columns` (empty: all, in table order) name the fields' columns; others get
// NULL. Field count and conversion errors carry COPY's context. A text field
// is read by the column type's text input, a binary one (CopyRow::binary) by
// its receive function (storage/value/pg_binary.h), as PostgreSQL does.
class CopyRowBuilder {
 public:
  // Throws 42703 `column "x" of relation "t" does not exist`, 42701 `column
  // "x" specified more than once`.
  CopyRowBuilder(const TableSchema& schema, const std::vector<std::string>& columns);
  Row Build(const CopyRow& row) const;
  const TableSchema& schema() const { return schema_; }
  // The names of the fields' columns, in field order.
  std::vector<std::string> FieldColumns() const;
  // Columns left out whose DEFAULT is computed for each row in the row's
  // transaction (identity columns, DEFAULTs that call nextval): Build
  // leaves them NULL, the loader fills them (CopyRowDefaults).
  const std::vector<uint16_t>& per_row_defaults() const { return per_row_; }

 private:
  TableSchema schema_;
  std::vector<uint16_t> targets_;  // field i -> table column
  bool identity_ = false;          // targets_ is every column in table order
  std::vector<Value> defaults_;    // per column: what a row that leaves it out holds
  std::vector<uint16_t> per_row_;
};

// Makes, on the transaction thread in `txn`, what fills the per-row
// DEFAULTs (CopyRowBuilder::per_row_defaults) of `schema`'s `columns` in a
// row, in row order: the session binds them with its sequence access.
using CopyRowDefaults = std::function<std::function<void(Row&)>(
    Transaction& txn, const TableSchema& schema, const std::vector<uint16_t>& columns)>;

class BinaryCopyParser;

struct CopyLoadOptions {
  // Rows per transaction when loading through a Database (each batch commits
  // on its own: a failure leaves earlier batches committed). 0: the whole
  // input in one transaction (all-or-nothing): CopyIntoTable reads its source
  // inside that transaction on the transaction thread (memory: the rows' redo
  // and a few undo entries per block), a CopyLoader fed from outside holds
  // every row until Finish, and reserves twice their bytes from the server's
  // query memory (53200 past it). Ignored when loading into a given
  // Transaction.
  size_t batch_rows = 16384;
  // Needed when columns left out have per-row DEFAULTs (else 0A000).
  CopyRowDefaults row_defaults;
};

// Loads COPY input into a table. Through a Database: rows are parsed and
// converted on the caller's thread while the previous batch is inserted on the
// transaction thread (at most one batch in flight). Into a Transaction: rows
// are inserted as they are parsed, on the calling (transaction) thread.
// Insert errors are DbErrors with "COPY t, line n" context. Foreign keys are
// checked as PostgreSQL checks them, when the COPY ends (per batch when
// batches commit on their own), with no line context.
class CopyLoader {
 public:
  CopyLoader(Database& db, std::string table, const std::vector<std::string>& columns,
             CopyOptions options, CopyLoadOptions load = {});
  CopyLoader(Transaction& txn, std::string table, const std::vector<std::string>& columns,
             CopyOptions options, CopyRowDefaults row_defaults = {});
  ~CopyLoader();  // waits for a batch in flight (its outcome is dropped)
  CopyLoader(const CopyLoader&) = delete;
  CopyLoader& operator=(const CopyLoader&) = delete;

  void Feed(std::string_view bytes);
  // End of input: inserts what is left and waits; returns the rows loaded.
  uint64_t Finish();
  // CopyFail: drops unsent rows and waits for a batch in flight.
  void Abort();
  uint64_t rows() const { return rows_; }

 private:
  struct Batch;
  void OnRow(const CopyRow& row);
  void Submit();
  void Wait();
  // The query memory of the rows held until Finish (batch_rows 0): 53200
  // past it.
  void ReserveHeldRows();
  void ReleaseHeldRows() noexcept;

  // The input's parser: parser_ for text and CSV, binary_ for FORMAT binary.
  void MakeParser(CopyOptions options);

  Database* db_ = nullptr;
  Transaction* txn_ = nullptr;
  // Into a Transaction: the COPY is one statement of it, so its foreign
  // keys are checked at Finish (a row may reference one later in the input).
  std::unique_ptr<Transaction::StatementScope> statement_;
  std::string table_;
  CopyLoadOptions load_;
  std::unique_ptr<CopyRowBuilder> builder_;
  std::function<void(Row&)> fill_;  // into a Transaction: the per-row DEFAULTs
  std::unique_ptr<CopyParser> parser_;
  std::unique_ptr<BinaryCopyParser> binary_;
  std::shared_ptr<Batch> batch_;
  std::optional<std::future<TxnResult>> in_flight_;
  std::shared_ptr<Batch> in_flight_batch_;
  uint64_t rows_ = 0;
  size_t reserved_ = 0;  // from MemoryGovernor::Global(), for the rows held
};

// A field or line as PostgreSQL shows it in CONTEXT: at most 100 bytes, then "...".
std::string CopyContextText(std::string_view text);

// Fills `buffer` with up to `capacity` bytes; returns 0 at the end of input.
// Throws DbError on a read error.
using ByteSource = std::function<size_t(char* buffer, size_t capacity)>;
// Reads a server-side file. Throws 58P01 `could not open file "p" for
// reading: No such file or directory` (PostgreSQL's wording) and the like.
ByteSource FileByteSource(const std::string& path);

// COPY table [(columns)] FROM <source>: the whole input. Returns the rows loaded.
uint64_t CopyIntoTable(Database& db, std::string_view table,
                       const std::vector<std::string>& columns, const CopyOptions& options,
                       const ByteSource& source, CopyLoadOptions load = {});

}  // namespace forktail
