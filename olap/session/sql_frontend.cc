#include "olap/session/sql_frontend.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "olap/parser/ast.h"
#include "olap/plan/catalog/system_catalog.h"
#include "olap/session/format/row_codec.h"
#include "olap/session/sql_session.h"
#include "olap/session/statement/query_runner.h"
#include "storage/value/timezone.h"

namespace forktail {

SqlFrontend::SqlFrontend(Database* db, SqlFrontendOptions options)
    : db_(db), options_(std::move(options)) {
  Start();
}

std::unique_ptr<SqlFrontend> SqlFrontend::Open(const std::string& dir, SqlFrontendOptions options,
                                               const DatabaseOptions& db_options) {
  std::unique_ptr<Database> db = Database::Open(dir, db_options);
  Database* raw = db.get();
  auto engine = std::make_unique<SqlFrontend>(raw, std::move(options));
  engine->owned_db_ = std::move(db);
  return engine;
}

void SqlFrontend::Start() {
  SchedulerOptions scheduler;
  scheduler.num_workers = options_.workers;
  scheduler.memory_budget = DefaultSchedulerMemoryBudget();
  scheduler_ = std::make_unique<Scheduler>(scheduler);
  if (options_.routing == ReadRouting::kSnapshot) {
    fork_point_ = std::make_unique<DatabaseForkPoint>(db_);
    SnapshotOptions snapshot = options_.snapshot;
    snapshot.handler = [this](const SnapshotContext&, std::string_view request, BatchSink& sink) {
      HandleSnapshotRequest(request, sink);
    };
    snapshots_ = std::make_unique<SnapshotManager>(fork_point_.get(), std::move(snapshot));
  }
}

SqlFrontend::~SqlFrontend() {
  // Snapshots first (they use the fork point and the database), then the
  // scheduler; an owned database last.
  snapshots_.reset();
  fork_point_.reset();
  scheduler_.reset();
  if (owned_db_) owned_db_->Close();
}

Scheduler& SqlFrontend::ChildScheduler() {
  std::lock_guard<std::mutex> l(child_mu_);
  if (!child_scheduler_) {
    // The first request of this snapshot process: blocks that were not in
    // memory at the fork are read through the parent (Database::
    // BeginSnapshotProcess) from now on.
    db_->BeginSnapshotProcess();
    SchedulerOptions scheduler;
    scheduler.num_workers = options_.child_workers;
    scheduler.memory_budget = DefaultSchedulerMemoryBudget();
    // The parent's CPU pinning plan is not the child's business: children
    // share the machine with the parent's workers and each other.
    scheduler.pin_workers = false;
    child_scheduler_ = std::make_unique<Scheduler>(scheduler);
  }
  return *child_scheduler_;
}

void SqlFrontend::HandleSnapshotRequest(std::string_view request_bytes, BatchSink& sink) {
  try {
    RunSnapshotRequest(request_bytes, sink);
  } catch (const DbError& e) {
    throw WithPositionInMessage(e);
  }
}

void SqlFrontend::RunSnapshotRequest(std::string_view request_bytes, BatchSink& sink) {
  QueryRequest request = DecodeQueryRequest(request_bytes);
  datetime::TimeZonePtr zone = datetime::TimeZone::Find(request.time_zone);
  datetime::ScopedTimeZone zone_scope(zone ? zone : datetime::TimeZone::Utc());
  std::vector<sql::StatementPtr> statements = sql::Parse(request.sql);
  if (statements.size() != 1) {
    throw DbError(sqlstate::kProtocolViolation, "a snapshot request holds exactly one statement");
  }
  StatementResult result;
  if (std::optional<StatementResult> builtin = AnswerBuiltinQuery(*statements[0])) {
    result = std::move(*builtin);
  } else {
    BindOptions bind;
    for (const Type& t : request.parameter_types) bind.parameter_types.push_back(t);
    bind.parameters = request.parameters;
    CatalogSession session{request.user, request.database, request.backend_pid};
    session.settings = [settings = std::move(request.settings)] { return settings; };
    session.procedures = [db = db_] { return CatalogProcedures(*db); };
    bind.session = std::make_shared<const CatalogSession>(std::move(session));
    // A watcher thread turns the parent's Cancel into a scheduler cancel: the
    // query may run a long time without emitting anything.
    std::atomic<bool> cancel{false};
    std::atomic<bool> finished{false};
    std::thread watcher([&] {
      while (!finished.load()) {
        if (sink.Canceled()) {
          cancel.store(true);
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
    QueryRunContext context;
    context.catalog = &db_->frozen_catalog();
    context.scheduler = &ChildScheduler();
    context.parallelism = options_.parallelism;
    context.cancel = &cancel;
    try {
      result = RunQueryStatement(*statements[0], bind, context);
    } catch (...) {
      finished.store(true);
      watcher.join();
      throw;
    }
    finished.store(true);
    watcher.join();
  }
  sink.Emit(EncodeResultHeader(result.columns));
  std::vector<Type> types;
  for (const ResultColumn& c : result.columns) types.push_back(c.type);
  const size_t batch = std::max<size_t>(1, options_.result_batch_rows);
  for (size_t i = 0; i < result.rows.size(); i += batch) {
    size_t n = std::min(batch, result.rows.size() - i);
    sink.Emit(EncodeResultRows(types, result.rows.data() + i, n));
  }
  sink.Emit(EncodeResultTag(result.command_tag));
}

}  // namespace forktail
