-- Differential corpus of SELECT statements (subqueries, CTEs, set operations, window
-- functions, aggregates) over tables spread across shards. Generated: do not edit; run
-- python3 queries_corpus.py > queries.sql to regenerate it.

-- group: q scalar subquery in select list
SELECT id, grp, (SELECT max(grp) FROM t_int) AS mx FROM t_int WHERE grp < 5 ORDER BY id
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM t_int
SELECT id, grp - (SELECT min(grp) FROM t_int) AS d FROM t_int ORDER BY id LIMIT 7
SELECT (SELECT count(DISTINCT name) FROM t_int) AS ds, (SELECT sum(grp) FROM t_int) AS si
SELECT k, n, (SELECT max(n) FROM t_text) AS mx FROM t_text WHERE n < 5 ORDER BY k
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM t_text
SELECT k, n - (SELECT min(n) FROM t_text) AS d FROM t_text ORDER BY k LIMIT 7
SELECT (SELECT count(DISTINCT note) FROM t_text) AS ds, (SELECT sum(n) FROM t_text) AS si
SELECT a, b, v, (SELECT max(v) FROM t_comp) AS mx FROM t_comp WHERE v < 5 ORDER BY a, b
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM t_comp
SELECT a, b, v - (SELECT min(v) FROM t_comp) AS d FROM t_comp ORDER BY a, b LIMIT 7
SELECT (SELECT count(DISTINCT w) FROM t_comp) AS ds, (SELECT sum(v) FROM t_comp) AS si
SELECT u, n, (SELECT max(n) FROM t_uuid) AS mx FROM t_uuid WHERE n < 5 ORDER BY u
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM t_uuid
SELECT u, n - (SELECT min(n) FROM t_uuid) AS d FROM t_uuid ORDER BY u LIMIT 7
SELECT (SELECT count(DISTINCT label) FROM t_uuid) AS ds, (SELECT sum(n) FROM t_uuid) AS si
SELECT ts, n, (SELECT max(n) FROM t_ts) AS mx FROM t_ts WHERE n < 5 ORDER BY ts
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM t_ts
SELECT ts, n - (SELECT min(n) FROM t_ts) AS d FROM t_ts ORDER BY ts LIMIT 7
SELECT (SELECT count(DISTINCT payload) FROM t_ts) AS ds, (SELECT sum(n) FROM t_ts) AS si
SELECT id, a, (SELECT max(a) FROM t_nulls) AS mx FROM t_nulls WHERE a < 5 ORDER BY id
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM t_nulls
SELECT id, a - (SELECT min(a) FROM t_nulls) AS d FROM t_nulls ORDER BY id LIMIT 7
SELECT (SELECT count(DISTINCT b) FROM t_nulls) AS ds, (SELECT sum(a) FROM t_nulls) AS si
SELECT id, score, (SELECT max(score) FROM j_users) AS mx FROM j_users WHERE score < 5 ORDER BY id
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM j_users
SELECT id, score - (SELECT min(score) FROM j_users) AS d FROM j_users ORDER BY id LIMIT 7
SELECT (SELECT count(DISTINCT city) FROM j_users) AS ds, (SELECT sum(score) FROM j_users) AS si
SELECT user_id, id, id, (SELECT max(id) FROM j_orders) AS mx FROM j_orders WHERE id < 5 ORDER BY user_id, id
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM j_orders
SELECT user_id, id, id - (SELECT min(id) FROM j_orders) AS d FROM j_orders ORDER BY user_id, id LIMIT 7
SELECT (SELECT count(DISTINCT status) FROM j_orders) AS ds, (SELECT sum(id) FROM j_orders) AS si
SELECT id, tier, (SELECT max(tier) FROM accounts) AS mx FROM accounts WHERE tier < 5 ORDER BY id
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM accounts
SELECT id, tier - (SELECT min(tier) FROM accounts) AS d FROM accounts ORDER BY id LIMIT 7
SELECT (SELECT count(DISTINCT city) FROM accounts) AS ds, (SELECT sum(tier) FROM accounts) AS si
SELECT id, score, (SELECT max(score) FROM events) AS mx FROM events WHERE score < 5 ORDER BY id
SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM events
SELECT id, score - (SELECT min(score) FROM events) AS d FROM events ORDER BY id LIMIT 7
SELECT (SELECT count(DISTINCT kind) FROM events) AS ds, (SELECT sum(score) FROM events) AS si

-- group: q scalar subquery in where
SELECT id, grp FROM t_int WHERE grp = (SELECT max(grp) FROM t_int) ORDER BY id
SELECT id FROM t_int WHERE grp > (SELECT avg(grp) FROM t_int) + 10 ORDER BY id
SELECT count(*) FROM t_int WHERE grp < (SELECT min(score) FROM j_users) + 3
SELECT k, n FROM t_text WHERE n = (SELECT max(n) FROM t_text) ORDER BY k
SELECT k FROM t_text WHERE n > (SELECT avg(n) FROM t_text) + 10 ORDER BY k
SELECT count(*) FROM t_text WHERE n < (SELECT min(score) FROM j_users) + 3
SELECT a, b, v FROM t_comp WHERE v = (SELECT max(v) FROM t_comp) ORDER BY a, b
SELECT a, b FROM t_comp WHERE v > (SELECT avg(v) FROM t_comp) + 10 ORDER BY a, b
SELECT count(*) FROM t_comp WHERE v < (SELECT min(score) FROM j_users) + 3
SELECT u, n FROM t_uuid WHERE n = (SELECT max(n) FROM t_uuid) ORDER BY u
SELECT u FROM t_uuid WHERE n > (SELECT avg(n) FROM t_uuid) + 10 ORDER BY u
SELECT count(*) FROM t_uuid WHERE n < (SELECT min(score) FROM j_users) + 3
SELECT ts, n FROM t_ts WHERE n = (SELECT max(n) FROM t_ts) ORDER BY ts
SELECT ts FROM t_ts WHERE n > (SELECT avg(n) FROM t_ts) + 10 ORDER BY ts
SELECT count(*) FROM t_ts WHERE n < (SELECT min(score) FROM j_users) + 3
SELECT id, a FROM t_nulls WHERE a = (SELECT max(a) FROM t_nulls) ORDER BY id
SELECT id FROM t_nulls WHERE a > (SELECT avg(a) FROM t_nulls) + 10 ORDER BY id
SELECT count(*) FROM t_nulls WHERE a < (SELECT min(score) FROM j_users) + 3
SELECT id, score FROM j_users WHERE score = (SELECT max(score) FROM j_users) ORDER BY id
SELECT id FROM j_users WHERE score > (SELECT avg(score) FROM j_users) + 10 ORDER BY id
SELECT count(*) FROM j_users WHERE score < (SELECT min(score) FROM j_users) + 3
SELECT user_id, id, id FROM j_orders WHERE id = (SELECT max(id) FROM j_orders) ORDER BY user_id, id
SELECT user_id, id FROM j_orders WHERE id > (SELECT avg(id) FROM j_orders) + 10 ORDER BY user_id, id
SELECT count(*) FROM j_orders WHERE id < (SELECT min(score) FROM j_users) + 3
SELECT id, tier FROM accounts WHERE tier = (SELECT max(tier) FROM accounts) ORDER BY id
SELECT id FROM accounts WHERE tier > (SELECT avg(tier) FROM accounts) + 10 ORDER BY id
SELECT count(*) FROM accounts WHERE tier < (SELECT min(score) FROM j_users) + 3
SELECT id, score FROM events WHERE score = (SELECT max(score) FROM events) ORDER BY id
SELECT id FROM events WHERE score > (SELECT avg(score) FROM events) + 10 ORDER BY id
SELECT count(*) FROM events WHERE score < (SELECT min(score) FROM j_users) + 3
SELECT id, name FROM j_users WHERE score = (SELECT score FROM j_users WHERE id = 5) ORDER BY id
SELECT id FROM t_int WHERE id = (SELECT id FROM t_int WHERE id > 1000000000000) ORDER BY id
SELECT id FROM t_int WHERE id = (SELECT id FROM t_int WHERE id > 0)
SELECT k FROM t_text WHERE n = (SELECT n FROM t_text WHERE k = 'nothing') ORDER BY k
SELECT u, n FROM t_uuid WHERE n BETWEEN (SELECT min(n) FROM t_uuid) AND (SELECT min(n) + 9 FROM t_uuid) ORDER BY u

-- group: q scalar subquery in having
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > (SELECT count(*) / 13 FROM t_int) ORDER BY grp
SELECT city, sum(balance) FROM accounts GROUP BY city HAVING sum(balance) > (SELECT avg(balance) * 20 FROM accounts) ORDER BY city
SELECT status, count(*) FROM j_orders GROUP BY status HAVING max(amount) >= (SELECT max(amount) FROM j_orders WHERE status = 'open') ORDER BY status
SELECT kind, avg(score)::numeric(10,2) FROM events GROUP BY kind HAVING avg(score) < (SELECT avg(score) FROM events) ORDER BY kind
SELECT user_id, count(*) FROM j_orders GROUP BY user_id HAVING count(*) = (SELECT max(c) FROM (SELECT count(*) AS c FROM j_orders GROUP BY user_id) s) ORDER BY user_id
SELECT host, min(v), max(v) FROM metrics GROUP BY host HAVING min(v) <= (SELECT min(v) + 1 FROM metrics) ORDER BY host
SELECT a, count(*) FROM t_comp GROUP BY a HAVING sum(v) > (SELECT sum(v) / 40 FROM t_comp) ORDER BY a
SELECT payload, count(*) FROM t_ts GROUP BY payload HAVING count(*) >= ALL (SELECT count(*) FROM t_ts GROUP BY payload) ORDER BY payload

-- group: q in subquery
SELECT id, id FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 900) ORDER BY id
SELECT count(*) FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 900)
SELECT id FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 900) AND id IS NOT NULL ORDER BY id DESC LIMIT 5
SELECT id, id FROM j_users WHERE id IN (SELECT user_id FROM j_events WHERE kind = 'buy') ORDER BY id
SELECT count(*) FROM j_users WHERE id IN (SELECT user_id FROM j_events WHERE kind = 'buy')
SELECT id FROM j_users WHERE id IN (SELECT user_id FROM j_events WHERE kind = 'buy') AND id IS NOT NULL ORDER BY id DESC LIMIT 5
SELECT code, code FROM j_items WHERE code IN (SELECT item_code FROM j_orders WHERE status = 'void') ORDER BY code
SELECT count(*) FROM j_items WHERE code IN (SELECT item_code FROM j_orders WHERE status = 'void')
SELECT code FROM j_items WHERE code IN (SELECT item_code FROM j_orders WHERE status = 'void') AND code IS NOT NULL ORDER BY code DESC LIMIT 5
SELECT id, id FROM j_cats WHERE id IN (SELECT cat FROM j_items WHERE price > 30) ORDER BY id
SELECT count(*) FROM j_cats WHERE id IN (SELECT cat FROM j_items WHERE price > 30)
SELECT id FROM j_cats WHERE id IN (SELECT cat FROM j_items WHERE price > 30) AND id IS NOT NULL ORDER BY id DESC LIMIT 5
SELECT id, grp FROM t_int WHERE grp IN (SELECT a FROM t_nulls WHERE id < 40) ORDER BY id
SELECT count(*) FROM t_int WHERE grp IN (SELECT a FROM t_nulls WHERE id < 40)
SELECT id FROM t_int WHERE grp IN (SELECT a FROM t_nulls WHERE id < 40) AND grp IS NOT NULL ORDER BY id DESC LIMIT 5
SELECT id, id FROM t_int WHERE id IN (SELECT n FROM t_uuid WHERE label = 'label 3') ORDER BY id
SELECT count(*) FROM t_int WHERE id IN (SELECT n FROM t_uuid WHERE label = 'label 3')
SELECT id FROM t_int WHERE id IN (SELECT n FROM t_uuid WHERE label = 'label 3') AND id IS NOT NULL ORDER BY id DESC LIMIT 5
SELECT k, n FROM t_text WHERE n IN (SELECT grp FROM t_int) ORDER BY k
SELECT count(*) FROM t_text WHERE n IN (SELECT grp FROM t_int)
SELECT k FROM t_text WHERE n IN (SELECT grp FROM t_int) AND n IS NOT NULL ORDER BY k DESC LIMIT 5
SELECT a, b, a FROM t_comp WHERE a IN (SELECT a FROM parts WHERE tag = 'tag4') ORDER BY a, b
SELECT count(*) FROM t_comp WHERE a IN (SELECT a FROM parts WHERE tag = 'tag4')
SELECT a, b FROM t_comp WHERE a IN (SELECT a FROM parts WHERE tag = 'tag4') AND a IS NOT NULL ORDER BY a, b DESC LIMIT 5
SELECT id, city FROM accounts WHERE city IN (SELECT city FROM j_users WHERE score > 80) ORDER BY id
SELECT count(*) FROM accounts WHERE city IN (SELECT city FROM j_users WHERE score > 80)
SELECT id FROM accounts WHERE city IN (SELECT city FROM j_users WHERE score > 80) AND city IS NOT NULL ORDER BY id DESC LIMIT 5
SELECT id, score FROM events WHERE score IN (SELECT v FROM metrics WHERE host = 'host2') ORDER BY id
SELECT count(*) FROM events WHERE score IN (SELECT v FROM metrics WHERE host = 'host2')
SELECT id FROM events WHERE score IN (SELECT v FROM metrics WHERE host = 'host2') AND score IS NOT NULL ORDER BY id DESC LIMIT 5
SELECT u, n FROM t_uuid WHERE n IN (SELECT n FROM t_ts WHERE payload = 'p4') ORDER BY u
SELECT count(*) FROM t_uuid WHERE n IN (SELECT n FROM t_ts WHERE payload = 'p4')
SELECT u FROM t_uuid WHERE n IN (SELECT n FROM t_ts WHERE payload = 'p4') AND n IS NOT NULL ORDER BY u DESC LIMIT 5
SELECT user_id, id, user_id FROM j_orders WHERE user_id IN (SELECT id FROM j_users WHERE city = 'Lima') ORDER BY user_id, id
SELECT count(*) FROM j_orders WHERE user_id IN (SELECT id FROM j_users WHERE city = 'Lima')
SELECT user_id, id FROM j_orders WHERE user_id IN (SELECT id FROM j_users WHERE city = 'Lima') AND user_id IS NOT NULL ORDER BY user_id, id DESC LIMIT 5

-- group: q not in subquery
SELECT id, id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders WHERE amount > 900) ORDER BY id
SELECT count(*) FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders WHERE amount > 900 AND user_id IS NOT NULL)
SELECT id, id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_events WHERE kind = 'buy') ORDER BY id
SELECT count(*) FROM j_users WHERE id NOT IN (SELECT user_id FROM j_events WHERE kind = 'buy' AND user_id IS NOT NULL)
SELECT code, code FROM j_items WHERE code NOT IN (SELECT item_code FROM j_orders WHERE status = 'void') ORDER BY code
SELECT count(*) FROM j_items WHERE code NOT IN (SELECT item_code FROM j_orders WHERE status = 'void' AND item_code IS NOT NULL)
SELECT id, id FROM j_cats WHERE id NOT IN (SELECT cat FROM j_items WHERE price > 30) ORDER BY id
SELECT count(*) FROM j_cats WHERE id NOT IN (SELECT cat FROM j_items WHERE price > 30 AND cat IS NOT NULL)
SELECT id, grp FROM t_int WHERE grp NOT IN (SELECT a FROM t_nulls WHERE id < 40) ORDER BY id
SELECT count(*) FROM t_int WHERE grp NOT IN (SELECT a FROM t_nulls WHERE id < 40 AND a IS NOT NULL)
SELECT id, id FROM t_int WHERE id NOT IN (SELECT n FROM t_uuid WHERE label = 'label 3') ORDER BY id
SELECT count(*) FROM t_int WHERE id NOT IN (SELECT n FROM t_uuid WHERE label = 'label 3' AND n IS NOT NULL)
SELECT k, n FROM t_text WHERE n NOT IN (SELECT grp FROM t_int) ORDER BY k
SELECT count(*) FROM t_text WHERE n NOT IN (SELECT grp FROM t_int WHERE grp IS NOT NULL)
SELECT a, b, a FROM t_comp WHERE a NOT IN (SELECT a FROM parts WHERE tag = 'tag4') ORDER BY a, b
SELECT count(*) FROM t_comp WHERE a NOT IN (SELECT a FROM parts WHERE tag = 'tag4' AND a IS NOT NULL)
SELECT id, city FROM accounts WHERE city NOT IN (SELECT city FROM j_users WHERE score > 80) ORDER BY id
SELECT count(*) FROM accounts WHERE city NOT IN (SELECT city FROM j_users WHERE score > 80 AND city IS NOT NULL)
SELECT id, score FROM events WHERE score NOT IN (SELECT v FROM metrics WHERE host = 'host2') ORDER BY id
SELECT count(*) FROM events WHERE score NOT IN (SELECT v FROM metrics WHERE host = 'host2' AND v IS NOT NULL)
SELECT u, n FROM t_uuid WHERE n NOT IN (SELECT n FROM t_ts WHERE payload = 'p4') ORDER BY u
SELECT count(*) FROM t_uuid WHERE n NOT IN (SELECT n FROM t_ts WHERE payload = 'p4' AND n IS NOT NULL)
SELECT user_id, id, user_id FROM j_orders WHERE user_id NOT IN (SELECT id FROM j_users WHERE city = 'Lima') ORDER BY user_id, id
SELECT count(*) FROM j_orders WHERE user_id NOT IN (SELECT id FROM j_users WHERE city = 'Lima' AND id IS NOT NULL)
SELECT id FROM t_int WHERE grp NOT IN (SELECT a FROM t_nulls) ORDER BY id
SELECT id FROM t_int WHERE grp NOT IN (SELECT a FROM t_nulls WHERE a IS NOT NULL) ORDER BY id
SELECT count(*) FROM j_users WHERE id NOT IN (SELECT user_id FROM j_events)
SELECT count(*) FROM j_users WHERE id NOT IN (SELECT user_id FROM j_events WHERE user_id IS NOT NULL)
SELECT id FROM t_nulls WHERE a NOT IN (1, 2, 3) ORDER BY id LIMIT 10
SELECT id FROM t_nulls WHERE (a, b) IN (SELECT a, b FROM t_nulls WHERE id < 30) ORDER BY id
SELECT a, b FROM t_comp WHERE (a, b) IN (SELECT a, b FROM parts WHERE v % 7 = 0) ORDER BY a, b
SELECT a, b FROM t_comp WHERE (a, b) NOT IN (SELECT a, b FROM parts) ORDER BY a, b
SELECT code FROM j_items WHERE code NOT IN (SELECT item_code FROM j_orders WHERE user_id < 10) ORDER BY code
SELECT id FROM j_users WHERE id IN (SELECT user_id FROM j_orders) AND id NOT IN (SELECT user_id FROM j_visits) ORDER BY id

-- group: q exists
SELECT id, name FROM j_users WHERE EXISTS (SELECT 1 FROM j_orders WHERE amount > 990) AND id < 8 ORDER BY id
SELECT count(*) FROM t_int WHERE NOT EXISTS (SELECT 1 FROM j_orders WHERE amount > 990)
SELECT EXISTS (SELECT 1 FROM j_orders WHERE amount > 990) AS e, NOT EXISTS (SELECT 1 FROM j_orders WHERE amount > 990) AS ne
SELECT id, name FROM j_users WHERE EXISTS (SELECT 1 FROM j_orders WHERE amount > 5000) AND id < 8 ORDER BY id
SELECT count(*) FROM t_int WHERE NOT EXISTS (SELECT 1 FROM j_orders WHERE amount > 5000)
SELECT EXISTS (SELECT 1 FROM j_orders WHERE amount > 5000) AS e, NOT EXISTS (SELECT 1 FROM j_orders WHERE amount > 5000) AS ne
SELECT id, name FROM j_users WHERE EXISTS (SELECT 1 FROM t_nulls WHERE a IS NULL) AND id < 8 ORDER BY id
SELECT count(*) FROM t_int WHERE NOT EXISTS (SELECT 1 FROM t_nulls WHERE a IS NULL)
SELECT EXISTS (SELECT 1 FROM t_nulls WHERE a IS NULL) AS e, NOT EXISTS (SELECT 1 FROM t_nulls WHERE a IS NULL) AS ne
SELECT id, name FROM j_users WHERE EXISTS (SELECT 1 FROM events WHERE kind = 'nothing') AND id < 8 ORDER BY id
SELECT count(*) FROM t_int WHERE NOT EXISTS (SELECT 1 FROM events WHERE kind = 'nothing')
SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'nothing') AS e, NOT EXISTS (SELECT 1 FROM events WHERE kind = 'nothing') AS ne
SELECT id, name FROM j_users WHERE EXISTS (SELECT * FROM t_uuid WHERE n = 77) AND id < 8 ORDER BY id
SELECT count(*) FROM t_int WHERE NOT EXISTS (SELECT * FROM t_uuid WHERE n = 77)
SELECT EXISTS (SELECT * FROM t_uuid WHERE n = 77) AS e, NOT EXISTS (SELECT * FROM t_uuid WHERE n = 77) AS ne
SELECT k FROM t_text WHERE EXISTS (SELECT 1 FROM t_text WHERE note IS NULL) AND n > 1035 ORDER BY k
SELECT CASE WHEN EXISTS (SELECT 1 FROM accounts WHERE city = 'Oslo') THEN 'yes' ELSE 'no' END

