// String functions (PostgreSQL 15): upper, lower, length/char_length/
// character_length, octet_length, btrim/trim/ltrim/rtrim, replace, strpos/
// position, left, right, lpad, rpad, concat, concat_ws, repeat, reverse,
// split_part, starts_with, textcat (the || operator), initcap, ascii, chr.
//
// Strings are UTF-8; lengths and positions count code points, as in
// PostgreSQL with a UTF-8 database. Case mapping (upper, lower, initcap,
// ILIKE) covers ASCII letters only: other characters pass unchanged
// (PostgreSQL maps every letter by the collation). CHAR(n) arguments are
// compared and measured without their trailing blanks (length of a CHAR).
#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "olap/common/kernel_util.h"
#include "olap/expression/kernels.h"
#include "olap/expression/scalar_function.h"
#include "storage/value/bytea.h"

namespace forktail {
namespace {

using Sv = std::string_view;

inline bool IsContinuation(char c) { return (static_cast<uint8_t>(c) & 0xC0) == 0x80; }

int64_t CodePoints(Sv s) {
  int64_t n = 0;
  for (char c : s) n += !IsContinuation(c);
  return n;
}

// Byte offset of code point `k` (0-based; clamps to the end).
size_t ByteOffset(Sv s, int64_t k) {
  size_t i = 0;
  while (i < s.size() && k > 0) {
    ++i;
    while (i < s.size() && IsContinuation(s[i])) ++i;
    --k;
  }
  return i;
}

// The code points of s, as views.
std::vector<Sv> Split(Sv s) {
  std::vector<Sv> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i + 1;
    while (j < s.size() && IsContinuation(s[j])) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

Sv StripBlanks(Sv s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Kernel helpers: F(args at row i...) -> result.
template <typename F>
ScalarKernel StringToString(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    const Sv* x = a[0]->data<Sv>();
    Sv* o = out->mutable_data<Sv>();
    StringArena* arena = out->arena();
    std::string buf;
    ForEachRow(rows, [&](uint32_t i) {
      buf.clear();
      f(x[i], &buf);
      o[i] = arena->Add(buf);
    });
  };
}

template <typename Out, typename F>
ScalarKernel RowKernel(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    Out* o = out->mutable_data<Out>();
    ForEachRow(rows, [&](uint32_t i) { o[i] = f(a, i); });
  };
}

// A kernel producing strings from whole rows into a scratch buffer.
template <typename F>
ScalarKernel RowString(F f) {
  return [f](const ScalarArgs& a, Rows rows, Vector* out) {
    Sv* o = out->mutable_data<Sv>();
    StringArena* arena = out->arena();
    std::string buf;
    ForEachRow(rows, [&](uint32_t i) {
      buf.clear();
      f(a, i, &buf);
      o[i] = arena->Add(buf);
    });
  };
}

Sv Str(const ScalarArgs& a, size_t k, uint32_t i) { return a[k]->data<Sv>()[i]; }
int32_t Int(const ScalarArgs& a, size_t k, uint32_t i) { return a[k]->data<int32_t>()[i]; }

constexpr int64_t kMaxStringBytes = (int64_t{1} << 30) - 1;

void CheckLength(int64_t bytes) {
  if (bytes > kMaxStringBytes) {
    throw DbError("54000", "requested length too large");
  }
}

// Trims characters of `set` (code points) from the chosen ends of s.
Sv Trim(Sv s, Sv set, bool left, bool right) {
  std::vector<Sv> chars = Split(set);
  auto in_set = [&](Sv c) { return std::find(chars.begin(), chars.end(), c) != chars.end(); };
  std::vector<Sv> cps = Split(s);
  size_t b = 0, e = cps.size();
  if (left) {
    while (b < e && in_set(cps[b])) ++b;
  }
  if (right) {
    while (e > b && in_set(cps[e - 1])) --e;
  }
  if (b == e) return Sv();
  size_t from = static_cast<size_t>(cps[b].data() - s.data());
  size_t to = static_cast<size_t>(cps[e - 1].data() + cps[e - 1].size() - s.data());
  return s.substr(from, to - from);
}

void RegisterTrim(FunctionRegistry& r, const char* name, bool left, bool right) {
  auto kernel = [left, right](const ScalarArgs& a, Rows rows, Vector* out) {
    out->ShareAuxiliary(*a[0]);
    Sv* o = out->mutable_data<Sv>();
    ForEachRow(rows, [&](uint32_t i) {
      Sv set = a.size() > 1 ? Str(a, 1, i) : Sv(" ");
      o[i] = Trim(Str(a, 0, i), set, left, right);
    });
  };
  r.Register(name, {TypeId::kText}, Type::Text(), kernel);
  r.Register(name, {TypeId::kText, TypeId::kText}, Type::Text(), kernel);
}

void Pad(Sv s, int32_t len, Sv fill, bool left, std::string* out) {
  if (len <= 0) return;
  int64_t have = CodePoints(s);
  if (have >= len || fill.empty()) {
    out->append(s.substr(0, ByteOffset(s, len)));
    return;
  }
  CheckLength(static_cast<int64_t>(len) * 4);
  std::vector<Sv> f = Split(fill);
  std::string pad;
  for (int64_t k = 0; k < len - have; ++k) pad.append(f[static_cast<size_t>(k) % f.size()]);
  if (left) {
    out->append(pad).append(s);
  } else {
    out->append(s).append(pad);
  }
}

void RegisterPad(FunctionRegistry& r, const char* name, bool left) {
  auto kernel = RowString([left](const ScalarArgs& a, uint32_t i, std::string* out) {
    Pad(Str(a, 0, i), Int(a, 1, i), a.size() > 2 ? Str(a, 2, i) : Sv(" "), left, out);
  });
  r.Register(name, {TypeId::kText, TypeId::kInteger}, Type::Text(), kernel);
  r.Register(name, {TypeId::kText, TypeId::kInteger, TypeId::kText}, Type::Text(), kernel);
}

// left(s, n) / right(s, n): n < 0 means all but |n| from the other end.
Sv LeftRight(Sv s, int32_t n, bool left) {
  int64_t len = CodePoints(s);
  int64_t keep = n >= 0 ? std::min<int64_t>(n, len) : std::max<int64_t>(len + n, 0);
  return left ? s.substr(0, ByteOffset(s, keep)) : s.substr(ByteOffset(s, len - keep));
}

Sv SplitPart(Sv s, Sv delim, int32_t n) {
  if (n == 0) throw DbError(sqlstate::kInvalidParameterValue, "field position must not be zero");
  if (delim.empty()) return n == 1 || n == -1 ? s : Sv();
  std::vector<Sv> parts;
  size_t from = 0;
  while (true) {
    size_t at = s.find(delim, from);
    if (at == Sv::npos) {
      parts.push_back(s.substr(from));
      break;
    }
    parts.push_back(s.substr(from, at - from));
    from = at + delim.size();
  }
  int64_t k = n > 0 ? n - 1 : static_cast<int64_t>(parts.size()) + n;
  if (k < 0 || k >= static_cast<int64_t>(parts.size())) return Sv();
  return parts[static_cast<size_t>(k)];
}

int32_t StrPos(Sv s, Sv sub) {
  size_t at = s.find(sub);
  if (at == Sv::npos) return 0;
  return static_cast<int32_t>(CodePoints(s.substr(0, at)) + 1);
}

void AsciiCase(Sv s, bool upper, std::string* out) {
  out->assign(s);
  for (char& c : *out) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (static_cast<uint8_t>(c) & 0x80);
}

// concat / concat_ws: NULL arguments are skipped (not strict).
void RegisterConcat(FunctionRegistry& r) {
  FunctionOverload concat;
  concat.params = {TypeId::kText};
  concat.variadic = true;
  concat.any_to_text = true;
  auto f = MakeScalarFunction("concat", Type::Text(),
                              RowString([](const ScalarArgs& a, uint32_t i, std::string* out) {
                                for (size_t k = 0; k < a.size(); ++k) {
                                  if (!a[k]->IsNull(i)) out->append(Str(a, k, i));
                                }
                              }),
                              /*strict=*/false);
  concat.bind = [f](const FunctionBindContext&, std::vector<ExprPtr>&) { return f; };
  r.Register("concat", std::move(concat));

  FunctionOverload ws;
  ws.params = {TypeId::kText, TypeId::kText};
  ws.variadic = true;
  ws.any_to_text = true;
  auto g = MakeScalarFunction(
      "concat_ws", Type::Text(),
      [](const ScalarArgs& a, Rows rows, Vector* out) {
        Sv* o = out->mutable_data<Sv>();
        StringArena* arena = out->arena();
        std::string buf;
        ForEachRow(rows, [&](uint32_t i) {
          if (a[0]->IsNull(i)) {
            out->SetNull(i, true);
            return;
          }
          buf.clear();
          bool first = true;
          for (size_t k = 1; k < a.size(); ++k) {
            if (a[k]->IsNull(i)) continue;
            if (!first) buf.append(Str(a, 0, i));
            buf.append(Str(a, k, i));
            first = false;
          }
          o[i] = arena->Add(buf);
        });
      },
      /*strict=*/false);
  ws.bind = [g](const FunctionBindContext&, std::vector<ExprPtr>&) { return g; };
  r.Register("concat_ws", std::move(ws));
}

// length of a CHAR(n) ignores the trailing blanks; octet_length counts
// them (PostgreSQL's bpcharoctetlen: the stored, padded value).
void RegisterLength(FunctionRegistry& r, const char* name, bool octets) {
  FunctionOverload o;
  o.params = {TypeId::kText};
  o.takes_char = true;
  o.bind = [name, octets](const FunctionBindContext&, std::vector<ExprPtr>& args) {
    bool is_char = args[0]->type.id == TypeId::kChar;
    return MakeScalarFunction(
        name, Type::Integer(),
        RowKernel<int32_t>([is_char, octets](const ScalarArgs& a, uint32_t i) {
          Sv s = Str(a, 0, i);
          if (is_char && !octets) s = StripBlanks(s);
          return static_cast<int32_t>(octets ? s.size() : CodePoints(s));
        }));
  };
  r.Register(name, std::move(o));
}

// md5 (hex text) of text or bytea, and sha224/256/384/512 (bytea) of bytea,
// as PostgreSQL's (OpenSSL's digests).
void RegisterDigests(FunctionRegistry& r) {
  auto digest = [](const EVP_MD* md, Sv in, std::string* out) {
    unsigned char bytes[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(in.data(), in.size(), bytes, &n, md, nullptr) != 1) {
      throw DbError(sqlstate::kInternalError, "could not compute the digest");
    }
    out->assign(reinterpret_cast<const char*>(bytes), n);
  };
  for (TypeId input : {TypeId::kText, TypeId::kBytea}) {
    r.Register("md5", {input}, Type::Text(),
               RowString([digest](const ScalarArgs& a, uint32_t i, std::string* out) {
                 std::string bytes;
                 digest(EVP_md5(), Str(a, 0, i), &bytes);
                 *out = bytea::Encode(bytes, "hex");
               }));
  }
  const std::pair<const char*, const EVP_MD* (*)()> kSha[] = {{"sha224", EVP_sha224},
                                                              {"sha256", EVP_sha256},
                                                              {"sha384", EVP_sha384},
                                                              {"sha512", EVP_sha512}};
  for (const auto& [name, md] : kSha) {
    r.Register(name, {TypeId::kBytea}, Type::Bytea(),
               RowString([digest, md = md](const ScalarArgs& a, uint32_t i, std::string* out) {
                 digest(md(), Str(a, 0, i), out);
               }));
  }
}

// bytea's functions: its lengths, concatenation, encode() and decode().
void RegisterByteaFunctions(FunctionRegistry& r) {
  for (const char* name : {"length", "octet_length"}) {
    r.Register(name, {TypeId::kBytea}, Type::Integer(),
               RowKernel<int32_t>([](const ScalarArgs& a, uint32_t i) {
                 return static_cast<int32_t>(Str(a, 0, i).size());
               }));
  }
  r.Register("byteacat", {TypeId::kBytea, TypeId::kBytea}, Type::Bytea(),
             RowString([](const ScalarArgs& a, uint32_t i, std::string* out) {
               CheckLength(static_cast<int64_t>(Str(a, 0, i).size() + Str(a, 1, i).size()));
               out->append(Str(a, 0, i)).append(Str(a, 1, i));
             }));
  r.Register("encode", {TypeId::kBytea, TypeId::kText}, Type::Text(),
             RowString([](const ScalarArgs& a, uint32_t i, std::string* out) {
               *out = bytea::Encode(Str(a, 0, i), Str(a, 1, i));
             }));
  r.Register("decode", {TypeId::kText, TypeId::kText}, Type::Bytea(),
             RowString([](const ScalarArgs& a, uint32_t i, std::string* out) {
               *out = bytea::Decode(Str(a, 0, i), Str(a, 1, i));
             }));
}

}  // namespace

// forktail_like(s, pattern, escape): LIKE with a pattern that is not a
// constant (a column, an expression of one): the binder's rewrite of
// x [NOT] [I]LIKE y when y is not known at bind time. The escape is one
// character or '' (none); a pattern compiles once per distinct run of rows.
void RegisterRowLike(FunctionRegistry& r) {
  r.Register("forktail_like", {TypeId::kText, TypeId::kText, TypeId::kText}, Type::Boolean(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               const auto* s = a[0]->data<Sv>();
               const auto* p = a[1]->data<Sv>();
               const auto* e = a[2]->data<Sv>();
               uint8_t* o = out->mutable_data<uint8_t>();
               std::unique_ptr<LikeMatcher> last;
               std::string last_pattern;
               char last_escape = 0;
               ForEachRow(rows, [&](uint32_t i) {
                 if (e[i].size() > 1) {
                   throw DbError(sqlstate::kInvalidEscapeSequence, "invalid escape string")
                       .WithHint("Escape string must be empty or one character.");
                 }
                 const char escape = e[i].empty() ? 0 : e[i][0];
                 if (!last || last_pattern != p[i] || last_escape != escape) {
                   last = std::make_unique<LikeMatcher>(p[i], escape);
                   last_pattern = p[i];
                   last_escape = escape;
                 }
                 o[i] = last->Match(s[i]);
               });
             });
}

// translate, overlay, to_hex, num_nulls / num_nonnulls: as PostgreSQL's.
void RegisterMoreStringFunctions(FunctionRegistry& r) {
  // translate(s, from, to): each character of `from` in s becomes the one at
  // its place in `to` (the first place it has in `from`), or is dropped when
  // `to` is shorter.
  r.Register("translate", {TypeId::kText, TypeId::kText, TypeId::kText}, Type::Text(),
             RowString([](const ScalarArgs& a, uint32_t i, std::string* out) {
               const std::vector<Sv> from = Split(Str(a, 1, i));
               const std::vector<Sv> to = Split(Str(a, 2, i));
               for (Sv c : Split(Str(a, 0, i))) {
                 auto at = std::find(from.begin(), from.end(), c);
                 if (at == from.end()) {
                   out->append(c);
                 } else if (static_cast<size_t>(at - from.begin()) < to.size()) {
                   out->append(to[static_cast<size_t>(at - from.begin())]);
                 }
               }
             }));
  // overlay(s PLACING r FROM start [FOR count]): the characters of s before
  // start, r, then those from start + count (count: r's length by default).
  auto overlay = [](const ScalarArgs& a, uint32_t i, std::string* out) {
    const std::vector<Sv> chars = Split(Str(a, 0, i));
    const Sv replacement = Str(a, 1, i);
    const int64_t start = Int(a, 2, i);
    const int64_t count =
        a.size() > 3 ? Int(a, 3, i) : static_cast<int64_t>(Split(replacement).size());
    // PostgreSQL's textoverlay: substring(s, 1, start - 1) || r ||
    // substring(s, start + count); a negative count repeats characters.
    if (start < 1) throw DbError("22011", "negative substring length not allowed");
    const auto n = static_cast<int64_t>(chars.size());
    for (int64_t k = 0; k < std::min(start - 1, n); ++k) out->append(chars[k]);
    out->append(replacement);
    for (int64_t k = std::max<int64_t>(start - 1 + count, 0); k < n; ++k) out->append(chars[k]);
  };
  r.Register("overlay", {TypeId::kText, TypeId::kText, TypeId::kInteger}, Type::Text(),
             RowString(overlay));
  r.Register("overlay", {TypeId::kText, TypeId::kText, TypeId::kInteger, TypeId::kInteger},
             Type::Text(), RowString(overlay));
  // to_hex: the two's complement digits of a negative number, as PostgreSQL.
  auto hex = [](uint64_t v, std::string* out) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    out->append(buf);
  };
  r.Register("to_hex", {TypeId::kInteger}, Type::Text(),
             RowString([hex](const ScalarArgs& a, uint32_t i, std::string* out) {
               hex(static_cast<uint32_t>(Int(a, 0, i)), out);
             }));
  r.Register("to_hex", {TypeId::kBigInt}, Type::Text(),
             RowString([hex](const ScalarArgs& a, uint32_t i, std::string* out) {
               hex(static_cast<uint64_t>(a[0]->data<int64_t>()[i]), out);
             }));
  // num_nulls / num_nonnulls(VARIADIC "any"): how many arguments are (not) NULL.
  for (const bool nulls : {true, false}) {
    FunctionOverload o;
    o.params = {TypeId::kText};
    o.variadic = true;
    o.any_to_text = true;
    auto f = MakeScalarFunction(
        nulls ? "num_nulls" : "num_nonnulls", Type::Integer(),
        [nulls](const ScalarArgs& a, Rows rows, Vector* out) {
          auto* o = out->mutable_data<int32_t>();
          ForEachRow(rows, [&](uint32_t i) {
            int32_t n = 0;
            for (size_t k = 0; k < a.size(); ++k) n += a[k]->IsNull(i) == nulls ? 1 : 0;
            o[i] = n;
          });
        },
        /*strict=*/false);
    o.bind = [f, nulls](const FunctionBindContext&, std::vector<ExprPtr>& args) {
      if (args.empty()) {
        throw DbError(sqlstate::kUndefinedFunction, std::string("function ") +
                                                        (nulls ? "num_nulls" : "num_nonnulls") +
                                                        "() does not exist");
      }
      return f;
    };
    r.Register(nulls ? "num_nulls" : "num_nonnulls", std::move(o));
  }
}

