-- Admin-statement answers that disagree with the range map or name what does not exist.
\set VERBOSITY verbose
create table ti (id int8 primary key, v text);
-- Splitting an existing boundary again with another expiration: the answer and the range map
-- must agree.
alter table ti split at values (60) with expiration null;
alter table ti split at values (60) with expiration '2031-01-01 00:00:00+00';
show ranges from table ti;
-- A bad expiration names the value, without traces of pgrange's own query.
alter table ti split at values (80) with expiration 'not a time';
-- FOR ROW of an index that does not exist.
show range from index ti@no_such_index for row (1);