-- group: q any all
SELECT id, score FROM j_users WHERE score = ANY (SELECT score FROM j_users WHERE city = 'Rome') ORDER BY id
SELECT count(*) FROM j_users WHERE score < ALL (SELECT score FROM j_users WHERE city = 'Rome')
SELECT count(*) FROM j_users WHERE score > ANY (SELECT score FROM j_users WHERE city = 'Rome')
SELECT id FROM j_users WHERE score >= ALL (SELECT score FROM j_users WHERE city = 'Rome') ORDER BY id
SELECT count(*) FROM j_users WHERE score <> ALL (SELECT score FROM j_users WHERE city = 'Rome')
SELECT id FROM j_users WHERE score <= SOME (SELECT score FROM j_users WHERE city = 'Rome') ORDER BY id LIMIT 4
SELECT id, grp FROM t_int WHERE grp = ANY (SELECT a FROM t_nulls WHERE id BETWEEN 10 AND 20) ORDER BY id
SELECT count(*) FROM t_int WHERE grp < ALL (SELECT a FROM t_nulls WHERE id BETWEEN 10 AND 20)
SELECT count(*) FROM t_int WHERE grp > ANY (SELECT a FROM t_nulls WHERE id BETWEEN 10 AND 20)
SELECT id FROM t_int WHERE grp >= ALL (SELECT a FROM t_nulls WHERE id BETWEEN 10 AND 20) ORDER BY id
SELECT count(*) FROM t_int WHERE grp <> ALL (SELECT a FROM t_nulls WHERE id BETWEEN 10 AND 20)
SELECT id FROM t_int WHERE grp <= SOME (SELECT a FROM t_nulls WHERE id BETWEEN 10 AND 20) ORDER BY id LIMIT 4
SELECT id, amount FROM t_int WHERE amount = ANY (SELECT amount FROM j_orders WHERE user_id = 7) ORDER BY id
SELECT count(*) FROM t_int WHERE amount < ALL (SELECT amount FROM j_orders WHERE user_id = 7)
SELECT count(*) FROM t_int WHERE amount > ANY (SELECT amount FROM j_orders WHERE user_id = 7)
SELECT id FROM t_int WHERE amount >= ALL (SELECT amount FROM j_orders WHERE user_id = 7) ORDER BY id
SELECT count(*) FROM t_int WHERE amount <> ALL (SELECT amount FROM j_orders WHERE user_id = 7)
SELECT id FROM t_int WHERE amount <= SOME (SELECT amount FROM j_orders WHERE user_id = 7) ORDER BY id LIMIT 4
SELECT id, score FROM events WHERE score = ANY (SELECT v FROM metrics WHERE id < 30) ORDER BY id
SELECT count(*) FROM events WHERE score < ALL (SELECT v FROM metrics WHERE id < 30)
SELECT count(*) FROM events WHERE score > ANY (SELECT v FROM metrics WHERE id < 30)
SELECT id FROM events WHERE score >= ALL (SELECT v FROM metrics WHERE id < 30) ORDER BY id
SELECT count(*) FROM events WHERE score <> ALL (SELECT v FROM metrics WHERE id < 30)
SELECT id FROM events WHERE score <= SOME (SELECT v FROM metrics WHERE id < 30) ORDER BY id LIMIT 4
SELECT ts, n FROM t_ts WHERE n = ANY (SELECT n FROM t_uuid WHERE label = 'label 1') ORDER BY ts
SELECT count(*) FROM t_ts WHERE n < ALL (SELECT n FROM t_uuid WHERE label = 'label 1')
SELECT count(*) FROM t_ts WHERE n > ANY (SELECT n FROM t_uuid WHERE label = 'label 1')
SELECT ts FROM t_ts WHERE n >= ALL (SELECT n FROM t_uuid WHERE label = 'label 1') ORDER BY ts
SELECT count(*) FROM t_ts WHERE n <> ALL (SELECT n FROM t_uuid WHERE label = 'label 1')
SELECT ts FROM t_ts WHERE n <= SOME (SELECT n FROM t_uuid WHERE label = 'label 1') ORDER BY ts LIMIT 4
SELECT id FROM j_users WHERE score < ALL (SELECT score FROM j_users WHERE id > 1000) ORDER BY id LIMIT 3
SELECT id FROM j_users WHERE score = ANY (SELECT score FROM j_users WHERE id > 1000) ORDER BY id
SELECT id FROM t_int WHERE id = ANY (ARRAY(SELECT id FROM t_int WHERE grp = 4 AND id > 150)) ORDER BY id
SELECT ARRAY(SELECT code FROM j_items WHERE cat = 2 ORDER BY code) AS codes

-- group: q derived tables
SELECT s.grp, s.c FROM (SELECT grp, count(*) AS c FROM t_int GROUP BY grp) s WHERE s.c > 30 ORDER BY s.grp
SELECT max(c), min(c), sum(c) FROM (SELECT grp, count(*) AS c FROM t_int GROUP BY grp) s
SELECT s.city, s.n, s.total FROM (SELECT city, count(*) AS n, sum(balance) AS total FROM accounts GROUP BY city) s ORDER BY s.total DESC, s.city NULLS FIRST
SELECT * FROM (SELECT id, name FROM j_users WHERE id < 20) u ORDER BY id DESC LIMIT 5
SELECT * FROM (SELECT id, name FROM j_users ORDER BY id LIMIT 10) u WHERE id % 2 = 0 ORDER BY id
SELECT * FROM (SELECT id, score FROM j_users ORDER BY score DESC NULLS LAST, id LIMIT 8) u ORDER BY id
SELECT count(*) FROM (SELECT DISTINCT user_id FROM j_orders) d
SELECT count(*) FROM (SELECT user_id FROM j_orders GROUP BY user_id HAVING count(*) > 5) d
SELECT d.status, avg(d.amount)::numeric(12,2) FROM (SELECT status, amount FROM j_orders WHERE user_id < 50) d GROUP BY d.status ORDER BY d.status NULLS LAST
SELECT u.id, o.cnt FROM j_users u JOIN (SELECT user_id, count(*) AS cnt FROM j_orders GROUP BY user_id) o ON o.user_id = u.id WHERE u.id < 15 ORDER BY u.id
SELECT u.city, sum(o.cnt) FROM j_users u JOIN (SELECT user_id, count(*) AS cnt FROM j_orders GROUP BY user_id) o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city NULLS FIRST
SELECT a.kind, a.n, b.n FROM (SELECT kind, count(*) AS n FROM events GROUP BY kind) a FULL JOIN (SELECT kind, count(*) AS n FROM j_events GROUP BY kind) b ON a.kind = b.kind ORDER BY a.kind, b.kind
SELECT x.g, x.c, y.c FROM (SELECT grp AS g, count(*) AS c FROM t_int GROUP BY grp) x LEFT JOIN (SELECT a AS g, count(*) AS c FROM t_nulls GROUP BY a) y ON y.g = x.g ORDER BY x.g
SELECT * FROM (SELECT a, b, v FROM t_comp WHERE a BETWEEN 3 AND 5) c JOIN (SELECT a, b, v AS pv FROM parts) p USING (a, b) ORDER BY a, b
SELECT * FROM (SELECT u, n FROM t_uuid WHERE n < 10) s ORDER BY u
SELECT * FROM (SELECT ts, n FROM t_ts ORDER BY ts DESC LIMIT 5 OFFSET 3) s ORDER BY ts
SELECT t.total FROM (SELECT sum(amount) AS total FROM j_orders) t
SELECT s.k, s.n FROM (SELECT k, n, note FROM t_text WHERE note IS NULL) s WHERE s.n > 1030 ORDER BY s.k
SELECT v.x, v.y FROM (VALUES (1, 'a'), (2, 'b'), (3, NULL)) v(x, y) JOIN j_cats c ON c.id = v.x ORDER BY v.x
SELECT c.label, v.w FROM j_cats c JOIN (VALUES (2, 10), (4, 20), (9, 30)) v(id, w) ON v.id = c.id ORDER BY c.id
SELECT m.host, m.mx FROM (SELECT host, max(v) AS mx FROM metrics GROUP BY host) m WHERE m.mx > (SELECT avg(v) FROM metrics) ORDER BY m.host
SELECT count(*), sum(n) FROM (SELECT n FROM t_ts WHERE n > 100 UNION ALL SELECT n FROM t_uuid WHERE n > 250) s
SELECT grp, flag, c FROM (SELECT grp, flag, count(*) AS c FROM t_int GROUP BY grp, flag) s WHERE c > 10 ORDER BY grp, flag
SELECT * FROM (SELECT DISTINCT city FROM j_users) d ORDER BY city NULLS LAST
SELECT * FROM (SELECT id, a, b FROM t_nulls WHERE a IS NULL AND b IS NULL) s ORDER BY id

-- group: q correlated exists
SELECT u.id, u.name FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount > 900) ORDER BY u.id
SELECT u.id FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id) ORDER BY u.id
SELECT u.id FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_visits v WHERE v.user_id = u.id) ORDER BY u.id
SELECT count(*) FROM j_users u WHERE EXISTS (SELECT 1 FROM j_events e WHERE e.user_id = u.id AND e.kind = 'buy')
SELECT i.code FROM j_items i WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.item_code = i.code) ORDER BY i.code
SELECT c.id, c.label FROM j_cats c WHERE EXISTS (SELECT 1 FROM j_items i WHERE i.cat = c.id AND i.price > 40) ORDER BY c.id
SELECT t.a, t.b FROM t_comp t WHERE EXISTS (SELECT 1 FROM parts p WHERE p.a = t.a AND p.b = t.b AND p.tag = 'tag0') ORDER BY t.a, t.b
SELECT t.id FROM t_int t WHERE EXISTS (SELECT 1 FROM t_nulls n WHERE n.id = t.id AND n.a IS NULL) AND t.id < 60 ORDER BY t.id
SELECT a.id FROM accounts a WHERE EXISTS (SELECT 1 FROM accounts b WHERE b.email = a.email AND b.id <> a.id) ORDER BY a.id
SELECT e.id FROM events e WHERE NOT EXISTS (SELECT 1 FROM events f WHERE f.kind = e.kind AND f.score > e.score) ORDER BY e.id
SELECT u.city, count(*) FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.status = 'open') GROUP BY u.city ORDER BY u.city NULLS FIRST
SELECT u.id FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND EXISTS (SELECT 1 FROM j_items i WHERE i.code = o.item_code AND i.cat = 3)) ORDER BY u.id

-- group: q correlated scalar
SELECT u.id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) AS n FROM j_users u WHERE u.id < 25 ORDER BY u.id
SELECT u.id, (SELECT sum(amount) FROM j_orders o WHERE o.user_id = u.id) AS total FROM j_users u ORDER BY u.id
SELECT u.id, (SELECT max(o.id) FROM j_orders o WHERE o.user_id = u.id AND o.status = 'paid') AS last_paid FROM j_users u WHERE u.city = 'Oslo' ORDER BY u.id
SELECT i.code, (SELECT c.label FROM j_cats c WHERE c.id = i.cat) AS label FROM j_items i ORDER BY i.code
SELECT o.user_id, o.id, o.amount FROM j_orders o WHERE o.amount = (SELECT max(p.amount) FROM j_orders p WHERE p.user_id = o.user_id) ORDER BY o.user_id, o.id
SELECT o.user_id, o.id FROM j_orders o WHERE o.amount > (SELECT avg(p.amount) * 1.8 FROM j_orders p WHERE p.user_id = o.user_id) ORDER BY o.user_id, o.id
SELECT t.id, t.grp, (SELECT count(*) FROM t_int s WHERE s.grp = t.grp AND s.id < t.id) AS before FROM t_int t WHERE t.id BETWEEN 0 AND 30 ORDER BY t.id
SELECT c.a, c.b, (SELECT p.v FROM parts p WHERE p.a = c.a AND p.b = c.b) AS pv FROM t_comp c WHERE c.a BETWEEN 0 AND 3 ORDER BY c.a, c.b
SELECT e.kind, e.id, e.score FROM events e WHERE e.score = (SELECT min(f.score) FROM events f WHERE f.kind = e.kind) ORDER BY e.kind, e.id
SELECT m.id, m.v - (SELECT min(n.v) FROM metrics n WHERE n.host = m.host) AS d FROM metrics m WHERE m.id % 20 = 0 ORDER BY m.id
SELECT u.id, coalesce((SELECT string_agg(v.page, ',' ORDER BY v.n) FROM j_visits v WHERE v.user_id = u.id), '-') FROM j_users u WHERE u.id < 12 ORDER BY u.id
SELECT u.id FROM j_users u WHERE (SELECT count(*) FROM j_visits v WHERE v.user_id = u.id) = 5 ORDER BY u.id
SELECT u.city, sum((SELECT count(*) FROM j_orders o WHERE o.user_id = u.id)) FROM j_users u GROUP BY u.city ORDER BY u.city NULLS FIRST
SELECT u.id, (SELECT o.id FROM j_orders o WHERE o.user_id = u.id ORDER BY o.amount DESC, o.id LIMIT 1) AS top FROM j_users u WHERE u.id BETWEEN 40 AND 60 ORDER BY u.id

-- group: q correlated in
SELECT u.id FROM j_users u WHERE u.id IN (SELECT o.user_id FROM j_orders o WHERE o.amount > u.score * 10) ORDER BY u.id
SELECT o.user_id, o.id FROM j_orders o WHERE o.item_code IN (SELECT i.code FROM j_items i WHERE i.price > o.amount / 20) AND o.user_id < 20 ORDER BY o.user_id, o.id
SELECT u.id FROM j_users u WHERE u.score NOT IN (SELECT v.secs FROM j_visits v WHERE v.user_id = u.id) ORDER BY u.id
SELECT t.id FROM t_int t WHERE t.grp IN (SELECT n.a FROM t_nulls n WHERE n.id = t.id) ORDER BY t.id
SELECT c.a, c.b FROM t_comp c WHERE c.b IN (SELECT p.b FROM parts p WHERE p.a = c.a AND p.v % 2 = 0) ORDER BY c.a, c.b
SELECT e.id FROM events e WHERE e.score > ALL (SELECT f.score FROM events f WHERE f.kind = e.kind AND f.id < e.id) ORDER BY e.id
SELECT e.id FROM events e WHERE e.score = ANY (SELECT m.v FROM metrics m WHERE m.id = e.id) ORDER BY e.id

-- group: q lateral
SELECT u.id, l.id, l.amount FROM j_users u CROSS JOIN LATERAL (SELECT o.id, o.amount FROM j_orders o WHERE o.user_id = u.id ORDER BY o.amount DESC, o.id LIMIT 2) l WHERE u.id < 20 ORDER BY u.id, l.id
SELECT u.id, l.id FROM j_users u LEFT JOIN LATERAL (SELECT o.id FROM j_orders o WHERE o.user_id = u.id AND o.status = 'void' ORDER BY o.id LIMIT 1) l ON true WHERE u.id BETWEEN 50 AND 70 ORDER BY u.id
SELECT u.id, l.n, l.total FROM j_users u, LATERAL (SELECT count(*) AS n, sum(o.amount) AS total FROM j_orders o WHERE o.user_id = u.id) l ORDER BY u.id
SELECT u.id, l.pages FROM j_users u JOIN LATERAL (SELECT string_agg(v.page, '/' ORDER BY v.n) AS pages FROM j_visits v WHERE v.user_id = u.id) l ON true WHERE u.id % 9 = 0 ORDER BY u.id
SELECT i.code, l.cnt FROM j_items i, LATERAL (SELECT count(*) AS cnt FROM j_orders o WHERE o.item_code = i.code) l WHERE l.cnt > 14 ORDER BY i.code
SELECT c.id, l.code, l.price FROM j_cats c CROSS JOIN LATERAL (SELECT i.code, i.price FROM j_items i WHERE i.cat = c.id ORDER BY i.price DESC, i.code LIMIT 2) l ORDER BY c.id, l.code
SELECT t.a, t.b, l.v FROM t_comp t, LATERAL (SELECT p.v FROM parts p WHERE p.a = t.a AND p.b = t.b) l WHERE t.a < 4 ORDER BY t.a, t.b
SELECT g.x, l.c FROM generate_series(0, 12) g(x), LATERAL (SELECT count(*) AS c FROM t_int WHERE grp = g.x) l ORDER BY g.x
SELECT g.x, l.id FROM generate_series(1, 5) g(x) LEFT JOIN LATERAL (SELECT id FROM j_users WHERE score = g.x * 10 ORDER BY id LIMIT 1) l ON true ORDER BY g.x
SELECT e.kind, l.id, l.score FROM (SELECT DISTINCT kind FROM events) e, LATERAL (SELECT id, score FROM events f WHERE f.kind = e.kind ORDER BY score DESC NULLS LAST, id LIMIT 3) l ORDER BY e.kind, l.id
SELECT m.host, l.mx FROM (SELECT DISTINCT host FROM metrics) m, LATERAL (SELECT max(v) AS mx FROM metrics n WHERE n.host = m.host) l ORDER BY m.host
SELECT u.id, x.v FROM j_users u, LATERAL unnest(ARRAY[u.id, u.score]) x(v) WHERE u.id < 6 ORDER BY u.id, x.v
SELECT a.id, l.n FROM accounts a, LATERAL (SELECT count(*) AS n FROM accounts b WHERE b.city = a.city AND b.id < a.id) l WHERE a.id < 30 ORDER BY a.id
SELECT u.id, l.id FROM j_users u LEFT JOIN LATERAL (SELECT e.id FROM j_events e WHERE e.user_id = u.id ORDER BY e.at DESC, e.id LIMIT 1) l ON true WHERE u.id BETWEEN 1 AND 25 ORDER BY u.id
SELECT count(*), sum(l.c) FROM j_users u, LATERAL (SELECT count(*) AS c FROM j_visits v WHERE v.user_id = u.id) l

-- group: q cte
WITH big AS (SELECT user_id, sum(amount) AS s FROM j_orders GROUP BY user_id) SELECT user_id, s FROM big WHERE s > 5000 ORDER BY user_id
WITH c AS (SELECT grp, count(*) AS n FROM t_int GROUP BY grp) SELECT a.grp, a.n, b.n FROM c a JOIN c b ON b.grp = a.grp + 1 ORDER BY a.grp
WITH c AS (SELECT id, score FROM j_users WHERE score IS NOT NULL) SELECT (SELECT count(*) FROM c), (SELECT max(score) FROM c)
WITH a AS (SELECT id FROM j_users WHERE city = 'Rome'), b AS (SELECT user_id FROM j_orders WHERE amount > 800) SELECT a.id FROM a WHERE a.id IN (SELECT user_id FROM b) ORDER BY a.id
WITH a AS (SELECT id FROM j_users WHERE city = 'Rome'), b AS (SELECT id FROM a WHERE id > 50) SELECT * FROM b ORDER BY id
WITH a AS MATERIALIZED (SELECT id, name FROM j_users WHERE id < 30) SELECT * FROM a WHERE id % 3 = 0 ORDER BY id
WITH a AS NOT MATERIALIZED (SELECT id, name FROM j_users WHERE id < 30) SELECT * FROM a WHERE id % 3 = 0 ORDER BY id
WITH a AS MATERIALIZED (SELECT user_id, count(*) AS n FROM j_orders GROUP BY user_id) SELECT x.user_id, x.n FROM a x JOIN a y ON y.user_id = x.user_id - 1 AND y.n = x.n ORDER BY x.user_id
WITH a AS NOT MATERIALIZED (SELECT * FROM t_comp WHERE a = 7) SELECT count(*), sum(v) FROM a
WITH t AS (SELECT * FROM t_text WHERE k LIKE 'Key%') SELECT k, n FROM t WHERE n % 4 = 0 ORDER BY k
WITH t AS (SELECT u, n FROM t_uuid WHERE n <= 20) SELECT t1.n, t2.n FROM t t1 JOIN t t2 ON t2.n = t1.n * 2 ORDER BY t1.n
WITH s AS (SELECT payload, count(*) AS c FROM t_ts GROUP BY payload) SELECT * FROM s ORDER BY c DESC, payload
WITH s AS (SELECT kind, score FROM events WHERE score > 50) SELECT kind, count(*), max(score) FROM s GROUP BY kind ORDER BY kind
WITH s AS (SELECT id FROM t_nulls WHERE c IS NULL) SELECT count(*) FROM s
WITH x AS (SELECT 1 AS v UNION ALL SELECT 2) SELECT v FROM x ORDER BY v
WITH x AS (SELECT id FROM j_users ORDER BY id DESC LIMIT 5) SELECT * FROM x ORDER BY id
WITH x AS (SELECT host, v FROM metrics WHERE v > 45) SELECT host, count(*) FROM x GROUP BY host ORDER BY host
WITH u AS (SELECT id, city FROM j_users), o AS (SELECT user_id, amount FROM j_orders) SELECT u.city, count(*), sum(o.amount) FROM u JOIN o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city NULLS FIRST
WITH u AS (SELECT id FROM j_users WHERE id < 10) SELECT u.id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) FROM u ORDER BY u.id
WITH c AS (SELECT cat, count(*) AS n FROM j_items GROUP BY cat) SELECT j.label, c.n FROM j_cats j LEFT JOIN c ON c.cat = j.id ORDER BY j.id
WITH a AS (SELECT id, balance FROM accounts WHERE balance > 400) SELECT count(*), min(id), max(id) FROM a
WITH a AS (SELECT * FROM parts WHERE tag IS NULL) SELECT a, b FROM a ORDER BY a, b LIMIT 10 OFFSET 5
WITH recent AS (SELECT * FROM j_events WHERE at >= '2024-01-10') SELECT kind, count(*) FROM recent GROUP BY kind ORDER BY kind
WITH q AS (SELECT grp, amount FROM t_int WHERE flag) SELECT grp, sum(amount) FROM q GROUP BY grp ORDER BY grp
WITH q AS (SELECT id FROM t_int), r AS (SELECT id FROM q WHERE id > 190) SELECT * FROM r ORDER BY id
WITH a AS (SELECT user_id FROM j_orders), b AS (SELECT user_id FROM j_visits) SELECT count(*) FROM (SELECT user_id FROM a INTERSECT SELECT user_id FROM b) s
WITH m AS MATERIALIZED (SELECT id, score FROM j_users) SELECT count(*) FROM m WHERE score IS NULL
WITH m AS (SELECT id, score FROM j_users) SELECT m1.id FROM m m1 WHERE m1.score = (SELECT max(score) FROM m) ORDER BY m1.id
SELECT * FROM (WITH z AS (SELECT id FROM j_users WHERE id < 4) SELECT * FROM z) s ORDER BY id
SELECT u.id, (WITH c AS (SELECT count(*) AS n FROM j_orders o WHERE o.user_id = u.id) SELECT n FROM c) FROM j_users u WHERE u.id < 6 ORDER BY u.id

-- group: q recursive cte
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r ORDER BY n
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT (n * 3) % 17 FROM r) SELECT n FROM r ORDER BY n
WITH RECURSIVE r(id, depth) AS (SELECT id, 0 FROM j_users WHERE id = 1 UNION ALL SELECT u.id, r.depth + 1 FROM r JOIN j_users u ON u.id = r.id * 2) SELECT id, depth FROM r ORDER BY id
WITH RECURSIVE r(id, depth) AS (SELECT id, 0 FROM t_int WHERE id = 1 UNION ALL SELECT t.id, r.depth + 1 FROM r JOIN t_int t ON t.id = r.id + 7 WHERE r.depth < 30) SELECT id, depth FROM r ORDER BY id
WITH RECURSIVE r(id) AS (SELECT min(id) FROM j_users UNION ALL SELECT (SELECT min(u.id) FROM j_users u WHERE u.id > r.id AND u.id % 10 = 0) FROM r WHERE r.id IS NOT NULL) SELECT id FROM r WHERE id IS NOT NULL ORDER BY id
WITH RECURSIVE chain(code, hops) AS (SELECT code, 0 FROM j_items WHERE code = 'i01' UNION ALL SELECT i.code, c.hops + 1 FROM chain c JOIN j_items i ON i.code = 'i' || lpad((substr(c.code, 2)::int * 2)::text, 2, '0') WHERE c.hops < 6) SELECT * FROM chain ORDER BY hops
WITH RECURSIVE r(u, n) AS (SELECT user_id, n FROM j_visits WHERE user_id = 5 AND n = 1 UNION ALL SELECT v.user_id, v.n FROM r JOIN j_visits v ON v.user_id = r.u AND v.n = r.n + 1) SELECT u, n FROM r ORDER BY u, n
WITH RECURSIVE r(a, total) AS (SELECT 0, 0::numeric UNION ALL SELECT r.a + 1, r.total + (SELECT sum(v) FROM t_comp WHERE t_comp.a = r.a + 1) FROM r WHERE r.a < 8) SELECT a, total FROM r ORDER BY a
WITH RECURSIVE r(ts, k) AS (SELECT min(ts), 1 FROM t_ts UNION ALL SELECT (SELECT min(t.ts) FROM t_ts t WHERE t.ts > r.ts + interval '3 days'), k + 1 FROM r WHERE k < 10) SELECT ts, k FROM r ORDER BY k
WITH RECURSIVE r(id) AS (SELECT 1::int8 UNION SELECT o.user_id + 3 FROM r JOIN j_orders o ON o.user_id = r.id WHERE r.id < 100) SELECT count(*), max(id) FROM r
WITH RECURSIVE fib(i, a, b) AS (SELECT 1, 0::numeric, 1::numeric UNION ALL SELECT i + 1, b, a + b FROM fib WHERE i < 40) SELECT i, a FROM fib ORDER BY i
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 12) SELECT r.n, count(t.id) FROM r LEFT JOIN t_int t ON t.grp = r.n GROUP BY r.n ORDER BY r.n
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5), c AS (SELECT id, name FROM j_users) SELECT r.n, c.name FROM r JOIN c ON c.id = r.n ORDER BY r.n
WITH RECURSIVE t(x) AS (SELECT id FROM j_cats WHERE id = 1 UNION ALL SELECT c.id FROM t JOIN j_cats c ON c.id = t.x + 2) SELECT x FROM t ORDER BY x
WITH RECURSIVE t(x, path) AS (SELECT id, label FROM j_cats WHERE id = 1 UNION ALL SELECT c.id, t.path || '>' || c.label FROM t JOIN j_cats c ON c.id = t.x + 1) SELECT x, path FROM t ORDER BY x
WITH RECURSIVE r(g) AS (SELECT 0 UNION ALL SELECT g + 1 FROM r WHERE g < 12) SELECT g FROM r WHERE g NOT IN (SELECT grp FROM t_int) ORDER BY g
WITH RECURSIVE r(id) AS (SELECT id FROM j_users WHERE id IN (1, 2) UNION ALL SELECT r.id + 40 FROM r WHERE r.id < 100) SELECT r.id, u.name FROM r LEFT JOIN j_users u ON u.id = r.id ORDER BY r.id
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT count(*) FROM r, j_orders WHERE j_orders.user_id = r.n
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r LIMIT 5
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 50) SEARCH DEPTH FIRST BY n SET ord SELECT n FROM r WHERE n % 10 = 0 ORDER BY ord

