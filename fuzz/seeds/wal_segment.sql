-- The statements whose WAL is fuzz/seeds/wal_segment.wal: psql -f this file against
-- forktail serve --data DIR, stop the server, restart it, run part 2, stop; DIR/wal/0000000000000000.wal.
-- (The statements that fail are part of it: their transactions roll back.)
-- part 1
create table t (id int primary key, name text, price numeric(10,2), d date, ts timestamp, tz timestamptz, b boolean, f float8, s smallint, big bigint, c char(3), v varchar(10));
insert into t values (1, 'one', 1.50, '2024-01-02', '2024-01-02 03:04:05', '2024-01-02 03:04:05+02', true, 1.5, 7, 9000000000, 'ab', 'xyz');
insert into t values (2, null, -3.25, null, null, null, false, -0.0, -1, -2, null, '');
insert into t select g, 'row' || g, g * 1.25, date '2024-01-01' + g, null, null, g % 2 = 0, g / 3.0, g, g * 100, 'x', 'y' from generate_series(3, 40) g;
update t set name = 'uno', price = price + 1 where id = 1;
delete from t where id = 2;
create index t_name on t (name);
create table u (a int generated always as identity, b int references t (id), check (b > 0));
insert into u (b) values (1), (3);
create sequence sq start 5 increment 3;
select nextval('sq');
select setval('sq', 100);
alter sequence sq increment 7;
create view tv as select id, name from t where id < 10;
alter table u add column c text default 'd';
alter table t alter column v type text;
begin; insert into t (id) values (100); rollback;
begin; insert into t (id, name) values (101, 'tx'); update t set name = 'tx2' where id = 101; commit;
truncate u;
drop view tv;
drop index t_name;
drop sequence sq;
alter table u drop constraint u_b_fkey;
drop table u;
create table w (k bigint, val decimal(38,10), primary key (k));
insert into w values (1, 12345678901234567890.0123456789), (2, -0.0000000001);
alter table w add primary key (k);
-- part 2
create table w (k bigint, val decimal(18,10));
insert into w values (1, 12345678.0123456789), (2, -0.0000000001);
alter table w add primary key (k);
insert into w select g, g / 7.0 from generate_series(3, 300) g;
copy w from stdin;
1000	1.5
1001	\N
\.
truncate w;
alter table w add column note varchar(20) default 'n';
alter table w rename column note to memo;
drop table w;
