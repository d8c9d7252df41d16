-- Differential queries: each runs on DuckDB (scripts/sql_diff) and Forktail
-- (tests/olap/sql/sql_diff_test.cc) over the same data and must agree. Each
-- orders by all of its output columns. Avoided on purpose (DuckDB and
-- PostgreSQL disagree): integer / integer (DuckDB gives DOUBLE), DOUBLE to
-- text, decimal / decimal's scale (compared numerically instead).

-- name: left_join_null_keys
SELECT o.oid, o.cust_id, c.id, c.name
FROM orders o LEFT JOIN cust c ON o.cust_id = c.id
WHERE o.oid <= 60
ORDER BY o.oid, o.cust_id, c.id, c.name;

-- name: left_join_is_null_outer
SELECT o.oid, o.cust_id
FROM orders o LEFT JOIN cust c ON o.cust_id = c.id
WHERE c.id IS NULL
ORDER BY o.oid, o.cust_id;

-- name: left_join_null_producing_cols
SELECT c.id, c.region, COUNT(o.oid) AS n, SUM(o.amount) AS total, MAX(o.odate) AS last
FROM cust c LEFT JOIN orders o ON o.cust_id = c.id
GROUP BY c.id, c.region
ORDER BY c.id, c.region, n, total, last;

-- name: left_join_on_filter_vs_where
SELECT c.id, o.oid, o.status
FROM cust c LEFT JOIN orders o ON o.cust_id = c.id AND o.status = 'open'
WHERE c.id <= 30
ORDER BY c.id, o.oid, o.status;

-- name: left_join_coalesce
SELECT c.id, COALESCE(o.status, 'none') AS st, COALESCE(o.amount, 0) AS amt
FROM cust c LEFT JOIN orders o ON o.cust_id = c.id
WHERE c.id BETWEEN 10 AND 40
ORDER BY c.id, st, amt;

-- name: left_join_three_tables
SELECT c.id, o.oid, i.sku
FROM cust c LEFT JOIN orders o ON o.cust_id = c.id LEFT JOIN items i ON i.cust_id = c.id
WHERE c.id IN (1, 2, 7, 11, 199)
ORDER BY c.id, o.oid, i.sku;

-- name: inner_join_null_key_never_matches
SELECT COUNT(*) AS n FROM orders o JOIN items i ON o.cust_id = i.cust_id
ORDER BY n;

-- name: not_in_with_null_in_subquery
SELECT c.id FROM cust c
WHERE c.id NOT IN (SELECT cust_id FROM orders)
ORDER BY c.id;

-- name: not_in_without_null
SELECT c.id FROM cust c
WHERE c.id NOT IN (SELECT cust_id FROM orders WHERE cust_id IS NOT NULL)
ORDER BY c.id;

-- name: not_in_null_probe
SELECT o.oid FROM orders o
WHERE o.cust_id NOT IN (SELECT id FROM cust WHERE id < 100)
ORDER BY o.oid;

-- name: in_subquery
SELECT c.id, c.name FROM cust c
WHERE c.id IN (SELECT cust_id FROM items WHERE price > 100)
ORDER BY c.id, c.name;

-- name: exists_correlated
SELECT c.id FROM cust c
WHERE EXISTS (SELECT 1 FROM orders o WHERE o.cust_id = c.id AND o.amount > 1500)
ORDER BY c.id;

-- name: not_exists_correlated
SELECT c.id FROM cust c
WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.cust_id = c.id)
ORDER BY c.id;

-- name: gt_all_with_nulls
SELECT c.id FROM cust c
WHERE c.score > ALL (SELECT qty FROM orders WHERE oid < 50)
ORDER BY c.id;

-- name: gt_all_without_nulls
SELECT c.id, c.score FROM cust c
WHERE c.score > ALL (SELECT qty FROM orders WHERE qty IS NOT NULL)
ORDER BY c.id, c.score;

-- name: gt_all_empty
SELECT COUNT(*) AS n FROM cust c
WHERE c.score > ALL (SELECT qty FROM orders WHERE qty > 1000)
ORDER BY n;

-- name: eq_any_with_nulls
SELECT c.id, c.score FROM cust c
WHERE c.score = ANY (SELECT qty FROM orders)
ORDER BY c.id, c.score;

-- name: any_as_value_with_nulls
SELECT c.id, (c.score < ANY (SELECT qty FROM orders WHERE oid < 20)) AS lt_any
FROM cust c WHERE c.id <= 25
ORDER BY c.id, lt_any;

-- name: count_filter
SELECT o.status,
       COUNT(*) AS n,
       COUNT(*) FILTER (WHERE o.amount > 0) AS pos,
       COUNT(o.qty) FILTER (WHERE o.qty < 0) AS negqty