-- group: q set operations
SELECT user_id FROM j_orders WHERE amount > 700 UNION SELECT user_id FROM j_visits WHERE secs > 200
SELECT user_id FROM j_orders WHERE amount > 700 UNION ALL SELECT user_id FROM j_visits WHERE secs > 200
SELECT user_id FROM j_orders WHERE amount > 700 INTERSECT SELECT user_id FROM j_visits WHERE secs > 200
SELECT user_id FROM j_orders WHERE amount > 700 INTERSECT ALL SELECT user_id FROM j_visits WHERE secs > 200
SELECT user_id FROM j_orders WHERE amount > 700 EXCEPT SELECT user_id FROM j_visits WHERE secs > 200
SELECT user_id FROM j_orders WHERE amount > 700 EXCEPT ALL SELECT user_id FROM j_visits WHERE secs > 200
SELECT user_id FROM j_orders WHERE amount > 700 UNION SELECT user_id FROM j_visits WHERE secs > 200 ORDER BY user_id
SELECT user_id FROM j_visits WHERE secs > 200 EXCEPT SELECT user_id FROM j_orders WHERE amount > 700 ORDER BY 1 LIMIT 5
SELECT count(*) FROM (SELECT user_id FROM j_orders WHERE amount > 700 UNION ALL SELECT user_id FROM j_visits WHERE secs > 200) s
SELECT count(*) FROM (SELECT user_id FROM j_orders WHERE amount > 700 INTERSECT ALL SELECT user_id FROM j_visits WHERE secs > 200) s
SELECT id FROM j_users WHERE city = 'Oslo' UNION SELECT user_id FROM j_events WHERE kind = 'view'
SELECT id FROM j_users WHERE city = 'Oslo' UNION ALL SELECT user_id FROM j_events WHERE kind = 'view'
SELECT id FROM j_users WHERE city = 'Oslo' INTERSECT SELECT user_id FROM j_events WHERE kind = 'view'
SELECT id FROM j_users WHERE city = 'Oslo' INTERSECT ALL SELECT user_id FROM j_events WHERE kind = 'view'
SELECT id FROM j_users WHERE city = 'Oslo' EXCEPT SELECT user_id FROM j_events WHERE kind = 'view'
SELECT id FROM j_users WHERE city = 'Oslo' EXCEPT ALL SELECT user_id FROM j_events WHERE kind = 'view'
SELECT id FROM j_users WHERE city = 'Oslo' UNION SELECT user_id FROM j_events WHERE kind = 'view' ORDER BY id
SELECT user_id FROM j_events WHERE kind = 'view' EXCEPT SELECT id FROM j_users WHERE city = 'Oslo' ORDER BY 1 LIMIT 5
SELECT count(*) FROM (SELECT id FROM j_users WHERE city = 'Oslo' UNION ALL SELECT user_id FROM j_events WHERE kind = 'view') s
SELECT count(*) FROM (SELECT id FROM j_users WHERE city = 'Oslo' INTERSECT ALL SELECT user_id FROM j_events WHERE kind = 'view') s
SELECT grp FROM t_int UNION SELECT a FROM t_nulls
SELECT grp FROM t_int UNION ALL SELECT a FROM t_nulls
SELECT grp FROM t_int INTERSECT SELECT a FROM t_nulls
SELECT grp FROM t_int INTERSECT ALL SELECT a FROM t_nulls
SELECT grp FROM t_int EXCEPT SELECT a FROM t_nulls
SELECT grp FROM t_int EXCEPT ALL SELECT a FROM t_nulls
SELECT grp FROM t_int UNION SELECT a FROM t_nulls ORDER BY grp
SELECT a FROM t_nulls EXCEPT SELECT grp FROM t_int ORDER BY 1 LIMIT 5
SELECT count(*) FROM (SELECT grp FROM t_int UNION ALL SELECT a FROM t_nulls) s
SELECT count(*) FROM (SELECT grp FROM t_int INTERSECT ALL SELECT a FROM t_nulls) s
SELECT city FROM accounts UNION SELECT city FROM j_users
SELECT city FROM accounts UNION ALL SELECT city FROM j_users
SELECT city FROM accounts INTERSECT SELECT city FROM j_users
SELECT city FROM accounts INTERSECT ALL SELECT city FROM j_users
SELECT city FROM accounts EXCEPT SELECT city FROM j_users
SELECT city FROM accounts EXCEPT ALL SELECT city FROM j_users
SELECT city FROM accounts UNION SELECT city FROM j_users ORDER BY city
SELECT city FROM j_users EXCEPT SELECT city FROM accounts ORDER BY 1 LIMIT 5
SELECT count(*) FROM (SELECT city FROM accounts UNION ALL SELECT city FROM j_users) s
SELECT count(*) FROM (SELECT city FROM accounts INTERSECT ALL SELECT city FROM j_users) s
SELECT a, b FROM t_comp WHERE v % 3 = 0 UNION SELECT a, b FROM parts WHERE v % 2 = 0
SELECT a, b FROM t_comp WHERE v % 3 = 0 UNION ALL SELECT a, b FROM parts WHERE v % 2 = 0
SELECT a, b FROM t_comp WHERE v % 3 = 0 INTERSECT SELECT a, b FROM parts WHERE v % 2 = 0
SELECT a, b FROM t_comp WHERE v % 3 = 0 INTERSECT ALL SELECT a, b FROM parts WHERE v % 2 = 0
SELECT a, b FROM t_comp WHERE v % 3 = 0 EXCEPT SELECT a, b FROM parts WHERE v % 2 = 0
SELECT a, b FROM t_comp WHERE v % 3 = 0 EXCEPT ALL SELECT a, b FROM parts WHERE v % 2 = 0
SELECT a, b FROM t_comp WHERE v % 3 = 0 UNION SELECT a, b FROM parts WHERE v % 2 = 0 ORDER BY a, b
SELECT a, b FROM parts WHERE v % 2 = 0 EXCEPT SELECT a, b FROM t_comp WHERE v % 3 = 0 ORDER BY 1, 2 LIMIT 5
SELECT count(*) FROM (SELECT a, b FROM t_comp WHERE v % 3 = 0 UNION ALL SELECT a, b FROM parts WHERE v % 2 = 0) s
SELECT count(*) FROM (SELECT a, b FROM t_comp WHERE v % 3 = 0 INTERSECT ALL SELECT a, b FROM parts WHERE v % 2 = 0) s
SELECT kind FROM events UNION SELECT kind FROM j_events
SELECT kind FROM events UNION ALL SELECT kind FROM j_events
SELECT kind FROM events INTERSECT SELECT kind FROM j_events
SELECT kind FROM events INTERSECT ALL SELECT kind FROM j_events
SELECT kind FROM events EXCEPT SELECT kind FROM j_events
SELECT kind FROM events EXCEPT ALL SELECT kind FROM j_events
SELECT kind FROM events UNION SELECT kind FROM j_events ORDER BY kind
SELECT kind FROM j_events EXCEPT SELECT kind FROM events ORDER BY 1 LIMIT 5
SELECT count(*) FROM (SELECT kind FROM events UNION ALL SELECT kind FROM j_events) s
SELECT count(*) FROM (SELECT kind FROM events INTERSECT ALL SELECT kind FROM j_events) s
SELECT n FROM t_uuid WHERE n < 60 UNION SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90
SELECT n FROM t_uuid WHERE n < 60 UNION ALL SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90
SELECT n FROM t_uuid WHERE n < 60 INTERSECT SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90
SELECT n FROM t_uuid WHERE n < 60 INTERSECT ALL SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90
SELECT n FROM t_uuid WHERE n < 60 EXCEPT SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90
SELECT n FROM t_uuid WHERE n < 60 EXCEPT ALL SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90
SELECT n FROM t_uuid WHERE n < 60 UNION SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90 ORDER BY n
SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90 EXCEPT SELECT n FROM t_uuid WHERE n < 60 ORDER BY 1 LIMIT 5
SELECT count(*) FROM (SELECT n FROM t_uuid WHERE n < 60 UNION ALL SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90) s
SELECT count(*) FROM (SELECT n FROM t_uuid WHERE n < 60 INTERSECT ALL SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90) s

-- group: q nested set operations
(SELECT id FROM j_users WHERE id < 10 UNION SELECT user_id FROM j_orders WHERE id < 30) EXCEPT SELECT user_id FROM j_visits WHERE n = 3 ORDER BY 1
SELECT id FROM j_users WHERE id < 10 UNION (SELECT user_id FROM j_orders WHERE id < 30 EXCEPT SELECT user_id FROM j_visits WHERE n = 3) ORDER BY 1
SELECT grp FROM t_int WHERE flag INTERSECT SELECT a FROM t_nulls UNION SELECT n FROM t_text WHERE n < 3 ORDER BY 1
SELECT grp FROM t_int WHERE flag UNION ALL SELECT grp FROM t_int WHERE NOT flag INTERSECT SELECT a FROM t_nulls
(SELECT grp FROM t_int WHERE flag UNION ALL SELECT grp FROM t_int WHERE NOT flag) INTERSECT ALL SELECT a FROM t_nulls
(SELECT grp FROM t_int EXCEPT ALL SELECT a FROM t_nulls) EXCEPT ALL SELECT n FROM t_uuid
SELECT city FROM j_users EXCEPT (SELECT city FROM accounts INTERSECT SELECT city FROM accounts WHERE tier = 2) ORDER BY 1 NULLS FIRST
SELECT id, 'u' AS src FROM j_users WHERE id < 5 UNION ALL SELECT user_id, 'o' FROM j_orders WHERE user_id < 3 UNION ALL SELECT user_id, 'v' FROM j_visits WHERE user_id < 3 ORDER BY 1, 2 /*ties*/
SELECT id, name FROM j_users WHERE id < 5 UNION SELECT id, name FROM j_users WHERE id BETWEEN 3 AND 8 ORDER BY id DESC LIMIT 4 OFFSET 1
SELECT user_id FROM j_orders UNION SELECT user_id FROM j_visits ORDER BY user_id LIMIT 10 OFFSET 100
SELECT user_id FROM j_orders UNION ALL SELECT user_id FROM j_visits ORDER BY user_id DESC LIMIT 7
SELECT user_id FROM j_orders INTERSECT SELECT id FROM j_users ORDER BY 1 OFFSET 110
SELECT a FROM t_comp EXCEPT SELECT a FROM parts ORDER BY a
SELECT * FROM (SELECT id FROM j_users UNION SELECT user_id FROM j_orders) s WHERE id > 115 ORDER BY id
SELECT count(*), count(DISTINCT id) FROM (SELECT id FROM j_users UNION ALL SELECT user_id FROM j_orders) s
SELECT s.k, count(*) FROM (SELECT kind AS k FROM events UNION ALL SELECT kind FROM j_events) s GROUP BY s.k ORDER BY s.k
SELECT u FROM t_uuid WHERE n < 5 UNION SELECT id FROM j_events WHERE user_id = 3 ORDER BY 1
SELECT ts FROM t_ts WHERE n < 3 UNION ALL SELECT at FROM j_events WHERE user_id = 1 UNION SELECT ts FROM events WHERE id = 7 ORDER BY 1
SELECT id::text AS x FROM j_users WHERE id < 3 UNION SELECT code FROM j_items WHERE code < 'i03' UNION SELECT k FROM t_text WHERE k < 'Key11' ORDER BY x
SELECT 1 AS a, 'x' AS b UNION ALL SELECT grp, name FROM t_int WHERE id = 7 UNION ALL SELECT n, note FROM t_text WHERE k = 'key007' ORDER BY a, b
SELECT id FROM j_users UNION SELECT user_id FROM j_orders INTERSECT SELECT user_id FROM j_events EXCEPT SELECT 5 ORDER BY 1
WITH a AS (SELECT id FROM j_users WHERE id % 2 = 0), b AS (SELECT id FROM j_users WHERE id % 3 = 0) SELECT id FROM a INTERSECT SELECT id FROM b ORDER BY id
WITH a AS (SELECT id FROM j_users WHERE id % 2 = 0) SELECT id FROM a EXCEPT SELECT user_id FROM j_orders ORDER BY id
SELECT grp, count(*) FROM t_int GROUP BY grp UNION ALL SELECT -1, count(*) FROM t_int ORDER BY 1
SELECT city, count(*) FROM j_users GROUP BY city UNION SELECT city, count(*) FROM accounts GROUP BY city ORDER BY 1 NULLS LAST, 2
SELECT DISTINCT status FROM j_orders UNION ALL SELECT DISTINCT status FROM j_orders ORDER BY 1 NULLS FIRST /*ties*/
SELECT id FROM j_users WHERE id IN (SELECT user_id FROM j_orders UNION SELECT user_id FROM j_events) ORDER BY id
SELECT id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders INTERSECT SELECT user_id FROM j_visits) ORDER BY id
SELECT id FROM j_users WHERE id IN (SELECT user_id FROM j_orders EXCEPT SELECT user_id FROM j_events WHERE user_id IS NOT NULL) ORDER BY id
SELECT max(x), min(x) FROM (SELECT amount AS x FROM j_orders UNION SELECT balance FROM accounts UNION SELECT amount FROM t_int) s
SELECT a, b FROM t_comp WHERE a = 1 UNION SELECT a, b FROM parts WHERE a = 1 ORDER BY b, a
VALUES (1), (2), (200) EXCEPT SELECT id FROM t_int ORDER BY 1
SELECT id FROM t_int WHERE id < -190 UNION ALL VALUES (5), (6) ORDER BY 1

-- group: q window ranking
SELECT id, row_number() OVER (PARTITION BY grp ORDER BY amount, id) FROM t_int ORDER BY id
SELECT id, rank() OVER (PARTITION BY grp ORDER BY amount), dense_rank() OVER (PARTITION BY grp ORDER BY amount) FROM t_int ORDER BY id
SELECT id, row_number() OVER (ORDER BY amount, id) AS rn FROM t_int ORDER BY rn LIMIT 12
SELECT id, round(percent_rank() OVER (PARTITION BY grp ORDER BY amount)::numeric, 6), round(cume_dist() OVER (PARTITION BY grp ORDER BY amount)::numeric, 6) FROM t_int ORDER BY id
SELECT id, ntile(4) OVER (PARTITION BY grp ORDER BY amount, id) FROM t_int ORDER BY id
SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY grp ORDER BY amount, id) AS rn FROM t_int) s WHERE rn <= 2 ORDER BY id
SELECT user_id, id, row_number() OVER (PARTITION BY user_id ORDER BY amount DESC, id) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, rank() OVER (PARTITION BY user_id ORDER BY amount DESC), dense_rank() OVER (PARTITION BY user_id ORDER BY amount DESC) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, row_number() OVER (ORDER BY amount DESC, id) AS rn FROM j_orders ORDER BY rn LIMIT 12
SELECT user_id, id, round(percent_rank() OVER (PARTITION BY user_id ORDER BY amount DESC)::numeric, 6), round(cume_dist() OVER (PARTITION BY user_id ORDER BY amount DESC)::numeric, 6) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, ntile(4) OVER (PARTITION BY user_id ORDER BY amount DESC, id) FROM j_orders ORDER BY user_id, id
SELECT * FROM (SELECT user_id, id, row_number() OVER (PARTITION BY user_id ORDER BY amount DESC, id) AS rn FROM j_orders) s WHERE rn <= 2 ORDER BY user_id, id
SELECT user_id, id, row_number() OVER (PARTITION BY status ORDER BY amount, user_id, id) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, rank() OVER (PARTITION BY status ORDER BY amount), dense_rank() OVER (PARTITION BY status ORDER BY amount) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, row_number() OVER (ORDER BY amount, user_id, id) AS rn FROM j_orders ORDER BY rn LIMIT 12
SELECT user_id, id, round(percent_rank() OVER (PARTITION BY status ORDER BY amount)::numeric, 6), round(cume_dist() OVER (PARTITION BY status ORDER BY amount)::numeric, 6) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, ntile(4) OVER (PARTITION BY status ORDER BY amount, user_id, id) FROM j_orders ORDER BY user_id, id
SELECT * FROM (SELECT user_id, id, row_number() OVER (PARTITION BY status ORDER BY amount, user_id, id) AS rn FROM j_orders) s WHERE rn <= 2 ORDER BY user_id, id
SELECT id, row_number() OVER (PARTITION BY city ORDER BY score NULLS FIRST, id) FROM j_users ORDER BY id
SELECT id, rank() OVER (PARTITION BY city ORDER BY score NULLS FIRST), dense_rank() OVER (PARTITION BY city ORDER BY score NULLS FIRST) FROM j_users ORDER BY id
SELECT id, row_number() OVER (ORDER BY score NULLS FIRST, id) AS rn FROM j_users ORDER BY rn LIMIT 12
SELECT id, round(percent_rank() OVER (PARTITION BY city ORDER BY score NULLS FIRST)::numeric, 6), round(cume_dist() OVER (PARTITION BY city ORDER BY score NULLS FIRST)::numeric, 6) FROM j_users ORDER BY id
SELECT id, ntile(4) OVER (PARTITION BY city ORDER BY score NULLS FIRST, id) FROM j_users ORDER BY id
SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY city ORDER BY score NULLS FIRST, id) AS rn FROM j_users) s WHERE rn <= 2 ORDER BY id
SELECT id, row_number() OVER (PARTITION BY kind ORDER BY score, id) FROM events ORDER BY id
SELECT id, rank() OVER (PARTITION BY kind ORDER BY score), dense_rank() OVER (PARTITION BY kind ORDER BY score) FROM events ORDER BY id
SELECT id, row_number() OVER (ORDER BY score, id) AS rn FROM events ORDER BY rn LIMIT 12
SELECT id, round(percent_rank() OVER (PARTITION BY kind ORDER BY score)::numeric, 6), round(cume_dist() OVER (PARTITION BY kind ORDER BY score)::numeric, 6) FROM events ORDER BY id
SELECT id, ntile(4) OVER (PARTITION BY kind ORDER BY score, id) FROM events ORDER BY id
SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY kind ORDER BY score, id) AS rn FROM events) s WHERE rn <= 2 ORDER BY id
SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY v, b) FROM t_comp ORDER BY a, b
SELECT a, b, rank() OVER (PARTITION BY a ORDER BY v), dense_rank() OVER (PARTITION BY a ORDER BY v) FROM t_comp ORDER BY a, b
SELECT a, b, row_number() OVER (ORDER BY v, b) AS rn FROM t_comp ORDER BY rn LIMIT 12
SELECT a, b, round(percent_rank() OVER (PARTITION BY a ORDER BY v)::numeric, 6), round(cume_dist() OVER (PARTITION BY a ORDER BY v)::numeric, 6) FROM t_comp ORDER BY a, b
SELECT a, b, ntile(4) OVER (PARTITION BY a ORDER BY v, b) FROM t_comp ORDER BY a, b
SELECT * FROM (SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY v, b) AS rn FROM t_comp) s WHERE rn <= 2 ORDER BY a, b
SELECT u, row_number() OVER (PARTITION BY label ORDER BY n, u) FROM t_uuid ORDER BY u
SELECT u, rank() OVER (PARTITION BY label ORDER BY n), dense_rank() OVER (PARTITION BY label ORDER BY n) FROM t_uuid ORDER BY u
SELECT u, row_number() OVER (ORDER BY n, u) AS rn FROM t_uuid ORDER BY rn LIMIT 12
SELECT u, round(percent_rank() OVER (PARTITION BY label ORDER BY n)::numeric, 6), round(cume_dist() OVER (PARTITION BY label ORDER BY n)::numeric, 6) FROM t_uuid ORDER BY u
SELECT u, ntile(4) OVER (PARTITION BY label ORDER BY n, u) FROM t_uuid ORDER BY u
SELECT * FROM (SELECT u, row_number() OVER (PARTITION BY label ORDER BY n, u) AS rn FROM t_uuid) s WHERE rn <= 2 ORDER BY u
SELECT id, row_number() OVER (PARTITION BY tier ORDER BY balance, id) FROM accounts ORDER BY id
SELECT id, rank() OVER (PARTITION BY tier ORDER BY balance), dense_rank() OVER (PARTITION BY tier ORDER BY balance) FROM accounts ORDER BY id
SELECT id, row_number() OVER (ORDER BY balance, id) AS rn FROM accounts ORDER BY rn LIMIT 12
SELECT id, round(percent_rank() OVER (PARTITION BY tier ORDER BY balance)::numeric, 6), round(cume_dist() OVER (PARTITION BY tier ORDER BY balance)::numeric, 6) FROM accounts ORDER BY id
SELECT id, ntile(4) OVER (PARTITION BY tier ORDER BY balance, id) FROM accounts ORDER BY id
SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY tier ORDER BY balance, id) AS rn FROM accounts) s WHERE rn <= 2 ORDER BY id

