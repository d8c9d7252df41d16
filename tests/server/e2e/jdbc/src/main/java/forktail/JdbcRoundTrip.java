// pgJDBC 42.7.4 against `forktail serve` (run by tests/server/jdbc_test.cc
// with the port as its argument). pgJDBC switches a PreparedStatement to a
// named server-side statement at its 5th execution (prepareThreshold) and from
// then on asks for binary results of int4, int8, float8, numeric, date and
// timestamp, so every check below runs a statement 12 times: the first
// executions read text, the later ones binary. Prints one line per check and
// "N passed, N failed" last; exits 1 when a check failed.
package forktail;

import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.Objects;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

public final class JdbcRoundTrip {
  private static int passed = 0;
  private static int failed = 0;

  private static void check(String what, Object expected, Object actual) {
    if (Objects.equals(expected, actual)) {
      passed++;
    } else {
      failed++;
      System.out.println("FAIL " + what + ": expected <" + expected + "> got <" + actual + ">");
    }
  }

  // One row of every type; row 0 is all NULLs but its id.
  private static final int kRows = 12;

  private static Object[] row(int i) {
    if (i == 0) return new Object[] {0, null, null, null, null, null, null, null, null};
    return new Object[] {
      i,
      (long) i * 10_000_000_000L - 3,
      new BigDecimal(String.format("%d.%02d", i * 1234 - 7000, i % 100)),
      i * 1.5e-3 - 7.25,
      "text 'quoted' ü " + i,
      "v" + i,
      Date.valueOf(String.format("20%02d-%02d-%02d", i + 10, i, i + 10)),
      Timestamp.valueOf(String.format("19%02d-01-02 03:04:%02d.%06d", 60 + i, i, i * 1001)),
      i % 2 == 0
    };
  }

  private static void bind(PreparedStatement ps, Object[] r) throws SQLException {
    ps.setInt(1, (Integer) r[0]);
    if (r[1] == null) ps.setNull(2, Types.BIGINT); else ps.setLong(2, (Long) r[1]);
    ps.setBigDecimal(3, (BigDecimal) r[2]);
    if (r[3] == null) ps.setNull(4, Types.DOUBLE); else ps.setDouble(4, (Double) r[3]);
    ps.setString(5, (String) r[4]);
    ps.setString(6, (String) r[5]);
    ps.setDate(7, (Date) r[6]);
    ps.setTimestamp(8, (Timestamp) r[7]);
    if (r[8] == null) ps.setNull(9, Types.BOOLEAN); else ps.setBoolean(9, (Boolean) r[8]);
  }

  private static void checkRow(String what, ResultSet rs, Object[] r) throws SQLException {
    check(what + " id", r[0], rs.getInt(1));
    check(what + " bigint", r[1], rs.getObject(2));
    check(what + " numeric", r[2], rs.getBigDecimal(3));
    check(what + " double", r[3], rs.getObject(4));
    check(what + " text", r[4], rs.getString(5));
    check(what + " varchar", r[5], rs.getString(6));
    check(what + " date", r[6], rs.getDate(7));
    check(what + " timestamp", r[7], rs.getTimestamp(8));
    check(what + " boolean", r[8], rs.getObject(9));
  }

