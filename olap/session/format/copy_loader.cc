// CopyRowBuilder, CopyLoader, FileByteSource and CopyIntoTable
// (copy_reader.h).
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>

#include "olap/common/freed_memory.h"
#include "olap/plan/binder/binder.h"
#include "olap/session/format/copy_binary.h"
#include "olap/session/format/copy_reader.h"
#include "recovery/redo_codec.h"
#include "scheduler/memory_governor.h"
#include "storage/value/pg_binary.h"

namespace forktail {

namespace {

// PostgreSQL's undefined_file (ENOENT on a server-side file); not in error.h.
constexpr const char* kUndefinedFile = "58P01";

std::string Context(const std::string& table, uint64_t line) {
  return "\nCONTEXT:  COPY " + table + ", line " + std::to_string(line);
}

}  // namespace

CopyRowBuilder::CopyRowBuilder(const TableSchema& schema, const std::vector<std::string>& columns)
    : schema_(schema) {
  // COPY does not evaluate CHECK constraints: refused whatever it lists.
  if (!schema_.checks.empty()) {
    throw DbError(sqlstate::kFeatureNotSupported, "COPY into a table with CHECK constraints (\"" +
                                                      schema_.name +
                                                      "\") is not supported: use INSERT");
  }
  if (columns.empty()) {
    for (size_t i = 0; i < schema_.columns.size(); i++)
      targets_.push_back(static_cast<uint16_t>(i));
    identity_ = true;
    return;
  }
  for (const std::string& name : columns) {
    std::optional<ColumnId> id = schema_.FindColumn(name);
    if (!id) {
      throw DbError(sqlstate::kUndefinedColumn,
                    "column \"" + name + "\" of relation \"" + schema_.name + "\" does not exist");
    }
    for (uint16_t t : targets_) {
      if (t == id->value()) {
        throw DbError(sqlstate::kDuplicateColumn,
                      "column \"" + name + "\" specified more than once");
      }
    }
    targets_.push_back(id->value());
  }
  identity_ = targets_.size() == schema_.columns.size();
  for (size_t i = 0; identity_ && i < targets_.size(); i++) identity_ = targets_[i] == i;
  // Columns left out get their DEFAULT, as in PostgreSQL: one value for
  // all rows, or one per row (identity columns, nextval, gen_random_uuid()).
  for (size_t c = 0; c < schema_.columns.size(); c++) {
    const ColumnDef& column = schema_.columns[c];
    const bool left_out = std::find(targets_.begin(), targets_.end(), c) == targets_.end();
    if (left_out && DefaultIsPerRow(column)) {
      per_row_.push_back(static_cast<uint16_t>(c));
      defaults_.push_back(Value::Null(column.type));
    } else {
      defaults_.push_back(left_out ? EvaluateColumnDefault(column) : Value::Null(column.type));
    }
  }
}

Row CopyRowBuilder::Build(const CopyRow& row) const {
  auto line_context = [&] {
    return "\nCONTEXT:  COPY " + schema_.name + ", line " + std::to_string(row.line) + ": \"" +
           CopyContextText(row.raw) + "\"";
  };
  if (row.fields.size() > targets_.size()) {
    throw DbError(sqlstate::kBadCopyFileFormat,
                  "extra data after last expected column" + line_context());
  }
  if (row.fields.size() < targets_.size()) {
    throw DbError(sqlstate::kBadCopyFileFormat,
                  "missing data for column \"" + schema_.columns[targets_[row.fields.size()]].name +
                      "\"" + line_context());
  }
  Row out;
  out.reserve(schema_.columns.size());
  if (!identity_) out = defaults_;
  for (size_t i = 0; i < row.fields.size(); i++) {
    const ColumnDef& column = schema_.columns[targets_[i]];
    const CopyField& f = row.fields[i];
    Value v;
    if (f.is_null) {
      v = Value::Null(column.type);
    } else {
      try {
        v = row.binary ? PgBinaryReceive(f.text, column.type) : Value::Parse(column.type, f.text);
      } catch (const DbError& e) {
        // A binary field is not shown (PostgreSQL shows no value there).
        throw DbError(e.sqlstate(),
                      std::string(e.what()) + "\nCONTEXT:  COPY " + schema_.name + ", line " +
                          std::to_string(row.line) + ", column " + column.name +
                          (row.binary ? "" : ": \"" + CopyContextText(f.text) + "\""));
      }
    }
    if (identity_) {
      out.push_back(std::move(v));
    } else {
      out[targets_[i]] = std::move(v);
    }
  }
  return out;
}

std::vector<std::string> CopyRowBuilder::FieldColumns() const {
  std::vector<std::string> names;
  for (uint16_t t : targets_) names.push_back(schema_.columns[t].name);
  return names;
}

// A batch's rows, each encoded as the log encodes a row (redo_codec.h), one
// after another: about the bytes of the input text, where a Row of Values
// takes ~15 times that. A COPY FROM STDIN in one transaction holds every
// row until the input ends (TPC-H SF1's lineitem: 9.8 GB as Rows).
struct CopyLoader::Batch {
  std::string rows;
  std::vector<uint64_t> lines;  // per row: its line in the input
  std::exception_ptr error;     // the DbError the body threw (keeps its SQLSTATE)

