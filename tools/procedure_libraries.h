// Loading shared libraries of C++ procedures into `forktail serve`
// (--procedures FILE; FORKTAIL_PROCEDURE_LIBRARY in forktail/database.h).
#pragma once

#include <string>
#include <vector>

namespace forktail {
class Database;
}

namespace forktail::tools {

// Loads each library (dlopen, every symbol resolved now), checks that it was
// built with this server's ABI and calls its registration function on `db`.
// Returns a line per library for the server's log ("loaded N procedures from
// FILE: a, b, c"). Throws std::runtime_error naming the file and what is
// wrong: it cannot be opened (missing, not a shared library, a symbol the
// server does not have), it is not a procedure library, its ABI differs, or
// its registration threw.
std::vector<std::string> LoadProcedureLibraries(Database& db,
                                                const std::vector<std::string>& paths);

}  // namespace forktail::tools
