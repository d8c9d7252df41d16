// A thin RAII layer over libpq for the TPC-C / CH-benCHmark driver. It speaks
// only what any PostgreSQL server understands (simple query, named prepared
// statements with text parameters, COPY FROM STDIN), so the same driver runs
// unchanged against PostgreSQL 15 and Forktail.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tpcc {

// A statement the server rejected, with its SQLSTATE. 40001 (serialization
// failure, Forktail's optimistic blocks) and 40P01 (deadlock, PostgreSQL's
// row locks) mean "run the transaction again".
class SqlError : public std::runtime_error {
 public:
  SqlError(std::string sqlstate, const std::string& message)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }
  bool retryable() const { return sqlstate_ == "40001" || sqlstate_ == "40P01"; }

 private:
  std::string sqlstate_;
};

// Owns one PGresult; values are read as text.
class Result {
 public:
  explicit Result(PGresult* result) : result_(result) {}
  ~Result() { PQclear(result_); }
  Result(Result&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  Result& operator=(Result&&) = delete;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;

  int rows() const { return PQntuples(result_); }
  int columns() const { return PQnfields(result_); }
  bool null(int row, int col) const { return PQgetisnull(result_, row, col) != 0; }
  std::string text(int row, int col) const { return PQgetvalue(result_, row, col); }
  int64_t integer(int row, int col) const;
  double number(int row, int col) const;

 private:
  PGresult* result_;
};

class Conn {
 public:
  explicit Conn(const std::string& conninfo);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // Simple query protocol (one or more statements); returns the last result.
  Result query(const std::string& sql);
  void prepare(const std::string& name, const std::string& sql);
  // Executes a named prepared statement with text parameters.
  Result run(const std::string& name, const std::vector<std::string>& params);
  // COPY ... FROM STDIN: begin, send text-format rows, end.
  void copy_begin(const std::string& copy_sql);
  void copy_put(const std::string& data);
  void copy_end();
  // For another thread to cancel the running statement (PQcancel is thread-safe).
  PGconn* raw() { return conn_; }

 private:
  Result check(PGresult* result);
  PGconn* conn_;
};

}  // namespace tpcc
