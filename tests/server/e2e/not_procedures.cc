// A shared library that is not a library of procedures (it lacks
// FORKTAIL_PROCEDURE_LIBRARY): `forktail serve --procedures` must refuse it.
extern "C" int forktail_sample_answer() { return 42; }