FROM orders o GROUP BY o.status
ORDER BY o.status, n, pos, negqty;

-- name: sum_filter
SELECT c.region,
       SUM(o.amount) FILTER (WHERE o.status = 'open') AS open_amt,
       SUM(o.qty) FILTER (WHERE o.odate >= DATE '2021-01-01') AS late_qty
FROM cust c JOIN orders o ON o.cust_id = c.id
GROUP BY c.region
ORDER BY c.region, open_amt, late_qty;

-- name: group_having
SELECT o.cust_id, COUNT(*) AS n, SUM(o.amount) AS total
FROM orders o GROUP BY o.cust_id
HAVING COUNT(*) >= 3 AND SUM(o.amount) > 1000
ORDER BY o.cust_id, n, total;

-- name: having_without_group
SELECT COUNT(*) AS n FROM orders HAVING COUNT(*) > 10
ORDER BY n;

-- name: count_distinct
SELECT c.region, COUNT(DISTINCT c.name) AS names, COUNT(DISTINCT c.score) AS scores,
       COUNT(c.score) AS nonnull, COUNT(*) AS n
FROM cust c GROUP BY c.region
ORDER BY c.region, names, scores, nonnull, n;

-- name: aggregates_of_all_nulls
SELECT SUM(qty) AS s, AVG(amount) AS a, MIN(odate) AS mi, MAX(status) AS ma, COUNT(qty) AS c
FROM orders WHERE qty IS NULL
ORDER BY s, a, mi, ma, c;

-- name: union_distinct
SELECT cust_id FROM orders WHERE oid < 40
UNION
SELECT cust_id FROM items
ORDER BY cust_id;

-- name: union_all
SELECT cust_id, 'o' AS src FROM orders WHERE oid < 30
UNION ALL
SELECT cust_id, 'i' FROM items WHERE price < 20
ORDER BY cust_id, src;

-- name: union_dup_rows
SELECT name, region, score FROM cust WHERE id <= 12
UNION
SELECT name, region, score FROM cust WHERE id > 200
ORDER BY name, region, score;

-- name: intersect_nulls
SELECT cust_id FROM orders
INTERSECT
SELECT cust_id FROM items
ORDER BY cust_id;

-- name: except_nulls
SELECT cust_id FROM items
EXCEPT
SELECT cust_id FROM orders WHERE oid > 100
ORDER BY cust_id;

-- name: case_when
SELECT o.oid,
       CASE WHEN o.amount IS NULL THEN 'unknown'
            WHEN o.amount < 0 THEN 'refund'
            WHEN o.amount < 500 THEN 'small'
            ELSE 'large' END AS kind,
       CASE o.status WHEN 'open' THEN 1 WHEN 'shipped' THEN 2 END AS code
FROM orders o WHERE o.oid <= 80
ORDER BY o.oid, kind, code;

-- name: coalesce_nullif
SELECT c.id, COALESCE(c.region, c.name) AS r, NULLIF(c.score, 0) AS s,
       NULLIF(c.region, 'north') AS nr, COALESCE(NULLIF(c.score, 0), -1) AS cs
FROM cust c WHERE c.id <= 60
ORDER BY c.id, r, s, nr, cs;

-- name: date_plus_month
SELECT o.oid, o.odate, CAST(o.odate + INTERVAL '1 month' AS DATE) AS next_month
FROM orders o WHERE o.oid <= 50
ORDER BY o.oid, o.odate, next_month;

-- name: date_interval_timestamp
SELECT o.oid, o.odate + INTERVAL '1 month' AS ts, o.odate - INTERVAL '10 days' AS back
FROM orders o WHERE o.oid BETWEEN 100 AND 130
ORDER BY o.oid, ts, back;

-- name: date_month_end
SELECT CAST(DATE '2024-01-31' + INTERVAL '1 month' AS DATE) AS a,
       CAST(DATE '2023-01-31' + INTERVAL '1 month' AS DATE) AS b,
       CAST(DATE '2024-03-31' - INTERVAL '1 month' AS DATE) AS c,
       CAST(DATE '2024-02-29' + INTERVAL '1 year' AS DATE) AS d
ORDER BY a, b, c, d;

-- name: date_filter_interval
SELECT COUNT(*) AS n FROM orders
WHERE odate >= DATE '2020-02-15' AND odate < DATE '2020-02-15' + INTERVAL '3 month'
ORDER BY n;

-- name: extract_parts
SELECT EXTRACT(YEAR FROM odate) AS y, EXTRACT(MONTH FROM odate) AS m, COUNT(*) AS n
FROM orders GROUP BY EXTRACT(YEAR FROM odate), EXTRACT(MONTH FROM odate)
ORDER BY y, m, n;