-- group: q window offsets and values
SELECT id, lag(amount) OVER (PARTITION BY grp ORDER BY amount, id), lead(amount) OVER (PARTITION BY grp ORDER BY amount, id) FROM t_int ORDER BY id
SELECT id, lag(amount, 2, -1) OVER (PARTITION BY grp ORDER BY amount, id), lead(amount, 3, 0) OVER (PARTITION BY grp ORDER BY amount, id) FROM t_int ORDER BY id
SELECT id, first_value(amount) OVER (PARTITION BY grp ORDER BY amount, id), last_value(amount) OVER (PARTITION BY grp ORDER BY amount, id) FROM t_int ORDER BY id
SELECT id, last_value(amount) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), nth_value(amount, 2) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t_int ORDER BY id
SELECT id, amount - lag(amount) OVER (ORDER BY amount, id) AS d FROM t_int ORDER BY id LIMIT 20
SELECT user_id, id, lag(amount) OVER (PARTITION BY user_id ORDER BY amount DESC, id), lead(amount) OVER (PARTITION BY user_id ORDER BY amount DESC, id) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, lag(amount, 2, -1) OVER (PARTITION BY user_id ORDER BY amount DESC, id), lead(amount, 3, 0) OVER (PARTITION BY user_id ORDER BY amount DESC, id) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, first_value(amount) OVER (PARTITION BY user_id ORDER BY amount DESC, id), last_value(amount) OVER (PARTITION BY user_id ORDER BY amount DESC, id) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, last_value(amount) OVER (PARTITION BY user_id ORDER BY amount DESC, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), nth_value(amount, 2) OVER (PARTITION BY user_id ORDER BY amount DESC, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, amount - lag(amount) OVER (ORDER BY amount DESC, id) AS d FROM j_orders ORDER BY user_id, id LIMIT 20
SELECT user_id, id, lag(amount) OVER (PARTITION BY status ORDER BY amount, user_id, id), lead(amount) OVER (PARTITION BY status ORDER BY amount, user_id, id) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, lag(amount, 2, -1) OVER (PARTITION BY status ORDER BY amount, user_id, id), lead(amount, 3, 0) OVER (PARTITION BY status ORDER BY amount, user_id, id) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, first_value(amount) OVER (PARTITION BY status ORDER BY amount, user_id, id), last_value(amount) OVER (PARTITION BY status ORDER BY amount, user_id, id) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, last_value(amount) OVER (PARTITION BY status ORDER BY amount, user_id, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), nth_value(amount, 2) OVER (PARTITION BY status ORDER BY amount, user_id, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, amount - lag(amount) OVER (ORDER BY amount, user_id, id) AS d FROM j_orders ORDER BY user_id, id LIMIT 20
SELECT id, lag(score) OVER (PARTITION BY city ORDER BY score NULLS FIRST, id), lead(score) OVER (PARTITION BY city ORDER BY score NULLS FIRST, id) FROM j_users ORDER BY id
SELECT id, lag(score, 2, -1) OVER (PARTITION BY city ORDER BY score NULLS FIRST, id), lead(score, 3, 0) OVER (PARTITION BY city ORDER BY score NULLS FIRST, id) FROM j_users ORDER BY id
SELECT id, first_value(score) OVER (PARTITION BY city ORDER BY score NULLS FIRST, id), last_value(score) OVER (PARTITION BY city ORDER BY score NULLS FIRST, id) FROM j_users ORDER BY id
SELECT id, last_value(score) OVER (PARTITION BY city ORDER BY score NULLS FIRST, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), nth_value(score, 2) OVER (PARTITION BY city ORDER BY score NULLS FIRST, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM j_users ORDER BY id
SELECT id, score - lag(score) OVER (ORDER BY score NULLS FIRST, id) AS d FROM j_users ORDER BY id LIMIT 20
SELECT id, lag(score) OVER (PARTITION BY kind ORDER BY score, id), lead(score) OVER (PARTITION BY kind ORDER BY score, id) FROM events ORDER BY id
SELECT id, lag(score, 2, -1) OVER (PARTITION BY kind ORDER BY score, id), lead(score, 3, 0) OVER (PARTITION BY kind ORDER BY score, id) FROM events ORDER BY id
SELECT id, first_value(score) OVER (PARTITION BY kind ORDER BY score, id), last_value(score) OVER (PARTITION BY kind ORDER BY score, id) FROM events ORDER BY id
SELECT id, last_value(score) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), nth_value(score, 2) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM events ORDER BY id
SELECT id, score - lag(score) OVER (ORDER BY score, id) AS d FROM events ORDER BY id LIMIT 20
SELECT a, b, lag(v) OVER (PARTITION BY a ORDER BY v, b), lead(v) OVER (PARTITION BY a ORDER BY v, b) FROM t_comp ORDER BY a, b
SELECT a, b, lag(v, 2, -1) OVER (PARTITION BY a ORDER BY v, b), lead(v, 3, 0) OVER (PARTITION BY a ORDER BY v, b) FROM t_comp ORDER BY a, b
SELECT a, b, first_value(v) OVER (PARTITION BY a ORDER BY v, b), last_value(v) OVER (PARTITION BY a ORDER BY v, b) FROM t_comp ORDER BY a, b
SELECT a, b, last_value(v) OVER (PARTITION BY a ORDER BY v, b ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), nth_value(v, 2) OVER (PARTITION BY a ORDER BY v, b ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t_comp ORDER BY a, b
SELECT a, b, v - lag(v) OVER (ORDER BY v, b) AS d FROM t_comp ORDER BY a, b LIMIT 20
SELECT u, lag(n) OVER (PARTITION BY label ORDER BY n, u), lead(n) OVER (PARTITION BY label ORDER BY n, u) FROM t_uuid ORDER BY u
SELECT u, lag(n, 2, -1) OVER (PARTITION BY label ORDER BY n, u), lead(n, 3, 0) OVER (PARTITION BY label ORDER BY n, u) FROM t_uuid ORDER BY u
SELECT u, first_value(n) OVER (PARTITION BY label ORDER BY n, u), last_value(n) OVER (PARTITION BY label ORDER BY n, u) FROM t_uuid ORDER BY u
SELECT u, last_value(n) OVER (PARTITION BY label ORDER BY n, u ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), nth_value(n, 2) OVER (PARTITION BY label ORDER BY n, u ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t_uuid ORDER BY u
SELECT u, n - lag(n) OVER (ORDER BY n, u) AS d FROM t_uuid ORDER BY u LIMIT 20
SELECT id, lag(balance) OVER (PARTITION BY tier ORDER BY balance, id), lead(balance) OVER (PARTITION BY tier ORDER BY balance, id) FROM accounts ORDER BY id
SELECT id, lag(balance, 2, -1) OVER (PARTITION BY tier ORDER BY balance, id), lead(balance, 3, 0) OVER (PARTITION BY tier ORDER BY balance, id) FROM accounts ORDER BY id
SELECT id, first_value(balance) OVER (PARTITION BY tier ORDER BY balance, id), last_value(balance) OVER (PARTITION BY tier ORDER BY balance, id) FROM accounts ORDER BY id
SELECT id, last_value(balance) OVER (PARTITION BY tier ORDER BY balance, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), nth_value(balance, 2) OVER (PARTITION BY tier ORDER BY balance, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM accounts ORDER BY id
SELECT id, balance - lag(balance) OVER (ORDER BY balance, id) AS d FROM accounts ORDER BY id LIMIT 20
SELECT id, lag(name, 1, 'none') OVER (ORDER BY id), lead(city, 1, 'end') OVER (ORDER BY id) FROM j_users ORDER BY id
SELECT id, lag(id, 0) OVER (ORDER BY id), lead(id, 5) OVER (ORDER BY id) FROM j_users WHERE id < 15 ORDER BY id
SELECT k, lag(note) OVER (ORDER BY k), lead(note, 2) OVER (ORDER BY k) FROM t_text ORDER BY k
SELECT ts, n - lag(n) OVER (ORDER BY ts) FROM t_ts ORDER BY ts LIMIT 15
SELECT u, first_value(u) OVER (PARTITION BY label ORDER BY n), n FROM t_uuid ORDER BY u
SELECT id, nth_value(a, 3) OVER (ORDER BY id) FROM t_nulls WHERE id < 20 ORDER BY id
SELECT id, lag(a) IGNORE NULLS OVER (ORDER BY id) FROM t_nulls WHERE id < 20 ORDER BY id

-- group: q window frames
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), count(*) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), max(id) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), count(*) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), max(id) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), count(*) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), max(id) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount, id ROWS UNBOUNDED PRECEDING), count(*) OVER (PARTITION BY grp ORDER BY amount, id ROWS UNBOUNDED PRECEDING) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score, id ROWS UNBOUNDED PRECEDING), max(id) OVER (PARTITION BY kind ORDER BY score, id ROWS UNBOUNDED PRECEDING) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN 3 FOLLOWING AND 5 FOLLOWING), count(*) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN 3 FOLLOWING AND 5 FOLLOWING) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN 3 FOLLOWING AND 5 FOLLOWING), max(id) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN 3 FOLLOWING AND 5 FOLLOWING) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), count(*) OVER (PARTITION BY grp ORDER BY amount RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), max(id) OVER (PARTITION BY kind ORDER BY score RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), count(*) OVER (PARTITION BY grp ORDER BY amount RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), max(id) OVER (PARTITION BY kind ORDER BY score RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING), count(*) OVER (PARTITION BY grp ORDER BY amount GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING), max(id) OVER (PARTITION BY kind ORDER BY score GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING), count(*) OVER (PARTITION BY grp ORDER BY amount GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING), max(id) OVER (PARTITION BY kind ORDER BY score GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW), count(*) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW), max(id) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES), count(*) OVER (PARTITION BY grp ORDER BY amount, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES), max(id) OVER (PARTITION BY kind ORDER BY score, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP), count(*) OVER (PARTITION BY grp ORDER BY amount RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP), max(id) OVER (PARTITION BY kind ORDER BY score RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP) FROM events ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY amount GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE NO OTHERS), count(*) OVER (PARTITION BY grp ORDER BY amount GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE NO OTHERS) FROM t_int ORDER BY id
SELECT id, min(score) OVER (PARTITION BY kind ORDER BY score GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE NO OTHERS), max(id) OVER (PARTITION BY kind ORDER BY score GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE NO OTHERS) FROM events ORDER BY id
SELECT id, sum(amount) OVER (ORDER BY amount RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING) FROM t_int WHERE grp = 3 ORDER BY id
SELECT user_id, id, avg(amount) OVER (PARTITION BY user_id ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)::numeric(12,4) FROM j_orders WHERE user_id < 10 ORDER BY user_id, id
SELECT ts, count(*) OVER (ORDER BY ts RANGE BETWEEN interval '1 day' PRECEDING AND CURRENT ROW) FROM t_ts ORDER BY ts
SELECT id, count(*) OVER (ORDER BY ts RANGE BETWEEN interval '2 hours' PRECEDING AND interval '2 hours' FOLLOWING) FROM events ORDER BY id
SELECT id, sum(v) OVER (PARTITION BY host ORDER BY id ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING EXCLUDE CURRENT ROW) FROM metrics ORDER BY id
SELECT id, first_value(v) OVER (PARTITION BY host ORDER BY v GROUPS BETWEEN 1 FOLLOWING AND 2 FOLLOWING), id FROM metrics ORDER BY id
SELECT a, b, sum(v) OVER (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t_comp ORDER BY a, b
SELECT id, count(a) OVER (ORDER BY id ROWS BETWEEN 4 PRECEDING AND CURRENT ROW), sum(c) OVER (ORDER BY id ROWS BETWEEN 4 PRECEDING AND CURRENT ROW) FROM t_nulls ORDER BY id
SELECT id, string_agg(name, ',') OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM j_users ORDER BY id
SELECT id, array_agg(id) OVER (PARTITION BY city ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM j_users ORDER BY id

-- group: q window aggregates and named windows
SELECT id, grp, sum(amount) OVER (PARTITION BY grp), count(*) OVER (PARTITION BY grp), max(amount) OVER () FROM t_int ORDER BY id
SELECT id, city, avg(score) OVER (PARTITION BY city)::numeric(10,3) FROM j_users ORDER BY id
SELECT user_id, id, sum(amount) OVER (PARTITION BY user_id ORDER BY id) AS running FROM j_orders ORDER BY user_id, id
SELECT user_id, id, amount * 100 / sum(amount) OVER (PARTITION BY user_id) AS pct FROM j_orders WHERE user_id < 30 ORDER BY user_id, id
SELECT status, id, user_id, count(*) OVER (PARTITION BY status) FROM j_orders WHERE id % 25 = 0 ORDER BY user_id, id
SELECT id, row_number() OVER w, rank() OVER w, sum(score) OVER w FROM j_users WINDOW w AS (PARTITION BY city ORDER BY id) ORDER BY id
SELECT id, sum(amount) OVER w, avg(amount) OVER w FROM t_int WINDOW w AS (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) ORDER BY id
SELECT id, count(*) OVER w1, count(*) OVER w2 FROM events WINDOW w1 AS (PARTITION BY kind), w2 AS (w1 ORDER BY score, id) ORDER BY id
SELECT id, min(v) OVER w, max(v) OVER w FROM metrics WINDOW w AS (PARTITION BY host ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) ORDER BY id
SELECT a, b, v, sum(v) OVER (PARTITION BY a), sum(v) OVER (PARTITION BY b) FROM t_comp ORDER BY a, b
SELECT grp, count(*), sum(count(*)) OVER (ORDER BY grp) FROM t_int GROUP BY grp ORDER BY grp
SELECT city, sum(score), rank() OVER (ORDER BY sum(score) DESC NULLS LAST) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT user_id, count(*) AS n, dense_rank() OVER (ORDER BY count(*) DESC) FROM j_orders GROUP BY user_id ORDER BY user_id
SELECT kind, max(score), lag(max(score)) OVER (ORDER BY kind) FROM events GROUP BY kind ORDER BY kind
SELECT DISTINCT city, count(*) OVER (PARTITION BY city) FROM j_users ORDER BY city NULLS FIRST
SELECT DISTINCT grp, max(amount) OVER (PARTITION BY grp) FROM t_int ORDER BY grp
SELECT id, bool_and(flag) OVER (PARTITION BY grp ORDER BY id), bool_or(flag) OVER (PARTITION BY grp) FROM t_int WHERE id BETWEEN -20 AND 20 ORDER BY id
SELECT id, count(*) FILTER (WHERE flag) OVER (ORDER BY id) FROM t_int WHERE id BETWEEN 0 AND 40 ORDER BY id
SELECT id, tier, sum(balance) OVER (PARTITION BY tier ORDER BY id), count(city) OVER (PARTITION BY tier) FROM accounts ORDER BY id
SELECT u.id, o.id, sum(o.amount) OVER (PARTITION BY u.city ORDER BY o.user_id, o.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 20 ORDER BY u.id, o.id
SELECT u.city, o.status, count(*), sum(count(*)) OVER (PARTITION BY u.city) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.city, o.status ORDER BY u.city NULLS FIRST, o.status NULLS FIRST
SELECT * FROM (SELECT user_id, id, amount, rank() OVER (PARTITION BY user_id ORDER BY amount DESC) AS r FROM j_orders) s WHERE r = 1 ORDER BY user_id, id
SELECT id, score, score - avg(score) OVER ()::numeric(10,4) FROM j_users ORDER BY id LIMIT 10
SELECT u, n, n * 1.0 / sum(n) OVER () FROM t_uuid ORDER BY n DESC, u LIMIT 5
SELECT ts, n, count(*) OVER (PARTITION BY date_trunc('day', ts)) FROM t_ts ORDER BY ts LIMIT 30
SELECT id, row_number() OVER (ORDER BY id) FROM j_users ORDER BY id DESC LIMIT 5 OFFSET 2
SELECT id, max(id) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM t_int ORDER BY id LIMIT 8
SELECT k, n, sum(n) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t_text ORDER BY k
SELECT code, price, sum(price) OVER (PARTITION BY cat ORDER BY price, code) FROM j_items ORDER BY code
SELECT id, ntile(3) OVER (ORDER BY id), percent_rank() OVER (ORDER BY id) FROM j_cats ORDER BY id

-- group: q distinct on
SELECT DISTINCT ON (grp) grp, id, amount FROM t_int ORDER BY grp, amount DESC, id
SELECT DISTINCT ON (user_id) user_id, id, amount FROM j_orders ORDER BY user_id, amount DESC, id
SELECT DISTINCT ON (status) status, user_id, id FROM j_orders ORDER BY status NULLS FIRST, user_id, id
SELECT DISTINCT ON (city) city, id, name FROM j_users ORDER BY city, score DESC NULLS LAST, id
SELECT DISTINCT ON (kind) kind, id, score FROM events ORDER BY kind, score, id
SELECT DISTINCT ON (a) a, b, v FROM t_comp ORDER BY a DESC, v, b
SELECT DISTINCT ON (label) label, n FROM t_uuid ORDER BY label, n DESC
SELECT DISTINCT ON (host) host, id, v FROM metrics ORDER BY host, v DESC, id
SELECT DISTINCT ON (tier) tier, id, balance FROM accounts ORDER BY tier NULLS FIRST, balance DESC, id
SELECT DISTINCT ON (cat) cat, code FROM j_items ORDER BY cat, price, code
SELECT DISTINCT ON (payload) payload, ts FROM t_ts ORDER BY payload, ts DESC
SELECT DISTINCT ON (grp, flag) grp, flag, id FROM t_int ORDER BY grp, flag, id LIMIT 9
SELECT DISTINCT ON (u.city) u.city, o.user_id, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY u.city NULLS FIRST, o.amount DESC, o.user_id, o.id
SELECT * FROM (SELECT DISTINCT ON (user_id) user_id, n FROM j_visits ORDER BY user_id, n) s ORDER BY user_id
SELECT DISTINCT ON (user_id) user_id, n, secs FROM j_visits ORDER BY user_id, secs DESC, n
SELECT count(*) FROM (SELECT DISTINCT ON (user_id) user_id FROM j_orders ORDER BY user_id) s

-- group: q ordered aggregates
SELECT grp, string_agg(name, ',' ORDER BY id) FROM t_int WHERE id BETWEEN -30 AND 30 GROUP BY grp ORDER BY grp
SELECT city, string_agg(name, '; ' ORDER BY name) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT string_agg(DISTINCT status, ',' ORDER BY status) FROM j_orders
SELECT user_id, array_agg(id ORDER BY id) FROM j_orders WHERE user_id < 15 GROUP BY user_id ORDER BY user_id
SELECT user_id, array_agg(amount ORDER BY amount DESC, id) FROM j_orders WHERE user_id BETWEEN 60 AND 70 GROUP BY user_id ORDER BY user_id
SELECT array_agg(DISTINCT cat ORDER BY cat) FROM j_items
SELECT kind, json_agg(id ORDER BY id) FROM events WHERE score > 80 GROUP BY kind ORDER BY kind
SELECT kind, jsonb_agg(jsonb_build_object('id', id, 's', score) ORDER BY id) FROM events WHERE id < 30 GROUP BY kind ORDER BY kind
SELECT json_object_agg(id, label ORDER BY id) FROM j_cats
SELECT json_object_agg(code, price ORDER BY code) FROM j_items WHERE cat = 1
SELECT jsonb_object_agg(code, price) FROM j_items WHERE cat = 2
SELECT a, string_agg(b, '|' ORDER BY b) FROM t_comp WHERE a < 3 GROUP BY a ORDER BY a
SELECT label, array_agg(n ORDER BY n) FROM t_uuid WHERE n < 60 GROUP BY label ORDER BY label
SELECT payload, string_agg(n::text, ',' ORDER BY ts) FROM t_ts WHERE n < 40 GROUP BY payload ORDER BY payload
SELECT u.id, string_agg(o.item_code, ',' ORDER BY o.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 10 GROUP BY u.id ORDER BY u.id
SELECT c.label, array_agg(i.code ORDER BY i.code) FROM j_cats c LEFT JOIN j_items i ON i.cat = c.id GROUP BY c.label ORDER BY c.label
SELECT host, array_agg(v ORDER BY id) FILTER (WHERE v > 40) FROM metrics GROUP BY host ORDER BY host
SELECT tier, json_agg(email ORDER BY id) FROM accounts WHERE id < 40 GROUP BY tier ORDER BY tier NULLS LAST
SELECT string_agg(k, ',' ORDER BY k DESC) FROM t_text WHERE n BETWEEN 1010 AND 1020
SELECT array_agg(u ORDER BY u) FROM t_uuid WHERE n < 6
SELECT array_agg(b ORDER BY id) FROM t_nulls WHERE id < 15
SELECT grp, array_agg(DISTINCT flag ORDER BY flag) FROM t_int GROUP BY grp ORDER BY grp
SELECT string_agg(name, ',' ORDER BY id) FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 985)
SELECT jsonb_agg(DISTINCT city ORDER BY city) FROM j_users
SELECT json_agg(x ORDER BY x) FROM (SELECT id AS x FROM j_users WHERE id < 5 UNION SELECT user_id FROM j_orders WHERE user_id < 3) s

-- group: q statistical aggregates
SELECT flag, stddev(amount), stddev_samp(amount), stddev_pop(amount) FROM t_int GROUP BY flag ORDER BY flag NULLS FIRST
SELECT flag, variance(amount), var_samp(amount), var_pop(amount) FROM t_int GROUP BY flag ORDER BY flag NULLS FIRST
SELECT round(corr(amount, grp)::numeric, 8), round(covar_pop(amount, grp)::numeric, 4), round(covar_samp(amount, grp)::numeric, 4) FROM t_int
SELECT flag, round(regr_slope(amount, grp)::numeric, 8), round(regr_intercept(amount, grp)::numeric, 6), regr_count(amount, grp) FROM t_int GROUP BY flag ORDER BY flag NULLS FIRST
SELECT round(regr_r2(amount, grp)::numeric, 8), round(regr_avgx(amount, grp)::numeric, 6), round(regr_avgy(amount, grp)::numeric, 6), round(regr_sxx(amount, grp)::numeric, 2), round(regr_syy(amount, grp)::numeric, 2), round(regr_sxy(amount, grp)::numeric, 2) FROM t_int
SELECT flag, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount), percentile_disc(0.25) WITHIN GROUP (ORDER BY amount), mode() WITHIN GROUP (ORDER BY amount) FROM t_int GROUP BY flag ORDER BY flag NULLS FIRST
SELECT status, stddev(amount), stddev_samp(amount), stddev_pop(amount) FROM j_orders GROUP BY status ORDER BY status NULLS FIRST
SELECT status, variance(amount), var_samp(amount), var_pop(amount) FROM j_orders GROUP BY status ORDER BY status NULLS FIRST
SELECT round(corr(amount, id)::numeric, 8), round(covar_pop(amount, id)::numeric, 4), round(covar_samp(amount, id)::numeric, 4) FROM j_orders
SELECT status, round(regr_slope(amount, id)::numeric, 8), round(regr_intercept(amount, id)::numeric, 6), regr_count(amount, id) FROM j_orders GROUP BY status ORDER BY status NULLS FIRST
SELECT round(regr_r2(amount, id)::numeric, 8), round(regr_avgx(amount, id)::numeric, 6), round(regr_avgy(amount, id)::numeric, 6), round(regr_sxx(amount, id)::numeric, 2), round(regr_syy(amount, id)::numeric, 2), round(regr_sxy(amount, id)::numeric, 2) FROM j_orders
SELECT status, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount), percentile_disc(0.25) WITHIN GROUP (ORDER BY amount), mode() WITHIN GROUP (ORDER BY amount) FROM j_orders GROUP BY status ORDER BY status NULLS FIRST
SELECT city, stddev(score), stddev_samp(score), stddev_pop(score) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT city, variance(score), var_samp(score), var_pop(score) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT round(corr(score, id)::numeric, 8), round(covar_pop(score, id)::numeric, 4), round(covar_samp(score, id)::numeric, 4) FROM j_users
SELECT city, round(regr_slope(score, id)::numeric, 8), round(regr_intercept(score, id)::numeric, 6), regr_count(score, id) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT round(regr_r2(score, id)::numeric, 8), round(regr_avgx(score, id)::numeric, 6), round(regr_avgy(score, id)::numeric, 6), round(regr_sxx(score, id)::numeric, 2), round(regr_syy(score, id)::numeric, 2), round(regr_sxy(score, id)::numeric, 2) FROM j_users
SELECT city, percentile_cont(0.5) WITHIN GROUP (ORDER BY score), percentile_disc(0.25) WITHIN GROUP (ORDER BY score), mode() WITHIN GROUP (ORDER BY score) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT kind, stddev(score), stddev_samp(score), stddev_pop(score) FROM events GROUP BY kind ORDER BY kind NULLS FIRST
SELECT kind, variance(score), var_samp(score), var_pop(score) FROM events GROUP BY kind ORDER BY kind NULLS FIRST
SELECT round(corr(score, id)::numeric, 8), round(covar_pop(score, id)::numeric, 4), round(covar_samp(score, id)::numeric, 4) FROM events
SELECT kind, round(regr_slope(score, id)::numeric, 8), round(regr_intercept(score, id)::numeric, 6), regr_count(score, id) FROM events GROUP BY kind ORDER BY kind NULLS FIRST
SELECT round(regr_r2(score, id)::numeric, 8), round(regr_avgx(score, id)::numeric, 6), round(regr_avgy(score, id)::numeric, 6), round(regr_sxx(score, id)::numeric, 2), round(regr_syy(score, id)::numeric, 2), round(regr_sxy(score, id)::numeric, 2) FROM events
SELECT kind, percentile_cont(0.5) WITHIN GROUP (ORDER BY score), percentile_disc(0.25) WITHIN GROUP (ORDER BY score), mode() WITHIN GROUP (ORDER BY score) FROM events GROUP BY kind ORDER BY kind NULLS FIRST
SELECT host, stddev(v), stddev_samp(v), stddev_pop(v) FROM metrics GROUP BY host ORDER BY host NULLS FIRST
SELECT host, variance(v), var_samp(v), var_pop(v) FROM metrics GROUP BY host ORDER BY host NULLS FIRST
SELECT round(corr(v, id)::numeric, 8), round(covar_pop(v, id)::numeric, 4), round(covar_samp(v, id)::numeric, 4) FROM metrics
SELECT host, round(regr_slope(v, id)::numeric, 8), round(regr_intercept(v, id)::numeric, 6), regr_count(v, id) FROM metrics GROUP BY host ORDER BY host NULLS FIRST
SELECT round(regr_r2(v, id)::numeric, 8), round(regr_avgx(v, id)::numeric, 6), round(regr_avgy(v, id)::numeric, 6), round(regr_sxx(v, id)::numeric, 2), round(regr_syy(v, id)::numeric, 2), round(regr_sxy(v, id)::numeric, 2) FROM metrics
SELECT host, percentile_cont(0.5) WITHIN GROUP (ORDER BY v), percentile_disc(0.25) WITHIN GROUP (ORDER BY v), mode() WITHIN GROUP (ORDER BY v) FROM metrics GROUP BY host ORDER BY host NULLS FIRST
SELECT b, stddev(v), stddev_samp(v), stddev_pop(v) FROM t_comp GROUP BY b ORDER BY b NULLS FIRST
SELECT b, variance(v), var_samp(v), var_pop(v) FROM t_comp GROUP BY b ORDER BY b NULLS FIRST
SELECT round(corr(v, a)::numeric, 8), round(covar_pop(v, a)::numeric, 4), round(covar_samp(v, a)::numeric, 4) FROM t_comp
SELECT b, round(regr_slope(v, a)::numeric, 8), round(regr_intercept(v, a)::numeric, 6), regr_count(v, a) FROM t_comp GROUP BY b ORDER BY b NULLS FIRST
SELECT round(regr_r2(v, a)::numeric, 8), round(regr_avgx(v, a)::numeric, 6), round(regr_avgy(v, a)::numeric, 6), round(regr_sxx(v, a)::numeric, 2), round(regr_syy(v, a)::numeric, 2), round(regr_sxy(v, a)::numeric, 2) FROM t_comp
SELECT b, percentile_cont(0.5) WITHIN GROUP (ORDER BY v), percentile_disc(0.25) WITHIN GROUP (ORDER BY v), mode() WITHIN GROUP (ORDER BY v) FROM t_comp GROUP BY b ORDER BY b NULLS FIRST
SELECT percentile_cont(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY amount) FROM j_orders
SELECT percentile_disc(ARRAY[0, 0.33, 1]) WITHIN GROUP (ORDER BY score) FROM j_users
SELECT mode() WITHIN GROUP (ORDER BY city) FROM j_users
SELECT mode() WITHIN GROUP (ORDER BY kind) FROM j_events
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY ts) FROM t_ts
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY u) FROM t_uuid
SELECT rank(50) WITHIN GROUP (ORDER BY score), dense_rank(50) WITHIN GROUP (ORDER BY score), round(percent_rank(50) WITHIN GROUP (ORDER BY score)::numeric, 6), round(cume_dist(50) WITHIN GROUP (ORDER BY score)::numeric, 6) FROM j_users
SELECT stddev(c), variance(c) FROM t_nulls
SELECT stddev(i8), variance(i2), stddev_pop(num) FROM t_types WHERE id < 150
SELECT round(stddev(f8)::numeric, 6), round(var_pop(f4)::numeric, 4) FROM t_types WHERE id < 150 AND f8 <> 'NaN' AND f4 <> 'NaN'
SELECT stddev(amount) FROM j_orders WHERE user_id = 1
SELECT stddev_samp(amount), var_samp(amount), stddev_pop(amount) FROM j_orders WHERE user_id = 1 AND id = 1

