-- DDL and DML through psql; the output must be the same directly and through pgrange.
drop table if exists psql_t;
create table psql_t (id int primary key, name text not null, amount numeric(10,2) default 0);
\d psql_t
insert into psql_t values (1, 'one', 1.5), (2, 'two', 2.25), (3, 'three', null);
select * from psql_t order by id;
update psql_t set amount = coalesce(amount, 0) + 1 where id >= 2 returning id, amount;
\echo rows: :ROW_COUNT
delete from psql_t where id = 1;
select count(*), sum(amount) from psql_t;
alter table psql_t add column note text default 'n/a';
create index psql_t_name on psql_t (name);
create view psql_v as select id, upper(name) as uname, note from psql_t;
select * from psql_v order by id;
insert into psql_t (id, name) select g, 'gen ' || g from generate_series(100, 149) g;
select count(*), min(id), max(id) from psql_t;
with moved as (delete from psql_t where id between 100 and 139 returning id)
  select count(*) from moved;
select 'unicode ✓' as u, E'tab\there' as t, null::text is null as isnull, 1.5::float8 * 2 as f;
select length(repeat('x', 1000000)) as big, md5(repeat('y', 200000)) as md5;
do $$ begin raise notice 'hello %', 42; end $$;
select 1 as a \; select 2 as b \; select 'three' as c;
create function psql_f(int) returns int language sql as 'select $1 * 10';
select psql_f(4);
drop function psql_f(int);
drop view psql_v;
drop table psql_t;
drop table if exists psql_t;
