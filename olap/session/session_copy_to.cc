// SqlSession: COPY table [(columns)] | (query) TO STDOUT | 'file' [options].
//
// The rows are read as a SELECT of the session is (SqlSession::Read): outside
// a block on a snapshot holding every commit acknowledged before the COPY
// arrived (or on the transaction thread when the read is short), inside
// BEGIN ... COMMIT as a recorded step that COMMIT runs again and validates.
// `COPY t (a, b) TO` reads `SELECT "a", "b" FROM "t"`. The rows are then
// written in the COPY format (format/copy_writer.h): to the client as
// CopyData messages (StatementResult::copy_out), or into a server file under
// the engine's policy (SqlFrontendOptions::copy_to_files), which PostgreSQL
// writes outside the transaction too (a failed block leaves it written).
//
// Checks come in PostgreSQL's order (DoCopy, BeginCopyTo): the file policy,
// the relation (42P01; a view is 42809) and its column list (42703, 42701),
// the options, the query's own errors, FORCE_QUOTE's columns (42703,
// 42P10), then the file is created before the query runs.
//
// Memory: the whole result, then its encoding (the rows are freed once
// encoded); PostgreSQL streams instead.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "olap/parser/ast.h"
#include "olap/plan/logical.h"
#include "olap/session/format/copy_writer.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"
#include "olap/session/statement/query_runner.h"
#include "olap/session/statement/write_executor.h"

namespace forktail {
namespace {

constexpr const char* kUndefinedFile = "58P01";
constexpr const char* kInvalidColumnReference = "42P10";

std::string QuoteIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

// errcode_for_file_access: the SQLSTATE PostgreSQL gives an errno.
const char* FileErrorState(int err) {
  switch (err) {
    case EPERM:
    case EACCES:
    case EROFS:
      return sqlstate::kInsufficientPrivilege;
    case ENOENT:
      return kUndefinedFile;
    case ENOTDIR:
    case EISDIR:
      return sqlstate::kWrongObjectType;
    case ENOSPC:
      return sqlstate::kDiskFull;
    default:
      return sqlstate::kIoError;
  }
}

// The output file, created (or truncated) before the query runs, as
// PostgreSQL's BeginCopyTo does (a directory fails to open: EISDIR, 42809).
// O_NOFOLLOW: `path` was resolved, so a symbolic link found at its end now
// was put there since; it is not followed out of the allowed directory.
class CopyFile {
 public:
  explicit CopyFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) {
      const int err = errno;
      DbError error(FileErrorState(err),
                    "could not open file \"" + path + "\" for writing: " + std::strerror(err));
      if (err == ENOENT || err == EACCES) {
        error.WithHint(
            "COPY TO instructs the PostgreSQL server process to write a file. You may want a "
            "client-side facility such as psql's \\copy.");
      }
      throw error;
    }
  }
  ~CopyFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  CopyFile(const CopyFile&) = delete;
  CopyFile& operator=(const CopyFile&) = delete;

  void Write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int err = errno;
        throw DbError(FileErrorState(err),
                      std::string("could not write to COPY file: ") + std::strerror(err));
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  }
  void Close() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
      const int err = errno;
      throw DbError(FileErrorState(err),
                    "could not close file \"" + path_ + "\": " + std::strerror(err));
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

// What COPY table TO reads: the table's columns (all, or the listed ones).
struct TableSource {
  std::string sql;                 // SELECT "a", "b" FROM "t"
  std::vector<std::string> names;  // the copied columns
  std::vector<std::string> all;    // the table's columns (FORCE_QUOTE may name any)
};

// CopyGetAttnums: the listed columns, checked against `columns` (the
// relation's, or the query's when `relation` is empty).
std::vector<std::string> CheckColumns(const std::vector<std::string>& listed,
                                      const std::vector<std::string>& columns,
                                      const std::string& relation) {
  std::vector<std::string> out;
  for (const std::string& name : listed) {
    if (std::find(columns.begin(), columns.end(), name) == columns.end()) {
      throw DbError(sqlstate::kUndefinedColumn, relation.empty()
                                                    ? "column \"" + name + "\" does not exist"
                                                    : "column \"" + name + "\" of relation \"" +
                                                          relation + "\" does not exist");
    }
    if (std::find(out.begin(), out.end(), name) != out.end()) {
      throw DbError(sqlstate::kDuplicateColumn, "column \"" + name + "\" specified more than once");
    }
    out.push_back(name);
  }
  return out;
}

}  // namespace

