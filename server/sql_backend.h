// The QueryBackend of the real SQL engine: each connection gets its own
// SqlSession (olap/session/sql_session.h) of one shared SqlFrontend.
// Conversion is by moves (rows are not copied); a BackendStatement keeps the
// engine's PreparedStatement as its handle.
#pragma once

#include <memory>

#include "server/backend.h"

namespace forktail {

class SqlFrontend;

class SqlBackend : public QueryBackend {
 public:
  // `engine` must outlive the backend and every session it opened.
  explicit SqlBackend(SqlFrontend& engine) : engine_(engine) {}
  std::unique_ptr<BackendSession> OpenSession(const BackendSessionOptions& options) override;

 private:
  SqlFrontend& engine_;
};

}  // namespace forktail
