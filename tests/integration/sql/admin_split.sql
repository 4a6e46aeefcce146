-- SPLIT AT and UNSPLIT through pgrange, for keys of type int8, text, (int4, text) and uuid,
-- and their errors. The five tables are /Table/100 … /Table/104, each one range at first,
-- placed round-robin on s1, s2, s3, s1, s2.
\set VERBOSITY verbose
create table ti (id int8 primary key, v text);
create table tt (name text primary key, v int);
create table tc (a int4, b text, v text, primary key (a, b));
create table tu (id uuid primary key, v text);
create table tn (x int, v text);
show ranges from database app;

-- int8: one tuple, several tuples, a negative value, an existing boundary (no error).
alter table ti split at values (10);
alter table ti split at values (20), (30);
alter table ti split at values (-5);
alter table ti split at values (20);
-- WITH EXPIRATION: timestamp literals (shown in UTC) and NULL.
alter table ti split at values (40) with expiration '2030-01-01 12:30:00+00';
alter table ti split at values (50) with expiration '2030-06-01 12:00:00+02'::timestamptz;
alter table ti split at values (60) with expiration null;
show ranges from table ti;
-- An interval expiration lies in the future by that interval.
alter table ti split at values (70) with expiration '1 hour' \gset
select :'split_enforced_until'::timestamp between (now() at time zone 'UTC') + interval '59 minutes'
   and (now() at time zone 'UTC') + interval '61 minutes' as one_hour_ahead;
-- (Unsplit again: its expiration differs from run to run.)
alter table ti unsplit at values (70);

-- Errors.
alter table ti split at values ('abc');
alter table ti split at values (1, 2);
alter table no_such_table split at values (1);
alter table tn split at values (1);
alter table ti split at values (80) with expiration 42;
alter table ti split at values (99999999999999999999);
show ranges from table ti;

-- text.
alter table tt split at values ('m');
alter table tt split at values ('f'), ('t'), ('with space'), ('sl/ash"q');
alter table tt split at values ('');
show ranges from table tt;

-- (int4, text): a prefix of the key, whole keys, a value out of int4's range.
alter table tc split at values (5);
alter table tc split at values (5, 'k'), (10, 'a'), (10, 'b');
alter table tc split at values (5, 'k', 'x');
alter table tc split at values (3000000000);
alter table tc split at values ('x', 5);
show ranges from table tc;

-- uuid: plain and cast literals, and a malformed one.
alter table tu split at values ('40000000-0000-0000-0000-000000000000');
alter table tu split at values ('80000000-0000-0000-0000-000000000000'::uuid), ('c0000000-0000-0000-0000-00000000000a');
alter table tu split at values ('not-a-uuid');
show ranges from table tu;

-- UNSPLIT AT: existing split points, and keys that start no range.
alter table ti unsplit at values (20);
alter table ti unsplit at values (-5), (40);
alter table ti unsplit at values (25);
alter table ti unsplit at values ('abc');
show ranges from table ti;
alter table tt unsplit at values ('f');
alter table tt unsplit at values ('g');
show ranges from table tt;
alter table tc unsplit at values (5, 'k');
alter table tc unsplit at values (5, 'j');
show ranges from table tc;
-- UNSPLIT ALL.
alter table tc unsplit all;
show ranges from table tc;
alter table tu unsplit all;
alter table tu unsplit all;
show ranges from table tu;
alter table tn unsplit all;
alter table tn unsplit at values (1);
alter table no_such_table unsplit all;
-- Every table keeps its own range outside its key space.
show ranges from database app;
