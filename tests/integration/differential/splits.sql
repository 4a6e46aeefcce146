-- Through pgrange only, after setup.sql: many ranges per table, split at values the corpus
-- queries, then spread over the shards.
ALTER TABLE t_int SPLIT AT VALUES (-150), (-100), (-50), (-1), (0), (1), (25), (50), (51), (75), (100), (150), (175), (1000000000000);
ALTER TABLE t_text SPLIT AT VALUES (''), (' space'), ('Key2'), ('Key30'), ('a'), ('abc'), ('abc '), ('abd'), ('key050'), ('key100'), ('key150'), ('zebra'), ('é'), ('ñ10'), ('ü'), ('日本');
ALTER TABLE t_comp SPLIT AT VALUES (-5), (0), (5, 'x'), (5, 'y'), (10), (10, ''), (15, 'ä'), (20), (25, 'Z'), (25, 'x');
ALTER TABLE t_uuid SPLIT AT VALUES ('20000000-0000-0000-0000-000000000000'), ('43de481c-ae63-944b-81db-6fd5567a12bb'), ('60000000-0000-0000-0000-000000000000'), ('80000000-0000-0000-0000-000000000000'), ('ab7bb2a1-9e6c-92e7-c198-8bb3afbe4c7a'), ('c0000000-0000-0000-0000-000000000000'), ('cb78e542-4910-93eb-8eeb-4d125372a098'), ('e0000000-0000-0000-0000-000000000000'), ('e4774cdd-a079-3f86-414e-8b9140bb6db4');
ALTER TABLE t_ts SPLIT AT VALUES ('2000-01-01 00:00:00+00'), ('2023-12-25 00:00:00+00'), ('2024-01-01 00:00:00+00'), ('2024-01-01 00:00:00.000001+00'), ('2024-01-01 03:00:00+00'), ('2024-01-01 10:00:00+00'), ('2024-01-15 00:00:00+00'), ('2024-01-21 10:00:00+00'), ('2024-02-01 00:00:00+00'), ('2024-02-15 12:00:00+00'), ('2024-03-01 00:00:00+00'), ('2024-03-10 00:00:00+00');
ALTER TABLE t_nulls SPLIT AT VALUES (25), (50), (75), (100), (125), (150), (175), (200), (225), (250), (275);
ALTER TABLE t_types SPLIT AT VALUES (10), (40), (75), (76), (110), (150), (202), (204), (206);
ALTER TABLE t_int SCATTER;
ALTER TABLE t_text SCATTER;
ALTER TABLE t_comp SCATTER;
ALTER TABLE t_uuid SCATTER;
ALTER TABLE t_ts SCATTER;
ALTER TABLE t_nulls SCATTER;
ALTER TABLE t_types SCATTER;
-- Global indexes: the tables' and the indexes' ranges split and spread over the shards, so that
-- an entry and its row are mostly on different shards.
ALTER TABLE accounts SPLIT AT VALUES (50), (100), (150), (200), (250), (300);
ALTER TABLE accounts SCATTER;
ALTER INDEX accounts@accounts_city SPLIT AT VALUES ('Bern'), ('Oslo'), ('Rome'), ('Zürich');
ALTER INDEX accounts@accounts_city SCATTER;
ALTER INDEX accounts@accounts_email SPLIT AT VALUES ('shared'), ('user15'), ('user2'), ('user25'), ('user5');
ALTER INDEX accounts@accounts_email SCATTER;
ALTER INDEX accounts@accounts_code SPLIT AT VALUES ('C0050'), ('C0100'), ('C0200'), ('C0250');
ALTER INDEX accounts@accounts_code SCATTER;
ALTER INDEX accounts@accounts_tier_created_idx SPLIT AT VALUES (1), (2, '2024-03-01 00:00:00+00'), (3), (4);
ALTER INDEX accounts@accounts_tier_created_idx SCATTER;
ALTER TABLE parts SPLIT AT VALUES (10), (20, 'y'), (30), (45);
ALTER TABLE parts SCATTER;
ALTER INDEX parts@parts_tag SPLIT AT VALUES ('tag3'), ('tag6');
ALTER INDEX parts@parts_tag SCATTER;
ALTER TABLE events SPLIT AT VALUES (2, 200), (5, 100);
ALTER TABLE events SCATTER;
ALTER INDEX events@events_ts SPLIT AT VALUES ('2024-03-02 00:00:00+00'), ('2024-03-05 00:00:00+00'), ('2024-03-08 00:00:00+00');
ALTER INDEX events@events_ts SCATTER;
ALTER INDEX events@events_kind SPLIT AT VALUES ('buy'), ('login'), ('view');
ALTER INDEX events@events_kind SCATTER;
ALTER TABLE metrics SPLIT AT VALUES (60), (120), (180);
ALTER TABLE metrics SCATTER;
ALTER INDEX metrics@metrics_ts SCATTER;
ALTER INDEX metrics@metrics_host SCATTER;
