#!/usr/bin/env python3
"""Writes tests/server/e2e/slt/go_tpc_tpcc.slt: every statement go-tpc sends
for `tpcc prepare`, `tpcc run` and `tpcc check` (../shared/clients/
go_tpc_statements.sql) with PostgreSQL 15's answers on a small data set.

  scripts/go_tpc/make_replay_slt.py STATEMENTS.sql OUT.slt --port P [--user U --db D]

Needs a PostgreSQL 15 on 127.0.0.1:P (scripts/lib/postgres_peer.sh starts
one). Each parameter $n becomes a quoted literal, which takes its type from
its context exactly as lib/pq's untyped parameters do: integers '1' (in an
INSERT '100' + n, so that the rows' keys are new), numerics '0.5' (fits DECIMAL(4,4)),
timestamps '2024-01-01 00:00:00', text 'GC' (short enough for CHAR(2); the
data set's customers 1 and 2 are named so). Every statement of `run` and
`check` runs inside BEGIN ... ROLLBACK, so each sees the same data; its
expected result is PostgreSQL's rows, or its error's message.
"""
import argparse
import re
import sys

import psycopg

SECTIONS = ('tpcc prepare', 'tpcc run', 'tpcc check')

DATA = [
    "INSERT INTO warehouse VALUES (1, 'wh1', 'st1', 'st2', 'city', 'ST', '123456789', 0.1000, 300000.00)",
    "INSERT INTO district VALUES (1, 1, 'd1', 's1', 's2', 'c', 'ST', '111111111', 0.0500, 30000.00, 3),"
    " (2, 1, 'd2', 's1', 's2', 'c', 'ST', '222222222', 0.0700, 30000.00, 2)",
    "INSERT INTO customer VALUES"
    " (1, 1, 1, 'ann', 'OE', 'GC', 's1', 's2', 'c', 'ST', '1', '555', '2024-01-01 00:00:00', 'GC', 50000.00, 0.1000, -10.00, 10.00, 1, 0, 'data1'),"
    " (2, 1, 1, 'bob', 'OE', 'GC', 's1', 's2', 'c', 'ST', '1', '555', '2024-01-01 00:00:00', 'BC', 50000.00, 0.2000, -20.00, 20.00, 1, 0, 'data2'),"
    " (3, 1, 1, 'cy', 'OE', 'OUGHTABLE', 's1', 's2', 'c', 'ST', '1', '555', '2024-01-01 00:00:00', 'GC', 50000.00, 0.0500, -30.00, 30.00, 1, 0, 'data3'),"
    " (1, 2, 1, 'dee', 'OE', 'GC', 's1', 's2', 'c', 'ST', '1', '555', '2024-01-01 00:00:00', 'GC', 50000.00, 0.0000, -5.00, 5.00, 1, 0, 'data4')",
    "INSERT INTO history VALUES (1, 1, 1, 1, 1, '2024-01-01 00:00:00', 10.00, 'h1'), (2, 1, 1, 1, 1, '2024-01-02 00:00:00', 20.00, 'h2')",
    "INSERT INTO item VALUES (1, 11, 'item1', 1.50, 'ORIGINAL1'), (2, 12, 'item2', 2.50, 'data2'), (3, 13, 'item3', 3.00, 'data3')",
    "INSERT INTO stock VALUES"
    " (1, 1, 10, 'd01', 'd02', 'd03', 'd04', 'd05', 'd06', 'd07', 'd08', 'd09', 'd10', 0, 0, 0, 'ORIGINAL'),"
    " (2, 1, 5, 'd01', 'd02', 'd03', 'd04', 'd05', 'd06', 'd07', 'd08', 'd09', 'd10', 0, 0, 0, 'sdata'),"
    " (3, 1, 20, 'd01', 'd02', 'd03', 'd04', 'd05', 'd06', 'd07', 'd08', 'd09', 'd10', 0, 0, 0, 'sdata')",
    "INSERT INTO orders VALUES (1, 1, 1, 1, '2024-01-01 00:00:00', 5, 2, 1), (2, 1, 1, 2, '2024-01-02 00:00:00', NULL, 1, 1),"
    " (1, 2, 1, 1, '2024-01-01 00:00:00', NULL, 1, 1)",
    "INSERT INTO new_order VALUES (2, 1, 1), (1, 2, 1)",
    "INSERT INTO order_line VALUES (1, 1, 1, 1, 1, 1, '2024-01-01 00:00:00', 5, 7.50, 'dist1'),"
    " (1, 1, 1, 2, 2, 1, '2024-01-01 00:00:00', 3, 7.50, 'dist2'), (2, 1, 1, 1, 3, 1, NULL, 2, 6.00, 'dist3'),"
    " (1, 2, 1, 1, 1, 1, NULL, 1, 1.50, 'dist4')",
]


def statements(path):
    """(section, statement text) for each statement of the given sections."""
    out, section = [], None
    for part in re.split(r'^-- ((?:tpcc|ch) [a-z]+)[^\n]*\n', open(path).read(), flags=re.M):
        if re.fullmatch(r'(tpcc|ch) [a-z]+', part):
            section = part
            continue
        if section not in SECTIONS:
            continue
        body = '\n'.join(line for line in part.split('\n') if not line.startswith('--'))
        for text in body.split(';'):
            text = text.strip()
            if text:
                out.append((section, text))
    return out


