#include "pg_conn.h"

#include <cstdlib>

namespace tpcc {

int64_t Result::integer(int row, int col) const {
  return std::strtoll(PQgetvalue(result_, row, col), nullptr, 10);
}

double Result::number(int row, int col) const {
  return std::strtod(PQgetvalue(result_, row, col), nullptr);
}

Conn::Conn(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str())) {
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn_);
    PQfinish(conn_);
    throw SqlError("08006", "connect (" + conninfo + "): " + message);
  }
  // Notices (e.g. "there is no transaction in progress" after a retry's
  // ROLLBACK) would flood the terminal.
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
}

Conn::~Conn() { PQfinish(conn_); }

Result Conn::check(PGresult* result) {
  ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN ||
      status == PGRES_EMPTY_QUERY) {
    return Result(result);
  }
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  std::string sqlstate = state != nullptr ? state : "?????";
  std::string message = result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn_);
  PQclear(result);
  if (PQstatus(conn_) != CONNECTION_OK) sqlstate = "08006";
  throw SqlError(sqlstate, sqlstate + ": " + message);
}

Result Conn::query(const std::string& sql) { return check(PQexec(conn_, sql.c_str())); }

void Conn::prepare(const std::string& name, const std::string& sql) {
  check(PQprepare(conn_, name.c_str(), sql.c_str(), 0, nullptr));
}

Result Conn::run(const std::string& name, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const std::string& p : params) values.push_back(p.c_str());
  return check(PQexecPrepared(conn_, name.c_str(), static_cast<int>(values.size()), values.data(),
                              nullptr, nullptr, 0));
}

void Conn::copy_begin(const std::string& copy_sql) { check(PQexec(conn_, copy_sql.c_str())); }

void Conn::copy_put(const std::string& data) {
  if (PQputCopyData(conn_, data.data(), static_cast<int>(data.size())) != 1) {
    throw SqlError("08006", std::string("COPY data: ") + PQerrorMessage(conn_));
  }
}

void Conn::copy_end() {
  if (PQputCopyEnd(conn_, nullptr) != 1) {
    throw SqlError("08006", std::string("COPY end: ") + PQerrorMessage(conn_));
  }
  for (PGresult* r = PQgetResult(conn_); r != nullptr; r = PQgetResult(conn_)) check(r);
}

}  // namespace tpcc
