#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/<target>/ from the project's tests.

  sql_parser      statements of the sqllogictest files (tests/**/*.slt), the
                  psql scripts (tests/**/*.sql), SQL string literals of the
                  parser's unit tests, and the statements in the client traces
                  (/work/shared/clients/*.trace, go_tpc_statements.sql) when present
  wire_message    frontend messages as the clients in those traces send them,
                  encoded here as server/messages.h encodes them, and a SCRAM
                  exchange that authenticates
  bind_parameter  text and binary forms of every parameter type
  wal_log         a WAL segment written by `forktail serve` (fuzz/seeds/) and
                  its prefixes; control byte 0 (as is) and 3 (re-stamped)
  redo_record     that segment's records grouped by transaction
  copy            text, CSV and binary COPY data

Deterministic: the same inputs give the same files (named by content hash).
Usage: fuzz/make_corpus.py [--clients DIR]   (run from the repository root)
"""
import argparse
import ast
import glob
import hashlib
import hmac
import os
import re
import shutil
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "fuzz")
MAX_SQL = 400


def write(target, items):
    out = os.path.join(FUZZ, "corpus", target)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    seen = set()
    for data in items:
        if isinstance(data, str):
            data = data.encode()
        h = hashlib.sha1(data).hexdigest()[:16]
        if h in seen:
            continue
        seen.add(h)
        with open(os.path.join(out, h), "wb") as f:
            f.write(data)
    print(f"{target}: {len(seen)} files")


def slt_statements(path):
    stmts, cur, collecting = [], [], False
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith(("statement", "query")):
            collecting, cur = True, []
        elif collecting and (line == "" or line == "----"):
            if cur:
                stmts.append("\n".join(cur))
            collecting = False
        elif collecting:
            cur.append(line)
    return stmts


def sql_scripts(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    lines = [l for l in text.splitlines() if not l.startswith("\\")]
    return [s.strip() + ";" for s in "\n".join(lines).split(";\n") if s.strip()]


SQL_START = re.compile(r"^\s*(select|insert|update|delete|create|drop|alter|with|values|copy|"
                       r"begin|commit|rollback|set|show|reset|explain|truncate|declare|fetch|"
                       r"close|move|vacuum|analyze|discard|deallocate|start|end|abort|table)\b",
                       re.I)


def test_literals(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    out = []
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text):
        try:
            s = ast.literal_eval('"' + m.group(1) + '"')
        except (SyntaxError, ValueError):
            continue
        if SQL_START.match(s) and len(s) > 8:
            out.append(s)
    return out


def trace_messages(clients):
    """(type, fields) of frontend messages in the client traces."""
    msgs = []
    for path in sorted(glob.glob(os.path.join(clients, "*.trace"))):
        for line in open(path, encoding="utf-8", errors="replace"):
            m = re.match(r"\[\d+\] F (\w+) ?(.*)", line.rstrip("\n"))
            if m:
                msgs.append((m.group(1), m.group(2)))
    return msgs


def kv(rest, key):
    m = re.search(key + r"=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)", rest)
    if not m:
        return None
    v = m.group(1)
    try:
        return ast.literal_eval(v)
    except (SyntaxError, ValueError):
        return v


def sql_corpus(clients):
    stmts = []
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "**", "*.slt"), recursive=True)):
        stmts += slt_statements(p)
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "**", "*.sql"), recursive=True)):
        stmts += sql_scripts(p)
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "olap", "**", "*.cc"), recursive=True)):
        stmts += test_literals(p)
    if clients and os.path.isdir(clients):
        go = os.path.join(clients, "go_tpc_statements.sql")
        if os.path.exists(go):
            stmts += [l.strip() for l in open(go) if l.strip()]
        for kind, rest in trace_messages(clients):
            if kind in ("Query", "Parse"):
                q = kv(rest, "query")
                if isinstance(q, str):
                    stmts.append(q)
    # Unique, then an even sample by hash so the corpus stays small.
    uniq = sorted(set(s for s in stmts if s.strip()), key=lambda s: hashlib.sha1(s.encode()).digest())
    return uniq[:MAX_SQL]


def cstr(s):
    return s.encode() + b"\0"


def i16(v):
    return struct.pack(">h", v)


def i32(v):
    return struct.pack(">i", v)


def parse_body(name, query, oids):
    return cstr(name) + cstr(query) + i16(len(oids)) + b"".join(i32(o) for o in oids)


def bind_body(portal, stmt, formats, params, results):
    b = cstr(portal) + cstr(stmt) + i16(len(formats)) + b"".join(i16(f) for f in formats)
    b += i16(len(params))
    for p in params:
        b += i32(-1) if p is None else i32(len(p)) + p
    return b + i16(len(results)) + b"".join(i16(f) for f in results)


def startup(params):
    return i32(196608) + b"".join(cstr(k) + cstr(v) for k, v in params.items()) + b"\0"


def scram_seed():
    # The fuzz target's verifier: password "pencil", salt "salt-bytes", 1
    # iteration, server nonce "snonce" (wire_message_fuzzer.cc).
    import base64
    salted = hashlib.pbkdf2_hmac("sha256", b"pencil", b"salt-bytes", 1)
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    stored = hashlib.sha256(client_key).digest()
    first_bare = "n=,r=cnonce"
    server_first = "r=cnoncesnonce,s=%s,i=1" % base64.b64encode(b"salt-bytes").decode()
    final_wo = "c=biws,r=cnoncesnonce"
    auth = ",".join([first_bare, server_first, final_wo]).encode()
    sig = hmac.new(stored, auth, "sha256").digest()
    proof = bytes(a ^ b for a, b in zip(client_key, sig))
    final = final_wo + ",p=" + base64.b64encode(proof).decode()
    return [b"s" + ("n,," + first_bare).encode() + b"\0" + final.encode(),
            b"s" + ("n,," + first_bare).encode(),
            b"s" + b"n,,n=,r=cnonce\0c=biws,r=cnoncesnonce,p=AAAA"]


def wire_corpus(clients):
    items = []
    if clients and os.path.isdir(clients):
        for kind, rest in trace_messages(clients):
            if kind == "Parse":
                oids = kv(rest, "paramOIDs")
                oids = oids if isinstance(oids, list) else []
                items.append(b"P" + parse_body(kv(rest, "stmt") or "", kv(rest, "query") or "", oids))
            elif kind == "Query":
                q = kv(rest, "query")
                if isinstance(q, str):
                    items.append(b"Q" + cstr(q))
            elif kind == "StartupMessage":
                m = re.search(r"(\{.*\})", rest)
                if m:
                    items.append(b"\0" + startup(ast.literal_eval(m.group(1))))
    items += [
        b"\0" + i32(80877103), b"\0" + i32(80877104), b"\0" + i32(80877102) + i32(1234) + i32(5678),
        b"\0" + i32(196608) + cstr("user") + cstr("postgres") + b"\0",
        b"\0" + i32(0x00020000),
        b"P" + parse_body("s1", "select $1::int + $2", [23, 20]),
        b"B" + bind_body("", "s1", [1], [i32(7), struct.pack(">q", 9)], [1]),
        b"B" + bind_body("p", "s1", [0, 1], [b"42", None], []),
        b"B" + bind_body("", "", [], [], [0, 1, 0]),
        b"D" + b"S" + cstr("s1"), b"D" + b"P" + cstr(""), b"C" + b"S" + cstr("s1"),
        b"C" + b"P" + cstr("p"),
        b"E" + cstr("") + i32(0), b"E" + cstr("p") + i32(10),
        b"Q" + cstr("select 1; select 2"), b"f" + cstr("COPY aborted by client"),
        b"p" + cstr("SCRAM-SHA-256") + i32(13) + b"n,,n=,r=abcde",
        b"p" + cstr("SCRAM-SHA-256") + i32(-1),
    ] + scram_seed()
    return items


def bind_corpus():
    # Byte 0: bit 7 binary, bits 0-4 index into kClientOids; byte 1 the target
    # (bind_parameter_fuzzer.cc).
    oids = {0: 0, 16: 1, 18: 2, 19: 3, 20: 4, 21: 5, 23: 6, 25: 7, 26: 8, 700: 9, 701: 10,
            705: 11, 1042: 12, 1043: 13, 1082: 14, 1114: 15, 1184: 16, 1700: 17}
    text = {
        16: ["t", "false", "yes", " on ", "0"], 20: ["-9223372036854775808", "42", " 7 "],
        21: ["32767", "-32768", "1e3"], 23: ["2147483647", "+12", "0x10"],
        701: ["1.5", "-0", "NaN", "Infinity", "1e308", "-1.7976931348623157e308", "4.9e-324"],
        1700: ["12.345", "-0.001", "NaN", "1e20", "99999999999999999999.9999999999", ".5"],
        25: ["hello", "caf\u00e9", ""], 1082: ["2024-01-02", "0001-01-01", "9999-12-31", "epoch"],
        1114: ["2024-01-02 03:04:05.678", "2024-01-02T03:04:05", "infinity"],
        1184: ["2024-01-02 03:04:05+02", "2024-01-02 03:04:05 Europe/Paris", "2024-01-02 00:00Z"],
        1042: ["ab"], 1043: ["abcdef"], 0: ["17", "2024-01-02", "x"], 705: ["u"],
    }
    binary = {
        16: [b"\1", b"\0"], 21: [i16(-2)], 23: [i32(123456)], 20: [struct.pack(">q", -5)],
        701: [struct.pack(">d", 2.5)], 700: [struct.pack(">f", 0.25)], 26: [i32(-1)],
        1082: [i32(8767), i32(-730119)], 1114: [struct.pack(">q", 757_382_400_000_000)],
        1184: [struct.pack(">q", -1)],
        # numeric: ndigits weight sign dscale digits: 12.3400, NaN, -0.0001
        1700: [struct.pack(">hhHhhh", 2, 0, 0, 4, 12, 3400), struct.pack(">hhHh", 0, 0, 0xC000, 0),
               struct.pack(">hhHhh", 1, -1, 0x4000, 4, 1)],
        25: [b"bin"], 1043: [b"v"],
    }
    items = []
    targets = range(18)
    for oid, values in text.items():
        for i, v in enumerate(values):
            items.append(bytes([oids[oid], targets[(oid + i) % 18]]) + v.encode())
            items.append(bytes([oids[oid], 0]) + v.encode())
    for oid, values in binary.items():
        for i, v in enumerate(values):
            items.append(bytes([0x80 | oids[oid], targets[(oid + i) % 18]]) + v)
            items.append(bytes([0x80 | oids[oid], 0]) + v)
    return items


def wal_records(segment):
    pos, out = 32, []
    while pos + 32 <= len(segment):
        length = struct.unpack_from("<I", segment, pos + 4)[0]
        if length == 0 and segment[pos + 24] == 0:
            break
        out.append((pos, segment[pos + 24], struct.unpack_from("<Q", segment, pos + 16)[0],
                    segment[pos + 32:pos + 32 + length]))
        pos += 32 + length
    return out


def wal_corpus(segment):
    recs = wal_records(segment)
    ends = [r[0] + 32 + len(r[3]) for r in recs]
    items = [b"\0" + segment[:32], b"\3" + segment[:32]]
    # Prefixes ending after each transaction's commit (and one torn in the middle).
    for i, r in enumerate(recs):
        if r[1] == 4 and ends[i] <= 4096:
            items.append(b"\0" + segment[:ends[i]])
            items.append(b"\0" + segment[:ends[i]] + b"\0" * 64)
            items.append(b"\0" + segment[:ends[i] + 20])
    items.append(b"\0" + segment)
    items.append(b"\3" + segment[:ends[min(40, len(ends) - 1)]])
    return items


def redo_corpus(segment):
    items, cur = [], b""
    for _, typ, _, payload in wal_records(segment):
        cur += bytes([typ]) + struct.pack("<H", len(payload)) + payload
        if typ == 4:
            items.append(cur)
    # One transaction each, and the whole history (DDL before DML) in prefixes.
    singles, cur = [], b""
    for _, typ, _, payload in wal_records(segment):
        if typ == 4:
            singles.append(cur)
            cur = b""
        else:
            cur += bytes([typ]) + struct.pack("<H", len(payload)) + payload
    return [items[i] for i in range(0, len(items), max(1, len(items) // 40))] + singles[:80]


def copy_corpus():
    def bin_copy(rows, ncols):
        out = b"PGCOPY\n\xff\r\n\0" + i32(0) + i32(0)
        for row in rows:
            out += i16(ncols)
            for f in row:
                out += i32(-1) if f is None else i32(len(f)) + f
        return out + i16(-1)
    text = [
        b"1\tone\t\\N\n2\ttwo\t3.5\n", b"a\\tb\t\\x41\\101\\\\\n\\.\nignored\n",
        b"1\t2\r\n3\t4\r\n", b"x\\\ny\n", b"1\t2\t3\n4\n", b"\\N\t\n", b"caf\xc3\xa9\t\xff\n",
        b"1|2|NULL\n", b"only\n\\.\n",
    ]
    csv = [
        b'1,"a,b",\n2,"say ""hi""",x\n', b'id,name\n1,ann\n', b'"multi\nline",2\r\n3,4\r\n',
        b"1,'q''uoted',\\'\n", b'"unterminated\n', b'1,2\n\\.\n3,4\n', b'a|b|NULL\n',
    ]
    items = []
    for c in (0, 4, 16, 0x20, 0x84, 0xA0, 0xE0):
        items += [bytes([c]) + t for t in text]
    for c in (1, 3, 5, 9, 0x21, 0x41, 0x89, 0xE1, 0x13):
        items += [bytes([c]) + t for t in csv]
    # binary: bits 2-4 = columns - 1
    rows2 = [[i32(1), b"one"], [None, b""], [i32(-7), None]]
    items += [bytes([2 | (1 << 2)]) + bin_copy(rows2, 2),
              bytes([2 | (1 << 2) | 0x20]) + bin_copy(rows2, 2),
              bytes([2]) + bin_copy([[b"x"]], 1),
              bytes([2]) + b"PGCOPY\n\xff\r\n\0" + i32(0x10000) + i32(0),
              bytes([2]) + b"PGCOPY\n\xff\r\n\0" + i32(0) + i32(4) + b"extn" + i16(1) + i32(2) + b"ab",
              bytes([2 | (2 << 2)]) + bin_copy([[b"a", b"b", b"c"]], 3)[:-2] + i16(1)]
    return items


def sql_dict():
    """libFuzzer dictionary: PostgreSQL's keywords (olap/parser/keywords.cc) and tokens."""
    kw = re.findall(r'\{"([a-z_]+)", k', open(os.path.join(ROOT, "olap/parser/keywords.cc")).read())
    tokens = ["::", "<=", ">=", "<>", "!=", "||", "$1", "E'", "U&'", "$$", "$t$", "/*", "*/", "--",
              "'", '"', "(", ")", "[", "]", ",", ";", ".", "*", "+", "-", "/", "%", "^", "~", "@",
              "1e10", "0x1F", ".5"]
    path = os.path.join(FUZZ, "sql_parser.dict")
    with open(path, "w") as f:
        f.write("# Generated by fuzz/make_corpus.py: PostgreSQL keywords and tokens.\n")
        for t in sorted(set(kw)) + tokens:
            f.write('"%s"\n' % t.replace("\\", "\\\\").replace('"', '\\"'))
    print(f"sql_parser.dict: {len(set(kw)) + len(tokens)} entries")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", default="/work/shared/clients")
    args = ap.parse_args()
    write("sql_parser", sql_corpus(args.clients))
    sql_dict()
    write("wire_message", wire_corpus(args.clients))
    write("bind_parameter", bind_corpus())
    segment = open(os.path.join(FUZZ, "seeds", "wal_segment.wal"), "rb").read()
    write("wal_log", wal_corpus(segment))
    write("redo_record", redo_corpus(segment))
    write("copy", copy_corpus())


if __name__ == "__main__":
    main()