def literal(type_name, n, insert):
    if type_name in ('integer', 'bigint', 'smallint'):
        return f"'{100 + n}'" if insert else "'1'"
    if type_name == 'numeric':
        return "'0.5'"
    if type_name.startswith('timestamp'):
        return "'2024-01-01 00:00:00'"
    return "'GC'"


def with_literals(conn, text):
    """`text` with each $n replaced by a literal of the type PostgreSQL infers."""
    if not re.search(r'\$\d', text):
        return text
    res = conn.pgconn.prepare(b'', text.encode())
    if res.error_message:
        raise RuntimeError(res.error_message.decode())
    desc = conn.pgconn.describe_prepared(b'')
    types = []
    for i in range(desc.nparams):
        row = conn.execute('SELECT format_type(%s, NULL)', (desc.param_type(i),)).fetchone()
        types.append(row[0])
    insert = text.lstrip().upper().startswith('INSERT')
    return re.sub(r'\$(\d+)',
                  lambda m: literal(types[int(m.group(1)) - 1], int(m.group(1)), insert), text)


def run(conn, sql):
    """(error message or None, column count, rows of PostgreSQL's text values)."""
    res = conn.pgconn.exec_(sql.encode())
    if res.error_message:
        return res.error_field(psycopg.pq.DiagnosticField.MESSAGE_PRIMARY).decode(), 0, None
    rows = None
    if res.nfields > 0:
        rows = [[res.get_value(r, c) for c in range(res.nfields)] for r in range(res.ntuples)]
    return None, res.nfields, rows


def one_line(text):
    return ' '.join(text.split())


def render(value):
    if value is None:
        return 'NULL'
    s = value.decode()
    return s if s != '' else '(empty)'


def table(rows):
    """The rows as `rowsort` compares them: sorted by their values' text."""
    return [' '.join(r) for r in sorted([render(v) for v in row] for row in rows)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('statements')
    ap.add_argument('out')
    ap.add_argument('--port', type=int, required=True)
    ap.add_argument('--user', default='postgres')
    ap.add_argument('--db', default='postgres')
    args = ap.parse_args()
    conn = psycopg.connect(host='127.0.0.1', port=args.port, user=args.user, dbname=args.db,
                           autocommit=True)
    out = [
        '# Every statement go-tpc (github.com/pingcap/go-tpc, lib/pq) sends for',
        '# `tpcc prepare`, `tpcc run` and `tpcc check`, with PostgreSQL 15\'s',
        '# answers on a small data set. Generated by scripts/go_tpc/make_replay_slt.py',
        '# from ../shared/clients/go_tpc_statements.sql; do not edit by hand.',
        '# Run by tests/server/slt_test.cc with --engine postgres only: the runner\'s',
        '# extended engine cannot read CHAR(n) results ("Don\'t support bpchar type").',
        '',
    ]
    tables = ['history', 'new_order', 'order_line', 'orders', 'stock', 'item', 'customer',
              'district', 'warehouse']
    for t in tables:
        conn.execute(f'DROP TABLE IF EXISTS {t}')
        out += ['statement ok', f'DROP TABLE IF EXISTS {t}', '']
    seen = set()
    loaded = False
    for section, text in statements(args.statements):
        if text in seen:
            continue
        seen.add(text)
        upper = text.upper()
        if section == 'tpcc prepare' and upper.startswith('CREATE'):
            conn.execute(text)
            out += ['statement ok', one_line(text), '']
            continue
        if not loaded and section != 'tpcc prepare':
            for d in DATA:
                conn.execute(d)
                out += ['statement ok', d, '']
            loaded = True
        if upper in ('BEGIN READ WRITE', 'COMMIT', 'ROLLBACK'):
            continue  # every statement below runs in BEGIN ... ROLLBACK
        sql = one_line(with_literals(conn, text))
        # PostgreSQL's own text output of every value (as the simple protocol
        # sends it); after a write, the written table as the block sees it.
        conn.execute('BEGIN')
        error, ncols, rows = run(conn, sql)
        written = re.match(r'(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)', sql, re.I)
        check = None
        if written and error is None:
            check = f'SELECT * FROM {written.group(1)}'
            check_result = run(conn, check)
        conn.execute('ROLLBACK')
        out += ['statement ok', 'BEGIN', '']
        if error is not None:
            out += [f'statement error {re.escape(error)}', sql, '']
        elif rows is None:
            out += ['statement ok', sql, '']
        else:
            out += [f'query {"T" * ncols} rowsort', sql, '----']
            out += table(rows)
            out += ['']
        if check:
            _, check_cols, check_rows = check_result
            out += [f'query {"T" * check_cols} rowsort', check, '----']
            out += table(check_rows)
            out += ['']
        out += ['statement ok', 'ROLLBACK', '']
    open(args.out, 'w').write('\n'.join(out).rstrip('\n') + '\n')
    print(f'{len(seen)} statements', file=sys.stderr)


if __name__ == '__main__':
    main()
