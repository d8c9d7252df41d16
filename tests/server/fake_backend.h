// A scripted QueryBackend for protocol tests: statements are a handful of
// keywords, not SQL, so the wire protocol can be tested without the engine.
//
//   begin / commit / end / rollback   transaction status I -> T -> I, E after an error
//   select rows N                     columns (n int4, s text), rows (i, "row i")
//   select types                      one row of every type, then a row of NULLs
//   select echo $1 $2 ...             one row: the parameters (typed as declared, else text)
//   select error                      42601 syntax error at position 8
//   copy t from stdin                 COPY_IN; lines containing "bad" fail with 22P02
//   copy binary from stdin            COPY_IN of FORMAT binary (2 columns)
//   copy t to stdout                  COPY 2: CopyData "1\n", "2\n"
//   fetch binary                      FETCH 1 of a BINARY cursor: one int4 row, binary
//   declare cur                       DECLARE CURSOR; then cursor "cur" (int4 column n) is a
//                                     portal for Describe, until Close
//   sleep                             waits for Cancel() (57014), at most 10 s
//   notice                            tag DO with a notice "hello from fake"
//   set NAME = VALUE / show NAME      session parameters (GetParameter)
//   anything else                     tag = its first word in upper case
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "server/backend.h"
#include "storage/error.h"

namespace forktail::test {

inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

class FakeBackend;

class FakeSession : public BackendSession {
 public:
  explicit FakeSession(FakeBackend& backend) : backend_(backend) {}

  void Execute(std::string_view sql, const ResultCallback& on_result) override {
    std::stringstream ss{std::string(sql)};
    std::string part;
    while (std::getline(ss, part, ';')) {
      std::string stmt = Trim(part);
      if (stmt.empty()) continue;
      on_result(Run(stmt, {}));
    }
  }

  std::shared_ptr<const BackendStatement> Prepare(
      std::string_view sql, const std::vector<std::optional<Type>>& types) override {
    auto st = std::make_shared<BackendStatement>();
    st->sql = Trim(sql);
    int max_param = 0;
    for (size_t i = 0; i + 1 < st->sql.size(); ++i) {
      if (st->sql[i] == '$') max_param = std::max(max_param, std::atoi(st->sql.c_str() + i + 1));
    }
    st->parameter_types.resize(max_param);
    for (size_t i = 0; i < types.size() && i < st->parameter_types.size(); ++i) {
      st->parameter_types[i] = types[i];
    }
    std::vector<Value> fake_params;
    for (const auto& t : st->parameter_types)
      fake_params.push_back(Value::Null(t.value_or(Type::Text())));
    if (Lower(st->sql).rfind("select", 0) == 0 && Lower(st->sql) != "select error") {
      st->columns = Run(st->sql, fake_params, /*describe_only=*/true).columns;
    }
    return st;
  }

  BackendResult ExecutePrepared(const BackendStatement& st,
                                const std::vector<Value>& params) override {
    return Run(st.sql, params);
  }

  void CopyIn(std::string_view bytes) override {
    copy_buffer_.append(bytes);
    if (copy_buffer_.find("bad") != std::string::npos) {
      throw DbError(sqlstate::kInvalidTextRepresentation,
                    "invalid input syntax for type integer: \"bad\"");
    }
  }
  BackendResult CopyDone() override;
  void CopyFail(std::string_view) override { copy_buffer_.clear(); }

  void Cancel() override { cancel_.store(true); }
  std::optional<std::vector<BackendColumn>> DescribeCursor(const std::string& name) override {
    if (!cursor_ || name != "cur") return std::nullopt;
    return std::vector<BackendColumn>{{"n", Type::Integer()}};
  }
  void CloseCursor(const std::string& name) override {
    if (name == "cur") cursor_ = false;
  }
  BackendTxnStatus status() const override { return status_; }
  std::string GetParameter(std::string_view name) const override {
    auto it = parameters_.find(std::string(name));
    return it == parameters_.end() ? "" : it->second;
  }

 private:
  BackendResult Run(const std::string& stmt, const std::vector<Value>& params,
                    bool describe_only = false);

  FakeBackend& backend_;
  BackendTxnStatus status_ = BackendTxnStatus::kIdle;
  std::atomic<bool> cancel_{false};
  std::string copy_buffer_;
  bool cursor_ = false;  // "declare cur" ran
  std::map<std::string, std::string> parameters_{{"TimeZone", "UTC"}};
};

class FakeBackend : public QueryBackend {
 public:
  std::unique_ptr<BackendSession> OpenSession(const BackendSessionOptions& options) override {
    if (options.database == "nosuchdb") {
      throw DbError(sqlstate::kUndefinedDatabase, "database \"nosuchdb\" does not exist");
    }
    sessions_opened.fetch_add(1);
    return std::make_unique<FakeSession>(*this);
  }