  private static long count(Connection c, String table) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String sqlState(Connection c, String sql) {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
      return "no error";
    } catch (SQLException e) {
      return e.getSQLState();
    }
  }

  // DatabaseMetaData over a small table; the expected lines are what the
  // same calls print against PostgreSQL 15 (getPrimaryKeys runs pgJDBC's
  // query with information_schema._pg_expandarray in its select list;
  // getColumns uses row_number() OVER; getImportedKeys / getExportedKeys
  // read pg_constraint's conkey[n] and confkey[n]).
  private static void metaData(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS mtc");
      st.execute("DROP TABLE IF EXISTS mt");
      st.execute("CREATE TABLE mt (id int PRIMARY KEY, name varchar(20) NOT NULL, "
          + "amount numeric(10,2), d date)");
      st.execute("CREATE TABLE mtc (id int PRIMARY KEY, mt_id int REFERENCES mt ON DELETE CASCADE)");
    }
    DatabaseMetaData md = c.getMetaData();
    StringBuilder got = new StringBuilder();
    try (ResultSet rs = md.getTables(null, "public", "mt", new String[] {"TABLE"})) {
      while (rs.next()) {
        got.append("table ").append(rs.getString("TABLE_SCHEM")).append('.')
            .append(rs.getString("TABLE_NAME")).append(' ').append(rs.getString("TABLE_TYPE"))
            .append('\n');
      }
    }
    check("getTables", "table public.mt TABLE\n", got.toString());
    got.setLength(0);
    try (ResultSet rs = md.getColumns(null, "public", "mt", null)) {
      while (rs.next()) {
        got.append("col ").append(rs.getString("COLUMN_NAME")).append(' ')
            .append(rs.getInt("DATA_TYPE")).append(' ').append(rs.getString("TYPE_NAME"))
            .append(' ').append(rs.getInt("COLUMN_SIZE")).append(' ')
            .append(rs.getInt("DECIMAL_DIGITS")).append(' ').append(rs.getInt("NULLABLE"))
            .append(' ').append(rs.getInt("ORDINAL_POSITION")).append('\n');
      }
    }
    check("getColumns", "col id 4 int4 10 0 0 1\ncol name 12 varchar 20 0 0 2\n"
        + "col amount 2 numeric 10 2 1 3\ncol d 91 date 13 0 1 4\n", got.toString());
    got.setLength(0);
    try (ResultSet rs = md.getPrimaryKeys(null, "public", "mt")) {
      while (rs.next()) {
        got.append("pk ").append(rs.getString("COLUMN_NAME")).append(' ')
            .append(rs.getInt("KEY_SEQ")).append(' ').append(rs.getString("PK_NAME"))
            .append('\n');
      }
    }
    check("getPrimaryKeys", "pk id 1 mt_pkey\n", got.toString());
    got.setLength(0);
    try (ResultSet rs = md.getSchemas()) {
      while (rs.next()) got.append("schema ").append(rs.getString(1)).append('\n');
    }
    check("getSchemas", "schema information_schema\nschema pg_catalog\nschema public\n",
        got.toString());
    for (boolean imported : new boolean[] {true, false}) {
      got.setLength(0);
      try (ResultSet rs = imported ? md.getImportedKeys(null, "public", "mtc")
                                   : md.getExportedKeys(null, "public", "mt")) {
        while (rs.next()) {
          got.append("fk ").append(rs.getString("PKTABLE_NAME")).append('.')
              .append(rs.getString("PKCOLUMN_NAME")).append(" <- ")
              .append(rs.getString("FKTABLE_NAME")).append('.')
              .append(rs.getString("FKCOLUMN_NAME")).append(' ').append(rs.getInt("KEY_SEQ"))
              .append(" update ").append(rs.getInt("UPDATE_RULE")).append(" delete ")
              .append(rs.getInt("DELETE_RULE")).append(' ').append(rs.getString("FK_NAME"))
              .append(' ').append(rs.getString("PK_NAME")).append(' ')
              .append(rs.getInt("DEFERRABILITY")).append('\n');
        }
      }
      check(imported ? "getImportedKeys" : "getExportedKeys",
          "fk mt.id <- mtc.mt_id 1 update 3 delete 0 mtc_mt_id_fkey mt_pkey 7\n", got.toString());
    }
  }

  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/db";
    try (Connection c = DriverManager.getConnection(url, "tester", "")) {
      DatabaseMetaData md = c.getMetaData();
      check("product name", "PostgreSQL", md.getDatabaseProductName());
      String version = md.getDatabaseProductVersion();
      check("product version is 15.x", true, version.startsWith("15"));
      metaData(c);

      try (Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS jt");
        st.execute("CREATE TABLE jt (id integer PRIMARY KEY, big bigint, num numeric(15,2), "
            + "f double precision, t text, v varchar(20), d date, ts timestamp, b boolean)");
      }

      // Inserts: 12 executions of one PreparedStatement (server-prepared from the 5th).
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO jt VALUES (?,?,?,?,?,?,?,?,?)")) {
        for (int i = 0; i < kRows; i++) {
          bind(ps, row(i));
          check("insert " + i, 1, ps.executeUpdate());
        }
      }
      check("rows after inserts", (long) kRows, count(c, "jt"));

      // Reads: the same statement 12 times, text results first, binary later.
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT id, big, num, f, t, v, d, ts, b FROM jt WHERE id = ?")) {
        for (int i = 0; i < kRows; i++) {
          ps.setInt(1, i);
          try (ResultSet rs = ps.executeQuery()) {
            check("select " + i + " has a row", true, rs.next());
            checkRow("select " + i, rs, row(i));
            check("select " + i + " one row", false, rs.next());
          }
        }
      }

      // Parameters echoed back keep their own type and scale, in both phases.
      try (PreparedStatement ps = c.prepareStatement("SELECT ?, ?, ?, ?::date")) {
        for (int i = 0; i < 8; i++) {
          BigDecimal n = new BigDecimal("12.3" + i);
          ps.setBigDecimal(1, n);
          ps.setLong(2, -i);
          ps.setString(3, "s" + i);
          ps.setDate(4, Date.valueOf("2024-01-0" + (i + 1)));
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            check("echo numeric " + i, n, rs.getBigDecimal(1));
            check("echo bigint " + i, (long) -i, rs.getLong(2));
            check("echo text " + i, "s" + i, rs.getString(3));
            check("echo date " + i, Date.valueOf("2024-01-0" + (i + 1)), rs.getDate(4));
          }
        }
      }

      // Aggregates and a range predicate over a parameter, 10 times.
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT count(*), sum(num), min(d), max(ts) FROM jt WHERE id >= ? AND id < ?")) {
        for (int i = 0; i < 10; i++) {
          ps.setInt(1, 1);
          ps.setInt(2, kRows);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            BigDecimal sum = BigDecimal.ZERO;
            for (int k = 1; k < kRows; k++) sum = sum.add((BigDecimal) row(k)[2]);
            check("agg count " + i, (long) kRows - 1, rs.getLong(1));
            check("agg sum " + i, sum, rs.getBigDecimal(2));
            check("agg min date " + i, row(1)[6], rs.getDate(3));
            check("agg max ts " + i, row(kRows - 1)[7], rs.getTimestamp(4));
          }
        }
      }

      // Batches.
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO jt (id, t) VALUES (?, ?)")) {
        for (int i = 100; i < 130; i++) {
          ps.setInt(1, i);
          ps.setString(2, "batch " + i);
          ps.addBatch();
        }
        int[] counts = ps.executeBatch();
        check("batch size", 30, counts.length);
        int sum = 0;
        for (int n : counts) sum += n;
        check("batch rows", 30, sum);
      }
      check("rows after batch", (long) kRows + 30, count(c, "jt"));
      try (Statement st = c.createStatement()) {
        st.addBatch("UPDATE jt SET t = 'updated' WHERE id >= 100 AND id < 110");
        st.addBatch("DELETE FROM jt WHERE id >= 120");
        int[] counts = st.executeBatch();
        check("statement batch update", 10, counts[0]);
        check("statement batch delete", 10, counts[1]);
      }
      check("rows after statement batch", (long) kRows + 20, count(c, "jt"));

      // Transactions.
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.executeUpdate("INSERT INTO jt (id) VALUES (200)");
        check("inside transaction", (long) kRows + 21, count(c, "jt"));
        c.rollback();
        check("after rollback", (long) kRows + 20, count(c, "jt"));
        st.executeUpdate("INSERT INTO jt (id) VALUES (201)");
        c.commit();
        check("after commit", (long) kRows + 21, count(c, "jt"));
        check("error in transaction", "42P01", sqlState(c, "SELECT * FROM no_such_table"));
        check("aborted transaction", "25P02", sqlState(c, "SELECT 1"));
        c.rollback();
      }
      c.setAutoCommit(true);
      c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
      check("isolation", Connection.TRANSACTION_SERIALIZABLE, c.getTransactionIsolation());
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);

      // Errors carry PostgreSQL's SQLSTATEs.
      check("undefined table", "42P01", sqlState(c, "SELECT * FROM no_such_table"));
      check("syntax error", "42601", sqlState(c, "SELEC 1"));
      check("unique violation", "23505", sqlState(c, "INSERT INTO jt (id) VALUES (1)"));
      check("division by zero", "22012", sqlState(c, "SELECT 1 / 0"));
      try (PreparedStatement ps = c.prepareStatement("SELECT CAST(? AS integer)")) {
        ps.setString(1, "not a number");
        ps.executeQuery();
        check("bad parameter", "22P02", "no error");
      } catch (SQLException e) {
        check("bad parameter", "22P02", e.getSQLState());
      }
      check("still usable", (long) kRows + 21, count(c, "jt"));
    }
    // Fetch size: inside a transaction the driver reads a query through a
    // portal, fetchSize rows per Execute; COPY through its CopyManager.
    try (Connection c = DriverManager.getConnection(url, "tester", "")) {
      try (Statement st = c.createStatement()) {
        st.executeUpdate("DROP TABLE IF EXISTS fs");
        st.executeUpdate("CREATE TABLE fs (id integer PRIMARY KEY)");
        st.executeUpdate("INSERT INTO fs SELECT i FROM generate_series(1, 1000) AS g(i)");
      }
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.setFetchSize(100);
        try (ResultSet rs = st.executeQuery("SELECT id FROM fs ORDER BY id")) {
          long n = 0;
          long sum = 0;
          while (rs.next()) {
            n++;
            sum += rs.getInt(1);
          }
          check("fetch size rows", 1000L, n);
          check("fetch size sum", 500500L, sum);
        }
      }
      c.commit();
      CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
      StringWriter out = new StringWriter();
      check("copy out rows", 3L, copy.copyOut(
          "COPY (SELECT id FROM fs WHERE id <= 3 ORDER BY id) TO STDOUT (FORMAT csv, HEADER)", out));
      check("copy out data", "id\n1\n2\n3\n", out.toString());
      check("copy in rows", 2L,
          copy.copyIn("COPY fs FROM STDIN", new StringReader("1001\n1002\n")));
      c.commit();
      check("rows after copy in", 1002L, count(c, "fs"));
      c.commit();
    }
    // reWriteBatchedInserts: the driver folds a batch into multi-row INSERTs
    // (VALUES ($1,$2),($3,$4),...) with 1, 2, 4, 8... rows per statement.
    try (Connection c = DriverManager.getConnection(url + "?reWriteBatchedInserts=true", "tester",
            "");
        PreparedStatement ps = c.prepareStatement("INSERT INTO jt (id, big) VALUES (?, ?)")) {
      for (int i = 300; i < 325; i++) {
        ps.setInt(1, i);
        ps.setLong(2, i * 2L);
        ps.addBatch();
      }
      ps.executeBatch();
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*), sum(big) FROM jt WHERE id >= 300")) {
        rs.next();
        check("rewritten batch rows", 25L, rs.getLong(1));
        check("rewritten batch sum", 2L * (300 + 324) * 25 / 2, rs.getLong(2));
      }
    }
    // Array columns: setArray / getArray, as prepared statements and with
    // the driver's binary transfer (java.sql.Array both ways).
    try (Connection c = DriverManager.getConnection(url, "tester", "")) {
      try (Statement st = c.createStatement()) {
        st.executeUpdate("DROP TABLE IF EXISTS ja");
        st.executeUpdate("CREATE TABLE ja (id integer PRIMARY KEY, tags text[], nums int4[])");
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO ja VALUES (?, ?, ?)")) {
        for (int i = 0; i < 6; i++) {  // past prepareThreshold: the driver goes binary
          ps.setInt(1, i);
          ps.setArray(2, c.createArrayOf("text", new String[] {"a" + i, "b c", null}));
          ps.setArray(3, c.createArrayOf("int4", new Integer[] {10 - i, null, i}));
          check("array insert " + i, 1, ps.executeUpdate());
        }
      }
      try (PreparedStatement ps = c.prepareStatement(
               "SELECT tags, nums FROM ja WHERE nums > ? ORDER BY nums")) {
        ps.setArray(1, c.createArrayOf("int4", new Integer[] {7}));
        for (int round = 0; round < 6; round++) {
          try (ResultSet rs = ps.executeQuery()) {
            StringBuilder got = new StringBuilder();
            while (rs.next()) {
              got.append(java.util.Arrays.toString((Object[]) rs.getArray(1).getArray()))
                  .append(java.util.Arrays.toString((Object[]) rs.getArray(2).getArray()))
                  .append('\n');
            }
            check("array select " + round,
                "[a3, b c, null][7, null, 3]\n[a2, b c, null][8, null, 2]\n"
                    + "[a1, b c, null][9, null, 1]\n"
                    + "[a0, b c, null][10, null, 0]\n",
                got.toString());
          }
        }
      }
    }
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
