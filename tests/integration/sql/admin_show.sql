-- SHOW RANGES in all its forms, SHOW RANGE … FOR ROW and SHOW SHARDS through pgrange.
-- Tables /Table/100 … /Table/104 are placed round-robin on s1, s2, s3, s1, s2.
\set VERBOSITY verbose
create table ti (id int8 primary key, v text);
create table tt (name text primary key, v int);
create table tc (a int4, b text, v text, primary key (a, b));
create table tu (id uuid primary key, v text);
create table tn (x int, v text);
insert into ti select g, 'v' || g from generate_series(1, 20) g;
insert into tt values ('apple', 1), ('banana', 2), ('cherry', 3), ('mango', 4), ('peach', 5), ('zucchini', 6);
insert into tc values (1, 'a', 'x'), (1, 'b', 'x'), (5, 'a', 'x'), (5, 'k', 'x'), (5, 'z', 'x'), (9, 'a', 'x');
insert into tu values ('00000000-0000-0000-0000-000000000001', 'a'), ('7fffffff-ffff-ffff-ffff-ffffffffffff', 'b'),
  ('80000000-0000-0000-0000-000000000000', 'c'), ('ffffffff-ffff-ffff-ffff-ffffffffffff', 'd');
insert into tn select g, 'n' || g from generate_series(1, 7) g;
alter table ti split at values (5), (10), (15);
alter table tt split at values ('c'), ('n');
alter table tc split at values (5), (5, 'm');
alter table tu split at values ('80000000-0000-0000-0000-000000000000');

-- Relative keys per table.
show ranges from table ti;
show ranges from table tt;
show ranges from table tc;
show ranges from table tu;
show ranges from table tn;
show ranges from table public.ti;
-- Full keys over the whole database.
show ranges;
show ranges from database app;
-- Raw keys, details (row counts), indexes, and combinations.
show ranges from table ti with keys;
show ranges from table tt with keys;
show ranges from table ti with details;
show ranges from table tt with details;
show ranges from table tc with details;
show ranges from table tu with details;
show ranges from table tn with details;
show ranges from table ti with indexes;
show ranges from table tn with indexes;
show ranges with indexes;
show ranges from table tc with details, keys, indexes;
show ranges from database app with details;
-- FROM INDEX: the primary index by either name.
show ranges from index ti@primary;
show ranges from index ti@ti_pkey;
show ranges from index tc@primary with keys;
-- Errors.
show ranges from index ti@no_such_index;
show ranges from index no_such_table@primary;
show ranges from database no_such_db;
show ranges from table no_such_table;

-- The range holding one row, for each key type.
show range from table ti for row (1);
show range from table ti for row (5);
show range from table ti for row (14);
show range from table ti for row (-100);
show range from table ti for row (9223372036854775807);
show range from table tt for row ('banana');
show range from table tt for row ('c');
show range from table tt for row ('zzz');
show range from table tc for row (5, 'a');
show range from table tc for row (5, 'm');
show range from table tc for row (4, 'zzz');
show range from table tu for row ('80000000-0000-0000-0000-000000000000');
show range from table tu for row ('7fffffff-ffff-ffff-ffff-ffffffffffff'::uuid);
show range from table tn for row (1);
show range from index ti@primary for row (12);
-- Errors.
show range from table ti for row ('abc');
show range from table ti for row (1, 2);
show range from table tc for row (5);
show range from table tu for row ('nope');
show range from table no_such_table for row (1);
show range from table ti for row (1), (2);

show shards;