-- name: extract_day
SELECT oid, EXTRACT(DAY FROM odate) AS d FROM orders WHERE oid <= 40
ORDER BY oid, d;

-- name: date_difference
SELECT oid, odate - DATE '2019-01-01' AS days FROM orders WHERE oid <= 40
ORDER BY oid, days;

-- name: between_like
SELECT c.id, c.name FROM cust c
WHERE c.score BETWEEN 10 AND 40 AND c.name LIKE 'cust0_5'
ORDER BY c.id, c.name;

-- name: like_patterns
SELECT o.status, COUNT(*) AS n FROM orders o
WHERE o.status LIKE '%o%' OR o.status LIKE 'lost!_%' ESCAPE '!' OR o.status NOT LIKE 's%'
GROUP BY o.status
ORDER BY o.status, n;

-- name: like_escape_percent
SELECT sku, COUNT(*) AS n FROM items WHERE sku LIKE '%!%%' ESCAPE '!' OR sku LIKE 'b_!_%' ESCAPE '!'
GROUP BY sku ORDER BY sku, n;

-- name: decimal_add_sub_mul
SELECT oid, amount + 1.05 AS a, amount - 0.5 AS b, amount * 3 AS c, amount * amount AS d,
       -amount AS e
FROM orders WHERE oid <= 60
ORDER BY oid, a, b, c, d, e;

-- name: decimal_division
SELECT oid, amount / 7 AS a, amount / 3.00 AS b, (amount * 2) / -0.25 AS c
FROM orders WHERE oid <= 60 AND amount IS NOT NULL
ORDER BY oid, a, b, c;

-- name: decimal_round
SELECT oid, ROUND(amount, 1) AS r1, ROUND(amount, 0) AS r0, ROUND(amount * 1.175, 2) AS r2
FROM orders WHERE oid <= 60
ORDER BY oid, r1, r0, r2;

-- name: decimal_sum_avg
SELECT c.region, SUM(c.balance) AS s, AVG(c.balance) AS a, MIN(c.balance) AS mi,
       MAX(c.balance) AS ma
FROM cust c GROUP BY c.region
ORDER BY c.region, s, a, mi, ma;

-- name: double_arith
SELECT oid, rate * 2 AS a, rate + qty AS b, rate * amount AS c
FROM orders WHERE oid <= 50
ORDER BY oid, a, b, c;

-- name: cast_int_decimal_double
SELECT oid, CAST(qty AS DECIMAL(10,2)) AS qd, CAST(qty AS DOUBLE PRECISION) AS qf,
       CAST(amount AS INTEGER) AS ai, CAST(amount AS DOUBLE PRECISION) AS af,
       CAST(amount AS DECIMAL(12,1)) AS a1
FROM orders WHERE oid <= 60
ORDER BY oid, qd, qf, ai, af, a1;

-- name: cast_double_to_int_decimal
SELECT oid, CAST(rate * 100 AS INTEGER) AS ri, CAST(rate AS DECIMAL(10,2)) AS rd
FROM orders WHERE oid <= 60
ORDER BY oid, ri, rd;

-- name: cast_text
SELECT c.id, CAST(c.score AS VARCHAR) AS st, CAST(c.balance AS VARCHAR) AS bt,
       CAST(c.signup AS VARCHAR) AS dt, CAST(CAST(c.id AS VARCHAR) AS INTEGER) + 1 AS back
FROM cust c WHERE c.id <= 40
ORDER BY c.id, st, bt, dt, back;

-- name: cast_text_to_date_decimal
SELECT CAST('2024-02-29' AS DATE) AS d, CAST('12.345' AS DECIMAL(10,2)) AS x,
       CAST('-0.005' AS DECIMAL(10,2)) AS y, CAST(' 42 ' AS INTEGER) AS z
ORDER BY d, x, y, z;

-- name: scalar_subquery
SELECT c.id, (SELECT COUNT(*) FROM orders o WHERE o.cust_id = c.id) AS n,
       (SELECT MAX(o.amount) FROM orders o WHERE o.cust_id = c.id) AS mx
FROM cust c WHERE c.id <= 40
ORDER BY c.id, n, mx;

-- name: scalar_subquery_in_where
SELECT o.oid, o.amount FROM orders o
WHERE o.amount > (SELECT AVG(amount) FROM orders) * 2
ORDER BY o.oid, o.amount;

-- name: limit_offset
SELECT oid, amount FROM orders
ORDER BY amount DESC, oid
LIMIT 15 OFFSET 5;

-- name: order_nulls_desc
SELECT id, score FROM cust WHERE id <= 50
ORDER BY score DESC, id;

-- name: distinct_multi
SELECT DISTINCT region, score > 50 AS hi FROM cust
ORDER BY region, hi;

