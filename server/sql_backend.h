// The QueryBackend of the real SQL engine: each connection gets its own
// SqlSession (olap/engine/sql_session.h, Contract 4) of one shared SqlEngine.
// Conversion is by moves (rows are not copied); a BackendStatement keeps the
// engine's PreparedStatement as its handle.
#pragma once

#include <memory>

#include "server/backend.h"

namespace forktail {

class SqlEngine;

class SqlBackend : public QueryBackend {
 public:
  // `engine` must outlive the backend and every session it opened.
  explicit SqlBackend(SqlEngine& engine) : engine_(engine) {}
  std::unique_ptr<BackendSession> OpenSession(const BackendSessionOptions& options) override;

 private:
  SqlEngine& engine_;
};

}  // namespace forktail
