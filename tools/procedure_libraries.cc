#include "tools/procedure_libraries.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "forktail/database.h"

namespace forktail::tools {
namespace {

using AbiFn = const char* (*)();
using RegisterFn = void (*)(Database&);

[[noreturn]] void Fail(const std::string& path, const std::string& why) {
  throw std::runtime_error("cannot load procedures from " + path + ": " + why);
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string LoadOne(Database& db, const std::string& path) {
  // A path without a slash would be searched for in the library path, as
  // dlopen does; a user means the file.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // Never closed: the registered procedures are its code.
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::string why = ::dlerror();
    if (why.rfind(file + ": ", 0) == 0) why.erase(0, file.size() + 2);  // names the file again
    Fail(path, why);
  }
  auto abi = reinterpret_cast<AbiFn>(::dlsym(handle, "forktail_procedure_library_abi"));
  auto registration = reinterpret_cast<RegisterFn>(::dlsym(handle, "forktail_register_procedures"));
  if (abi == nullptr || registration == nullptr) {
    Fail(path, "not a Forktail procedure library (it defines no FORKTAIL_PROCEDURE_LIBRARY)");
  }
  if (std::strcmp(abi(), kProcedureLibraryAbi) != 0) {
    Fail(path, std::string("built for \"") + abi() + "\", this server is \"" +
                   kProcedureLibraryAbi + "\"; rebuild it against this server's headers");
  }
  const std::vector<std::string> before = db.ProcedureNames();
  try {
    registration(db);
  } catch (const std::exception& e) {
    Fail(path, std::string("its registration failed: ") + e.what());
  }
  const std::vector<std::string> after = db.ProcedureNames();
  std::vector<std::string> added;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(added));
  return "loaded " + std::to_string(added.size()) + " procedure(s) from " + path +
         (added.empty() ? "" : ": " + Join(added));
}

}  // namespace

std::vector<std::string> LoadProcedureLibraries(Database& db,
                                                const std::vector<std::string>& paths) {
  std::vector<std::string> lines;
  for (const std::string& path : paths) lines.push_back(LoadOne(db, path));
  return lines;
}

}  // namespace forktail::tools