-- group: q boolean and bit aggregates
SELECT grp, bool_and(flag), bool_or(flag), every(flag) FROM t_int GROUP BY grp ORDER BY grp
SELECT bool_and(flag), bool_or(flag), every(id > -1000) FROM t_int
SELECT bool_and(bo), bool_or(bo), every(bo) FROM t_types
SELECT city, bool_and(score > 20), bool_or(score > 90) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT kind, every(score IS NOT NULL), bool_or(payload IS NULL) FROM events GROUP BY kind ORDER BY kind
SELECT grp, bit_and(id), bit_or(id), bit_xor(id) FROM t_int WHERE id BETWEEN -100 AND 100 GROUP BY grp ORDER BY grp
SELECT bit_and(n), bit_or(n) FROM t_uuid
SELECT host, bit_or(v), bit_and(v + 64) FROM metrics GROUP BY host ORDER BY host
SELECT bit_and(i2), bit_or(i2), bit_and(i8), bit_or(i8) FROM t_types
SELECT status, bit_or(id), bit_and(user_id) FROM j_orders GROUP BY status ORDER BY status NULLS LAST
SELECT bool_and(a > 0), bool_or(a > 9), bit_or(a) FROM t_nulls
SELECT bool_and(flag) FROM t_int WHERE id > 1000000000000000000 AND id < 0

-- group: q grouping sets rollup cube
SELECT grp, flag, count(*), sum(amount) FROM t_int GROUP BY ROLLUP (grp, flag) ORDER BY grp NULLS FIRST, flag NULLS FIRST, 3
SELECT grp, flag, count(*), sum(amount), GROUPING(grp, flag) FROM t_int GROUP BY CUBE (grp, flag)
SELECT grp, flag, count(*), sum(amount), GROUPING(grp) AS g1, GROUPING(flag) AS g2 FROM t_int GROUP BY GROUPING SETS ((grp), (flag), ()) ORDER BY g1, g2, grp NULLS FIRST, flag NULLS FIRST
SELECT grp, count(*) FROM t_int GROUP BY GROUPING SETS ((grp), (grp)) ORDER BY grp NULLS FIRST /*ties*/
SELECT status, item_code, count(*), max(amount) FROM j_orders GROUP BY ROLLUP (status, item_code) ORDER BY status NULLS FIRST, item_code NULLS FIRST, 3
SELECT status, item_code, count(*), max(amount), GROUPING(status, item_code) FROM j_orders GROUP BY CUBE (status, item_code)
SELECT status, item_code, count(*), max(amount), GROUPING(status) AS g1, GROUPING(item_code) AS g2 FROM j_orders GROUP BY GROUPING SETS ((status), (item_code), ()) ORDER BY g1, g2, status NULLS FIRST, item_code NULLS FIRST
SELECT status, count(*) FROM j_orders GROUP BY GROUPING SETS ((status), (status)) ORDER BY status NULLS FIRST /*ties*/
SELECT city, score, count(*), min(id) FROM j_users GROUP BY ROLLUP (city, score) ORDER BY city NULLS FIRST, score NULLS FIRST, 3
SELECT city, score, count(*), min(id), GROUPING(city, score) FROM j_users GROUP BY CUBE (city, score)
SELECT city, score, count(*), min(id), GROUPING(city) AS g1, GROUPING(score) AS g2 FROM j_users GROUP BY GROUPING SETS ((city), (score), ()) ORDER BY g1, g2, city NULLS FIRST, score NULLS FIRST
SELECT city, count(*) FROM j_users GROUP BY GROUPING SETS ((city), (city)) ORDER BY city NULLS FIRST /*ties*/
SELECT kind, payload, count(*), sum(score) FROM events GROUP BY ROLLUP (kind, payload) ORDER BY kind NULLS FIRST, payload NULLS FIRST, 3
SELECT kind, payload, count(*), sum(score), GROUPING(kind, payload) FROM events GROUP BY CUBE (kind, payload)
SELECT kind, payload, count(*), sum(score), GROUPING(kind) AS g1, GROUPING(payload) AS g2 FROM events GROUP BY GROUPING SETS ((kind), (payload), ()) ORDER BY g1, g2, kind NULLS FIRST, payload NULLS FIRST
SELECT kind, count(*) FROM events GROUP BY GROUPING SETS ((kind), (kind)) ORDER BY kind NULLS FIRST /*ties*/
SELECT city, tier, count(*), sum(balance) FROM accounts GROUP BY ROLLUP (city, tier) ORDER BY city NULLS FIRST, tier NULLS FIRST, 3
SELECT city, tier, count(*), sum(balance), GROUPING(city, tier) FROM accounts GROUP BY CUBE (city, tier)
SELECT city, tier, count(*), sum(balance), GROUPING(city) AS g1, GROUPING(tier) AS g2 FROM accounts GROUP BY GROUPING SETS ((city), (tier), ()) ORDER BY g1, g2, city NULLS FIRST, tier NULLS FIRST
SELECT city, count(*) FROM accounts GROUP BY GROUPING SETS ((city), (city)) ORDER BY city NULLS FIRST /*ties*/
SELECT a, b, count(*), sum(v) FROM t_comp GROUP BY ROLLUP (a, b) ORDER BY a NULLS FIRST, b NULLS FIRST, 3
SELECT a, b, count(*), sum(v), GROUPING(a, b) FROM t_comp GROUP BY CUBE (a, b)
SELECT a, b, count(*), sum(v), GROUPING(a) AS g1, GROUPING(b) AS g2 FROM t_comp GROUP BY GROUPING SETS ((a), (b), ()) ORDER BY g1, g2, a NULLS FIRST, b NULLS FIRST
SELECT a, count(*) FROM t_comp GROUP BY GROUPING SETS ((a), (a)) ORDER BY a NULLS FIRST /*ties*/
SELECT grp, flag, count(*) FROM t_int GROUP BY GROUPING SETS ((grp, flag), (grp), ()) HAVING count(*) > 20 ORDER BY grp NULLS LAST, flag NULLS LAST
SELECT grp, count(*) FROM t_int GROUP BY ROLLUP (grp) ORDER BY grp NULLS LAST
SELECT u.city, o.status, count(*), sum(o.amount) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY CUBE (u.city, o.status)
SELECT u.city, o.status, GROUPING(u.city, o.status), count(*) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY ROLLUP (u.city, o.status) ORDER BY 3, 1 NULLS FIRST, 2 NULLS FIRST
SELECT host, date_trunc('hour', ts) AS h, count(*), sum(v) FROM metrics GROUP BY ROLLUP (host, date_trunc('hour', ts))
SELECT kind, count(*) FROM events GROUP BY DISTINCT ROLLUP (kind), CUBE (kind)
SELECT kind, count(*) FROM events GROUP BY ROLLUP (kind), CUBE (kind)
SELECT a, b, w, count(*) FROM t_comp WHERE a BETWEEN 1 AND 2 GROUP BY ROLLUP (a, b, w)
SELECT city, tier, count(*) FROM accounts GROUP BY GROUPING SETS ((city, tier), city) ORDER BY city NULLS FIRST, tier NULLS FIRST /*ties*/
SELECT status, count(*) FILTER (WHERE amount > 500), sum(amount) FILTER (WHERE id % 2 = 0) FROM j_orders GROUP BY CUBE (status)
SELECT CASE WHEN GROUPING(grp) = 1 THEN 'all' ELSE grp::text END AS g, count(*) FROM t_int GROUP BY ROLLUP (grp) ORDER BY 1
SELECT label, count(*), count(DISTINCT n % 5) FROM t_uuid GROUP BY ROLLUP (label) ORDER BY label NULLS FIRST

-- group: q filter and distinct aggregates
SELECT count(*) FILTER (WHERE flag), count(*) FILTER (WHERE NOT flag), sum(amount) FILTER (WHERE grp = 3) FROM t_int
SELECT grp, count(*) FILTER (WHERE amount > 50), avg(amount) FILTER (WHERE flag) FROM t_int GROUP BY grp ORDER BY grp
SELECT status, count(*) FILTER (WHERE item_code IS NULL), max(amount) FILTER (WHERE user_id < 50) FROM j_orders GROUP BY status ORDER BY status NULLS FIRST
SELECT city, count(*) FILTER (WHERE score IS NULL), min(score) FILTER (WHERE id > 60) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT count(DISTINCT grp), sum(DISTINCT grp), avg(DISTINCT grp) FROM t_int
SELECT count(DISTINCT user_id), count(DISTINCT status), count(DISTINCT item_code) FROM j_orders
SELECT status, count(DISTINCT user_id), sum(DISTINCT amount) FROM j_orders GROUP BY status ORDER BY status NULLS LAST
SELECT kind, count(DISTINCT score), avg(DISTINCT score)::numeric(10,4) FROM events GROUP BY kind ORDER BY kind
SELECT count(DISTINCT city), count(city), count(*) FROM accounts
SELECT count(DISTINCT (a, b)), count(DISTINCT a), count(DISTINCT b) FROM t_nulls
SELECT count(DISTINCT label), count(DISTINCT n % 7) FROM t_uuid
SELECT host, count(DISTINCT v) FILTER (WHERE v > 10) FROM metrics GROUP BY host ORDER BY host
SELECT count(DISTINCT u.city) FILTER (WHERE o.amount > 900), count(DISTINCT o.user_id) FROM j_users u JOIN j_orders o ON o.user_id = u.id
SELECT sum(amount) / count(*), max(amount) - min(amount), round(avg(amount), 3) FROM j_orders
SELECT grp, sum(amount) * 2 + count(*) AS x, max(id) - min(id) AS span FROM t_int WHERE id BETWEEN -200 AND 200 GROUP BY grp ORDER BY x DESC, grp
SELECT city, CASE WHEN count(*) > 20 THEN 'many' ELSE 'few' END, coalesce(max(score), -1) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT user_id, round(100.0 * count(*) FILTER (WHERE status = 'paid') / count(*), 2) FROM j_orders GROUP BY user_id HAVING count(*) > 5 ORDER BY user_id
SELECT grp FROM t_int GROUP BY grp HAVING count(DISTINCT flag) = 1 ORDER BY grp
SELECT grp FROM t_int GROUP BY grp HAVING bool_and(amount > 0) ORDER BY grp
SELECT count(*) FROM t_int HAVING count(*) > 1000
SELECT max(name), min(name), max(k) FROM j_users, (SELECT max(k) AS k FROM t_text) s
SELECT count(DISTINCT u), max(u::text), min(ts), max(ts) FROM t_uuid, (SELECT ts FROM t_ts WHERE n = 1) s
SELECT min(d), max(d), min(b), max(b), count(d), count(b) FROM t_nulls
SELECT min(at), max(at), count(DISTINCT user_id) FROM j_events
SELECT count(*), count(score), sum(score), min(payload), max(payload) FROM events
SELECT a, sum(v), count(w) FROM t_comp GROUP BY a HAVING sum(v) % 2 = 1 ORDER BY a
SELECT sum(i2), sum(i8), avg(i2)::numeric(12,4), sum(num), max(num), min(amt), sum(amt) FROM t_types WHERE id < 150
SELECT max(vc), min(bc), max(d), min(tsn), max(tz), count(u) FROM t_types

-- group: q aggregates over joins
SELECT u.id, u.name, count(o.id), coalesce(sum(o.amount), 0) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY u.id, u.name ORDER BY u.id LIMIT 20
SELECT u.id, count(o.id) AS n FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY u.id ORDER BY n DESC, u.id LIMIT 10
SELECT c.label, count(o.id), sum(o.amount), avg(i.price)::numeric(10,3) FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT u.city, i.cat, count(*) FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code GROUP BY u.city, i.cat ORDER BY u.city NULLS FIRST, i.cat NULLS FIRST
SELECT u.id, count(DISTINCT v.page), max(v.secs), string_agg(DISTINCT v.page, ',' ORDER BY v.page) FROM j_users u JOIN j_visits v ON v.user_id = u.id GROUP BY u.id ORDER BY u.id LIMIT 30
SELECT e.kind, count(*), count(DISTINCT u.city) FROM j_events e JOIN j_users u ON u.id = e.user_id GROUP BY e.kind ORDER BY e.kind
SELECT u.id, u.score, rank() OVER (PARTITION BY u.city ORDER BY sum(o.amount) DESC, u.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.id, u.score, u.city ORDER BY u.id
SELECT o.status, percentile_disc(0.5) WITHIN GROUP (ORDER BY i.price) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.status ORDER BY o.status NULLS FIRST
SELECT u.city, json_agg(DISTINCT o.status ORDER BY o.status) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city NULLS FIRST
SELECT t.a, count(*), sum(t.v + p.v) FROM t_comp t JOIN parts p ON p.a = t.a AND p.b = t.b GROUP BY t.a ORDER BY t.a
SELECT t.grp, count(n.id), count(n.a) FROM t_int t LEFT JOIN t_nulls n ON n.id = t.id GROUP BY t.grp ORDER BY t.grp
SELECT a.city, count(*) FROM accounts a JOIN j_users u ON u.city = a.city GROUP BY a.city ORDER BY a.city
SELECT e.kind, m.host, count(*) FROM events e JOIN metrics m ON m.id = e.id GROUP BY e.kind, m.host ORDER BY e.kind, m.host
SELECT u.id, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE o.amount > (SELECT avg(amount) FROM j_orders) * 1.9 ORDER BY o.amount DESC, u.id, o.id LIMIT 15
SELECT u.id FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.id HAVING sum(o.amount) > ALL (SELECT sum(amount) FROM j_orders WHERE user_id < 5 GROUP BY user_id) ORDER BY u.id
SELECT u.name, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE (u.id, o.id) IN (SELECT user_id, max(id) FROM j_orders GROUP BY user_id) ORDER BY u.id, o.id
WITH top AS (SELECT user_id, sum(amount) AS s FROM j_orders GROUP BY user_id ORDER BY s DESC, user_id LIMIT 10) SELECT u.name, top.s FROM top JOIN j_users u ON u.id = top.user_id ORDER BY top.s DESC, u.name
SELECT c.label, (SELECT count(*) FROM j_items i WHERE i.cat = c.id), (SELECT count(*) FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.cat = c.id) FROM j_cats c ORDER BY c.id
SELECT u.id, ARRAY(SELECT o.id FROM j_orders o WHERE o.user_id = u.id ORDER BY o.id) FROM j_users u WHERE u.id BETWEEN 100 AND 110 ORDER BY u.id
SELECT o.user_id, o.id, o.amount, o.amount - avg(o.amount) OVER (PARTITION BY o.user_id) FROM j_orders o JOIN j_users u ON u.id = o.user_id AND u.city = 'Bern' ORDER BY o.user_id, o.id

-- group: q float sums and averages
SELECT sum(f8), avg(f8), sum(f4::float8), avg(f4) FROM t_types WHERE id < 150 AND f8 <> 'NaN' AND f4 <> 'NaN'
SELECT sum(f8), avg(f4) FROM t_types
SELECT sum(f8), sum(f4) FROM t_types WHERE id > 200
SELECT bo, sum(f8), avg(f8), count(f8) FROM t_types WHERE id < 150 GROUP BY bo ORDER BY bo NULLS FIRST
SELECT i2 % 3, sum(f4::float8), avg(f4) FROM t_types WHERE id < 150 AND f4 <> 'NaN' GROUP BY i2 % 3 ORDER BY 1 NULLS FIRST
SELECT sum(score::float8), avg(score::float4) FROM j_users
SELECT city, sum(score * 0.1::float8), avg(score::float8) FROM j_users GROUP BY city ORDER BY city NULLS FIRST
SELECT kind, sum(score / 7.0::float8), avg(score::float4 / 3) FROM events GROUP BY kind ORDER BY kind
SELECT id, sum(f8) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t_types WHERE id < 40 ORDER BY id
SELECT sum(f8) FILTER (WHERE f8 > 0), avg(f8) FILTER (WHERE f8 < 0) FROM t_types WHERE id < 150 AND f8 <> 'NaN'
SELECT max(f8), min(f8), max(f4), min(f4) FROM t_types
SELECT count(*) FROM t_types WHERE f8 = 'NaN' OR f4 = 'NaN'
SELECT sum(amount::float8), avg(amount::float8) FROM j_orders
SELECT user_id, avg(amount::float4) FROM j_orders WHERE user_id < 12 GROUP BY user_id ORDER BY user_id
SELECT s.g, sum(s.x) FROM (SELECT grp AS g, amount::float8 / 3 AS x FROM t_int) s GROUP BY s.g ORDER BY s.g

-- group: q result names and types
SELECT (SELECT max(id) FROM j_users), (SELECT count(*) FROM j_orders) + 1, EXISTS (SELECT 1 FROM j_cats)
SELECT grp, count(*) * 2, sum(amount) + 1, CASE WHEN grp > 5 THEN 'hi' END, coalesce(max(name), 'x') FROM t_int GROUP BY grp ORDER BY grp
SELECT sum(score), avg(score), sum(id), avg(id), sum(n.a), avg(n.c) FROM j_users, (SELECT a, c FROM t_nulls WHERE id = 1) n
SELECT sum(i2), avg(i2), sum(i8), avg(i8), sum(num), avg(amt) FROM t_types WHERE id < 150
SELECT pg_typeof(sum(v)), pg_typeof(avg(v)), pg_typeof(sum(a)) FROM t_comp
SELECT sum(id) FROM t_int
SELECT avg(id), sum(id) FROM t_int WHERE id > 0
SELECT sum(i8), avg(i8) FROM t_types
SELECT count(*), sum(amount), avg(amount), min(id), max(id), string_agg(name, ',' ORDER BY id), array_agg(id ORDER BY id), bool_and(flag), json_agg(id ORDER BY id) FROM t_int WHERE id > 500 AND id < 600
SELECT grp, count(*) FROM t_int WHERE id > 500 AND id < 600 GROUP BY grp
SELECT count(*) FROM t_int WHERE id > 500 AND id < 600 GROUP BY ROLLUP (grp)
SELECT x.id, x.rn FROM (SELECT id, row_number() OVER () AS rn FROM j_cats WHERE id = 3) x
SELECT id AS "Mixed Case", name AS "sum" FROM j_users WHERE id < 4 ORDER BY 1
SELECT s.* FROM (SELECT grp, count(*) FROM t_int GROUP BY grp) s ORDER BY 1
SELECT 1 UNION SELECT 2.5 ORDER BY 1
SELECT id FROM j_users WHERE id < 3 UNION ALL SELECT id::int4 FROM j_cats WHERE id < 3 ORDER BY 1
SELECT amount FROM j_orders WHERE id = 1 UNION SELECT 7 ORDER BY 1

-- group: q limits offsets and ordering
SELECT id FROM j_users ORDER BY id LIMIT 0
SELECT id FROM j_users ORDER BY id LIMIT ALL OFFSET 115
SELECT id FROM j_users ORDER BY id LIMIT NULL OFFSET 118
SELECT id FROM j_users ORDER BY id OFFSET 1000
SELECT id, score FROM j_users ORDER BY score DESC NULLS LAST FETCH FIRST 5 ROWS WITH TIES /*ties*/
SELECT id, score FROM j_users ORDER BY score NULLS FIRST, id FETCH FIRST 3 ROWS ONLY
SELECT user_id, count(*) FROM j_orders GROUP BY user_id ORDER BY count(*) DESC, user_id LIMIT 5
SELECT user_id, sum(amount) AS s FROM j_orders GROUP BY user_id ORDER BY s, user_id LIMIT 5 OFFSET 5
SELECT DISTINCT grp FROM t_int ORDER BY grp DESC LIMIT 3
SELECT DISTINCT city FROM accounts ORDER BY city NULLS FIRST
SELECT id, name FROM j_users ORDER BY row_number() OVER (ORDER BY score DESC NULLS LAST, id) LIMIT 6
SELECT k FROM t_text ORDER BY k COLLATE "C" LIMIT 12
SELECT k FROM t_text ORDER BY k DESC LIMIT 12
SELECT k FROM t_text ORDER BY lower(k), k LIMIT 12 OFFSET 40
SELECT id, name FROM j_users ORDER BY length(name), name DESC LIMIT 8
SELECT u FROM t_uuid ORDER BY u DESC LIMIT 4 OFFSET 2
SELECT ts FROM t_ts ORDER BY ts DESC OFFSET 295
SELECT id, ts FROM events ORDER BY ts, id LIMIT 6
SELECT id, score FROM events WHERE score IS NOT NULL ORDER BY score DESC, id LIMIT 5

-- group: q intended errors
SELECT grp, name FROM t_int GROUP BY grp
SELECT id FROM j_users WHERE row_number() OVER () > 3
SELECT sum(count(*)) FROM j_users
SELECT sum(name) FROM j_users
SELECT sum(amount / 0) FROM j_orders
SELECT id / (SELECT count(*) - count(*) FROM j_cats) FROM j_users ORDER BY id
SELECT id FROM j_users UNION SELECT name FROM j_users
SELECT id FROM j_users WHERE id IN (SELECT user_id, id FROM j_orders)
SELECT (SELECT user_id FROM j_orders WHERE user_id = u.id) FROM j_users u ORDER BY u.id
SELECT ntile(0) OVER (ORDER BY id) FROM j_users
SELECT nth_value(id, 0) OVER (ORDER BY id) FROM j_users
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY score) FROM j_users
SELECT lag(id, -1) OVER (ORDER BY id) FROM j_users ORDER BY id
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r ORDER BY n) SELECT * FROM r
SELECT id FROM j_users ORDER BY nonexistent
SELECT count(*) FROM j_users GROUP BY 5

