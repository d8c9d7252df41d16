// What a library of procedures built against other Forktail headers, or by
// another compiler, exports: an ABI string that is not the server's.
// `forktail serve --procedures` must refuse it without calling into it.
namespace forktail {
class Database;
}

extern "C" const char* forktail_procedure_library_abi() {
  return "forktail-procedures/0 another compiler";
}

extern "C" void forktail_register_procedures(forktail::Database&) { __builtin_trap(); }
