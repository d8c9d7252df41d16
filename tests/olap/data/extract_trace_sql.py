#!/usr/bin/env python3
"""Extracts the SQL texts of Query and Parse messages from the client traces
recorded with /work/shared/clients/pgproxy.py into parser_traces.sql, one
statement string per line with \\n, \\r, \\t and \\\\ escaped, de-duplicated,
in first-seen order. Usage: extract_trace_sql.py TRACE... > parser_traces.sql
"""
import ast
import re
import sys

QUERY = re.compile(r"^\[\d+\] F Query (.*)$")
PARSE = re.compile(r"^\[\d+\] F Parse stmt=(?:'[^']*'|\"[^\"]*\") paramOIDs=\[[^\]]*\] query=(.*)$")


def main():
    seen = set()
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                m = QUERY.match(line) or PARSE.match(line)
                if not m:
                    continue
                try:
                    text = ast.literal_eval(m.group(1))
                except SyntaxError:
                    continue  # a record cut off at the end of a .head trace
                if isinstance(text, bytes):
                    text = text.decode("utf-8")
                if text in seen:
                    continue
                seen.add(text)
                esc = (text.replace("\\", "\\\\").replace("\n", "\\n")
                       .replace("\r", "\\r").replace("\t", "\\t"))
                print(esc)


if __name__ == "__main__":
    main()
