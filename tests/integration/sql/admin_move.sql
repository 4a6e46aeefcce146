-- SCATTER and ALTER RANGE … RELOCATE TO through pgrange move ranges with their rows.
-- Tables /Table/100 … /Table/104 start on s1, s2, s3, s1, s2 (ranges 2 … 6).
\set VERBOSITY verbose
create table ti (id int8 primary key, v text);
create table tt (name text primary key, v int);
create table tc (a int4, b text, v text, primary key (a, b));
create table tu (id uuid primary key, v text);
create table tn (x int, v text);
insert into ti select g, 'v' || g from generate_series(1, 20) g;
insert into tt values ('apple', 1), ('banana', 2), ('cherry', 3), ('mango', 4), ('peach', 5), ('zucchini', 6);
insert into tc values (1, 'a', 'x'), (1, 'b', 'y'), (5, 'a', 'z'), (5, 'k', 'w'), (5, 'z', 'v'), (9, 'a', 'u');
insert into tu values ('00000000-0000-0000-0000-000000000001', 'a'), ('7fffffff-ffff-ffff-ffff-ffffffffffff', 'b'),
  ('80000000-0000-0000-0000-000000000000', 'c'), ('ffffffff-ffff-ffff-ffff-ffffffffffff', 'd');
insert into tn select g, 'n' || g from generate_series(1, 7) g;
alter table ti split at values (5), (10), (15);
alter table tt split at values ('c'), ('n');
alter table tc split at values (5), (5, 'm');
alter table tu split at values ('80000000-0000-0000-0000-000000000000');
show shards;

-- SCATTER: the ranges of a table go round-robin to s1, s2, s3.
alter table ti scatter;
show ranges from table ti with details;
alter table tt scatter;
show ranges from table tt with details;
alter table tc scatter;
show ranges from table tc with details;
alter table tu scatter;
show ranges from table tu with details;
alter table no_such_table scatter;
show shards;

-- Every row is still there: point queries go to the owning shard …
select format('select * from ti where id = %s', g) from generate_series(0, 21) g \gexec
select * from tt where name = 'cherry';
select * from tc where a = 5 and b = 'k';
select * from tu where id = '80000000-0000-0000-0000-000000000000';
-- … and plain SELECTs over several shards are concatenated (sorted here).
\pset tuples_only on
select id, v from ti \g | sort -n
select name, v from tt \g | sort
select a, b, v from tc \g | sort
select id, v from tu \g | sort
\pset tuples_only off
select id, v from ti order by id;

-- RELOCATE: to another shard, to where it already is, and errors.
show range from table ti for row (7);
alter range 8 relocate to 's3';
show range from table ti for row (7);
alter range 8 relocate to 's3';
alter range 8 relocate to 's9';
alter range 999 relocate to 's1';
-- The unsharded table is one range and moves as a whole.
show ranges from table tn with details;
alter range 6 relocate to 's3';
show ranges from table tn with details;
select x, v from tn where x = 3;
\pset tuples_only on
select x, v from tn \g | sort -n
select id, v from ti \g | sort -n
\pset tuples_only off
show ranges from database app;
show shards;

-- EXPLAIN through pgrange: its plan (spans, ranges, shards, merge), then each shard's own
-- (index scans forced, so that the shards' plans do not depend on their statistics).
set enable_seqscan = off;
set enable_bitmapscan = off;
explain (costs off) select * from ti where id = 7;
explain (costs off) select id, v from ti where id between 4 and 11 order by v desc limit 3;
explain (costs off) select count(*), max(v) from ti;
reset enable_seqscan;
reset enable_bitmapscan;
explain select string_agg(v, ',') from ti;
explain (format json, costs off) select * from ti;
explain (costs off) select * from tn;
select id, v from ti where id between 4 and 11 order by v desc limit 3;
select count(*), max(v) from ti;
