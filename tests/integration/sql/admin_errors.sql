-- Admin statements inside a transaction block, and malformed admin statements.
\set VERBOSITY verbose
create table ti (id int8 primary key, v text);
begin;
show ranges;
rollback;
begin;
alter table ti split at values (5);
commit;
show ranges from table ti;
-- Malformed.
alter table ti split at values;
alter table ti split at values (5) with expiration;
alter table ti split at values (5) garbage;
alter table ti unsplit at values (5) with expiration null;
alter table ti unsplit all now;
-- (not claimed by pgrange: PostgreSQL's own syntax error, shown without its source location)
\set VERBOSITY default
alter table ti scatter now;
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY verbose
alter range two relocate to 's1';
alter range 2 relocate to s1;
alter range 2 relocate 's1';
show ranges from tabel ti;
show ranges with nothing;
show ranges from index ti;
show range from table ti;
show range from table ti for row;
alter table ti split at values (now());
show hot ranges from table ti;
-- Jobs that do not exist, and a job number that is not one.
show job 999;
cancel job 999;
cancel job x;
-- Statements pgrange leaves to PostgreSQL.
show search_path;
alter table ti add column w int;
show ranges from table ti;
