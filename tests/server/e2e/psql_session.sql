-- A scripted psql session against `forktail serve` (run by tests/server/e2e_test.cc
-- with psql -X -v ON_ERROR_STOP=1 -f): DDL, inserts, selects, transactions,
-- an intentional error, COPY FROM STDIN, and the final state.
CREATE TABLE items (id integer PRIMARY KEY, name varchar(20), amount numeric(10,2), day date);
INSERT INTO items VALUES (1, 'one', 1.50, '2024-01-01'), (2, 'two', 2.25, '2024-01-02');
SELECT id, name, amount, day FROM items ORDER BY id;
BEGIN;
INSERT INTO items VALUES (3, 'three', 3.00, '2024-01-03');
UPDATE items SET amount = amount + 1 WHERE id = 1;
COMMIT;
BEGIN;
DELETE FROM items WHERE id = 2;
ROLLBACK;
\set ON_ERROR_STOP 0
SELECT * FROM no_such_table;
INSERT INTO items VALUES (1, 'duplicate', 0, '2024-01-01');
\set ON_ERROR_STOP 1
COPY items FROM STDIN;
4	four	4.40	2024-01-04
5	five	\N	2024-01-05
\.
SELECT count(*) AS n, sum(amount) AS total FROM items;
SELECT name FROM items WHERE amount IS NULL;