-- name: subquery_in_from
SELECT t.region, t.n, t.total FROM (
  SELECT c.region, COUNT(*) AS n, SUM(o.amount) AS total
  FROM cust c JOIN orders o ON o.cust_id = c.id GROUP BY c.region) AS t
WHERE t.n > 5
ORDER BY t.region, t.n, t.total;

-- name: nested_from_subqueries
SELECT x.k, MAX(x.s) AS ms FROM (
  SELECT y.cust_id % 3 AS k, y.s FROM (
    SELECT cust_id, SUM(qty) AS s FROM orders WHERE cust_id IS NOT NULL GROUP BY cust_id) AS y
) AS x GROUP BY x.k
ORDER BY x.k, ms;

-- name: with_cte
WITH per_cust AS (
  SELECT cust_id, SUM(amount) AS total FROM orders GROUP BY cust_id
), top AS (
  SELECT cust_id, total FROM per_cust WHERE total > 2000
)
SELECT c.id, c.name, t.total FROM top t JOIN cust c ON c.id = t.cust_id
ORDER BY c.id, c.name, t.total;

-- name: with_cte_twice
WITH s AS (SELECT status, COUNT(*) AS n FROM orders GROUP BY status)
SELECT a.status, a.n, b.n AS m FROM s a LEFT JOIN s b ON a.status = b.status AND b.n > 60
ORDER BY a.status, a.n, m;

-- name: null_comparisons
SELECT o.oid, o.qty = NULL AS eqnull, o.qty IS NULL AS is_null, o.qty IS DISTINCT FROM 3 AS dist,
       NOT (o.qty > 2) AS notgt
FROM orders o WHERE o.oid <= 40
ORDER BY o.oid, eqnull, is_null, dist, notgt;

-- name: integer_mod_neg
SELECT oid, qty % 4 AS m, -qty AS neg, qty * qty - 7 AS p
FROM orders WHERE oid <= 50
ORDER BY oid, m, neg, p;

-- name: abs_integer_decimal
SELECT oid, ABS(qty) AS a, ABS(amount) AS b
FROM orders WHERE oid <= 50
ORDER BY oid, a, b;

-- name: string_functions
SELECT id, SUBSTRING(name FROM 2 FOR 3) AS sub, SUBSTRING(region FROM 3) AS tail
FROM cust WHERE id <= 30
ORDER BY id, sub, tail;

-- name: upper_lower_length
SELECT id, UPPER(region) AS u, LOWER(region) AS l, LENGTH(name) AS len
FROM cust WHERE id <= 30
ORDER BY id, u, l, len;

-- name: group_by_expression_having_filter
SELECT CASE WHEN score < 0 THEN 'neg' WHEN score IS NULL THEN 'null' ELSE 'pos' END AS sign,
       COUNT(*) FILTER (WHERE balance > 1000) AS rich, COUNT(*) AS n
FROM cust
GROUP BY CASE WHEN score < 0 THEN 'neg' WHEN score IS NULL THEN 'null' ELSE 'pos' END
HAVING COUNT(*) > 1
ORDER BY sign, rich, n;

-- name: in_list_with_null
SELECT id, score FROM cust WHERE score IN (1, 2, 3, NULL) OR score NOT IN (10, NULL)
ORDER BY id, score;

-- name: not_in_empty_subquery
SELECT o.oid, o.cust_id FROM orders o
WHERE o.cust_id NOT IN (SELECT qty FROM orders WHERE qty > 1000) AND o.oid <= 40
ORDER BY o.oid, o.cust_id;

-- name: cast_decimal_half_rounding
SELECT CAST(2.5 AS INTEGER) AS a, CAST(-2.5 AS INTEGER) AS b, CAST(0.125 AS DECIMAL(10,2)) AS c,
       CAST(-0.125 AS DECIMAL(10,2)) AS d, CAST(CAST(-7.45 AS DECIMAL(10,2)) AS DECIMAL(10,1)) AS e
ORDER BY a, b, c, d, e;

-- name: left_join_aggregated_subquery
SELECT c.id, COALESCE(t.n, 0) AS n, t.total
FROM cust c LEFT JOIN (
  SELECT cust_id, COUNT(*) AS n, SUM(amount) AS total FROM orders GROUP BY cust_id) AS t
  ON t.cust_id = c.id
WHERE c.id <= 30 OR c.id > 195
ORDER BY c.id, n, t.total;

-- name: decimal_vs_double_compare
SELECT oid, amount, rate FROM orders WHERE amount > rate * 500 AND oid <= 120
ORDER BY oid, amount, rate;

-- name: having_with_filter_and_distinct
SELECT o.status, COUNT(DISTINCT o.cust_id) AS custs
FROM orders o GROUP BY o.status
HAVING COUNT(*) FILTER (WHERE o.amount < 0) > 0
ORDER BY o.status, custs;

