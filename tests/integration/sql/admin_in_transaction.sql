-- An admin statement in a transaction block that already holds a shard connection must fail
-- with 25001 like one at the start of the block (and abort the transaction).
\set VERBOSITY verbose
create table ti (id int8 primary key, v text);
begin;
insert into ti values (1, 'one');
show ranges;
rollback;
select * from ti where id = 1;
