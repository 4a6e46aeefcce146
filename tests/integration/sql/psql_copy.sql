-- COPY FROM STDIN / TO STDOUT through psql.
drop table if exists psql_c;
create table psql_c (id int primary key, name text, amount numeric(10,2));
copy psql_c from stdin;
1	one	1.5
2	two	\N
3	tab\there	3
\.
copy psql_c (id, name) from stdin with (format csv);
4,"four, quoted"
5,"five ""dq"""
\.
copy psql_c from stdin;
6	six	notanumber
\.
copy psql_c from stdin;
1	duplicate	1
\.
select count(*) from psql_c;
copy (select * from psql_c order by id) to stdout;
copy psql_c to stdout with (format csv, header);
copy (select g, md5(g::text) from generate_series(1, 20000) g) to stdout;
begin;
copy psql_c from stdin;
7	seven	7
\.
select count(*) from psql_c;
rollback;
select count(*) from psql_c;
copy (select 1/0) to stdout;
select id from psql_c order by id;
drop table psql_c;