  std::atomic<int> sessions_opened{0};
  std::atomic<int> sleeping{0};
  std::mutex mu;
  std::vector<std::string> copied_lines;  // guarded by mu
};

inline BackendResult FakeSession::CopyDone() {
  std::stringstream ss(copy_buffer_);
  std::string line;
  int n = 0;
  while (std::getline(ss, line)) {
    if (line == "\\.") break;
    std::lock_guard<std::mutex> lock(backend_.mu);
    backend_.copied_lines.push_back(line);
    ++n;
  }
  copy_buffer_.clear();
  return {"COPY " + std::to_string(n), {}, {}, {}};
}

inline BackendResult FakeSession::Run(const std::string& stmt, const std::vector<Value>& params,
                                      bool describe_only) {
  std::string s = Lower(stmt);
  BackendResult r;
  if (s == "begin") {
    status_ = BackendTxnStatus::kInBlock;
    r.command_tag = "BEGIN";
    return r;
  }
  if (s == "commit" || s == "end" || s == "rollback") {
    r.command_tag = s == "rollback" || status_ == BackendTxnStatus::kFailed ? "ROLLBACK" : "COMMIT";
    status_ = BackendTxnStatus::kIdle;
    return r;
  }
  if (status_ == BackendTxnStatus::kFailed) {
    throw DbError(
        sqlstate::kInFailedSqlTransaction,
        "current transaction is aborted, commands ignored until end of transaction block");
  }
  auto fail = [&](DbError e) -> BackendResult {
    if (status_ == BackendTxnStatus::kInBlock) status_ = BackendTxnStatus::kFailed;
    throw e;
  };
  if (s.rfind("select rows ", 0) == 0) {
    int n = std::atoi(s.c_str() + 12);
    r.columns = {{"n", Type::Integer()}, {"s", Type::Text()}};
    for (int i = 0; i < n && !describe_only; ++i) {
      r.rows.push_back({Value::Integer(i), Value::Text("row " + std::to_string(i))});
    }
    r.command_tag = "SELECT " + std::to_string(n);
    return r;
  }
  if (s == "select types") {
    r.columns = {{"b", Type::Boolean()}, {"i2", Type::SmallInt()}, {"i4", Type::Integer()},
                 {"i8", Type::BigInt()}, {"f8", Type::Double()},   {"num", Type::Decimal(10, 2)},
                 {"c", Type::Char(3)},   {"vc", Type::Varchar(5)}, {"t", Type::Text()},
                 {"d", Type::Date()},    {"ts", Type::Timestamp()}};
    if (!describe_only) {
      r.rows.push_back({Value::Boolean(true), Value::SmallInt(-7), Value::Integer(42),
                        Value::BigInt(1099511627776), Value::Double(1.5),
                        Value::Decimal(-1234, 10, 2), Value::String(Type::Char(3), "ab "),
                        Value::String(Type::Varchar(5), "x"), Value::Text("hello"),
                        Value::Parse(Type::Date(), "2024-01-02"),
                        Value::Parse(Type::Timestamp(), "2024-01-02 03:04:05.678")});
      Row nulls;
      for (const auto& c : r.columns) nulls.push_back(Value::Null(c.type));
      r.rows.push_back(nulls);
    }
    r.command_tag = "SELECT " + std::to_string(r.rows.size());
    return r;
  }
  if (s.rfind("select echo", 0) == 0) {
    Row row;
    for (size_t i = 0; i < params.size(); ++i) {
      r.columns.push_back({"p" + std::to_string(i + 1), params[i].type()});
      row.push_back(params[i]);
    }
    if (!describe_only) r.rows.push_back(row);
    r.command_tag = "SELECT 1";
    return r;
  }
  if (s == "select error") {
    return fail(DbError(sqlstate::kSyntaxError, "syntax error at or near \"error\"", 8));
  }
  if (s == "copy binary from stdin") {
    r.command_tag = "COPY_IN";
    r.columns = {{"a", Type::Integer()}, {"b", Type::Text()}};
    r.binary_rows = true;
    return r;
  }
  if (s.rfind("copy ", 0) == 0 && s.find("from stdin") != std::string::npos) {
    r.command_tag = "COPY_IN";
    r.columns = {{"a", Type::Integer()}};
    return r;
  }
  if (s == "copy t to stdout") {
    r.command_tag = "COPY 2";
    r.copy_out = BackendCopyOut{false, 1, "1\n2\n", {2, 4}};
    return r;
  }
  if (s == "fetch binary") {
    r.columns = {{"n", Type::Integer()}};
    if (!describe_only) r.rows.push_back({Value::Integer(7)});
    r.binary_rows = true;
    r.command_tag = "FETCH 1";
    return r;
  }
  if (s == "declare cur") {
    cursor_ = true;
    r.command_tag = "DECLARE CURSOR";
    return r;
  }
  if (s == "sleep") {
    backend_.sleeping.fetch_add(1);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!cancel_.exchange(false) && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    backend_.sleeping.fetch_sub(1);
    return fail(DbError(sqlstate::kQueryCanceled, "canceling statement due to user request"));
  }
  if (s == "notice") {
    r.command_tag = "DO";
    r.notices = {"hello from fake"};
    return r;
  }
  if (s.rfind("set ", 0) == 0) {
    size_t eq = stmt.find('=');
    parameters_[Trim(stmt.substr(4, eq - 4))] = Trim(stmt.substr(eq + 1));
    r.command_tag = "SET";
    return r;
  }
  if (s.rfind("show ", 0) == 0) {
    std::string name = Trim(stmt.substr(5));
    r.columns = {{name, Type::Text()}};
    r.rows.push_back({Value::Text(GetParameter(name))});
    r.command_tag = "SHOW";
    return r;
  }
  std::string word = stmt.substr(0, stmt.find(' '));
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  r.command_tag = word == "INSERT" ? "INSERT 0 1" : word;
  return r;
}

}  // namespace forktail::test
