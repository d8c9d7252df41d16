// The extended-query half of Connection: Parse, Bind, Describe, Execute,
// Close, Sync.
#include <algorithm>

#include "server/connection.h"
#include "server/pg_types.h"

namespace forktail {
namespace {

bool IsEmptyQuery(std::string_view sql) {
  return std::all_of(sql.begin(), sql.end(), [](char c) {
    return c == ';' || c == ' ' || c == '\n' || c == '\t' || c == '\r';
  });
}

// Distinct scale combinations of numeric parameters kept per statement.
constexpr size_t kMaxRescaled = 16;

std::string Quoted(const std::string& name) { return "\"" + name + "\""; }

// Bind's result formats (none: text, one: for all, else one each) per column.
std::vector<int16_t> ExpandFormats(const std::vector<int16_t>& formats, size_t columns) {
  if (formats.size() == columns) return formats;
  return std::vector<int16_t>(columns, formats.empty() ? int16_t{0} : formats[0]);
}

}  // namespace

std::shared_ptr<const Connection::Prepared> Connection::FindStatement(
    const std::string& name) const {
  auto it = statements_.find(name);
  if (it == statements_.end()) {
    throw DbError(sqlstate::kInvalidSqlStatementName,
                  name.empty() ? "unnamed prepared statement does not exist"
                               : "prepared statement " + Quoted(name) + " does not exist");
  }
  return it->second;
}

std::vector<FieldDescription> Connection::Describe(const std::vector<BackendColumn>& columns,
                                                   const std::vector<int16_t>& formats) const {
  std::vector<FieldDescription> fields;
  fields.reserve(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    PgTypeInfo t = PgTypeOf(columns[i].type);
    fields.push_back(
        {columns[i].name, t.oid, t.length, t.modifier, formats.empty() ? int16_t{0} : formats[i]});
  }
  return fields;
}

void Connection::HandleParse(std::string_view body) {
  ParseMessage m = DecodeParse(body);
  if (!m.statement.empty() &&
      (statements_.count(m.statement) || session_->HasPreparedStatement(m.statement))) {
    throw DbError("42P05", "prepared statement " + Quoted(m.statement) + " already exists");
  }
  auto prepared = std::make_shared<Prepared>();
  prepared->client_oids = m.parameter_oids;
  if (!IsEmptyQuery(m.query)) {
    prepared->declared_types.reserve(m.parameter_oids.size());
    for (int32_t oid : m.parameter_oids) prepared->declared_types.push_back(TypeFromPgOid(oid));
    prepared->statement = session_->Prepare(m.query, prepared->declared_types);
    prepared->sql = std::move(m.query);
  }
  statements_[m.statement] = std::move(prepared);
  EncodeEmpty(stream_.output(), '1');
}

void Connection::HandleBind(std::string_view body) {
  BindMessage m = DecodeBind(body);
  std::shared_ptr<const Prepared> prepared = FindStatement(m.statement);
  size_t expected = prepared->statement ? prepared->statement->parameter_types.size() : 0;
  expected = std::max(expected, prepared->client_oids.size());
  if (m.parameters.size() != expected) {
    throw DbError(sqlstate::kProtocolViolation,
                  "bind message supplies " + std::to_string(m.parameters.size()) +
                      " parameters, but prepared statement " + Quoted(m.statement) + " requires " +
                      std::to_string(expected));
  }
  if (m.parameter_formats.size() > 1 && m.parameter_formats.size() != m.parameters.size()) {
    throw DbError(sqlstate::kProtocolViolation,
                  "bind message has " + std::to_string(m.parameter_formats.size()) +
                      " parameter formats but " + std::to_string(m.parameters.size()) +
                      " parameters");
  }
  size_t ncols = prepared->statement ? prepared->statement->columns.size() : 0;
  if (m.result_formats.size() > 1 && m.result_formats.size() != ncols) {
    throw DbError(sqlstate::kProtocolViolation,
                  "bind message has " + std::to_string(m.result_formats.size()) +
                      " result formats but query has " + std::to_string(ncols) + " columns");
  }
  for (int16_t f : m.result_formats) {
    if (f != 0 && f != 1) {
      throw DbError(sqlstate::kInvalidParameterValue,
                    "unsupported format code: " + std::to_string(f));
    }
  }
  if (!m.portal.empty() && portals_.count(m.portal)) {
    throw DbError("42P03", "portal " + Quoted(m.portal) + " already exists");
  }
  datetime::ScopedTimeZone zone(SessionZone());  // timestamptz parameters in text
  Portal portal;
  portal.prepared = prepared;
  portal.statement = prepared->statement;
  portal.parameters.reserve(m.parameters.size());
  std::vector<int> scales(m.parameters.size(), -1);
  bool rescale = false;
  for (size_t i = 0; i < m.parameters.size(); ++i) {
    int16_t format = m.parameter_formats.empty()       ? 0
                     : m.parameter_formats.size() == 1 ? m.parameter_formats[0]
                                                       : m.parameter_formats[i];
    int32_t client_oid = i < prepared->client_oids.size() ? prepared->client_oids[i] : 0;
    std::optional<Type> target;
    if (prepared->statement && i < prepared->statement->parameter_types.size()) {
      target = prepared->statement->parameter_types[i];
    }
    if (!m.parameters[i]) {
      std::optional<Type> t = target ? target : TypeFromPgOid(client_oid);
      portal.parameters.push_back(Value::Null(t.value_or(Type::Text())));
    } else if (client_oid == pgoid::kNumeric && target && *target == *prepared->declared_types[i]) {
      // The statement took the declared unconstrained numeric: keep the value's own scale.
      Value v = DecodeParameter(*m.parameters[i], format, client_oid, std::nullopt,
                                static_cast<int>(i) + 1);
      scales[i] = v.type().scale;
      rescale = rescale || !(v.type() == *target);
      portal.parameters.push_back(std::move(v));
    } else {
      portal.parameters.push_back(
          DecodeParameter(*m.parameters[i], format, client_oid, target, static_cast<int>(i) + 1));
    }
  }
  if (rescale) {
    portal.statement = Rescaled(*prepared, scales);
    for (size_t i = 0; i < portal.parameters.size(); ++i) {
      const std::optional<Type>& t = portal.statement->parameter_types[i];
      Value& v = portal.parameters[i];
      if (t && !v.is_null() && !(v.type() == *t)) v = v.CastTo(*t);
    }
  }
  portal.result_formats = std::move(m.result_formats);
  portals_[m.portal] = std::move(portal);
  EncodeEmpty(stream_.output(), '2');
}

std::shared_ptr<const BackendStatement> Connection::Rescaled(const Prepared& prepared,
                                                             const std::vector<int>& scales) {
  auto it = prepared.rescaled.find(scales);
  if (it != prepared.rescaled.end()) return it->second;
  std::vector<std::optional<Type>> types = prepared.declared_types;
  for (size_t i = 0; i < scales.size() && i < types.size(); ++i) {
    if (scales[i] >= 0) types[i] = Type::Decimal(types[i]->precision, scales[i]);
  }
  auto statement = session_->Prepare(prepared.sql, types);
  if (prepared.rescaled.size() >= kMaxRescaled) prepared.rescaled.clear();
  prepared.rescaled.emplace(scales, statement);
  return statement;
}

void Connection::HandleDescribe(std::string_view body) {
  DescribeMessage m = DecodeDescribe(body);
  if (m.kind == 'S') {
    std::shared_ptr<const Prepared> prepared = FindStatement(m.name);
    std::vector<int32_t> oids;
    size_t n = prepared->statement ? prepared->statement->parameter_types.size() : 0;
    n = std::max(n, prepared->client_oids.size());
    for (size_t i = 0; i < n; ++i) {
      int32_t oid = i < prepared->client_oids.size() ? prepared->client_oids[i] : 0;
      if (oid == 0 && prepared->statement && i < prepared->statement->parameter_types.size() &&
          prepared->statement->parameter_types[i]) {
        oid = PgTypeOf(*prepared->statement->parameter_types[i]).oid;
      }
      oids.push_back(oid == 0 ? pgoid::kText : oid);
    }
    EncodeParameterDescription(stream_.output(), oids);
    if (prepared->statement && !prepared->statement->columns.empty()) {
      EncodeRowDescription(stream_.output(), Describe(prepared->statement->columns, {}));
    } else {
      EncodeEmpty(stream_.output(), 'n');
    }
    return;
  }
  auto it = portals_.find(m.name);
  if (it == portals_.end()) {
    // A cursor the client declared is a portal too (psycopg describes its
    // named cursors so).
    if (std::optional<std::vector<BackendColumn>> columns = session_->DescribeCursor(m.name)) {
      EncodeRowDescription(stream_.output(), Describe(*columns, {}));
      return;
    }
    throw DbError(sqlstate::kInvalidCursorName, "portal " + Quoted(m.name) + " does not exist");
  }
  const Portal& portal = it->second;
  const auto& statement = portal.statement;
  if (statement && !statement->columns.empty()) {
    EncodeRowDescription(stream_.output(),
                         Describe(statement->columns,
                                  ExpandFormats(portal.result_formats, statement->columns.size())));
  } else {
    EncodeEmpty(stream_.output(), 'n');
  }
}

void Connection::HandleExecute(std::string_view body) {
  ExecuteMessage m = DecodeExecute(body);
  auto it = portals_.find(m.portal);
  if (it == portals_.end()) {
    throw DbError(sqlstate::kInvalidCursorName, "portal " + Quoted(m.portal) + " does not exist");
  }
  Portal& portal = it->second;
  if (!portal.statement) {
    EncodeEmpty(stream_.output(), 'I');
    return;
  }
  bool first = !portal.executed;
  if (first) {
    NoteActive(portal.prepared->sql);
    portal.result = session_->ExecutePrepared(*portal.statement, portal.parameters);
    portal.executed = true;
    SendNotices(portal.result);
    if (portal.result.command_tag == "COPY_IN") {
      RunCopyIn(portal.result);
      return;
    }
    if (portal.result.copy_out) {
      SendCopyOut(*portal.result.copy_out);
      EncodeCommandComplete(stream_.output(), portal.result.command_tag);
      return;
    }
  }
  const BackendResult& r = portal.result;
  if (r.columns.empty()) {
    EncodeCommandComplete(stream_.output(), r.command_tag);
    if (first) ReportChangedParameters();  // SET, RESET, and what ends a SET LOCAL
    return;
  }
  size_t begin = portal.next_row;
  size_t end = r.rows.size();
  if (m.max_rows > 0) end = std::min(end, begin + static_cast<size_t>(m.max_rows));
  SendResultRows(r, ExpandFormats(portal.result_formats, r.columns.size()), begin, end);
  portal.next_row = end;
  if (end < r.rows.size()) {
    EncodeEmpty(stream_.output(), 's');
  } else if (first) {
    EncodeCommandComplete(stream_.output(), r.command_tag);
  } else {
    EncodeCommandComplete(stream_.output(), "SELECT " + std::to_string(end - begin));
  }
}

void Connection::HandleClose(std::string_view body) {
  DescribeMessage m = DecodeDescribe(body);
  if (m.kind == 'S') {
    statements_.erase(m.name);
  } else if (portals_.erase(m.name) == 0) {
    session_->CloseCursor(m.name);  // a DECLAREd cursor is a portal too
  }
  EncodeEmpty(stream_.output(), '3');
}

void Connection::HandleSync() {
  skip_to_sync_ = false;
  // The implicit transaction of the statements since the last Sync commits
  // now; if it cannot, its error comes before ReadyForQuery.
  try {
    session_->EndImplicitTransaction();
  } catch (const DbError& e) {
    SendError(e);
  }
  // Portals end with their transaction; outside a block that is now.
  if (session_->status() == BackendTxnStatus::kIdle) portals_.clear();
  SendReadyForQuery();
}

}  // namespace forktail