-- SUBQ block: correlated subqueries the binder runs as an Apply (issue 6/7).

-- name: subq_correlated_scalar_order_limit
SELECT c.id,
       (SELECT o.amount FROM orders o WHERE o.cust_id = c.id
        ORDER BY o.amount DESC NULLS LAST, o.oid LIMIT 1) AS top_amount
FROM cust c WHERE c.id <= 40
ORDER BY c.id, top_amount;

-- name: subq_scalar_limit_offset_in_where
SELECT c.id, c.name FROM cust c
WHERE c.score > (SELECT o.qty FROM orders o WHERE o.cust_id = c.id
                 ORDER BY o.qty DESC NULLS LAST, o.oid LIMIT 1 OFFSET 1)
ORDER BY c.id, c.name;

-- name: subq_any_all_values_with_nulls
SELECT c.id,
       c.score > ALL (SELECT o.qty FROM orders o WHERE o.cust_id = c.id) AS gt_all,
       c.score = ANY (SELECT o.qty FROM orders o WHERE o.cust_id = c.id) AS eq_any,
       c.score IN (SELECT qty FROM orders WHERE oid < 10) AS in_list,
       c.score NOT IN (SELECT qty FROM orders WHERE oid < 10) AS not_in
FROM cust c WHERE c.id <= 40
ORDER BY c.id, gt_all, eq_any, in_list, not_in;

-- name: subq_exists_under_or
SELECT c.id FROM cust c
WHERE c.score > 90
   OR EXISTS (SELECT 1 FROM orders o WHERE o.cust_id = c.id AND o.amount > 900)
ORDER BY c.id;

-- name: subq_exists_in_case_and_select
SELECT c.id,
       CASE WHEN EXISTS (SELECT 1 FROM items i WHERE i.cust_id = c.id) THEN 'items'
            ELSE 'none' END AS k,
       NOT EXISTS (SELECT 1 FROM orders o WHERE o.cust_id = c.id) AS no_orders
FROM cust c WHERE c.id <= 40
ORDER BY c.id, k, no_orders;

-- name: subq_count_sum_non_equi_correlation
SELECT c.id,
       (SELECT COUNT(*) FROM orders o WHERE o.cust_id = c.id AND o.qty > c.score) AS n_bigger,
       (SELECT SUM(o.amount) FROM orders o WHERE o.cust_id = c.id AND o.qty > c.score) AS s_bigger
FROM cust c WHERE c.id <= 40
ORDER BY c.id, n_bigger, s_bigger;

-- name: subq_correlated_not_in
SELECT c.id FROM cust c
WHERE c.score NOT IN (SELECT o.qty FROM orders o WHERE o.cust_id = c.id)
ORDER BY c.id;

-- name: subq_two_level_correlation
SELECT c.id FROM cust c
WHERE EXISTS (SELECT 1 FROM orders o WHERE o.cust_id = c.id
              AND EXISTS (SELECT 1 FROM items i WHERE i.cust_id = o.cust_id
                          AND i.price > c.balance))
ORDER BY c.id;

-- name: subq_two_level_scalar_in_select
SELECT c.id,
       (SELECT MAX(o.amount) FROM orders o WHERE o.cust_id = c.id
        AND o.qty > (SELECT COUNT(*) FROM items i WHERE i.cust_id = c.id)) AS m
FROM cust c WHERE c.id <= 60
ORDER BY c.id, m;

-- name: subq_union_inside_correlated_in
SELECT c.id FROM cust c
WHERE c.id IN (SELECT o.cust_id FROM orders o WHERE o.qty = c.score
               UNION SELECT i.cust_id FROM items i WHERE i.price > c.balance)
ORDER BY c.id;

-- FUNCS block: scalar functions and operators (issue 6).

-- name: funcs_decimal_rounding
SELECT oid, CEIL(amount) AS c, FLOOR(amount) AS f, ROUND(amount) AS r, TRUNC(amount) AS t,
       ROUND(rate) AS rr, SIGN(amount) AS s
FROM orders WHERE oid <= 40
ORDER BY oid, c, f, r, t, rr, s;

-- name: funcs_string_slices
SELECT id, LEFT(name, 3) AS l, RIGHT(name, 2) AS r, LPAD(region, 8, '*') AS lp,
       RPAD(region, 7, '.') AS rp, REPLACE(name, 'cust', 'c') AS rep, STRPOS(name, '5') AS pos,
       REVERSE(region) AS rev, TRIM(region) AS tr
FROM cust WHERE id <= 30
ORDER BY id, l, r, lp, rp, rep, pos, rev, tr;