void RegisterStringFunctions(FunctionRegistry& r) {
  RegisterRowLike(r);
  RegisterMoreStringFunctions(r);
  RegisterByteaFunctions(r);
  RegisterDigests(r);
  const std::vector<TypeId> kS = {TypeId::kText};
  const std::vector<TypeId> kSS = {TypeId::kText, TypeId::kText};
  const std::vector<TypeId> kSI = {TypeId::kText, TypeId::kInteger};
  r.Register("upper", kS, Type::Text(),
             StringToString([](Sv s, std::string* out) { AsciiCase(s, true, out); }));
  r.Register("lower", kS, Type::Text(),
             StringToString([](Sv s, std::string* out) { AsciiCase(s, false, out); }));
  r.Register("initcap", kS, Type::Text(), StringToString([](Sv s, std::string* out) {
               AsciiCase(s, false, out);
               bool word = false;
               for (char& c : *out) {
                 if (!word && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
                 word = IsAlnum(c);
               }
             }));
  for (const char* name : {"length", "char_length", "character_length"}) {
    RegisterLength(r, name, false);
  }
  RegisterLength(r, "octet_length", true);
  RegisterTrim(r, "btrim", true, true);
  RegisterTrim(r, "ltrim", true, false);
  RegisterTrim(r, "rtrim", false, true);
  r.Register("replace", {TypeId::kText, TypeId::kText, TypeId::kText}, Type::Text(),
             RowString([](const ScalarArgs& a, uint32_t i, std::string* out) {
               Sv s = Str(a, 0, i), from = Str(a, 1, i), to = Str(a, 2, i);
               if (from.empty()) {
                 out->assign(s);
                 return;
               }
               size_t p = 0;
               while (true) {
                 size_t at = s.find(from, p);
                 if (at == Sv::npos) break;
                 out->append(s.substr(p, at - p)).append(to);
                 p = at + from.size();
               }
               out->append(s.substr(p));
             }));
  r.Register("strpos", kSS, Type::Integer(),
             RowKernel<int32_t>([](const ScalarArgs& a, uint32_t i) {
               return StrPos(Str(a, 0, i), Str(a, 1, i));
             }));
  // position(sub IN s): the parser passes (sub, s).
  r.Register("position", kSS, Type::Integer(),
             RowKernel<int32_t>([](const ScalarArgs& a, uint32_t i) {
               return StrPos(Str(a, 1, i), Str(a, 0, i));
             }));
  for (bool left : {true, false}) {
    r.Register(left ? "left" : "right", kSI, Type::Text(),
               [left](const ScalarArgs& a, Rows rows, Vector* out) {
                 out->ShareAuxiliary(*a[0]);
                 Sv* o = out->mutable_data<Sv>();
                 ForEachRow(
                     rows, [&](uint32_t i) { o[i] = LeftRight(Str(a, 0, i), Int(a, 1, i), left); });
               });
  }
  RegisterPad(r, "lpad", true);
  RegisterPad(r, "rpad", false);
  RegisterConcat(r);
  r.Register("textcat", kSS, Type::Text(),
             RowString([](const ScalarArgs& a, uint32_t i, std::string* out) {
               out->append(Str(a, 0, i)).append(Str(a, 1, i));
             }));
  r.Register("repeat", kSI, Type::Text(),
             RowString([](const ScalarArgs& a, uint32_t i, std::string* out) {
               Sv s = Str(a, 0, i);
               int32_t n = Int(a, 1, i);
               if (n <= 0 || s.empty()) return;
               CheckLength(static_cast<int64_t>(s.size()) * n);
               for (int32_t k = 0; k < n; ++k) out->append(s);
             }));
  r.Register("reverse", kS, Type::Text(), StringToString([](Sv s, std::string* out) {
               std::vector<Sv> cps = Split(s);
               for (auto it = cps.rbegin(); it != cps.rend(); ++it) out->append(*it);
             }));
  r.Register("split_part", {TypeId::kText, TypeId::kText, TypeId::kInteger}, Type::Text(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               out->ShareAuxiliary(*a[0]);
               Sv* o = out->mutable_data<Sv>();
               ForEachRow(rows, [&](uint32_t i) {
                 o[i] = SplitPart(Str(a, 0, i), Str(a, 1, i), Int(a, 2, i));
               });
             });
  r.Register("starts_with", kSS, Type::Boolean(),
             RowKernel<uint8_t>([](const ScalarArgs& a, uint32_t i) -> uint8_t {
               return Str(a, 0, i).starts_with(Str(a, 1, i));
             }));
  r.Register("ascii", kS, Type::Integer(), RowKernel<int32_t>([](const ScalarArgs& a, uint32_t i) {
               Sv s = Str(a, 0, i);
               if (s.empty()) return 0;
               auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
               uint8_t c = b(0);
               if (c < 0x80 || s.size() < 2) return static_cast<int32_t>(c);
               if (c < 0xE0) return ((c & 0x1F) << 6) | (b(1) & 0x3F);
               if (c < 0xF0 || s.size() < 4) {
                 return s.size() < 3 ? static_cast<int32_t>(c)
                                     : ((c & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
               }
               return ((c & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) |
                      (b(3) & 0x3F);
             }));
  r.Register("chr", {TypeId::kInteger}, Type::Text(),
             RowString([](const ScalarArgs& a, uint32_t i, std::string* out) {
               int32_t c = Int(a, 0, i);
               if (c == 0) {
                 throw DbError("54000", "null character not permitted");
               }
               if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
                 throw DbError("54000",
                               "requested character too large for encoding: " + std::to_string(c));
               }
               if (c < 0x80) {
                 out->push_back(static_cast<char>(c));
               } else if (c < 0x800) {
                 out->push_back(static_cast<char>(0xC0 | (c >> 6)));
                 out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
               } else if (c < 0x10000) {
                 out->push_back(static_cast<char>(0xE0 | (c >> 12)));
                 out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
                 out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
               } else {
                 out->push_back(static_cast<char>(0xF0 | (c >> 18)));
                 out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
                 out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
                 out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
               }
             }));
}

}  // namespace forktail