StatementResult SqlSession::CopyTo(const Request& request) {
  const sql::Statement& s = *request.statement;
  const sql::CopyStmt& copy = *s.copy;
  std::string file;
  if (!copy.std_stream) file = AllowedServerFile(engine_.options(), copy.file, CopyDirection::kTo);

  // The relation, before the options (DoCopy opens it first).
  TableSource table;
  std::string table_name;
  if (!copy.query) {
    table_name = TableNameOf(copy.table, s.position);
    WithSchemas([&](const Catalog& catalog) {
      if (catalog.FindView(table_name) != nullptr) {
        throw DbError(sqlstate::kWrongObjectType, "cannot copy from view \"" + table_name + "\"")
            .WithHint("Try the COPY (SELECT ...) TO variant.");
      }
      const Table* t = catalog.FindTable(table_name);
      if (t == nullptr) {
        throw DbError(sqlstate::kUndefinedTable, "relation \"" + table_name + "\" does not exist");
      }
      for (const ColumnDef& c : t->schema().columns) table.all.push_back(c.name);
    });
    // The column list too (DoCopy checks its permissions before anything else).
    table.names =
        copy.columns.empty() ? table.all : CheckColumns(copy.columns, table.all, table_name);
  }
  const CopyOptions options = CopyOptionsOf(copy, CopyDirection::kTo);

  // What to read, and the copied columns' names.
  std::shared_ptr<const sql::Statement> generated;
  std::string generated_text;
  Request query;
  std::vector<std::string> names;
  if (copy.query) {
    query = request.Inner(*copy.query);
    if (!options.force_quote.empty()) {
      // The query's columns before it runs (FORCE_QUOTE is checked first).
      if (std::optional<StatementResult> builtin = AnswerBuiltinQuery(*query.statement)) {
        for (const ResultColumn& c : builtin->columns) names.push_back(c.name);
      } else {
        LogicalOpPtr plan = BindQueryPlan(query);
        for (const LogicalColumn& c : plan->columns) names.push_back(c.name);
      }
    }
  } else {
    names = table.names;
    generated_text = "SELECT ";
    for (size_t i = 0; i < names.size(); i++) {
      generated_text += (i ? ", " : "") + QuoteIdentifier(names[i]);
    }
    generated_text += " FROM " + QuoteIdentifier(table_name);
    std::vector<sql::StatementPtr> parsed = sql::Parse(generated_text);
    generated = std::shared_ptr<const sql::Statement>(std::move(parsed.at(0)));
    query = request;
    query.statement = generated.get();
    query.statement_owner = generated;
    query.text = generated_text;
  }
  std::vector<bool> force_quote;
  if (!options.force_quote.empty()) {
    const std::vector<std::string> quoted =
        CheckColumns(options.force_quote, copy.query ? names : table.all, table_name);
    for (const std::string& name : names) {
      force_quote.push_back(std::find(quoted.begin(), quoted.end(), name) != quoted.end());
    }
    for (const std::string& name : quoted) {
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        throw DbError(kInvalidColumnReference,
                      "FORCE_QUOTE column \"" + name + "\" not referenced by COPY");
      }
    }
  }

  std::unique_ptr<CopyFile> out;
  if (!copy.std_stream) out = std::make_unique<CopyFile>(file);
  StatementResult rows = Read(query);
  if (copy.query) {
    names.clear();
    for (const ResultColumn& c : rows.columns) names.push_back(c.name);
  }
  const size_t count = rows.rows.size();
  CopyOutData data = FormatCopyOut(options, names, force_quote, rows.rows);
  rows.rows.clear();
  rows.rows.shrink_to_fit();

  StatementResult result;
  result.command_tag = "COPY " + std::to_string(count);
  result.notices = std::move(rows.notices);
  if (out) {
    out->Write(data.data);
    out->Close();
  } else {
    result.copy_out = std::move(data);
  }
  return result;
}

}  // namespace forktail