-- name: funcs_concat
SELECT id, name || '-' || region AS op, CONCAT(name, score) AS c, CONCAT_WS('/', region, name) AS ws,
       name || score AS num
FROM cust WHERE id <= 30
ORDER BY id, op, c, ws, num;

-- name: funcs_date_integer
SELECT oid, odate + 7 AS plus, odate - qty AS minus, odate - DATE '2020-01-01' AS days
FROM orders WHERE oid <= 40 AND odate + INTERVAL '1 day' > DATE '2019-06-01'
ORDER BY oid, plus, minus, days;

-- name: funcs_ilike_starts_with
SELECT c.id, c.name FROM cust c
WHERE c.name ILIKE 'CUST0_5%' OR (c.region ILIKE '%th' AND STARTS_WITH(c.name, 'cust01'))
ORDER BY c.id, c.name;

-- PGCAT2 block: list aggregates (issue 7).

-- name: listagg_string_agg_ordered
SELECT region, STRING_AGG(name, ',' ORDER BY name) AS names, STRING_AGG(name, '' ORDER BY name DESC) AS rev,
       COUNT(*) AS n
FROM cust WHERE id <= 30
GROUP BY region
ORDER BY region, names, rev, n;

-- JOINS block: FULL / NATURAL joins, aggregates with DISTINCT (issue 6).

-- name: joins_full_null_keys_duplicates
SELECT o.oid, o.cust_id AS ocust, i.sku, i.cust_id AS icust, i.price
FROM (SELECT * FROM orders WHERE oid <= 80) o
FULL JOIN (SELECT * FROM items WHERE price < 150) i ON o.cust_id = i.cust_id
ORDER BY o.oid, ocust, i.sku, icust, i.price;

-- name: joins_full_using_grouped
SELECT cust_id, COUNT(*) AS n, COUNT(o.oid) AS n_orders, COUNT(i.sku) AS n_items,
       SUM(o.qty) AS q
FROM (SELECT cust_id, oid, qty FROM orders WHERE oid <= 150) o
FULL OUTER JOIN (SELECT cust_id, sku FROM items) i USING (cust_id)
GROUP BY cust_id
ORDER BY cust_id, n, n_orders, n_items, q;

-- name: joins_full_residual_and_where
SELECT o.oid, i.sku, i.price
FROM (SELECT * FROM orders WHERE oid <= 120) o
FULL JOIN items i ON o.cust_id = i.cust_id AND o.amount > i.price * 5
WHERE o.oid IS NULL OR o.qty > 10
ORDER BY o.oid, i.sku, i.price;

-- name: joins_full_reduced_by_where
SELECT c.id, o.oid
FROM (SELECT * FROM cust WHERE id <= 60) c
FULL JOIN (SELECT * FROM orders WHERE oid <= 200) o ON c.id = o.cust_id
WHERE o.amount > 100
ORDER BY c.id, o.oid;

-- name: joins_natural_kinds
SELECT *, 'inner' AS kind FROM (SELECT id AS cust_id, region FROM cust WHERE id <= 40) c
NATURAL JOIN (SELECT cust_id, oid FROM orders WHERE oid <= 60) o
UNION ALL
SELECT *, 'full' FROM (SELECT id AS cust_id, region FROM cust WHERE id <= 40) c
NATURAL FULL JOIN (SELECT cust_id, oid FROM orders WHERE oid <= 60) o
UNION ALL
SELECT *, 'right' FROM (SELECT id AS cust_id, region FROM cust WHERE id <= 40) c
NATURAL RIGHT JOIN (SELECT cust_id, oid FROM orders WHERE oid <= 60) o
ORDER BY kind, cust_id, region, oid;

-- name: joins_sum_avg_distinct_group_by
SELECT status, SUM(DISTINCT qty) AS sq, AVG(DISTINCT amount) AS aa, COUNT(DISTINCT cust_id) AS nc,
       SUM(qty) AS total, MIN(DISTINCT qty) AS mn, MAX(DISTINCT amount) AS mx
FROM orders
GROUP BY status
ORDER BY status, sq, aa, nc, total, mn, mx;

-- name: joins_sum_distinct_double
SELECT c.region, SUM(DISTINCT o.rate) AS sr, AVG(DISTINCT o.qty) AS aq
FROM cust c JOIN orders o ON o.cust_id = c.id
GROUP BY c.region
ORDER BY c.region, sr, aq;

-- LATERAL block: LATERAL subqueries and functions over earlier FROM items (issue 7).
-- name: lateral_top2_per_cust
SELECT c.id, o.oid, o.amount
FROM (SELECT * FROM cust WHERE id <= 50) c,
     LATERAL (SELECT oid, amount FROM orders WHERE orders.cust_id = c.id
              ORDER BY amount DESC NULLS LAST, oid LIMIT 2) o