  size_t size() const { return lines.size(); }
};

namespace {

void InsertRow(Transaction& txn, const std::string& table, const Row& row, uint64_t line) {
  try {
    txn.Insert(table, row);
  } catch (const DbError& e) {
    throw DbError(e.sqlstate(), std::string(e.what()) + Context(table, line));
  }
}

TableSchema SchemaOf(Database& db, const std::string& table) {
  TableSchema schema;
  db.Run([&](Transaction& txn) { schema = txn.GetTable(table).schema(); }).ThrowIfError();
  return schema;
}

}  // namespace

namespace {

void RequireRowDefaults(const CopyRowBuilder& builder, const CopyRowDefaults& defaults) {
  if (!builder.per_row_defaults().empty() && !defaults) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  "COPY that leaves out column \"" +
                      builder.schema().columns[builder.per_row_defaults()[0]].name +
                      "\", whose DEFAULT is evaluated per row, is not supported here");
  }
}

}  // namespace

CopyLoader::CopyLoader(Database& db, std::string table, const std::vector<std::string>& columns,
                       CopyOptions options, CopyLoadOptions load)
    : db_(&db), table_(std::move(table)), load_(load), batch_(std::make_shared<Batch>()) {
  builder_ = std::make_unique<CopyRowBuilder>(SchemaOf(db, table_), columns);
  RequireRowDefaults(*builder_, load_.row_defaults);
  MakeParser(std::move(options));
}

CopyLoader::CopyLoader(Transaction& txn, std::string table, const std::vector<std::string>& columns,
                       CopyOptions options, CopyRowDefaults row_defaults)
    : txn_(&txn), table_(std::move(table)) {
  builder_ = std::make_unique<CopyRowBuilder>(txn.GetTable(table_).schema(), columns);
  RequireRowDefaults(*builder_, row_defaults);
  if (!builder_->per_row_defaults().empty()) {
    fill_ = row_defaults(txn, builder_->schema(), builder_->per_row_defaults());
  }
  statement_ = std::make_unique<Transaction::StatementScope>(txn, nullptr);
  MakeParser(std::move(options));
}

void CopyLoader::MakeParser(CopyOptions options) {
  auto on_row = [this](const CopyRow& row) { OnRow(row); };
  if (options.format == CopyFormat::kBinary) {
    binary_ = std::make_unique<BinaryCopyParser>(table_, builder_->FieldColumns(), on_row);
  } else {
    parser_ = std::make_unique<CopyParser>(std::move(options), table_, on_row);
  }
}

CopyLoader::~CopyLoader() {
  if (in_flight_) in_flight_->wait();
  ReleaseHeldRows();
}

void CopyLoader::OnRow(const CopyRow& row) {
  Row built = builder_->Build(row);
  if (txn_ != nullptr) {
    if (fill_) fill_(built);
    InsertRow(*txn_, table_, built, row.line);
    rows_++;
    return;
  }
  redo::EncodeRow(built, &batch_->rows);
  batch_->lines.push_back(row.line);
  if (load_.batch_rows != 0 && batch_->size() >= load_.batch_rows) {
    Submit();
  } else if (load_.batch_rows == 0) {
    ReserveHeldRows();
  }
}

// Rows held until the end of the input: their bytes, and as many again for
// the redo the transaction that inserts them keeps until it commits, count
// against the server's query memory (MemoryGovernor), so that a COPY too
// large for the machine fails with 53200 instead of the kernel killing the
// server (TPC-H SF10's lineitem, 7.2 GB of text, took 22 GB before that).
void CopyLoader::ReserveHeldRows() {
  const size_t needed =
      batch_->rows.capacity() + batch_->rows.size() + batch_->lines.capacity() * sizeof(uint64_t);
  MemoryGovernor& governor = MemoryGovernor::Global();
  while (reserved_ < needed) {
    if (!governor.TryReserve(MemoryGovernor::kGranule)) {
      const size_t held = batch_->rows.size();
      ReleaseHeldRows();
      throw DbError(sqlstate::kOutOfMemory,
                    "out of memory: COPY " + table_ + " FROM STDIN holds its " +
                        std::to_string(batch_->size()) + " rows (" + std::to_string(held >> 20) +
                        " MiB) until its input ends, to insert them in one transaction, and "
                        "with the redo of that transaction they need more than the server's "
                        "query memory (" +
                        std::to_string(governor.budget() >> 20) + " MiB, less what queries hold)")
          .WithHint(
              "Split the input into several COPY statements (each commits on its own), or "
              "raise forktail serve --query-memory.");
    }
    reserved_ += MemoryGovernor::kGranule;
  }
}