-- group: q merged aggregates
SELECT grp, count(*), count(amount), sum(amount), min(amount), max(amount), avg(amount) FROM t_int GROUP BY grp
SELECT grp AS g, count(*) FILTER (WHERE flag), sum(amount) FILTER (WHERE flag), avg(amount) FILTER (WHERE flag) FROM t_int GROUP BY grp ORDER BY g NULLS FIRST
SELECT grp AS g, count(*) AS c FROM t_int GROUP BY grp HAVING count(*) > 10 AND max(amount) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(amount), avg(amount), min(amount), max(amount) FROM t_int WHERE flag
SELECT grp AS g FROM t_int GROUP BY grp HAVING NOT (sum(amount) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT grp % 3, count(*), count(id), sum(id), min(id), max(id), avg(id) FROM t_int GROUP BY grp % 3
SELECT grp % 3 AS g, count(*) FILTER (WHERE amount > 50), sum(id) FILTER (WHERE amount > 50), avg(id) FILTER (WHERE amount > 50) FROM t_int GROUP BY grp % 3 ORDER BY g NULLS FIRST
SELECT grp % 3 AS g, count(*) AS c FROM t_int GROUP BY grp % 3 HAVING count(*) > 10 AND max(id) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(id), avg(id), min(id), max(id) FROM t_int WHERE amount > 50
SELECT grp % 3 AS g FROM t_int GROUP BY grp % 3 HAVING NOT (sum(id) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT note, count(*), count(n), sum(n), min(n), max(n), avg(n) FROM t_text GROUP BY note
SELECT note AS g, count(*) FILTER (WHERE n > 100), sum(n) FILTER (WHERE n > 100), avg(n) FILTER (WHERE n > 100) FROM t_text GROUP BY note ORDER BY g NULLS FIRST
SELECT note AS g, count(*) AS c FROM t_text GROUP BY note HAVING count(*) > 10 AND max(n) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(n), avg(n), min(n), max(n) FROM t_text WHERE n > 100
SELECT note AS g FROM t_text GROUP BY note HAVING NOT (sum(n) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT b, count(*), count(v), sum(v), min(v), max(v), avg(v) FROM t_comp GROUP BY b
SELECT b AS g, count(*) FILTER (WHERE a > 0), sum(v) FILTER (WHERE a > 0), avg(v) FILTER (WHERE a > 0) FROM t_comp GROUP BY b ORDER BY g NULLS FIRST
SELECT b AS g, count(*) AS c FROM t_comp GROUP BY b HAVING count(*) > 10 AND max(v) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(v), avg(v), min(v), max(v) FROM t_comp WHERE a > 0
SELECT b AS g FROM t_comp GROUP BY b HAVING NOT (sum(v) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT label, count(*), count(n), sum(n), min(n), max(n), avg(n) FROM t_uuid GROUP BY label
SELECT label AS g, count(*) FILTER (WHERE n % 2 = 0), sum(n) FILTER (WHERE n % 2 = 0), avg(n) FILTER (WHERE n % 2 = 0) FROM t_uuid GROUP BY label ORDER BY g NULLS FIRST
SELECT label AS g, count(*) AS c FROM t_uuid GROUP BY label HAVING count(*) > 10 AND max(n) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(n), avg(n), min(n), max(n) FROM t_uuid WHERE n % 2 = 0
SELECT label AS g FROM t_uuid GROUP BY label HAVING NOT (sum(n) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT payload, count(*), count(n), sum(n), min(n), max(n), avg(n) FROM t_ts GROUP BY payload
SELECT payload AS g, count(*) FILTER (WHERE n > 0), sum(n) FILTER (WHERE n > 0), avg(n) FILTER (WHERE n > 0) FROM t_ts GROUP BY payload ORDER BY g NULLS FIRST
SELECT payload AS g, count(*) AS c FROM t_ts GROUP BY payload HAVING count(*) > 10 AND max(n) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(n), avg(n), min(n), max(n) FROM t_ts WHERE n > 0
SELECT payload AS g FROM t_ts GROUP BY payload HAVING NOT (sum(n) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT a, count(*), count(c), sum(c), min(c), max(c), avg(c) FROM t_nulls GROUP BY a
SELECT a AS g, count(*) FILTER (WHERE b IS NOT NULL), sum(c) FILTER (WHERE b IS NOT NULL), avg(c) FILTER (WHERE b IS NOT NULL) FROM t_nulls GROUP BY a ORDER BY g NULLS FIRST
SELECT a AS g, count(*) AS c FROM t_nulls GROUP BY a HAVING count(*) > 10 AND max(c) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(c), avg(c), min(c), max(c) FROM t_nulls WHERE b IS NOT NULL
SELECT a AS g FROM t_nulls GROUP BY a HAVING NOT (sum(c) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT b, count(*), count(a), sum(a), min(a), max(a), avg(a) FROM t_nulls GROUP BY b
SELECT b AS g, count(*) FILTER (WHERE c > 100), sum(a) FILTER (WHERE c > 100), avg(a) FILTER (WHERE c > 100) FROM t_nulls GROUP BY b ORDER BY g NULLS FIRST
SELECT b AS g, count(*) AS c FROM t_nulls GROUP BY b HAVING count(*) > 10 AND max(a) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(a), avg(a), min(a), max(a) FROM t_nulls WHERE c > 100
SELECT b AS g FROM t_nulls GROUP BY b HAVING NOT (sum(a) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT kind, count(*), count(score), sum(score), min(score), max(score), avg(score) FROM events GROUP BY kind
SELECT kind AS g, count(*) FILTER (WHERE payload IS NULL), sum(score) FILTER (WHERE payload IS NULL), avg(score) FILTER (WHERE payload IS NULL) FROM events GROUP BY kind ORDER BY g NULLS FIRST
SELECT kind AS g, count(*) AS c FROM events GROUP BY kind HAVING count(*) > 10 AND max(score) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(score), avg(score), min(score), max(score) FROM events WHERE payload IS NULL
SELECT kind AS g FROM events GROUP BY kind HAVING NOT (sum(score) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT host, count(*), count(v), sum(v), min(v), max(v), avg(v) FROM metrics GROUP BY host
SELECT host AS g, count(*) FILTER (WHERE v > 25), sum(v) FILTER (WHERE v > 25), avg(v) FILTER (WHERE v > 25) FROM metrics GROUP BY host ORDER BY g NULLS FIRST
SELECT host AS g, count(*) AS c FROM metrics GROUP BY host HAVING count(*) > 10 AND max(v) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(v), avg(v), min(v), max(v) FROM metrics WHERE v > 25
SELECT host AS g FROM metrics GROUP BY host HAVING NOT (sum(v) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT tier, count(*), count(balance), sum(balance), min(balance), max(balance), avg(balance) FROM accounts GROUP BY tier
SELECT tier AS g, count(*) FILTER (WHERE city = 'Oslo'), sum(balance) FILTER (WHERE city = 'Oslo'), avg(balance) FILTER (WHERE city = 'Oslo') FROM accounts GROUP BY tier ORDER BY g NULLS FIRST
SELECT tier AS g, count(*) AS c FROM accounts GROUP BY tier HAVING count(*) > 10 AND max(balance) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(balance), avg(balance), min(balance), max(balance) FROM accounts WHERE city = 'Oslo'
SELECT tier AS g FROM accounts GROUP BY tier HAVING NOT (sum(balance) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT status, count(*), count(amount), sum(amount), min(amount), max(amount), avg(amount) FROM j_orders GROUP BY status
SELECT status AS g, count(*) FILTER (WHERE item_code IS NULL), sum(amount) FILTER (WHERE item_code IS NULL), avg(amount) FILTER (WHERE item_code IS NULL) FROM j_orders GROUP BY status ORDER BY g NULLS FIRST
SELECT status AS g, count(*) AS c FROM j_orders GROUP BY status HAVING count(*) > 10 AND max(amount) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4
SELECT count(*), sum(amount), avg(amount), min(amount), max(amount) FROM j_orders WHERE item_code IS NULL
SELECT status AS g FROM j_orders GROUP BY status HAVING NOT (sum(amount) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1
SELECT count(*), sum(amount), avg(amount) FROM t_int WHERE id > 500 AND id < 600
SELECT grp, count(*) FROM t_int WHERE id > 500 AND id < 600 GROUP BY grp HAVING count(*) >= 0
SELECT count(*) FROM t_int HAVING count(*) > 0
SELECT sum(amount) FROM t_int HAVING sum(amount) IS NULL
SELECT count(DISTINCT id), count(DISTINCT id) FILTER (WHERE flag) FROM t_int
SELECT grp, count(DISTINCT id) FROM t_int GROUP BY grp ORDER BY grp
SELECT count(DISTINCT k) FROM t_text WHERE n < 50
SELECT count(DISTINCT u), count(DISTINCT ts) FROM t_uuid, (SELECT ts FROM t_ts WHERE n = 3) s
SELECT count(1), count(NULL::int), count(note) FROM t_text
SELECT 'x' AS c, count(*) FROM t_int GROUP BY 1
SELECT grp, 7 AS k, count(*) FROM t_int GROUP BY grp, 2 ORDER BY grp
SELECT flag, grp, count(*) FROM t_int GROUP BY grp, flag ORDER BY flag DESC, grp DESC
SELECT lower(note), count(*) FROM t_text GROUP BY lower(note) ORDER BY 1 NULLS FIRST
SELECT substr(k, 1, 3) AS p, count(*), min(k), max(k) FROM t_text GROUP BY p ORDER BY p
SELECT date_trunc('month', ts) AS m, count(*), min(n), max(n) FROM t_ts GROUP BY m ORDER BY m
SELECT tier IS NULL, count(*) FROM accounts GROUP BY tier IS NULL ORDER BY 1
SELECT sum(amount) AS s, grp FROM t_int GROUP BY grp ORDER BY s DESC, grp LIMIT 3
SELECT grp FROM t_int GROUP BY grp ORDER BY sum(amount) DESC, grp LIMIT 5
SELECT grp, max(name) FROM t_int GROUP BY grp ORDER BY max(name), grp
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) BETWEEN 30 AND 40 ORDER BY grp
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) IN (32, 33, 34) ORDER BY grp
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING grp > 5 ORDER BY grp
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING sum(amount) > avg(amount) * 30 ORDER BY grp
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING min(id) < -150 OR max(id) > 1000 ORDER BY grp
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > 1 + 30 ORDER BY grp
SELECT grp, -sum(amount), coalesce(max(id), 0), sum(amount)::numeric(14,1), round(avg(amount), 1) FROM t_int GROUP BY grp ORDER BY grp
SELECT avg(grp), avg(id), sum(grp), sum(grp::int2), avg(grp::int2), sum(id::numeric) FROM t_int WHERE id BETWEEN -200 AND 200
SELECT avg(n), sum(n), avg(n::int8) FROM t_text
SELECT min(k), max(k), min(note), max(note) FROM t_text
SELECT min(ts), max(ts), min(payload) FROM t_ts
SELECT min(b), max(b), min(w), max(w) FROM t_comp

-- group: q merged order and distinct over types
SELECT id, i2 FROM t_types ORDER BY i2 NULLS FIRST, id LIMIT 12
SELECT id, i2 FROM t_types ORDER BY i2 DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT i2 FROM t_types
SELECT i2, count(*) FROM t_types GROUP BY i2
SELECT min(i2), max(i2), count(i2) FROM t_types
SELECT id, i8 FROM t_types ORDER BY i8 NULLS FIRST, id LIMIT 12
SELECT id, i8 FROM t_types ORDER BY i8 DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT i8 FROM t_types
SELECT i8, count(*) FROM t_types GROUP BY i8
SELECT min(i8), max(i8), count(i8) FROM t_types
SELECT id, f4 FROM t_types ORDER BY f4 NULLS FIRST, id LIMIT 12
SELECT id, f4 FROM t_types ORDER BY f4 DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT f4 FROM t_types WHERE id <> 203
SELECT f4, count(*) FROM t_types WHERE id <> 203 GROUP BY f4
SELECT min(f4), max(f4), count(f4) FROM t_types
SELECT id, f8 FROM t_types ORDER BY f8 NULLS FIRST, id LIMIT 12
SELECT id, f8 FROM t_types ORDER BY f8 DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT f8 FROM t_types WHERE id <> 203
SELECT f8, count(*) FROM t_types WHERE id <> 203 GROUP BY f8
SELECT min(f8), max(f8), count(f8) FROM t_types
SELECT id, num FROM t_types ORDER BY num NULLS FIRST, id LIMIT 12
SELECT id, num FROM t_types ORDER BY num DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT min(num), max(num), count(num) FROM t_types
SELECT id, amt FROM t_types ORDER BY amt NULLS FIRST, id LIMIT 12
SELECT id, amt FROM t_types ORDER BY amt DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT amt FROM t_types
SELECT amt, count(*) FROM t_types GROUP BY amt
SELECT min(amt), max(amt), count(amt) FROM t_types
SELECT id, by FROM t_types ORDER BY by NULLS FIRST, id LIMIT 12
SELECT id, by FROM t_types ORDER BY by DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT by FROM t_types
SELECT by, count(*) FROM t_types GROUP BY by
SELECT id, bo FROM t_types ORDER BY bo NULLS FIRST, id LIMIT 12
SELECT id, bo FROM t_types ORDER BY bo DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT bo FROM t_types
SELECT bo, count(*) FROM t_types GROUP BY bo
SELECT id, d FROM t_types ORDER BY d NULLS FIRST, id LIMIT 12
SELECT id, d FROM t_types ORDER BY d DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT d FROM t_types
SELECT d, count(*) FROM t_types GROUP BY d
SELECT min(d), max(d), count(d) FROM t_types
SELECT id, tsn FROM t_types ORDER BY tsn NULLS FIRST, id LIMIT 12
SELECT id, tsn FROM t_types ORDER BY tsn DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT tsn FROM t_types
SELECT tsn, count(*) FROM t_types GROUP BY tsn
SELECT min(tsn), max(tsn), count(tsn) FROM t_types
SELECT id, vc FROM t_types ORDER BY vc NULLS FIRST, id LIMIT 12
SELECT id, vc FROM t_types ORDER BY vc DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT vc FROM t_types
SELECT vc, count(*) FROM t_types GROUP BY vc
SELECT min(vc), max(vc), count(vc) FROM t_types
SELECT id, bc FROM t_types ORDER BY bc NULLS FIRST, id LIMIT 12
SELECT id, bc FROM t_types ORDER BY bc DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT bc FROM t_types
SELECT bc, count(*) FROM t_types GROUP BY bc
SELECT min(bc), max(bc), count(bc) FROM t_types
SELECT id, u FROM t_types ORDER BY u NULLS FIRST, id LIMIT 12
SELECT id, u FROM t_types ORDER BY u DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT u FROM t_types
SELECT u, count(*) FROM t_types GROUP BY u
SELECT id, tz FROM t_types ORDER BY tz NULLS FIRST, id LIMIT 12
SELECT id, tz FROM t_types ORDER BY tz DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3
SELECT DISTINCT tz FROM t_types
SELECT tz, count(*) FROM t_types GROUP BY tz
SELECT min(tz), max(tz), count(tz) FROM t_types
SELECT id, f8 * 0 FROM t_types WHERE id < 40 ORDER BY f8 * 0, id
SELECT sum(num), avg(num), min(num), max(num) FROM t_types
SELECT sum(num), avg(num) FROM t_types WHERE id < 150
SELECT bo, sum(num), avg(amt) FROM t_types GROUP BY bo
SELECT bc, count(*) FROM t_types GROUP BY bc ORDER BY bc NULLS LAST
SELECT DISTINCT bc, vc FROM t_types ORDER BY bc, vc NULLS FIRST
SELECT DISTINCT lower(vc) FROM t_types ORDER BY 1
SELECT vc, max(bc), min(d) FROM t_types GROUP BY vc ORDER BY vc NULLS FIRST
SELECT d, count(*) FROM t_types WHERE d IS NOT NULL GROUP BY d ORDER BY d DESC LIMIT 5
SELECT tz, id FROM t_types ORDER BY tz NULLS FIRST, id LIMIT 5
SELECT i8, sum(i8), avg(i8) FROM t_types GROUP BY i8 ORDER BY i8 NULLS FIRST LIMIT 5
SELECT sum(i2), sum(i8), avg(i2) FROM t_types WHERE bo
SELECT k FROM t_text ORDER BY k
SELECT DISTINCT note FROM t_text ORDER BY note NULLS FIRST
SELECT k, n FROM t_text ORDER BY note DESC NULLS FIRST, k LIMIT 20
SELECT DISTINCT a, b FROM t_comp WHERE a IN (1, 2) ORDER BY b, a
SELECT a, b FROM t_comp ORDER BY b DESC, a LIMIT 15
SELECT DISTINCT label FROM t_uuid ORDER BY label LIMIT 5 OFFSET 10
SELECT DISTINCT grp, flag FROM t_int ORDER BY flag, grp
SELECT id, name FROM t_int ORDER BY name, id LIMIT 10
SELECT id, amount FROM t_int ORDER BY amount * -1, id LIMIT 10
SELECT id FROM t_int ORDER BY abs(id) DESC, id LIMIT 10
SELECT id, flag FROM t_int ORDER BY flag, id DESC LIMIT 10
SELECT id FROM t_int ORDER BY id LIMIT 5 OFFSET 200
SELECT DISTINCT a FROM t_nulls ORDER BY a NULLS FIRST
SELECT DISTINCT a, b IS NULL FROM t_nulls ORDER BY 2, 1
SELECT id, d FROM t_nulls ORDER BY d DESC NULLS FIRST, id LIMIT 10

-- group: q broadcast joins merged
SELECT i.cat AS g, count(*), sum(o.amount), min(o.amount), max(o.amount), avg(o.amount) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY i.cat
SELECT count(*), sum(o.amount), avg(o.amount) FROM j_orders o JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, o.amount FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY o.amount DESC NULLS LAST, o.user_id, o.id LIMIT 10
SELECT o.user_id, o.id FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id LIMIT 7 OFFSET 20
SELECT DISTINCT i.cat FROM j_orders o JOIN j_items i ON i.code = o.item_code
SELECT i.cat AS g, count(*) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY i.cat HAVING count(*) > 20 ORDER BY g NULLS FIRST
SELECT i.cat AS g, count(*) FILTER (WHERE o.amount > 10), sum(o.amount) FILTER (WHERE o.amount < 500) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY i.cat ORDER BY g NULLS LAST
SELECT c.label AS g, count(*), sum(o.amount), min(o.amount), max(o.amount), avg(o.amount) FROM j_orders o JOIN j_cats c ON c.id = o.user_id % 8 + 1 GROUP BY c.label
SELECT count(*), sum(o.amount), avg(o.amount) FROM j_orders o JOIN j_cats c ON c.id = o.user_id % 8 + 1
SELECT o.user_id, o.id, o.amount FROM j_orders o JOIN j_cats c ON c.id = o.user_id % 8 + 1 ORDER BY o.amount DESC NULLS LAST, o.user_id, o.id LIMIT 10
SELECT o.user_id, o.id FROM j_orders o JOIN j_cats c ON c.id = o.user_id % 8 + 1 ORDER BY o.user_id, o.id LIMIT 7 OFFSET 20
SELECT DISTINCT c.label FROM j_orders o JOIN j_cats c ON c.id = o.user_id % 8 + 1
SELECT c.label AS g, count(*) FROM j_orders o JOIN j_cats c ON c.id = o.user_id % 8 + 1 GROUP BY c.label HAVING count(*) > 20 ORDER BY g NULLS FIRST
SELECT c.label AS g, count(*) FILTER (WHERE o.amount > 10), sum(o.amount) FILTER (WHERE o.amount < 500) FROM j_orders o JOIN j_cats c ON c.id = o.user_id % 8 + 1 GROUP BY c.label ORDER BY g NULLS LAST
SELECT i.cat AS g, count(*), sum(o.amount), min(o.amount), max(o.amount), avg(o.amount) FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code GROUP BY i.cat
SELECT count(*), sum(o.amount), avg(o.amount) FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, o.amount FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code ORDER BY o.amount DESC NULLS LAST, o.user_id, o.id, i.code LIMIT 10
SELECT o.user_id, o.id, i.code FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code LIMIT 7 OFFSET 20
SELECT DISTINCT i.cat FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code
SELECT i.cat AS g, count(*) FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code GROUP BY i.cat HAVING count(*) > 20 ORDER BY g NULLS FIRST
SELECT i.cat AS g, count(*) FILTER (WHERE o.amount > 10), sum(o.amount) FILTER (WHERE o.amount < 500) FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code GROUP BY i.cat ORDER BY g NULLS LAST
SELECT u.city AS g, count(*), sum(o.amount), min(o.amount), max(o.amount), avg(o.amount) FROM j_orders o JOIN j_users u ON u.id = o.user_id GROUP BY u.city
SELECT count(*), sum(o.amount), avg(o.amount) FROM j_orders o JOIN j_users u ON u.id = o.user_id
SELECT o.user_id, o.id, o.amount FROM j_orders o JOIN j_users u ON u.id = o.user_id ORDER BY o.amount DESC NULLS LAST, o.user_id, o.id LIMIT 10
SELECT o.user_id, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id ORDER BY o.user_id, o.id LIMIT 7 OFFSET 20
SELECT DISTINCT u.city FROM j_orders o JOIN j_users u ON u.id = o.user_id
SELECT u.city AS g, count(*) FROM j_orders o JOIN j_users u ON u.id = o.user_id GROUP BY u.city HAVING count(*) > 20 ORDER BY g NULLS FIRST
SELECT u.city AS g, count(*) FILTER (WHERE o.amount > 10), sum(o.amount) FILTER (WHERE o.amount < 500) FROM j_orders o JOIN j_users u ON u.id = o.user_id GROUP BY u.city ORDER BY g NULLS LAST
SELECT c.label AS g, count(*), sum(n.c), min(n.c), max(n.c), avg(n.c) FROM t_nulls n JOIN j_cats c ON c.id = n.a GROUP BY c.label
SELECT count(*), sum(n.c), avg(n.c) FROM t_nulls n JOIN j_cats c ON c.id = n.a
SELECT n.id, n.c FROM t_nulls n JOIN j_cats c ON c.id = n.a ORDER BY n.c DESC NULLS LAST, n.id LIMIT 10
SELECT n.id FROM t_nulls n JOIN j_cats c ON c.id = n.a ORDER BY n.id LIMIT 7 OFFSET 20
SELECT DISTINCT c.label FROM t_nulls n JOIN j_cats c ON c.id = n.a
SELECT c.label AS g, count(*) FROM t_nulls n JOIN j_cats c ON c.id = n.a GROUP BY c.label HAVING count(*) > 20 ORDER BY g NULLS FIRST
SELECT c.label AS g, count(*) FILTER (WHERE n.c > 10), sum(n.c) FILTER (WHERE n.c < 500) FROM t_nulls n JOIN j_cats c ON c.id = n.a GROUP BY c.label ORDER BY g NULLS LAST
SELECT c.id AS g, count(*), sum(t.n), min(t.n), max(t.n), avg(t.n) FROM t_uuid t JOIN j_cats c ON c.id = t.n % 9 GROUP BY c.id
SELECT count(*), sum(t.n), avg(t.n) FROM t_uuid t JOIN j_cats c ON c.id = t.n % 9
SELECT t.u, t.n FROM t_uuid t JOIN j_cats c ON c.id = t.n % 9 ORDER BY t.n DESC NULLS LAST, t.u LIMIT 10
SELECT t.u FROM t_uuid t JOIN j_cats c ON c.id = t.n % 9 ORDER BY t.u LIMIT 7 OFFSET 20
SELECT DISTINCT c.id FROM t_uuid t JOIN j_cats c ON c.id = t.n % 9
SELECT c.id AS g, count(*) FROM t_uuid t JOIN j_cats c ON c.id = t.n % 9 GROUP BY c.id HAVING count(*) > 20 ORDER BY g NULLS FIRST
SELECT c.id AS g, count(*) FILTER (WHERE t.n > 10), sum(t.n) FILTER (WHERE t.n < 500) FROM t_uuid t JOIN j_cats c ON c.id = t.n % 9 GROUP BY c.id ORDER BY g NULLS LAST
SELECT m.host AS g, count(*), sum(m.v), min(m.v), max(m.v), avg(m.v) FROM metrics m JOIN j_cats c ON c.id = m.v % 10 GROUP BY m.host
SELECT count(*), sum(m.v), avg(m.v) FROM metrics m JOIN j_cats c ON c.id = m.v % 10
SELECT m.id, m.v FROM metrics m JOIN j_cats c ON c.id = m.v % 10 ORDER BY m.v DESC NULLS LAST, m.id LIMIT 10
SELECT m.id FROM metrics m JOIN j_cats c ON c.id = m.v % 10 ORDER BY m.id LIMIT 7 OFFSET 20
SELECT DISTINCT m.host FROM metrics m JOIN j_cats c ON c.id = m.v % 10
SELECT m.host AS g, count(*) FROM metrics m JOIN j_cats c ON c.id = m.v % 10 GROUP BY m.host HAVING count(*) > 20 ORDER BY g NULLS FIRST
SELECT m.host AS g, count(*) FILTER (WHERE m.v > 10), sum(m.v) FILTER (WHERE m.v < 500) FROM metrics m JOIN j_cats c ON c.id = m.v % 10 GROUP BY m.host ORDER BY g NULLS LAST
SELECT e.kind AS g, count(*), sum(e.score), min(e.score), max(e.score), avg(e.score) FROM events e JOIN j_cats c ON c.label = 'c' || (e.id % 9) GROUP BY e.kind
SELECT count(*), sum(e.score), avg(e.score) FROM events e JOIN j_cats c ON c.label = 'c' || (e.id % 9)
SELECT e.id, e.score FROM events e JOIN j_cats c ON c.label = 'c' || (e.id % 9) ORDER BY e.score DESC NULLS LAST, e.id LIMIT 10
SELECT e.id FROM events e JOIN j_cats c ON c.label = 'c' || (e.id % 9) ORDER BY e.id LIMIT 7 OFFSET 20
SELECT DISTINCT e.kind FROM events e JOIN j_cats c ON c.label = 'c' || (e.id % 9)
SELECT e.kind AS g, count(*) FROM events e JOIN j_cats c ON c.label = 'c' || (e.id % 9) GROUP BY e.kind HAVING count(*) > 20 ORDER BY g NULLS FIRST
SELECT e.kind AS g, count(*) FILTER (WHERE e.score > 10), sum(e.score) FILTER (WHERE e.score < 500) FROM events e JOIN j_cats c ON c.label = 'c' || (e.id % 9) GROUP BY e.kind ORDER BY g NULLS LAST
SELECT o.status, i.cat, count(*), sum(o.amount) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.status, i.cat ORDER BY o.status NULLS FIRST, i.cat NULLS FIRST
SELECT o.user_id, count(*), sum(i.price) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.user_id ORDER BY o.user_id LIMIT 10
SELECT count(DISTINCT o.user_id), count(DISTINCT i.code) FROM j_orders o JOIN j_items i ON i.code = o.item_code
SELECT count(DISTINCT o.id) FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.cat = 3
SELECT i.title, o.user_id, o.id FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.price < 5 ORDER BY i.title, o.user_id, o.id
SELECT o.user_id, o.id, i.price FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY i.price * 2 DESC, o.user_id, o.id LIMIT 5
SELECT c.label, sum(i.price * 2), count(o.id) FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT o.status, avg(o.amount), avg(i.price) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.status HAVING avg(o.amount) > 400 ORDER BY o.status NULLS FIRST
SELECT o.status, sum(o.amount::float8), avg(i.price::float4) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.status ORDER BY o.status NULLS FIRST
SELECT max(o.item_code), min(i.title), max(o.status) FROM j_orders o JOIN j_items i ON i.code = o.item_code
SELECT i.cat, max(o.amount) - min(o.amount) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY i.cat ORDER BY i.cat NULLS LAST
SELECT DISTINCT o.status, i.cat FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY o.status NULLS FIRST, i.cat NULLS FIRST LIMIT 8
SELECT v.page, count(*), sum(v.secs), avg(v.secs) FROM j_visits v JOIN j_cats c ON c.id = v.n GROUP BY v.page ORDER BY v.page NULLS FIRST
SELECT p.tag, count(*), sum(p.v) FROM parts p JOIN j_cats c ON c.id = p.a % 8 GROUP BY p.tag ORDER BY p.tag NULLS FIRST
SELECT a.city, count(*), sum(a.balance), avg(a.balance) FROM accounts a JOIN j_cats c ON c.id = a.tier GROUP BY a.city ORDER BY a.city NULLS FIRST
SELECT t.grp, count(*), sum(t.amount) FROM t_int t JOIN j_cats c ON c.id = t.grp GROUP BY t.grp HAVING sum(t.amount) > 1000 ORDER BY t.grp

-- group: q merge edge cases
SELECT payload, max(ts) FROM t_ts GROUP BY payload HAVING max(ts) > '2024-03-15 9:00' ORDER BY payload
SELECT payload, min(ts) FROM t_ts GROUP BY payload HAVING min(ts) < '2023-12-20 3:00:00+01' ORDER BY payload
SELECT grp, sum(amount) FROM t_int GROUP BY grp HAVING sum(amount) > '1000' ORDER BY grp
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > '9' ORDER BY grp
SELECT grp, avg(amount) FROM t_int GROUP BY grp HAVING avg(amount) > 49.5 ORDER BY grp
SELECT grp, sum(amount) FROM t_int GROUP BY grp HAVING sum(amount) >= 1.5e3 ORDER BY grp
SELECT grp, max(name) FROM t_int GROUP BY grp HAVING max(name) > 'name 9' ORDER BY grp
SELECT grp, max(name) FROM t_int GROUP BY grp HAVING max(name) LIKE 'name 9%' ORDER BY grp
SELECT label, max(n) FROM t_uuid GROUP BY label HAVING max(n) < 1e2 + 200 ORDER BY label
SELECT kind, min(ts) FROM events GROUP BY kind HAVING min(ts) = '2024-03-01 00:37:00+00' ORDER BY kind
SELECT host, sum(v) FROM metrics GROUP BY host HAVING sum(v) <> 1000 AND count(*) = 40 ORDER BY host
SELECT a, count(*) FROM t_nulls GROUP BY a HAVING a IS NULL OR sum(c) IS NULL ORDER BY a NULLS FIRST
SELECT city, max(balance) FROM accounts GROUP BY city HAVING max(balance) > '990.5' ORDER BY city NULLS FIRST
SELECT note, max(k) FROM t_text GROUP BY note HAVING max(k) >= 'key1' ORDER BY note NULLS FIRST
SELECT max(('10.0.' || (id % 256) || '.' || (id % 200 + 1))::inet), min(('10.0.' || (id % 256) || '.' || (id % 200 + 1))::inet) FROM t_int WHERE id BETWEEN 0 AND 300
SELECT id, ('10.0.0.' || (id % 250 + 1))::inet AS ip FROM t_int WHERE id BETWEEN 0 AND 200 ORDER BY ip, id LIMIT 10
SELECT sum(ts - timestamptz '2024-01-01 00:00:00+00'), max(ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE ts BETWEEN '2000-01-01' AND '2030-01-01'
SELECT payload, sum(ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE ts BETWEEN '2000-01-01' AND '2030-01-01' GROUP BY payload ORDER BY payload
SELECT avg(ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE ts BETWEEN '2000-01-01' AND '2030-01-01'
SELECT n, ts - timestamptz '2024-01-01 00:00:00+00' AS iv FROM t_ts WHERE ts BETWEEN '2000-01-01' AND '2030-01-01' ORDER BY iv DESC LIMIT 5
SELECT sum(amount::money), max(amount::money), min(amount::money) FROM j_orders
SELECT status, sum(amount::money) FROM j_orders GROUP BY status ORDER BY status NULLS FIRST
SELECT max(ts::time), min(ts::time), max(ts::date) FROM t_ts
SELECT ts::time AS t, count(*) FROM t_ts GROUP BY 1 ORDER BY 1 LIMIT 5
SELECT id, (id % 37)::oid AS o FROM t_int WHERE id BETWEEN 0 AND 80 ORDER BY o DESC, id LIMIT 6
SELECT max(id::text), min(id::text) FROM t_int
SELECT id FROM t_int ORDER BY id::text LIMIT 8
SELECT id FROM t_int ORDER BY id USING >, name LIMIT 5
SELECT k FROM t_text ORDER BY k COLLATE "POSIX" DESC LIMIT 5
SELECT max(k COLLATE "C"), min(note COLLATE "C") FROM t_text
SELECT sum(abs(f8) * 1e306) FROM t_types WHERE f8 <> 'NaN' AND id < 150
SELECT sum(f8 * 1e300) FROM t_types WHERE f8 <> 'NaN' AND id < 150
SELECT sum(i8), sum(i8 / 2) FROM t_types
SELECT sum(id) FROM t_int WHERE id > 0
SELECT sum(id::float8) FROM t_int WHERE id BETWEEN -200 AND 200
SELECT avg(amount), avg(amount::int), avg(amount::int8), avg(amount::int2) FROM t_int
SELECT grp, avg(amount)::text FROM t_int GROUP BY grp ORDER BY grp
SELECT id AS "X", grp AS "grp" FROM t_int ORDER BY "X" DESC LIMIT 4
SELECT * FROM t_int ORDER BY amount DESC, id LIMIT 4
SELECT DISTINCT grp FROM t_int ORDER BY id
SELECT grp, amount FROM t_int ORDER BY 2 DESC, 1, id LIMIT 6
SELECT count(*) FROM (SELECT * FROM t_nulls WHERE a IS NULL) AS x
SELECT count(x.a) FROM (SELECT a FROM t_nulls) AS x
SELECT count(x.a), count(*) FROM (SELECT a FROM t_nulls WHERE id > 50) AS x
SELECT count(*) FROM (SELECT id FROM t_int WHERE flag) AS x WHERE x.id > 100
SELECT count(*) FROM (SELECT 1 FROM t_int) AS x
SELECT count(*), max(x.id) FROM (SELECT id FROM t_int) AS x
SELECT count(DISTINCT x.grp) FROM (SELECT grp FROM t_int) AS x
SELECT count(*) FROM (SELECT DISTINCT grp FROM t_int) AS x
SELECT count(*) FROM (SELECT grp FROM t_int GROUP BY grp) AS x
SELECT count(*) FROM (SELECT id FROM t_int ORDER BY id LIMIT 10) AS x
SELECT count(*) FROM (SELECT id FROM t_int WHERE id > 0 OR grp = 2) AS x
SELECT count(*) FROM (SELECT k FROM t_text WHERE note IS NULL) AS anon_1
SELECT count(*) AS count_1 FROM (SELECT u, n FROM t_uuid WHERE n BETWEEN 5 AND 200) AS anon_1
SELECT count(*) FROM (SELECT a, b FROM t_comp WHERE a = 5) AS x
SELECT count(*) FROM (SELECT id FROM events WHERE kind = 'buy') AS x
SELECT count(*) FROM (SELECT * FROM t_int UNION ALL SELECT * FROM t_int) AS x
SELECT count(*) + 1 FROM (SELECT id FROM t_int) AS x
SELECT count(*) FROM (SELECT id FROM t_int) AS x HAVING count(*) > 1000

-- group: q gathered rows with special values
SELECT a.*, b.id FROM t_types a JOIN t_types b ON b.id = a.id + 1 ORDER BY a.id
SELECT * FROM t_types WHERE id IN (SELECT id FROM t_nulls WHERE a IS NULL OR id > 200) ORDER BY id
SELECT * FROM t_types t WHERE EXISTS (SELECT 1 FROM t_int i WHERE i.id = t.id) ORDER BY id
WITH x AS (SELECT * FROM t_types) SELECT * FROM x ORDER BY id
SELECT t.id, t.by, t.bc, t.vc, t.f4, t.f8, t.num FROM t_types t JOIN j_cats c ON c.id = t.id % 8 ORDER BY t.id
SELECT t.*, row_number() OVER (ORDER BY id) FROM t_types t ORDER BY id
SELECT * FROM t_types UNION ALL SELECT * FROM t_types WHERE id > 200 ORDER BY id /*ties*/
SELECT f8, count(*) FROM (SELECT f8 FROM t_types WHERE id <> 203 UNION ALL SELECT f8 FROM t_types WHERE id > 200) s GROUP BY f8
SELECT k, n, note FROM t_text WHERE k IN (SELECT k FROM t_text WHERE n < 30) ORDER BY k
SELECT a.k, b.k FROM t_text a JOIN t_text b ON b.n = a.n + 1 WHERE a.n < 30 ORDER BY a.k, b.k
SELECT t.k, t.note, i.id FROM t_text t LEFT JOIN t_int i ON i.id = t.n WHERE t.n < 30 ORDER BY t.k
SELECT string_agg(k, '|' ORDER BY k), string_agg(note, ',' ORDER BY k) FROM t_text WHERE n < 30
SELECT json_agg(t ORDER BY k) FROM t_text t WHERE n < 30
SELECT array_agg(k ORDER BY k) FROM t_text WHERE n < 30
SELECT k FROM t_text WHERE n < 30 INTERSECT SELECT k FROM t_text ORDER BY 1
SELECT ts, n, payload FROM t_ts WHERE n > 1000 UNION SELECT ts, n, payload FROM t_ts WHERE n = 1 ORDER BY ts
SELECT a.ts, b.n FROM t_ts a JOIN t_ts b ON b.ts = a.ts WHERE a.n > 1000 ORDER BY a.ts
SELECT u, n, label FROM t_uuid WHERE n <= 0 OR n > 298 UNION ALL SELECT u, n, label FROM t_uuid WHERE n = 1 ORDER BY u
SELECT a.u, b.n FROM t_uuid a JOIN t_uuid b ON b.u = a.u WHERE a.n < 3 ORDER BY a.u
SELECT t.id, t.d, t.tsn, t.tz, t.u FROM t_types t JOIN t_types s ON s.u = t.u ORDER BY t.id
SELECT t.id, n.b, n.c, n.d FROM t_types t JOIN t_nulls n ON n.id = t.id ORDER BY t.id
SELECT * FROM (SELECT id, i2, i8 FROM t_types UNION SELECT id, grp, id FROM t_int WHERE id > 200) s ORDER BY id, i2, i8
SELECT id, by FROM t_types WHERE by IN (SELECT by FROM t_types WHERE id > 200) ORDER BY id
SELECT id, bc FROM t_types WHERE bc = ANY (SELECT bc FROM t_types WHERE id > 200) ORDER BY id
SELECT id, vc FROM t_types WHERE vc IN (SELECT vc FROM t_types WHERE id > 200) ORDER BY id
SELECT id, num FROM t_types WHERE num IN (SELECT num FROM t_types WHERE id > 200) ORDER BY id
SELECT id, f8 FROM t_types WHERE f8 IN (SELECT f8 FROM t_types WHERE id > 200) ORDER BY id
SELECT id, f4 FROM t_types WHERE f4 IN (SELECT f4 FROM t_types WHERE id > 200) ORDER BY id
SELECT id, d, tsn, tz FROM t_types WHERE d IN (SELECT d FROM t_types WHERE id > 200) ORDER BY id
SELECT id FROM accounts WHERE email IN (SELECT email FROM accounts WHERE id > 290) ORDER BY id
SELECT a.id, a.email, a.created FROM accounts a JOIN j_users u ON u.id = a.id WHERE a.id > 100 ORDER BY a.id

-- group: q global index reads under subqueries and aggregates
SELECT id, name, tier, balance FROM accounts WHERE city = 'Oslo' ORDER BY id
SELECT count(*), count(balance), min(balance), max(balance) FROM accounts WHERE city = 'Oslo'
SELECT id, name, tier, balance FROM accounts WHERE city = 'Oslo' ORDER BY balance DESC NULLS LAST, id LIMIT 3
SELECT id, row_number() OVER (ORDER BY balance NULLS FIRST, id) FROM accounts WHERE city = 'Oslo' ORDER BY id
SELECT id FROM accounts WHERE city = 'Oslo' AND id IN (SELECT id FROM accounts WHERE balance IS NOT NULL) ORDER BY id
SELECT id, name, tier FROM accounts WHERE city IN ('Bern', 'Zürich', 'São Paulo') ORDER BY id
SELECT count(*), count(tier), min(tier), max(tier) FROM accounts WHERE city IN ('Bern', 'Zürich', 'São Paulo')
SELECT id, name, tier FROM accounts WHERE city IN ('Bern', 'Zürich', 'São Paulo') ORDER BY tier DESC NULLS LAST, id LIMIT 3
SELECT id, row_number() OVER (ORDER BY tier NULLS FIRST, id) FROM accounts WHERE city IN ('Bern', 'Zürich', 'São Paulo') ORDER BY id
SELECT id FROM accounts WHERE city IN ('Bern', 'Zürich', 'São Paulo') AND id IN (SELECT id FROM accounts WHERE tier IS NOT NULL) ORDER BY id
SELECT id, email, balance FROM accounts WHERE email = 'shared1@example.com' ORDER BY id
SELECT count(*), count(balance), min(balance), max(balance) FROM accounts WHERE email = 'shared1@example.com'
SELECT id, email, balance FROM accounts WHERE email = 'shared1@example.com' ORDER BY balance DESC NULLS LAST, id LIMIT 3
SELECT id, row_number() OVER (ORDER BY balance NULLS FIRST, id) FROM accounts WHERE email = 'shared1@example.com' ORDER BY id
SELECT id FROM accounts WHERE email = 'shared1@example.com' AND id IN (SELECT id FROM accounts WHERE balance IS NOT NULL) ORDER BY id
SELECT id, code, balance FROM accounts WHERE code BETWEEN 'C0100' AND 'C0130' ORDER BY id
SELECT count(*), count(balance), min(balance), max(balance) FROM accounts WHERE code BETWEEN 'C0100' AND 'C0130'
SELECT id, code, balance FROM accounts WHERE code BETWEEN 'C0100' AND 'C0130' ORDER BY balance DESC NULLS LAST, id LIMIT 3
SELECT id, row_number() OVER (ORDER BY balance NULLS FIRST, id) FROM accounts WHERE code BETWEEN 'C0100' AND 'C0130' ORDER BY id
SELECT id FROM accounts WHERE code BETWEEN 'C0100' AND 'C0130' AND id IN (SELECT id FROM accounts WHERE balance IS NOT NULL) ORDER BY id
SELECT id, tier, created FROM accounts WHERE tier = 2 AND created > '2024-03-01' ORDER BY id
SELECT count(*), count(created), min(created), max(created) FROM accounts WHERE tier = 2 AND created > '2024-03-01'
SELECT id, tier, created FROM accounts WHERE tier = 2 AND created > '2024-03-01' ORDER BY created DESC NULLS LAST, id LIMIT 3
SELECT id, row_number() OVER (ORDER BY created NULLS FIRST, id) FROM accounts WHERE tier = 2 AND created > '2024-03-01' ORDER BY id
SELECT id FROM accounts WHERE tier = 2 AND created > '2024-03-01' AND id IN (SELECT id FROM accounts WHERE created IS NOT NULL) ORDER BY id
SELECT a, b, tag, v FROM parts WHERE tag = 'tag4' ORDER BY a, b
SELECT count(*), count(v), min(v), max(v) FROM parts WHERE tag = 'tag4'
SELECT a, b, tag, v FROM parts WHERE tag = 'tag4' ORDER BY v DESC NULLS LAST, a, b LIMIT 3
SELECT a, b, row_number() OVER (ORDER BY v NULLS FIRST, a, b) FROM parts WHERE tag = 'tag4' ORDER BY a, b
SELECT a, b FROM parts WHERE tag = 'tag4' AND a IN (SELECT a FROM parts WHERE v IS NOT NULL) ORDER BY a, b
SELECT id, kind, score FROM events WHERE kind = 'buy' ORDER BY id
SELECT count(*), count(score), min(score), max(score) FROM events WHERE kind = 'buy'
SELECT id, kind, score FROM events WHERE kind = 'buy' ORDER BY score DESC NULLS LAST, id LIMIT 3
SELECT id, row_number() OVER (ORDER BY score NULLS FIRST, id) FROM events WHERE kind = 'buy' ORDER BY id
SELECT id FROM events WHERE kind = 'buy' AND id IN (SELECT id FROM events WHERE score IS NOT NULL) ORDER BY id
SELECT id, ts, score FROM events WHERE ts BETWEEN '2024-03-03' AND '2024-03-04' ORDER BY id
SELECT count(*), count(score), min(score), max(score) FROM events WHERE ts BETWEEN '2024-03-03' AND '2024-03-04'
SELECT id, ts, score FROM events WHERE ts BETWEEN '2024-03-03' AND '2024-03-04' ORDER BY score DESC NULLS LAST, id LIMIT 3
SELECT id, row_number() OVER (ORDER BY score NULLS FIRST, id) FROM events WHERE ts BETWEEN '2024-03-03' AND '2024-03-04' ORDER BY id
SELECT id FROM events WHERE ts BETWEEN '2024-03-03' AND '2024-03-04' AND id IN (SELECT id FROM events WHERE score IS NOT NULL) ORDER BY id
SELECT id, host, v FROM metrics WHERE host = 'host3' ORDER BY id
SELECT count(*), count(v), min(v), max(v) FROM metrics WHERE host = 'host3'
SELECT id, host, v FROM metrics WHERE host = 'host3' ORDER BY v DESC NULLS LAST, id LIMIT 3
SELECT id, row_number() OVER (ORDER BY v NULLS FIRST, id) FROM metrics WHERE host = 'host3' ORDER BY id
SELECT id FROM metrics WHERE host = 'host3' AND id IN (SELECT id FROM metrics WHERE v IS NOT NULL) ORDER BY id
SELECT id, ts, v FROM metrics WHERE ts < '2024-05-01 00:30:00+00' ORDER BY id
SELECT count(*), count(v), min(v), max(v) FROM metrics WHERE ts < '2024-05-01 00:30:00+00'
SELECT id, ts, v FROM metrics WHERE ts < '2024-05-01 00:30:00+00' ORDER BY v DESC NULLS LAST, id LIMIT 3
SELECT id, row_number() OVER (ORDER BY v NULLS FIRST, id) FROM metrics WHERE ts < '2024-05-01 00:30:00+00' ORDER BY id
SELECT id FROM metrics WHERE ts < '2024-05-01 00:30:00+00' AND id IN (SELECT id FROM metrics WHERE v IS NOT NULL) ORDER BY id
SELECT name, tier FROM accounts WHERE city = 'Rome' ORDER BY name, tier /*ties*/
SELECT code, balance FROM accounts WHERE code = 'C0042'
SELECT v FROM parts WHERE tag = 'tag1' ORDER BY v
SELECT score FROM events WHERE kind = 'view' ORDER BY score NULLS FIRST /*ties*/
SELECT v FROM metrics WHERE host = 'host1' ORDER BY v /*ties*/
SELECT city, count(*), sum(balance) FROM accounts WHERE city IN ('Oslo', 'Rome') GROUP BY city ORDER BY city
SELECT tier, count(*) FROM accounts WHERE tier IN (1, 3) AND created IS NOT NULL GROUP BY tier ORDER BY tier
SELECT u.id, a.id FROM j_users u JOIN accounts a ON a.city = u.city AND a.tier = 4 WHERE u.id < 6 ORDER BY u.id, a.id
SELECT e.id, e.kind FROM events e WHERE e.kind IN (SELECT kind FROM j_events WHERE user_id = 7) ORDER BY e.id
SELECT p.a, p.b FROM parts p WHERE p.tag = (SELECT max(tag) FROM parts) ORDER BY p.a, p.b
SELECT m.host, count(*) FROM metrics m WHERE m.host IN (SELECT 'host' || id FROM j_cats) GROUP BY m.host ORDER BY m.host
SELECT a.id FROM accounts a WHERE a.email LIKE 'user1%' AND NOT EXISTS (SELECT 1 FROM j_users u WHERE u.id = a.id) ORDER BY a.id
SELECT kind, string_agg(id::text, ',' ORDER BY id) FROM events WHERE kind IN ('login', 'logout') AND id < 60 GROUP BY kind ORDER BY kind
SELECT host, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM metrics WHERE host IN ('host0', 'host5') GROUP BY host ORDER BY host

-- group: q merged types pgrange cannot compare
SELECT n, (ts AT TIME ZONE 'UTC')::time AS at FROM t_ts WHERE n < 1000 ORDER BY at, n LIMIT 15
SELECT (ts AT TIME ZONE 'UTC')::time AS at, count(*) FROM t_ts WHERE n < 1000 GROUP BY at ORDER BY at
SELECT min((ts AT TIME ZONE 'UTC')::time), max((ts AT TIME ZONE 'UTC')::time), count(*) FROM t_ts WHERE n < 1000
SELECT n, ts - timestamptz '2024-01-01 00:00:00+00' AS age FROM t_ts WHERE n BETWEEN -50 AND 249 ORDER BY age DESC, n LIMIT 10
SELECT DISTINCT (ts - timestamptz '2024-01-01 00:00:00+00') / 7 AS w FROM t_ts WHERE n BETWEEN 0 AND 40 ORDER BY w
SELECT max(ts - timestamptz '2024-01-01 00:00:00+00'), min(ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE n BETWEEN -50 AND 249
SELECT id, ('10.' || grp || '.0.' || (abs(id) % 250))::inet AS addr FROM t_int WHERE id BETWEEN -299 AND 299 ORDER BY addr, id LIMIT 20
SELECT ('10.' || grp || '.0.0')::inet AS net, count(*), sum(amount) FROM t_int GROUP BY net ORDER BY net
SELECT ('10.' || grp || '.0.0/16')::cidr AS net, count(*) FROM t_int GROUP BY net HAVING count(*) > 10 ORDER BY net
SELECT min(('10.' || grp || '.0.' || (abs(id) % 250))::inet), max(('192.168.' || grp || '.1')::inet) FROM t_int WHERE id BETWEEN -299 AND 299
SELECT id, row_number() OVER (PARTITION BY grp ORDER BY ('10.0.0.' || (abs(id) % 250))::inet, id) FROM t_int WHERE id BETWEEN -299 AND 299 ORDER BY id
SELECT n, rank() OVER (ORDER BY ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE n < 1000 ORDER BY n
SELECT n, count(*) OVER (PARTITION BY (ts AT TIME ZONE 'UTC')::time) FROM t_ts WHERE n < 1000 ORDER BY n
SELECT n, lag(n) OVER (PARTITION BY extract(hour FROM ts AT TIME ZONE 'UTC')::int % 3 ORDER BY (ts AT TIME ZONE 'UTC')::time, n) FROM t_ts WHERE n BETWEEN 0 AND 120 ORDER BY n
SELECT id, amount::money AS m FROM t_int WHERE id BETWEEN -299 AND 299 ORDER BY m DESC, id LIMIT 10
SELECT DISTINCT amount::money AS m FROM t_int WHERE id BETWEEN 0 AND 60 ORDER BY m
SELECT grp, sum(amount::money), min(amount::money) FROM t_int GROUP BY grp ORDER BY grp
SELECT DISTINCT ON (grp) grp, ('10.0.0.' || (abs(id) % 250))::inet AS a FROM t_int WHERE id BETWEEN -300 AND 300 ORDER BY grp, a
SELECT (ts AT TIME ZONE 'UTC')::time AS at, string_agg(payload, ',' ORDER BY n) FROM t_ts WHERE n BETWEEN 0 AND 60 GROUP BY at ORDER BY at
SELECT id, name FROM t_int WHERE id BETWEEN -59 AND 59 ORDER BY ('10.0.' || grp || '.1')::inet DESC, id LIMIT 12
SELECT v.user_id, v.n, c.label, ('10.0.' || c.id || '.' || v.n)::inet AS a FROM j_visits v JOIN j_cats c ON c.id = v.n ORDER BY a, v.user_id LIMIT 15
SELECT count(*) FROM (SELECT DISTINCT (ts AT TIME ZONE 'UTC')::time FROM t_ts WHERE n < 1000) d

-- group: q windows computed on each shard
SELECT user_id, n, row_number() OVER (PARTITION BY user_id ORDER BY n) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, rank() OVER (PARTITION BY user_id ORDER BY secs) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, dense_rank() OVER (PARTITION BY user_id ORDER BY page NULLS FIRST) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, count(*) OVER (PARTITION BY user_id) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, sum(secs) OVER (PARTITION BY user_id ORDER BY n) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, sum(secs) OVER (PARTITION BY user_id ORDER BY n ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, avg(secs) OVER (PARTITION BY user_id) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, lag(page) OVER (PARTITION BY user_id ORDER BY n) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, lead(secs, 2, -1) OVER (PARTITION BY user_id ORDER BY n) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, first_value(page) OVER (PARTITION BY user_id ORDER BY n) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, last_value(secs) OVER (PARTITION BY user_id ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, nth_value(secs, 2) OVER (PARTITION BY user_id ORDER BY n) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, ntile(2) OVER (PARTITION BY user_id ORDER BY n) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, round(percent_rank() OVER (PARTITION BY user_id ORDER BY secs)::numeric, 6) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, round(cume_dist() OVER (PARTITION BY user_id ORDER BY secs)::numeric, 6) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, max(secs) OVER (PARTITION BY user_id ORDER BY n GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, string_agg(page, ',') OVER (PARTITION BY user_id ORDER BY n) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, count(page) FILTER (WHERE secs > 100) OVER (PARTITION BY v.user_id) FROM j_visits v ORDER BY user_id, n
SELECT user_id, n, row_number() OVER (PARTITION BY user_id ORDER BY n) AS w FROM j_visits v WHERE user_id BETWEEN 25 AND 70 ORDER BY w DESC NULLS LAST, user_id, n LIMIT 9
SELECT user_id, n, rank() OVER (PARTITION BY user_id ORDER BY secs) AS w FROM j_visits v WHERE user_id BETWEEN 25 AND 70 ORDER BY w DESC NULLS LAST, user_id, n LIMIT 9
SELECT user_id, n, dense_rank() OVER (PARTITION BY user_id ORDER BY page NULLS FIRST) AS w FROM j_visits v WHERE user_id BETWEEN 25 AND 70 ORDER BY w DESC NULLS LAST, user_id, n LIMIT 9
SELECT user_id, n, count(*) OVER (PARTITION BY user_id) AS w FROM j_visits v WHERE user_id BETWEEN 25 AND 70 ORDER BY w DESC NULLS LAST, user_id, n LIMIT 9
SELECT user_id, n, sum(secs) OVER (PARTITION BY user_id ORDER BY n) AS w FROM j_visits v WHERE user_id BETWEEN 25 AND 70 ORDER BY w DESC NULLS LAST, user_id, n LIMIT 9
SELECT user_id, n, sum(secs) OVER (PARTITION BY user_id ORDER BY n ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS w FROM j_visits v WHERE user_id BETWEEN 25 AND 70 ORDER BY w DESC NULLS LAST, user_id, n LIMIT 9
SELECT user_id, n, row_number() OVER w, sum(secs) OVER (w ORDER BY n) FROM j_visits WINDOW w AS (PARTITION BY user_id) ORDER BY user_id, n
SELECT user_id, n, rank() OVER w FROM j_visits WINDOW w AS (PARTITION BY user_id ORDER BY secs DESC) ORDER BY user_id, n OFFSET 40 LIMIT 20
SELECT DISTINCT user_id, count(*) OVER (PARTITION BY user_id) FROM j_visits ORDER BY user_id
SELECT DISTINCT count(*) OVER (PARTITION BY user_id) AS c FROM j_visits ORDER BY c
SELECT user_id, n FROM j_visits ORDER BY row_number() OVER (PARTITION BY user_id ORDER BY n DESC), user_id LIMIT 15
SELECT user_id, n, row_number() OVER (PARTITION BY user_id ORDER BY n), row_number() OVER (ORDER BY user_id, n) FROM j_visits ORDER BY user_id, n
SELECT user_id, n, count(*) OVER (PARTITION BY user_id, n % 2) FROM j_visits ORDER BY user_id, n
SELECT user_id, n, count(*) OVER (PARTITION BY n) FROM j_visits ORDER BY user_id, n
SELECT user_id, n, sum(secs) OVER (PARTITION BY user_id + 0) FROM j_visits ORDER BY user_id, n
SELECT user_id, max(secs), rank() OVER (PARTITION BY user_id ORDER BY max(secs)) FROM j_visits GROUP BY user_id ORDER BY user_id
SELECT * FROM (SELECT user_id, n, row_number() OVER (PARTITION BY user_id ORDER BY secs DESC, n) AS r FROM j_visits) s WHERE r = 1 ORDER BY user_id
SELECT id, grp, row_number() OVER (PARTITION BY id ORDER BY grp), count(*) OVER (PARTITION BY id, grp) FROM t_int WHERE id BETWEEN -60 AND 60 ORDER BY id
SELECT id, kind, sum(score) OVER (PARTITION BY id) FROM events WHERE id < 40 ORDER BY id
SELECT id, kind, rank() OVER (PARTITION BY kind ORDER BY id) FROM events WHERE id < 40 ORDER BY id
SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY b) FROM t_comp ORDER BY a, b
SELECT a, b, sum(v) OVER (PARTITION BY a ORDER BY b) FROM parts WHERE a BETWEEN 15 AND 35 ORDER BY a, b
SELECT user_id, id, row_number() OVER (PARTITION BY user_id ORDER BY id) FROM j_orders ORDER BY user_id, id
SELECT user_id, id, count(*) OVER (PARTITION BY user_id, id) FROM j_orders ORDER BY user_id, id

-- group: q ctes and derived tables answered over the shards first
WITH s AS (SELECT name AS g, count(*) AS c, sum(grp) AS su, min(id) AS lo FROM t_int GROUP BY name) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT name AS g, count(*) AS c FROM t_int GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT id, grp FROM t_int ORDER BY grp DESC NULLS LAST, id LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY id
SELECT d.v, count(*) FROM (SELECT DISTINCT grp AS v FROM t_int) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH s AS (SELECT note AS g, count(*) AS c, sum(n) AS su, min(k) AS lo FROM t_text GROUP BY note) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT note AS g, count(*) AS c FROM t_text GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT k, n FROM t_text ORDER BY n DESC NULLS LAST, k LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY k
SELECT d.v, count(*) FROM (SELECT DISTINCT n AS v FROM t_text) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH s AS (SELECT w AS g, count(*) AS c, sum(v) AS su, min(a) AS lo FROM t_comp GROUP BY w) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT w AS g, count(*) AS c FROM t_comp GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT a, b, v FROM t_comp ORDER BY v DESC NULLS LAST, a, b LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY a, b
SELECT d.v, count(*) FROM (SELECT DISTINCT v AS v FROM t_comp) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH s AS (SELECT label AS g, count(*) AS c, sum(n) AS su, min(u) AS lo FROM t_uuid GROUP BY label) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT label AS g, count(*) AS c FROM t_uuid GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT u, n FROM t_uuid ORDER BY n DESC NULLS LAST, u LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY u
SELECT d.v, count(*) FROM (SELECT DISTINCT n AS v FROM t_uuid) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH s AS (SELECT payload AS g, count(*) AS c, sum(n) AS su, min(ts) AS lo FROM t_ts GROUP BY payload) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT payload AS g, count(*) AS c FROM t_ts GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT ts, n FROM t_ts ORDER BY n DESC NULLS LAST, ts LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY ts
SELECT d.v, count(*) FROM (SELECT DISTINCT n AS v FROM t_ts) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH s AS (SELECT b AS g, count(*) AS c, sum(a) AS su, min(id) AS lo FROM t_nulls GROUP BY b) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT b AS g, count(*) AS c FROM t_nulls GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT id, a FROM t_nulls ORDER BY a DESC NULLS LAST, id LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY id
SELECT d.v, count(*) FROM (SELECT DISTINCT a AS v FROM t_nulls) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH s AS (SELECT city AS g, count(*) AS c, sum(score) AS su, min(id) AS lo FROM j_users GROUP BY city) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT city AS g, count(*) AS c FROM j_users GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT id, score FROM j_users ORDER BY score DESC NULLS LAST, id LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY id
SELECT d.v, count(*) FROM (SELECT DISTINCT score AS v FROM j_users) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH s AS (SELECT status AS g, count(*) AS c, sum(id) AS su, min(user_id) AS lo FROM j_orders GROUP BY status) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT status AS g, count(*) AS c FROM j_orders GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT user_id, id, id FROM j_orders ORDER BY id DESC NULLS LAST, user_id, id LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY user_id, id
SELECT d.v, count(*) FROM (SELECT DISTINCT id AS v FROM j_orders) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH s AS (SELECT city AS g, count(*) AS c, sum(tier) AS su, min(id) AS lo FROM accounts GROUP BY city) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT city AS g, count(*) AS c FROM accounts GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT id, tier FROM accounts ORDER BY tier DESC NULLS LAST, id LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY id
SELECT d.v, count(*) FROM (SELECT DISTINCT tier AS v FROM accounts) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH s AS (SELECT kind AS g, count(*) AS c, sum(score) AS su, min(id) AS lo FROM events GROUP BY kind) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST
SELECT x.g, x.c, y.n FROM (SELECT kind AS g, count(*) AS c FROM events GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5
WITH top AS (SELECT id, score FROM events ORDER BY score DESC NULLS LAST, id LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY id
SELECT d.v, count(*) FROM (SELECT DISTINCT score AS v FROM events) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST
WITH spend AS (SELECT user_id, sum(amount) AS total, count(*) AS n FROM j_orders GROUP BY user_id) SELECT u.city, sum(s.total), sum(s.n), count(*) FROM j_users u JOIN spend s ON s.user_id = u.id GROUP BY u.city ORDER BY u.city NULLS FIRST
SELECT u.id, u.name, t.total FROM j_users u JOIN (SELECT user_id, sum(amount) AS total FROM j_orders GROUP BY user_id ORDER BY total DESC, user_id LIMIT 10) t ON t.user_id = u.id ORDER BY t.total DESC, u.id
WITH s AS (SELECT status, count(*) AS c, avg(amount) AS a, max(amount) AS m FROM j_orders WHERE amount > 10 GROUP BY status HAVING count(*) > 1) SELECT * FROM s ORDER BY status NULLS FIRST
WITH a AS (SELECT user_id, max(id) AS m FROM j_orders GROUP BY user_id), b AS (SELECT city, count(*) AS c FROM j_users GROUP BY city) SELECT b.city, b.c, count(a.m) FROM b JOIN j_users u ON u.city IS NOT DISTINCT FROM b.city LEFT JOIN a ON a.user_id = u.id GROUP BY b.city, b.c ORDER BY b.city NULLS FIRST
WITH t(total) AS (SELECT sum(amount) FROM j_orders) SELECT total, (SELECT count(*) FROM j_users) FROM t
WITH s AS MATERIALIZED (SELECT user_id, sum(amount) AS total FROM j_orders GROUP BY 1) SELECT count(*), sum(total) FROM s WHERE total > 100
WITH s AS NOT MATERIALIZED (SELECT user_id, count(*) AS c FROM j_orders GROUP BY 1) SELECT s1.user_id, s1.c, s2.c FROM s s1 JOIN s s2 ON s2.user_id = s1.user_id + 1 ORDER BY 1
WITH x AS (SELECT * FROM (SELECT user_id, count(*) AS n FROM j_orders GROUP BY 1) i WHERE n > 2) SELECT x.*, u.name FROM x JOIN j_users u ON u.id = x.user_id ORDER BY 1
SELECT count(*) FROM (SELECT user_id FROM j_orders GROUP BY 1) a JOIN (SELECT user_id FROM j_orders WHERE amount > 50 GROUP BY 1) b USING (user_id)
SELECT * FROM (SELECT user_id, sum(amount) FROM j_orders WHERE user_id < 10 GROUP BY user_id) q UNION ALL SELECT id, 0 FROM j_users WHERE id < 3 ORDER BY 1, 2
SELECT q.status, q.f, q.ba, r.city FROM (SELECT status, count(*) FILTER (WHERE amount > 10) AS f, bool_and(amount > 1) AS ba FROM j_orders GROUP BY status) q JOIN (SELECT city FROM j_users GROUP BY 1 ORDER BY 1 NULLS FIRST LIMIT 2) r ON true ORDER BY 1 NULLS FIRST, 4 NULLS FIRST
WITH RECURSIVE r(n) AS (SELECT min(id) FROM j_users UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT r.n, u.name FROM r JOIN j_users u ON u.id = r.n ORDER BY 1
WITH s AS (SELECT user_id, string_agg(status, ',' ORDER BY id) AS sa FROM j_orders WHERE user_id < 5 GROUP BY 1) SELECT * FROM s JOIN j_users u ON u.id = s.user_id ORDER BY 1
WITH s AS (SELECT count(*) AS c, count(i2) AS c2, sum(i2) AS s2, sum(i8) AS s8, min(f4) AS mf4, max(f8) AS mf8, min(num) AS mn, max(num) AS xn, sum(amt) AS sa, min(by) AS mb, bool_or(bo) AS bo, min(d) AS md, max(tsn) AS mt, min(vc) AS mv, max(bc) AS xb, min(u) AS mu, max(tz) AS xt FROM t_types) SELECT s.*, (SELECT count(*) FROM j_cats) FROM s
WITH s AS (SELECT bc, count(*) AS c, min(vc) AS v, max(d) AS d, min(tz) AS z FROM t_types GROUP BY bc) SELECT * FROM s ORDER BY bc NULLS FIRST
SELECT t.f8, t.f4, t.num FROM (SELECT DISTINCT f8, f4, num FROM t_types WHERE id > 190) t JOIN j_cats c ON c.id = 1 ORDER BY 1 NULLS FIRST, 2 NULLS FIRST, 3 NULLS FIRST
WITH s AS (SELECT by, bo, count(*) AS c FROM t_types GROUP BY by, bo) SELECT s.*, length(s.by) FROM s ORDER BY by NULLS FIRST, bo NULLS FIRST
WITH s AS (SELECT i2, tsn FROM t_types ORDER BY tsn DESC NULLS LAST, id LIMIT 6) SELECT * FROM s JOIN j_cats c ON c.id = 2 ORDER BY tsn DESC NULLS LAST, i2
SELECT q.r, u.name FROM (SELECT ROW(user_id, id, status) AS r FROM j_orders WHERE id < 400 LIMIT 1000) q JOIN j_users u ON u.id = (q.r).f1 ORDER BY 1
WITH s AS (SELECT round(sum(f8)::numeric, 6) AS sf, round(avg(f4)::numeric, 4) AS af, count(*) FILTER (WHERE f8 = 'NaN') AS nans FROM t_types WHERE id < 200) SELECT s.*, c.label FROM s, j_cats c WHERE c.id = 3