ORDER BY c.id, o.oid, o.amount;

-- name: lateral_left_join_no_rows
SELECT c.id, o.oid
FROM (SELECT * FROM cust WHERE id <= 60) c
LEFT JOIN LATERAL (SELECT oid FROM orders WHERE orders.cust_id = c.id AND orders.qty > 5
                   ORDER BY oid LIMIT 1) o ON true
ORDER BY c.id, o.oid;

-- name: lateral_join_on_condition
SELECT c.id, o.oid, o.qty
FROM (SELECT * FROM cust WHERE id <= 40) c
JOIN LATERAL (SELECT oid, qty FROM orders WHERE orders.cust_id = c.id) o ON o.qty > c.score % 10
ORDER BY c.id, o.oid, o.qty;

-- name: lateral_generate_series
SELECT c.id, g.v
FROM (SELECT * FROM cust WHERE id <= 30) c, generate_series(1, c.score % 4) AS g(v)
ORDER BY c.id, g.v;

-- name: lateral_series_in_scalar_subquery
SELECT c.id, (SELECT sum(g.v) FROM generate_series(0, c.score % 5) AS g(v)) AS s
FROM cust c WHERE c.id <= 30
ORDER BY c.id, s;

-- WINDOW block: window functions (issue 6).

-- name: window_rank_by_region
SELECT region, id, score,
       ROW_NUMBER() OVER (PARTITION BY region ORDER BY score DESC NULLS LAST, id) AS rn,
       RANK() OVER (PARTITION BY region ORDER BY score DESC NULLS LAST) AS rk,
       DENSE_RANK() OVER (PARTITION BY region ORDER BY score DESC NULLS LAST) AS drk
FROM cust
ORDER BY region, id, score, rn, rk, drk;