void CopyLoader::ReleaseHeldRows() noexcept {
  if (reserved_ == 0) return;
  MemoryGovernor::Global().Release(reserved_);
  reserved_ = 0;
}

void CopyLoader::Feed(std::string_view bytes) {
  if (binary_) {
    binary_->Feed(bytes);
  } else {
    parser_->Feed(bytes);
  }
}

void CopyLoader::Submit() {
  Wait();
  if (batch_->size() == 0) return;
  std::shared_ptr<Batch> batch = std::move(batch_);
  batch_ = std::make_shared<Batch>();
  rows_ += batch->size();
  in_flight_ = db_->RunAsync([batch, table = table_, defaults = load_.row_defaults,
                              schema = builder_->schema(),
                              columns = builder_->per_row_defaults()](Transaction& txn) {
    try {
      // The per-row DEFAULTs are computed here, in the rows' transaction.
      std::function<void(Row&)> fill;
      if (!columns.empty()) fill = defaults(txn, schema, columns);
      Transaction::StatementScope statement(txn, nullptr);
      redo::Decoder rows(batch->rows);
      Row row;
      for (size_t i = 0; i < batch->size(); i++) {
        if (!rows.ReadRow(&row)) {
          throw DbError(sqlstate::kInternalError, "COPY: a buffered row does not decode");
        }
        if (fill) fill(row);
        InsertRow(txn, table, row, batch->lines[i]);
      }
      statement.End();
    } catch (const DbError&) {
      batch->error = std::current_exception();
      throw;
    }
  });
  in_flight_batch_ = batch;
}

void CopyLoader::Wait() {
  if (!in_flight_) return;
  TxnResult result = in_flight_->get();
  in_flight_.reset();
  ReleaseHeldRows();  // the transaction is over: its redo and rows are gone
  std::shared_ptr<Batch> batch = std::move(in_flight_batch_);
  if (result.ok) return;
  rows_ -= batch->size();
  if (batch->error) std::rethrow_exception(batch->error);
  result.ThrowIfError();
}

uint64_t CopyLoader::Finish() {
  if (binary_) {
    binary_->Finish();
  } else {
    parser_->Finish();
  }
  if (txn_ == nullptr) {
    Submit();
    Wait();
    ReturnFreedMemory();
  } else {
    statement_->End();
  }
  return rows_;
}

void CopyLoader::Abort() {
  if (batch_) batch_ = std::make_shared<Batch>();
  if (in_flight_) {
    in_flight_->wait();
    in_flight_.reset();
  }
  ReleaseHeldRows();
  in_flight_batch_.reset();
  ReturnFreedMemory();
}

ByteSource FileByteSource(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    const char* code = err == ENOENT   ? kUndefinedFile
                       : err == EACCES ? sqlstate::kInsufficientPrivilege
                                       : sqlstate::kIoError;
    throw DbError(code, "could not open file \"" + path + "\" for reading: " + std::strerror(err));
  }
  auto file = std::shared_ptr<int>(new int(fd), [](int* p) {
    ::close(*p);
    delete p;
  });
  return [file](char* buffer, size_t capacity) -> size_t {
    for (;;) {
      ssize_t n = ::read(*file, buffer, capacity);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EINTR) continue;
      throw DbError(sqlstate::kIoError,
                    std::string("could not read from COPY file: ") + std::strerror(errno));
    }
  };
}

uint64_t CopyIntoTable(Database& db, std::string_view table,
                       const std::vector<std::string>& columns, const CopyOptions& options,
                       const ByteSource& source, CopyLoadOptions load) {
  constexpr size_t kChunk = size_t{1} << 20;
  std::vector<char> buffer(kChunk);
  if (load.batch_rows == 0) {
    // All or nothing: one transaction body reads the source on the
    // transaction thread and inserts as it parses, so no rows are held.
    uint64_t rows = 0;
    std::exception_ptr error;
    TxnResult result = db.Run([&](Transaction& txn) {
      // This body consumes its source and cannot run again: a block not in
      // memory is read here, under the lock (txn_engine.h).
      LoadPolicyScope loads(LoadPolicy::kInline);
      try {
        CopyLoader loader(txn, std::string(table), columns, options, load.row_defaults);
        for (;;) {
          size_t n = source(buffer.data(), buffer.size());
          if (n == 0) break;
          loader.Feed(std::string_view(buffer.data(), n));
        }
        rows = loader.Finish();
      } catch (const DbError&) {
        error = std::current_exception();  // keeps the SQLSTATE and CONTEXT
        throw;
      }
    });
    if (!result.ok && error) std::rethrow_exception(error);
    result.ThrowIfError();
    return rows;
  }
  CopyLoader loader(db, std::string(table), columns, options, load);
  for (;;) {
    size_t n = source(buffer.data(), buffer.size());
    if (n == 0) break;
    loader.Feed(std::string_view(buffer.data(), n));
  }
  return loader.Finish();
}

}  // namespace forktail
