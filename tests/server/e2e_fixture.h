// The end-to-end fixture shared by e2e_test.cc and e2e_longtest.cc: a
// WireServer over SqlBackend on a fresh database in a temporary directory, on
// a free loopback port, and helpers to run real clients against it.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "olap/session/sql_frontend.h"
#include "server/server.h"

namespace forktail::test {

namespace fs = std::filesystem;

inline const fs::path kE2eDir = fs::path(__FILE__).parent_path() / "e2e";

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

inline CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline bool Installed(const std::string& probe) { return RunCommand(probe).exit_code == 0; }

class EndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/forktail_e2e_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    SqlFrontendOptions options;
    // Sanitizer allocators are not fork-safe: reads run in-process there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    options.routing = ReadRouting::kInProcess;
#endif
    options.idle_in_transaction_hold_ms = 5000;  // scripted clients pause between statements
    Configure(options);
    engine_ = SqlFrontend::Open(dir_, options);
    backend_ = std::make_unique<SqlBackend>(*engine_);
    ServerOptions server_options;
    server_options.port = 0;
    server_ = std::make_unique<WireServer>(*backend_, server_options);
    server_->Start();
    conninfo_ = "-h 127.0.0.1 -p " + std::to_string(server_->port()) + " -U tester";
  }
  // A suite's own engine options (as `forktail serve` sets them, say).
  virtual void Configure(SqlFrontendOptions&) {}
  void TearDown() override {
    server_.reset();
    backend_.reset();
    engine_.reset();
    fs::remove_all(dir_);
  }

  CommandResult Psql(const std::string& args) {
    return RunCommand("psql -X -v ON_ERROR_STOP=1 " + conninfo_ + " -d db " + args);
  }
  // A fresh connection's answer: it sees every commit acknowledged before
  // (DESIGN.md "Freshness"), so no snapshot setting is needed.
  std::string PsqlValue(const std::string& sql) {
    CommandResult r = Psql("-q -At -c \"" + sql + "\"");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    while (!r.output.empty() && r.output.back() == '\n') r.output.pop_back();
    return r.output;
  }

  std::string dir_;
  std::unique_ptr<SqlFrontend> engine_;
  std::unique_ptr<SqlBackend> backend_;
  std::unique_ptr<WireServer> server_;
  std::string conninfo_;
};

}  // namespace forktail::test
