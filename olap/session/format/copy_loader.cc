// COPY's options, CopyRowBuilder, CopyLoader, FileByteSource and
// CopyIntoTable (copy_reader.h).
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>

#include "olap/plan/binder/binder.h"
#include "olap/session/format/copy_reader.h"

namespace forktail {

namespace {

// PostgreSQL's undefined_file (ENOENT on a server-side file); not in error.h.
constexpr const char* kUndefinedFile = "58P01";

std::string Context(const std::string& table, uint64_t line) {
  return "\nCONTEXT:  COPY " + table + ", line " + std::to_string(line);
}

bool ParseBoolOption(const std::string& name, const std::optional<std::string>& value) {
  if (!value) return true;
  std::string v;
  for (char c : *value) v.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (v == "true" || v == "on" || v == "1") return true;
  if (v == "false" || v == "off" || v == "0") return false;
  throw DbError(sqlstate::kSyntaxError, name + " requires a Boolean value");  // defGetBoolean
}

char SingleByte(const std::string& value, const char* what) {
  if (value.size() != 1) {
    throw DbError(sqlstate::kFeatureNotSupported,
                  std::string("COPY ") + what + " must be a single one-byte character");
  }
  return value[0];
}

}  // namespace

char CopyOptions::EffectiveDelimiter() const {
  if (delimiter) return *delimiter;
  return format == CopyFormat::kCsv ? ',' : '\t';
}

const std::string& CopyOptions::EffectiveNull() const {
  static const std::string kTextNull = "\\N";
  static const std::string kCsvNull;
  if (null_string) return *null_string;
  return format == CopyFormat::kCsv ? kCsvNull : kTextNull;
}

void CopyOptions::Validate() const {
  const char delim = EffectiveDelimiter();
  const std::string& null = EffectiveNull();
  const bool csv = format == CopyFormat::kCsv;
  if (delim == '\r' || delim == '\n') {
    throw DbError(sqlstate::kInvalidParameterValue,
                  "COPY delimiter cannot be newline or carriage return");
  }
  if (null.find_first_of("\r\n") != std::string::npos) {
    throw DbError(sqlstate::kInvalidParameterValue,
                  "COPY null representation cannot use newline or carriage return");
  }
  if (!csv && std::strchr("\\.abcdefghijklmnopqrstuvwxyz0123456789", delim) != nullptr) {
    throw DbError(sqlstate::kInvalidParameterValue,
                  std::string("COPY delimiter cannot be \"") + delim + "\"");
  }
  if (!csv && quote != '"') {
    throw DbError(sqlstate::kFeatureNotSupported, "COPY quote available only in CSV mode");
  }
  if (!csv && escape) {
    throw DbError(sqlstate::kFeatureNotSupported, "COPY escape available only in CSV mode");
  }
  if (csv && delim == quote) {
    throw DbError(sqlstate::kInvalidParameterValue, "COPY delimiter and quote must be different");
  }
  if (null.find(delim) != std::string::npos) {
    throw DbError(sqlstate::kInvalidParameterValue,
                  "COPY delimiter must not appear in the NULL specification");
  }
  if (csv && null.find(quote) != std::string::npos) {
    throw DbError(sqlstate::kInvalidParameterValue,
                  "CSV quote character must not appear in the NULL specification");
  }
}

CopyOptions ParseCopyOptions(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& generic) {
  CopyOptions options;
  std::vector<std::string> seen;
  for (const auto& [name, value] : generic) {
    for (const std::string& s : seen) {
      if (s == name) throw DbError(sqlstate::kSyntaxError, "conflicting or redundant options");
    }
    seen.push_back(name);
    auto need = [&]() -> const std::string& {
      if (!value) throw DbError(sqlstate::kSyntaxError, name + " requires a parameter");
      return *value;
    };
    if (name == "format") {
      std::string f;
      for (char c : need())
        f.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      if (f == "text") {
        options.format = CopyFormat::kText;
      } else if (f == "csv") {
        options.format = CopyFormat::kCsv;
      } else if (f == "binary") {
        throw DbError(sqlstate::kFeatureNotSupported, "COPY format \"binary\" is not supported");
      } else {
        throw DbError(sqlstate::kInvalidParameterValue,
                      "COPY format \"" + *value + "\" not recognized");
      }
    } else if (name == "delimiter") {
      options.delimiter = SingleByte(need(), "delimiter");
    } else if (name == "null") {
      options.null_string = need();
    } else if (name == "header") {
      options.header = ParseBoolOption(name, value);
    } else if (name == "quote") {
      options.quote = SingleByte(need(), "quote");
    } else if (name == "escape") {
      options.escape = SingleByte(need(), "escape");
    } else if (name == "freeze") {
      // Accepted and a no-op: PostgreSQL's FREEZE writes the rows already
      // frozen (no later VACUUM freeze pass over them); Forktail rows carry
      // no transaction ids, so every committed row is in that state anyway.
      // PostgreSQL's precondition (table created or truncated in the same
      // transaction, else 55000) is not enforced.
      ParseBoolOption(name, value);
    } else {
      throw DbError(sqlstate::kSyntaxError, "option \"" + name + "\" not recognized");
    }
  }
  // QUOTE/ESCAPE given with text format: Validate reports them; a default
  // quote is indistinguishable from an explicit '"', as in PostgreSQL's order.
  options.Validate();
  return options;
}

CopyRowBuilder::CopyRowBuilder(const TableSchema& schema, const std::vector<std::string>& columns)
    : schema_(schema) {
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
  if (!schema_.checks.empty()) {
    throw DbError(sqlstate::kFeatureNotSupported, "COPY into a table with CHECK constraints (\"" +
                                                      schema_.name +
                                                      "\") is not supported: use INSERT");
  }
  // Columns left out get their DEFAULT, as in PostgreSQL.
  for (const ColumnDef& c : schema_.columns) defaults_.push_back(EvaluateColumnDefault(c));
  for (size_t c = 0; c < schema_.columns.size(); c++) {
    if (schema_.columns[c].identity == ColumnIdentity::kNone) continue;
    if (std::find(targets_.begin(), targets_.end(), c) == targets_.end()) {
      throw DbError(sqlstate::kFeatureNotSupported,
                    "COPY that leaves out identity column \"" + schema_.columns[c].name +
                        "\" is not supported: list it and give its values");
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
        v = Value::Parse(column.type, f.text);
      } catch (const DbError& e) {
        throw DbError(e.sqlstate(), std::string(e.what()) + "\nCONTEXT:  COPY " + schema_.name +
                                        ", line " + std::to_string(row.line) + ", column " +
                                        column.name + ": \"" + CopyContextText(f.text) + "\"");
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

struct CopyLoader::Batch {
  std::vector<Row> rows;
  std::vector<uint64_t> lines;
  std::exception_ptr error;  // the DbError the body threw (keeps its SQLSTATE)
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

CopyLoader::CopyLoader(Database& db, std::string table, const std::vector<std::string>& columns,
                       CopyOptions options, CopyLoadOptions load)
    : db_(&db), table_(std::move(table)), load_(load), batch_(std::make_shared<Batch>()) {
  builder_ = std::make_unique<CopyRowBuilder>(SchemaOf(db, table_), columns);
  parser_ = std::make_unique<CopyParser>(std::move(options), table_,
                                         [this](const CopyRow& row) { OnRow(row); });
}

CopyLoader::CopyLoader(Transaction& txn, std::string table, const std::vector<std::string>& columns,
                       CopyOptions options)
    : txn_(&txn), table_(std::move(table)) {
  builder_ = std::make_unique<CopyRowBuilder>(txn.GetTable(table_).schema(), columns);
  statement_ = std::make_unique<Transaction::StatementScope>(txn, nullptr);
  parser_ = std::make_unique<CopyParser>(std::move(options), table_,
                                         [this](const CopyRow& row) { OnRow(row); });
}

CopyLoader::~CopyLoader() {
  if (in_flight_) in_flight_->wait();
}

void CopyLoader::OnRow(const CopyRow& row) {
  Row built = builder_->Build(row);
  if (txn_ != nullptr) {
    InsertRow(*txn_, table_, built, row.line);
    rows_++;
    return;
  }
  batch_->rows.push_back(std::move(built));
  batch_->lines.push_back(row.line);
  if (load_.batch_rows != 0 && batch_->rows.size() >= load_.batch_rows) Submit();
}

void CopyLoader::Feed(std::string_view bytes) { parser_->Feed(bytes); }

void CopyLoader::Submit() {
  Wait();
  if (batch_->rows.empty()) return;
  std::shared_ptr<Batch> batch = std::move(batch_);
  batch_ = std::make_shared<Batch>();
  rows_ += batch->rows.size();
  in_flight_ = db_->RunAsync([batch, table = table_](Transaction& txn) {
    try {
      Transaction::StatementScope statement(txn, nullptr);
      for (size_t i = 0; i < batch->rows.size(); i++) {
        InsertRow(txn, table, batch->rows[i], batch->lines[i]);
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
  std::shared_ptr<Batch> batch = std::move(in_flight_batch_);
  if (result.ok) return;
  rows_ -= batch->rows.size();
  if (batch->error) std::rethrow_exception(batch->error);
  result.ThrowIfError();
}

uint64_t CopyLoader::Finish() {
  parser_->Finish();
  if (txn_ == nullptr) {
    Submit();
    Wait();
  } else {
    statement_->End();
  }
  return rows_;
}

void CopyLoader::Abort() {
  if (batch_) batch_->rows.clear();
  if (in_flight_) {
    in_flight_->wait();
    in_flight_.reset();
  }
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
      try {
        CopyLoader loader(txn, std::string(table), columns, options);
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
