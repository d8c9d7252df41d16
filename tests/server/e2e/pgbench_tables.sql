-- pgbench's four tables as `pgbench -i` creates them, but with their primary
-- keys declared up front: Forktail's storage fixes a table's key at CREATE
-- TABLE, so `alter table ... add primary key` (pgbench's 'p' init step) is
-- refused (0A000). The tests then run `pgbench -i -I gv` (generate, vacuum).
drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers;
create table pgbench_history(tid int,bid int,aid int,delta int,mtime timestamp,filler char(22));
create table pgbench_tellers(tid int not null primary key,bid int,tbalance int,filler char(84)) with (fillfactor=100);
create table pgbench_accounts(aid int not null primary key,bid int,abalance int,filler char(84)) with (fillfactor=100);
create table pgbench_branches(bid int not null primary key,bbalance int,filler char(88)) with (fillfactor=100);
