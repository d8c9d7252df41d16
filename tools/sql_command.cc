// `forktail sql --data DIR [-c SQL]... [-f FILE] [--in-process]`: an embedded
// SQL shell over a data directory (no server), printing results in psql's
// aligned format. Handy for debugging the SQL front end.
//   -c SQL   runs SQL (several -c run in order; a -c string with several
//            statements is one implicit transaction, as psql -c)
//   -f FILE  runs the file's statements one at a time, like psql -f; errors
//            are printed and the next statement runs
//   neither  reads statements from standard input; a statement ends with a
//            ';' at the end of a line
// COPY ... FROM STDIN reads its data from standard input up to a line "\.".
// Errors print as psql does ("ERROR:  message"); the exit code is 1 if any
// statement failed, 3 if the database cannot be opened.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "olap/parser/ast.h"
#include "olap/session/format/aligned_format.h"
#include "olap/session/sql_session.h"
#include "tools/commands.h"

namespace forktail::tools {
namespace {

struct SqlArgs {
  std::string dir = "./data";
  std::vector<std::string> commands;
  std::string file;
  bool in_process = false;
};

void PrintError(const DbError& e) {
  std::cerr << "ERROR:  " << e.what() << "\n";
  if (e.position() > 0) std::cerr << "POSITION:  " << e.position() << "\n";
}

void FeedCopy(SqlSession& session) {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "\\.") break;
    line += '\n';
    session.CopyIn(line);
  }
  StatementResult done = session.CopyDone();
  std::cout << done.command_tag << "\n";
}

// Runs one query string and prints its results; false on error.
bool RunOne(SqlSession& session, const std::string& sql) {
  try {
    session.Execute(sql, [&](StatementResult&& r) {
      for (const std::string& n : r.notices) std::cerr << "NOTICE:  " << n << "\n";
      if (r.command_tag == "COPY_IN") {
        FeedCopy(session);
        return;
      }
      if (r.command_tag.empty() && r.columns.empty()) return;
      std::cout << FormatAligned(r);
      if (!r.columns.empty()) std::cout << "\n";
    });
    return true;
  } catch (const DbError& e) {
    PrintError(e);
    return false;
  }
}

int RunFile(SqlSession& session, const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "error: cannot read " << path << "\n";
    return 3;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<sql::StatementPtr> statements;
  try {
    statements = sql::Parse(text);
  } catch (const DbError& e) {
    PrintError(e);
    return 1;
  }
  int code = 0;
  for (const auto& s : statements) {
    if (!RunOne(session, text.substr(s->begin, s->end - s->begin))) code = 1;
  }
  return code;
}

int RunStdin(SqlSession& session) {
  int code = 0;
  std::string pending, line;
  while (std::getline(std::cin, line)) {
    pending += line + "\n";
    size_t last = line.find_last_not_of(" \t\r");
    if (last != std::string::npos && line[last] == ';') {
      if (!RunOne(session, pending)) code = 1;
      pending.clear();
    }
  }
  if (pending.find_first_not_of(" \t\r\n") != std::string::npos && !RunOne(session, pending)) {
    code = 1;
  }
  return code;
}

int Run(const SqlArgs& args) {
  std::unique_ptr<SqlFrontend> engine;
  try {
    SqlFrontendOptions options;
    options.routing = args.in_process ? ReadRouting::kInProcess : ReadRouting::kSnapshot;
    engine = SqlFrontend::Open(args.dir, options);
  } catch (const DbError& e) {
    std::cerr << "error: cannot open " << args.dir << ": " << e.what() << "\n";
    return 3;
  }
  int code = 0;
  {
    SqlSession session(*engine);
    for (const std::string& c : args.commands) {
      if (!RunOne(session, c)) code = 1;
    }
    if (!args.file.empty()) code = std::max(code, RunFile(session, args.file));
    if (args.commands.empty() && args.file.empty()) code = RunStdin(session);
  }
  return code;
}

}  // namespace

void RegisterSqlCommand(CLI::App& app) {
  auto args = std::make_shared<SqlArgs>();
  CLI::App* cmd =
      app.add_subcommand("sql", "Embedded SQL shell over a data directory (psql's aligned output)");
  cmd->add_option("--data", args->dir, "Data directory (default ./data)");
  cmd->add_option("-c,--command", args->commands, "SQL to run (repeatable)");
  cmd->add_option("-f,--file", args->file, "File of SQL statements to run one at a time");
  cmd->add_flag("--in-process", args->in_process,
                "Run SELECTs in this process instead of a forked snapshot");
  cmd->footer("Without -c or -f, statements are read from standard input.\n");
  cmd->callback([args] { ExitCode() = Run(*args); });
}

}  // namespace forktail::tools
