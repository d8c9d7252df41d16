// The CH-benCHmark's analytical streams: the queries' file, a stream's loop,
// and the runs' JSON (tpcc_driver and tpcc_inproc alike).
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "tpcc.h"

namespace tpcc {

std::vector<ChQuery> read_ch_queries(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<ChQuery> queries;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("-- q", 0) == 0) {
      std::istringstream name(line.substr(3));
      queries.push_back({});
      name >> queries.back().name;
    } else if (!queries.empty() && line.rfind("--", 0) != 0) {
      queries.back().sql += line + "\n";
    }
  }
  return queries;
}

void report_error(const std::string& what) {
  static std::mutex mutex;
  static int printed = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (printed++ < 10) std::fprintf(stderr, "error: %s\n", what.c_str());
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  return out + "\"";
}

namespace {

// "where=snapshot age_ms=12.5 commits_behind=40" (or where=transaction_thread
// with zeros): the freshness of the query just run.
void read_freshness(Conn& conn, ChRun* r) {
  Result show = conn.query("SHOW forktail.last_read");
  if (show.rows() != 1) return;
  std::string text = show.text(0, 0);
  size_t age = text.find("age_ms="), behind = text.find("commits_behind=");
  if (age == std::string::npos || behind == std::string::npos) return;
  r->snapshot_age_ms = std::stod(text.substr(age + 7));
  r->commits_behind = std::stoll(text.substr(behind + 15));
}

}  // namespace

void run_ch_stream(Conn& conn, const std::vector<ChQuery>& queries, int stream,
                   std::chrono::steady_clock::time_point start,
                   std::chrono::steady_clock::time_point deadline, std::vector<ChRun>* runs) {
  using Clock = std::chrono::steady_clock;
  bool freshness = true;
  try {
    conn.query("SHOW forktail.last_read");
  } catch (const SqlError&) {
    freshness = false;  // not Forktail
  }
  for (size_t k = static_cast<size_t>(stream) * 7; Clock::now() < deadline; k++) {
    const ChQuery& q = queries[k % queries.size()];
    auto t0 = Clock::now();
    ChRun r{stream, q.name, std::chrono::duration<double>(t0 - start).count(), 0, 0, "ok"};
    try {
      Result result = conn.query(q.sql);
      r.rows = result.rows();
    } catch (const SqlError& e) {
      r.status = Clock::now() >= deadline ? "cancelled" : e.what();
      if (Clock::now() < deadline) report_error(q.name + ": " + e.what());
    }
    r.secs = std::chrono::duration<double>(Clock::now() - t0).count();
    if (freshness && r.status == "ok") {
      try {
        read_freshness(conn, &r);
      } catch (const SqlError&) {
        // Cancelled at the deadline: the query's freshness stays unknown.
      }
    }
    runs->push_back(r);
  }
}

std::string ch_runs_json(const std::vector<std::vector<ChRun>>& runs, int64_t* done) {
  std::string json;
  for (const auto& stream : runs) {
    for (const ChRun& r : stream) {
      char buf[256];
      std::snprintf(buf, sizeof(buf),
                    "%s\n    {\"stream\": %d, \"query\": \"%s\", \"start_s\": %.3f, "
                    "\"secs\": %.4f, \"rows\": %d, ",
                    json.empty() ? "" : ",", r.stream, r.query.c_str(), r.start_s, r.secs, r.rows);
      json += buf;
      if (r.snapshot_age_ms >= 0) {
        std::snprintf(buf, sizeof(buf), "\"snapshot_age_ms\": %.3f, \"commits_behind\": %lld, ",
                      r.snapshot_age_ms, static_cast<long long>(r.commits_behind));
        json += buf;
      }
      json += "\"status\": ";
      json += json_string(r.status) + "}";
      if (r.status == "ok") ++*done;
    }
  }
  return json;
}

}  // namespace tpcc