-- name: window_running_sums
SELECT cust_id, oid, qty,
       SUM(qty) OVER (PARTITION BY cust_id ORDER BY oid) AS running,
       COUNT(*) OVER (PARTITION BY cust_id) AS n,
       SUM(qty) OVER (ORDER BY oid ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS moving,
       AVG(amount) OVER (PARTITION BY cust_id) AS avg_amount,
       MAX(amount) OVER (PARTITION BY cust_id ORDER BY oid ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS mx
FROM orders WHERE oid <= 300
ORDER BY cust_id, oid, qty, running, n, moving, avg_amount, mx;

-- name: window_lag_lead
SELECT oid, cust_id, amount,
       LAG(amount) OVER (PARTITION BY cust_id ORDER BY oid) AS prev,
       LEAD(qty, 2, -1) OVER (PARTITION BY cust_id ORDER BY oid) AS next2,
       FIRST_VALUE(oid) OVER (PARTITION BY cust_id ORDER BY oid) AS first_oid,
       LAST_VALUE(status) OVER (PARTITION BY cust_id ORDER BY oid
                                ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS last_status
FROM orders WHERE oid <= 200
ORDER BY oid, cust_id, amount, prev, next2, first_oid, last_status;

-- name: window_top_per_group
SELECT status, oid, amount FROM (
  SELECT status, oid, amount,
         ROW_NUMBER() OVER (PARTITION BY status ORDER BY amount DESC NULLS LAST, oid) AS rn
  FROM orders) t
WHERE rn <= 3
ORDER BY status, oid, amount;

-- name: window_over_aggregates
SELECT region, COUNT(*) AS n, SUM(COUNT(*)) OVER () AS total,
       RANK() OVER (ORDER BY COUNT(*) DESC) AS rk
FROM cust
GROUP BY region
ORDER BY region, n, total, rk;

-- name: window_ntile_cume_dist
SELECT id, NTILE(4) OVER (ORDER BY id) AS q,
       CUME_DIST() OVER (ORDER BY score NULLS LAST) AS cd,
       PERCENT_RANK() OVER (PARTITION BY region ORDER BY signup NULLS FIRST) AS pr
FROM cust WHERE id <= 100
ORDER BY id, q, cd, pr;

-- DEC128 block: 38-digit DECIMALs (__int128) in expressions and aggregates (issue 6, dec128).
-- name: dec128_sum_needs_20_digits
SELECT sum(amount * 1000000000000000) AS s, sum(amount::DECIMAL(30,2) * 100000000000) AS t,
       count(*) AS n
FROM orders;

-- name: dec128_product_of_decimal15s
SELECT oid, amount::DECIMAL(15,2) * amount::DECIMAL(16,2) AS sq,
       amount::DECIMAL(20,2) * amount::DECIMAL(20,2) * amount::DECIMAL(10,2) AS cube
FROM orders WHERE amount IS NOT NULL ORDER BY oid, sq, cube;

-- name: dec128_q01_shape
SELECT status, sum(amount) AS sum_amount,
       sum(amount * (1 - 0.05) * (1 + 0.02)) AS sum_charge,
       sum(amount * 10000000000000 * (1 + 0.02)) AS sum_big_charge,
       avg(amount::DECIMAL(25,2)) AS avg_wide, count(*) AS n
FROM orders GROUP BY status ORDER BY status, sum_amount, sum_charge, sum_big_charge, avg_wide, n;

-- name: dec128_q11_shape
SELECT cust_id, sum(amount * qty) AS value
FROM orders WHERE cust_id IS NOT NULL AND qty IS NOT NULL
GROUP BY cust_id
HAVING sum(amount * qty) > (SELECT sum(amount * qty) * 0.0100000000 FROM orders WHERE qty IS NOT NULL)
ORDER BY value, cust_id;

-- name: dec128_group_join_order_by_wide
SELECT w.k, count(*) AS n, min(w.m) AS lo, max(w.m) AS hi
FROM (SELECT amount::DECIMAL(30,2) * 1000000000000 AS k, amount::DECIMAL(24,2) AS m
      FROM orders WHERE amount IS NOT NULL) w
JOIN (SELECT amount::DECIMAL(28,2) * 100000000000 * 10 AS k FROM orders WHERE qty > 0) i
  ON w.k = i.k
GROUP BY w.k ORDER BY w.k DESC, n, lo, hi;

-- name: dec128_mixed_with_narrow_int_double
SELECT oid, amount::DECIMAL(25,2) + qty AS plus_int, amount::DECIMAL(25,2) - amount AS minus_narrow,
       amount::DECIMAL(25,2) * rate AS times_double, amount::DECIMAL(25,2) > 500 AS gt,
       CAST(amount::DECIMAL(25,2) * 1000000000000 AS BIGINT) / 1000 AS as_bigint,
       CAST(amount::DECIMAL(25,2) AS DOUBLE PRECISION) AS as_double,
       CAST(amount::DECIMAL(25,2) * 100000000000000000 AS VARCHAR) AS as_text
FROM orders WHERE amount IS NOT NULL
ORDER BY oid, plus_int, minus_narrow, times_double, gt, as_bigint, as_double, as_text;

-- name: dec128_distinct_and_window
SELECT status, count(DISTINCT amount::DECIMAL(22,2)) AS nd, sum(DISTINCT amount::DECIMAL(22,2)) AS sd,
       sum(sum(amount)) OVER (ORDER BY status) AS running
FROM orders GROUP BY status ORDER BY status, nd, sd, running;

-- name: dec128_math_functions
SELECT oid, abs(-amount::DECIMAL(25,3)) AS a, round(amount::DECIMAL(25,3) * 1000000000000, -3) AS r,
       trunc(amount::DECIMAL(25,3), 1) AS t, ceil(amount::DECIMAL(25,3)) AS c,
       floor(-amount::DECIMAL(25,3)) AS f, sign(-amount::DECIMAL(25,3)) AS sg
FROM orders WHERE amount IS NOT NULL ORDER BY oid, a, r, t, c, f, sg;

-- name: dec128_literals_and_division
SELECT 12345678901234567890.123 * 2 AS big_literal,
       123456789012345678901234567890 + 1 AS int_literal,
       sum(amount)::DECIMAL(30,2) / 7 AS div_wide,
       sum(amount) / count(*) AS div_sum
FROM orders;

-- FRAMES block: RANGE offsets, GROUPS and EXCLUDE window frames (issue 6).

-- name: frames_range_offsets
SELECT oid, cust_id, qty,
       SUM(qty) OVER (PARTITION BY cust_id ORDER BY qty RANGE BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS s_int,
       COUNT(*) OVER (ORDER BY amount DESC RANGE BETWEEN 10.5 PRECEDING AND CURRENT ROW) AS n_dec,
       MIN(oid) OVER (ORDER BY rate RANGE BETWEEN 0.25 PRECEDING AND 0.25 FOLLOWING) AS m_dbl
FROM orders WHERE oid <= 300
ORDER BY oid, cust_id, qty, s_int, n_dec, m_dbl;

-- name: frames_groups_exclude
SELECT oid, cust_id, qty,
       SUM(qty) OVER (PARTITION BY cust_id ORDER BY qty GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s_groups,
       COUNT(*) OVER (PARTITION BY cust_id ORDER BY qty RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP) AS n_excl,
       MAX(amount) OVER (PARTITION BY cust_id ORDER BY oid ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW) AS mx_excl,
       SUM(qty) OVER (ORDER BY qty GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING EXCLUDE TIES) AS s_ties
FROM orders WHERE oid <= 300
ORDER BY oid, cust_id, qty, s_groups, n_excl, mx_excl, s_ties;
