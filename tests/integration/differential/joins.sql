-- The join corpus of the differential test: statements over several of the j_* tables
-- (setup.sql, splits.sql), written by joins_corpus.py; run by JoinsAnswerLikePostgres.

-- group: two tables: j_users u JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT * FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT u.city, o.status FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id = 30 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (29, 30, 31) ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 1 AND 20 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.city = 'Oslo' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.city IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.score > 50 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE o.user_id = 30 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE o.amount > 400 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE o.status IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE o.status = 'paid' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE o.user_id BETWEEN 85 AND 130 ORDER BY u.id, o.user_id, o.id
SELECT count(*) FROM j_users u JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id LIMIT 7
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_users u LEFT JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT * FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT u.city, o.status FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 5 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (1, 2, 120, 130) ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 85 AND 130 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.city = 'Oslo' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.city IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.score > 50 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE o.user_id = 5 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE o.amount > 400 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE o.status IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE o.status = 'paid' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE o.user_id BETWEEN 25 AND 65 ORDER BY u.id, o.user_id, o.id
SELECT count(*) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id LIMIT 7
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_users u RIGHT JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT * FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT u.city, o.status FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 125 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (3, 33, 63, 93) ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 25 AND 65 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.city = 'Oslo' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.city IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.score > 50 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE o.user_id = 125 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE o.amount > 400 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE o.status IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE o.status = 'paid' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE o.user_id BETWEEN 1 AND 20 ORDER BY u.id, o.user_id, o.id
SELECT count(*) FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id LIMIT 7
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_users u FULL JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT * FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT u.city, o.status FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.id = 119 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (29, 30, 31) ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 1 AND 20 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.city = 'Oslo' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.city IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.score > 50 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE o.user_id = 119 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE o.amount > 400 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE o.status IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE o.status = 'paid' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE o.user_id BETWEEN 85 AND 130 ORDER BY u.id, o.user_id, o.id
SELECT count(*) FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id LIMIT 7
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id ORDER BY u.id, o.user_id, o.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_orders o JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT o.id, i.price FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT * FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.user_id = 90 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.amount > 400 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.status IS NULL ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.status = 'paid' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.user_id BETWEEN 25 AND 65 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.code = 'i07' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.cat IS NULL ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT count(*) FROM j_orders o JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code LIMIT 7
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code DESC LIMIT 5 OFFSET 3

-- group: two tables: j_orders o LEFT JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT o.id, i.price FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT * FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.user_id = 5 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.amount > 400 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.status IS NULL ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.status = 'paid' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.user_id BETWEEN 25 AND 65 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE i.code = 'i07' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE i.cat IS NULL ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT count(*) FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code LIMIT 7
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code DESC LIMIT 5 OFFSET 3

-- group: two tables: j_orders o RIGHT JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT o.id, i.price FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT * FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.user_id = 90 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.amount > 400 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.status IS NULL ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.status = 'paid' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.user_id BETWEEN 25 AND 65 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE i.code = 'i07' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE i.cat IS NULL ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT count(*) FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code LIMIT 7
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code DESC LIMIT 5 OFFSET 3

-- group: two tables: j_orders o FULL JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT o.id, i.price FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT * FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.user_id = 5 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.amount > 400 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.status IS NULL ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.status = 'paid' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.user_id BETWEEN 25 AND 65 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE i.code = 'i07' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE i.cat IS NULL ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT count(*) FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code LIMIT 7
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY o.user_id, o.id, i.code DESC LIMIT 5 OFFSET 3

-- group: two tables: j_users u JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id
SELECT u.name, e.id FROM j_users u JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.id = 90 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.id IN (1, 2, 120, 130) ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.id BETWEEN 85 AND 130 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.city = 'Oslo' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.city IS NULL ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.score > 50 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE e.kind = 'click' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE e.user_id = 119 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE e.user_id IS NULL ORDER BY u.id, e.id
SELECT count(*) FROM j_users u JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id LIMIT 7
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_users u LEFT JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id
SELECT u.name, e.id FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.id = 5 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.id IN (1, 2, 120, 130) ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.id BETWEEN 85 AND 130 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.city = 'Oslo' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.city IS NULL ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.score > 50 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE e.kind = 'click' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE e.user_id = 30 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE e.user_id IS NULL ORDER BY u.id, e.id
SELECT count(*) FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id LIMIT 7
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_users u RIGHT JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id
SELECT u.name, e.id FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.id = 90 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.id IN (1, 2, 120, 130) ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.id BETWEEN 85 AND 130 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.city = 'Oslo' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.city IS NULL ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.score > 50 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE e.kind = 'click' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE e.user_id = 119 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE e.user_id IS NULL ORDER BY u.id, e.id
SELECT count(*) FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id LIMIT 7
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_users u FULL JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id
SELECT u.name, e.id FROM j_users u FULL JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.id = 5 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.id IN (1, 2, 120, 130) ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.id BETWEEN 85 AND 130 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.city = 'Oslo' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.city IS NULL ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.score > 50 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE e.kind = 'click' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE e.user_id = 30 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE e.user_id IS NULL ORDER BY u.id, e.id
SELECT count(*) FROM j_users u FULL JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id LIMIT 7
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id ORDER BY u.id, e.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_items i JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id
SELECT * FROM j_items i JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.code = 'i07' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i20' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.cat IS NULL ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.price >= 30 ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE c.id = 3 ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT count(*) FROM j_items i JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id LIMIT 7
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_items i LEFT JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id
SELECT * FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.code = 'i07' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i20' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.cat IS NULL ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.price >= 30 ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE c.id = 3 ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT count(*) FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id LIMIT 7
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_items i RIGHT JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id
SELECT * FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE i.code = 'i07' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i20' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE i.cat IS NULL ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE i.price >= 30 ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE c.id = 3 ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT count(*) FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id LIMIT 7
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id DESC LIMIT 5 OFFSET 3

-- group: two tables: j_items i FULL JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id
SELECT * FROM j_items i FULL JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE i.code = 'i07' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i20' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE i.cat IS NULL ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE i.price >= 30 ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE c.id = 3 ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT count(*) FROM j_items i FULL JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id LIMIT 7
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat ORDER BY i.code, c.id DESC LIMIT 5 OFFSET 3

-- group: aggregates and grouping over joins
SELECT u.city, count(*), count(o.id), sum(o.amount) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT o.status, count(DISTINCT u.id), max(o.amount), min(u.name) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY o.status ORDER BY o.status
SELECT u.id, count(o.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.id HAVING count(o.id) > 5 ORDER BY u.id
SELECT i.cat, avg(i.price), string_agg(o.id::text, ',' ORDER BY o.id) FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.user_id < 20 GROUP BY i.cat ORDER BY i.cat
SELECT count(*), sum(o.amount), avg(o.amount) FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 10 AND 70
SELECT DISTINCT u.city FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY u.city
SELECT DISTINCT o.status, u.city FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY o.status, u.city
SELECT u.city, count(*), count(o.id), sum(o.amount) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT o.status, count(DISTINCT u.id), max(o.amount), min(u.name) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY o.status ORDER BY o.status
SELECT u.id, count(o.id) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY u.id HAVING count(o.id) > 5 ORDER BY u.id
SELECT i.cat, avg(i.price), string_agg(o.id::text, ',' ORDER BY o.id) FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.user_id < 20 GROUP BY i.cat ORDER BY i.cat
SELECT count(*), sum(o.amount), avg(o.amount) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 10 AND 70
SELECT DISTINCT u.city FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.city
SELECT DISTINCT o.status, u.city FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY o.status, u.city
SELECT u.city, count(*), count(o.id), sum(o.amount) FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT o.status, count(DISTINCT u.id), max(o.amount), min(u.name) FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id GROUP BY o.status ORDER BY o.status
SELECT u.id, count(o.id) FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id GROUP BY u.id HAVING count(o.id) > 5 ORDER BY u.id
SELECT i.cat, avg(i.price), string_agg(o.id::text, ',' ORDER BY o.id) FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.user_id < 20 GROUP BY i.cat ORDER BY i.cat
SELECT count(*), sum(o.amount), avg(o.amount) FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 10 AND 70
SELECT DISTINCT u.city FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id ORDER BY u.city
SELECT DISTINCT o.status, u.city FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id ORDER BY o.status, u.city
SELECT u.city, count(*), count(o.id), sum(o.amount) FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT o.status, count(DISTINCT u.id), max(o.amount), min(u.name) FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id GROUP BY o.status ORDER BY o.status
SELECT u.id, count(o.id) FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id GROUP BY u.id HAVING count(o.id) > 5 ORDER BY u.id
SELECT i.cat, avg(i.price), string_agg(o.id::text, ',' ORDER BY o.id) FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.user_id < 20 GROUP BY i.cat ORDER BY i.cat
SELECT count(*), sum(o.amount), avg(o.amount) FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 10 AND 70
SELECT DISTINCT u.city FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id ORDER BY u.city
SELECT DISTINCT o.status, u.city FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id ORDER BY o.status, u.city

-- group: equalities, USING, NATURAL, IN lists
SELECT u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id = 5 ORDER BY o.id
SELECT u.name, o.id FROM j_users u, j_orders o WHERE o.user_id = u.id AND u.id = 5 ORDER BY o.id
SELECT u.name, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id AND o.user_id = 5 ORDER BY o.id
SELECT u.name, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id = 5 ORDER BY o.id
SELECT a.id, b.id FROM j_users a JOIN j_users b ON a.id = b.id WHERE a.id = 5
SELECT * FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 5 ORDER BY o.id
SELECT u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id = 30 ORDER BY o.id
SELECT u.name, o.id FROM j_users u, j_orders o WHERE o.user_id = u.id AND u.id = 30 ORDER BY o.id
SELECT u.name, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id AND o.user_id = 30 ORDER BY o.id
SELECT u.name, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id = 30 ORDER BY o.id
SELECT a.id, b.id FROM j_users a JOIN j_users b ON a.id = b.id WHERE a.id = 30
SELECT * FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 30 ORDER BY o.id
SELECT u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id = 61 ORDER BY o.id
SELECT u.name, o.id FROM j_users u, j_orders o WHERE o.user_id = u.id AND u.id = 61 ORDER BY o.id
SELECT u.name, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id AND o.user_id = 61 ORDER BY o.id
SELECT u.name, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id = 61 ORDER BY o.id
SELECT a.id, b.id FROM j_users a JOIN j_users b ON a.id = b.id WHERE a.id = 61
SELECT * FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 61 ORDER BY o.id
SELECT u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id = 90 ORDER BY o.id
SELECT u.name, o.id FROM j_users u, j_orders o WHERE o.user_id = u.id AND u.id = 90 ORDER BY o.id
SELECT u.name, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id AND o.user_id = 90 ORDER BY o.id
SELECT u.name, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id = 90 ORDER BY o.id
SELECT a.id, b.id FROM j_users a JOIN j_users b ON a.id = b.id WHERE a.id = 90
SELECT * FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 90 ORDER BY o.id
SELECT u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id = 119 ORDER BY o.id
SELECT u.name, o.id FROM j_users u, j_orders o WHERE o.user_id = u.id AND u.id = 119 ORDER BY o.id
SELECT u.name, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id AND o.user_id = 119 ORDER BY o.id
SELECT u.name, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id = 119 ORDER BY o.id
SELECT a.id, b.id FROM j_users a JOIN j_users b ON a.id = b.id WHERE a.id = 119
SELECT * FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 119 ORDER BY o.id
SELECT u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id = 125 ORDER BY o.id
SELECT u.name, o.id FROM j_users u, j_orders o WHERE o.user_id = u.id AND u.id = 125 ORDER BY o.id
SELECT u.name, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id AND o.user_id = 125 ORDER BY o.id
SELECT u.name, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id = 125 ORDER BY o.id
SELECT a.id, b.id FROM j_users a JOIN j_users b ON a.id = b.id WHERE a.id = 125
SELECT * FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 125 ORDER BY o.id
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (3, 33, 63, 93) ORDER BY u.id, o.id
SELECT u.id, count(o.id) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (3, 33, 63, 93) GROUP BY u.id ORDER BY u.id
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (1, 2, 120, 130) ORDER BY u.id, o.id
SELECT u.id, count(o.id) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (1, 2, 120, 130) GROUP BY u.id ORDER BY u.id
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (29, 30, 31) ORDER BY u.id, o.id
SELECT u.id, count(o.id) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (29, 30, 31) GROUP BY u.id ORDER BY u.id
SELECT id, name, amount FROM j_users JOIN (SELECT user_id AS id, amount FROM j_orders) o USING (id) WHERE id < 10 ORDER BY id, amount
SELECT * FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_users u USING (name) ORDER BY o.user_id, o.id
SELECT count(*) FROM j_users NATURAL JOIN j_orders
SELECT * FROM j_users NATURAL JOIN j_orders ORDER BY id, user_id
SELECT * FROM j_items NATURAL LEFT JOIN j_cats ORDER BY code, id
SELECT count(*) FROM j_users u CROSS JOIN j_cats c
SELECT u.id, c.id FROM j_users u CROSS JOIN j_cats c WHERE u.id < 4 ORDER BY u.id, c.id
SELECT u.id, c.label FROM j_users u, j_cats c WHERE u.score % 8 = c.id ORDER BY u.id, c.id

-- group: joins on expressions, self-joins, non-equality joins
SELECT a.id, b.id FROM j_users a JOIN j_users b ON b.id = a.id + 1 WHERE a.id < 40 OR b.id > 110 ORDER BY a.id, b.id
SELECT a.id, b.id FROM j_users a JOIN j_users b ON b.score = a.score AND b.id > a.id WHERE a.id < 30 ORDER BY a.id, b.id
SELECT o.user_id, o.id, i.code FROM j_orders o JOIN j_items i ON lower(i.code) = lower(o.item_code) AND i.price < o.amount WHERE o.user_id < 15 ORDER BY o.user_id, o.id, i.code
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id AND o.amount > 500 WHERE u.id < 30 ORDER BY u.id, o.user_id, o.id
SELECT u.id, e.id FROM j_users u JOIN j_events e ON e.user_id = u.id AND e.kind = 'buy' ORDER BY u.id, e.id
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id AND u.city IS NOT NULL WHERE coalesce(u.id, o.user_id) < 25 ORDER BY u.id, o.user_id, o.id
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE o.id IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id IS NULL ORDER BY u.id, o.user_id, o.id
SELECT a.user_id, a.id, b.id FROM j_orders a JOIN j_orders b ON b.user_id = a.user_id AND b.id = a.id + 120 WHERE a.user_id < 10 ORDER BY a.user_id, a.id, b.user_id, b.id
SELECT a.id, b.id FROM j_users a LEFT JOIN j_users b ON b.id = a.id + 1 WHERE a.id < 40 OR b.id > 110 ORDER BY a.id, b.id
SELECT a.id, b.id FROM j_users a LEFT JOIN j_users b ON b.score = a.score AND b.id > a.id WHERE a.id < 30 ORDER BY a.id, b.id
SELECT o.user_id, o.id, i.code FROM j_orders o LEFT JOIN j_items i ON lower(i.code) = lower(o.item_code) AND i.price < o.amount WHERE o.user_id < 15 ORDER BY o.user_id, o.id, i.code
SELECT u.id, o.id FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id AND o.amount > 500 WHERE u.id < 30 ORDER BY u.id, o.user_id, o.id
SELECT u.id, e.id FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id AND e.kind = 'buy' ORDER BY u.id, e.id
SELECT u.id, o.id FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id AND u.city IS NOT NULL WHERE coalesce(u.id, o.user_id) < 25 ORDER BY u.id, o.user_id, o.id
SELECT u.id, o.id FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE o.id IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, o.id FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id IS NULL ORDER BY u.id, o.user_id, o.id
SELECT a.user_id, a.id, b.id FROM j_orders a LEFT JOIN j_orders b ON b.user_id = a.user_id AND b.id = a.id + 120 WHERE a.user_id < 10 ORDER BY a.user_id, a.id, b.user_id, b.id
SELECT a.id, b.id FROM j_users a RIGHT JOIN j_users b ON b.id = a.id + 1 WHERE a.id < 40 OR b.id > 110 ORDER BY a.id, b.id
SELECT a.id, b.id FROM j_users a RIGHT JOIN j_users b ON b.score = a.score AND b.id > a.id WHERE a.id < 30 ORDER BY a.id, b.id
SELECT o.user_id, o.id, i.code FROM j_orders o RIGHT JOIN j_items i ON lower(i.code) = lower(o.item_code) AND i.price < o.amount WHERE o.user_id < 15 ORDER BY o.user_id, o.id, i.code
SELECT u.id, o.id FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id AND o.amount > 500 WHERE u.id < 30 ORDER BY u.id, o.user_id, o.id
SELECT u.id, e.id FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id AND e.kind = 'buy' ORDER BY u.id, e.id
SELECT u.id, o.id FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id AND u.city IS NOT NULL WHERE coalesce(u.id, o.user_id) < 25 ORDER BY u.id, o.user_id, o.id
SELECT u.id, o.id FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE o.id IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, o.id FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.id IS NULL ORDER BY u.id, o.user_id, o.id
SELECT a.user_id, a.id, b.id FROM j_orders a RIGHT JOIN j_orders b ON b.user_id = a.user_id AND b.id = a.id + 120 WHERE a.user_id < 10 ORDER BY a.user_id, a.id, b.user_id, b.id
SELECT a.id, b.id FROM j_users a FULL JOIN j_users b ON b.id = a.id + 1 WHERE a.id < 40 OR b.id > 110 ORDER BY a.id, b.id
SELECT a.id, b.id FROM j_users a FULL JOIN j_users b ON b.score = a.score AND b.id > a.id WHERE a.id < 30 ORDER BY a.id, b.id
SELECT o.user_id, o.id, i.code FROM j_orders o FULL JOIN j_items i ON lower(i.code) = lower(o.item_code) AND i.price < o.amount WHERE o.user_id < 15 ORDER BY o.user_id, o.id, i.code
SELECT u.id, o.id FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id AND o.amount > 500 WHERE u.id < 30 ORDER BY u.id, o.user_id, o.id
SELECT u.id, e.id FROM j_users u FULL JOIN j_events e ON e.user_id = u.id AND e.kind = 'buy' ORDER BY u.id, e.id
SELECT u.id, o.id FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id AND u.city IS NOT NULL WHERE coalesce(u.id, o.user_id) < 25 ORDER BY u.id, o.user_id, o.id
SELECT u.id, o.id FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE o.id IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, o.id FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.id IS NULL ORDER BY u.id, o.user_id, o.id
SELECT a.user_id, a.id, b.id FROM j_orders a FULL JOIN j_orders b ON b.user_id = a.user_id AND b.id = a.id + 120 WHERE a.user_id < 10 ORDER BY a.user_id, a.id, b.user_id, b.id
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.amount BETWEEN u.score * 10 AND u.score * 10 + 5 WHERE u.id < 20 ORDER BY u.id, o.user_id, o.id
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id < u.id WHERE u.id = 3 ORDER BY o.user_id, o.id

-- group: three and four tables
SELECT u.id, o.id, i.code FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u JOIN j_orders o ON o.user_id = u.id RIGHT JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u JOIN j_orders o ON o.user_id = u.id FULL JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id RIGHT JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id FULL JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id RIGHT JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id FULL JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id RIGHT JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id FULL JOIN j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code
SELECT u.id, o.id, i.code, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat WHERE coalesce(u.id, o.user_id, 0) < 40 ORDER BY u.id, o.user_id, o.id, i.code, c.id
SELECT c.label, count(*), sum(o.amount) FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT u.id, e.id, o.id FROM j_users u JOIN j_events e ON e.user_id = u.id JOIN j_orders o ON o.user_id = e.user_id AND o.id % 7 = 0 WHERE u.id = 12 OR e.user_id = 40 ORDER BY u.id, e.id, o.user_id, o.id
SELECT u.id, o.id, i.code, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE coalesce(u.id, o.user_id, 0) < 40 ORDER BY u.id, o.user_id, o.id, i.code, c.id
SELECT c.label, count(*), sum(o.amount) FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT u.id, e.id, o.id FROM j_users u JOIN j_events e ON e.user_id = u.id LEFT JOIN j_orders o ON o.user_id = e.user_id AND o.id % 7 = 0 WHERE u.id = 12 OR e.user_id = 40 ORDER BY u.id, e.id, o.user_id, o.id
SELECT u.id, o.id, i.code, c.label FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE coalesce(u.id, o.user_id, 0) < 40 ORDER BY u.id, o.user_id, o.id, i.code, c.id
SELECT c.label, count(*), sum(o.amount) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT u.id, e.id, o.id FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id LEFT JOIN j_orders o ON o.user_id = e.user_id AND o.id % 7 = 0 WHERE u.id = 12 OR e.user_id = 40 ORDER BY u.id, e.id, o.user_id, o.id
SELECT u.id, o.id, i.code, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code FULL JOIN j_cats c ON c.id = i.cat WHERE coalesce(u.id, o.user_id, 0) < 40 ORDER BY u.id, o.user_id, o.id, i.code, c.id
SELECT c.label, count(*), sum(o.amount) FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code FULL JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT u.id, e.id, o.id FROM j_users u JOIN j_events e ON e.user_id = u.id JOIN j_orders o ON o.user_id = e.user_id AND o.id % 7 = 0 WHERE u.id = 12 OR e.user_id = 40 ORDER BY u.id, e.id, o.user_id, o.id
SELECT u.id, o.id, i.code, c.label FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE coalesce(u.id, o.user_id, 0) < 40 ORDER BY u.id, o.user_id, o.id, i.code, c.id
SELECT c.label, count(*), sum(o.amount) FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT u.id, e.id, o.id FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id JOIN j_orders o ON o.user_id = e.user_id AND o.id % 7 = 0 WHERE u.id = 12 OR e.user_id = 40 ORDER BY u.id, e.id, o.user_id, o.id
SELECT u.id, o.id, i.code, c.label FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id FULL JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat WHERE coalesce(u.id, o.user_id, 0) < 40 ORDER BY u.id, o.user_id, o.id, i.code, c.id
SELECT c.label, count(*), sum(o.amount) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id FULL JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT u.id, e.id, o.id FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id FULL JOIN j_orders o ON o.user_id = e.user_id AND o.id % 7 = 0 WHERE u.id = 12 OR e.user_id = 40 ORDER BY u.id, e.id, o.user_id, o.id
SELECT u.id, o.id, i.code, c.label FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id FULL JOIN j_items i ON i.code = o.item_code FULL JOIN j_cats c ON c.id = i.cat WHERE coalesce(u.id, o.user_id, 0) < 40 ORDER BY u.id, o.user_id, o.id, i.code, c.id
SELECT c.label, count(*), sum(o.amount) FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id FULL JOIN j_items i ON i.code = o.item_code FULL JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT u.id, e.id, o.id FROM j_users u FULL JOIN j_events e ON e.user_id = u.id FULL JOIN j_orders o ON o.user_id = e.user_id AND o.id % 7 = 0 WHERE u.id = 12 OR e.user_id = 40 ORDER BY u.id, e.id, o.user_id, o.id
SELECT u.id, o.id, i.code, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id RIGHT JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat WHERE coalesce(u.id, o.user_id, 0) < 40 ORDER BY u.id, o.user_id, o.id, i.code, c.id
SELECT c.label, count(*), sum(o.amount) FROM j_users u JOIN j_orders o ON o.user_id = u.id RIGHT JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT u.id, e.id, o.id FROM j_users u JOIN j_events e ON e.user_id = u.id RIGHT JOIN j_orders o ON o.user_id = e.user_id AND o.id % 7 = 0 WHERE u.id = 12 OR e.user_id = 40 ORDER BY u.id, e.id, o.user_id, o.id
SELECT u.name, o.id, i.title FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE u.id = 5 ORDER BY o.id
SELECT u.name, o.id, i.title, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE u.id = 5 ORDER BY o.id
SELECT u.name, o.id, i.title FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE u.id = 30 ORDER BY o.id
SELECT u.name, o.id, i.title, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE u.id = 30 ORDER BY o.id
SELECT u.name, o.id, i.title FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE u.id = 61 ORDER BY o.id
SELECT u.name, o.id, i.title, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE u.id = 61 ORDER BY o.id
SELECT u.name, o.id, i.title FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE u.id = 90 ORDER BY o.id
SELECT u.name, o.id, i.title, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE u.id = 90 ORDER BY o.id
SELECT u.name, o.id, i.title FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE u.id = 119 ORDER BY o.id
SELECT u.name, o.id, i.title, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE u.id = 119 ORDER BY o.id
SELECT u.name, o.id, i.title FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE u.id = 125 ORDER BY o.id
SELECT u.name, o.id, i.title, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE u.id = 125 ORDER BY o.id
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_users u2 ON u2.id = o.user_id + 1 WHERE u.id < 10 ORDER BY u.id, o.id
SELECT count(*) FROM j_users u, j_orders o, j_items i WHERE o.user_id = u.id AND i.code = o.item_code
SELECT count(*) FROM j_users u, j_orders o, j_items i, j_cats c WHERE o.user_id = u.id AND i.code = o.item_code AND c.id = i.cat AND u.city = 'Rome'
SELECT u.id, o.id FROM (j_users u LEFT JOIN j_orders o ON o.user_id = u.id) JOIN j_events e ON e.user_id = u.id WHERE e.kind = 'view' AND u.id < 50 ORDER BY u.id, o.user_id, o.id, e.id

-- group: subqueries
SELECT * FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 25) ORDER BY id
SELECT * FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount > 30) ORDER BY id
SELECT * FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount < 20) ORDER BY id
SELECT id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders WHERE id < 15) ORDER BY id
SELECT id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) FROM j_users u WHERE id <= 5 ORDER BY id
SELECT * FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 150) ORDER BY id
SELECT * FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount > 180) ORDER BY id
SELECT * FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount < 120) ORDER BY id
SELECT id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders WHERE id < 90) ORDER BY id
SELECT id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) FROM j_users u WHERE id <= 30 ORDER BY id
SELECT * FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 305) ORDER BY id
SELECT * FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount > 366) ORDER BY id
SELECT * FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount < 244) ORDER BY id
SELECT id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders WHERE id < 183) ORDER BY id
SELECT id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) FROM j_users u WHERE id <= 61 ORDER BY id
SELECT * FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 450) ORDER BY id
SELECT * FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount > 540) ORDER BY id
SELECT * FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount < 360) ORDER BY id
SELECT id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders WHERE id < 270) ORDER BY id
SELECT id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) FROM j_users u WHERE id <= 90 ORDER BY id
SELECT * FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 595) ORDER BY id
SELECT * FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount > 714) ORDER BY id
SELECT * FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount < 476) ORDER BY id
SELECT id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders WHERE id < 357) ORDER BY id
SELECT id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) FROM j_users u WHERE id <= 119 ORDER BY id
SELECT * FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 625) ORDER BY id
SELECT * FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount > 750) ORDER BY id
SELECT * FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount < 500) ORDER BY id
SELECT id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders WHERE id < 375) ORDER BY id
SELECT id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) FROM j_users u WHERE id <= 125 ORDER BY id
SELECT id FROM j_users WHERE score NOT IN (SELECT cat FROM j_items) ORDER BY id
SELECT id FROM j_users WHERE score NOT IN (SELECT cat FROM j_items WHERE cat IS NOT NULL) ORDER BY id
SELECT code FROM j_items WHERE cat = ANY (SELECT id FROM j_cats WHERE label > 'c3') ORDER BY code
SELECT code FROM j_items WHERE price > ALL (SELECT amount / 20 FROM j_orders WHERE user_id = 7) ORDER BY code
SELECT u.id, t.n FROM j_users u JOIN (SELECT user_id, count(*) AS n FROM j_orders GROUP BY user_id) t ON t.user_id = u.id WHERE t.n > 4 ORDER BY u.id
SELECT u.id, t.total FROM j_users u LEFT JOIN LATERAL (SELECT sum(amount) AS total FROM j_orders o WHERE o.user_id = u.id) t ON true WHERE u.id < 15 ORDER BY u.id
SELECT u.id, t.id FROM j_users u CROSS JOIN LATERAL (SELECT o.id FROM j_orders o WHERE o.user_id = u.id ORDER BY o.amount DESC, o.id LIMIT 2) t WHERE u.id < 12 ORDER BY u.id, t.id
SELECT (SELECT max(amount) FROM j_orders), (SELECT count(*) FROM j_users WHERE city IS NULL)
SELECT city, count(*) FROM j_users WHERE id IN (SELECT user_id FROM j_orders) GROUP BY city HAVING count(*) > (SELECT count(*) / 40 FROM j_orders) ORDER BY city
SELECT * FROM j_events WHERE user_id IN (SELECT id FROM j_users WHERE city = 'Lima') ORDER BY id

-- group: CTEs and set operations
WITH t AS (SELECT user_id, sum(amount) s FROM j_orders GROUP BY user_id) SELECT u.id, t.s FROM j_users u JOIN t ON t.user_id = u.id ORDER BY t.s DESC, u.id LIMIT 5
WITH big AS (SELECT * FROM j_orders WHERE amount > 600) SELECT u.city, count(*) FROM big JOIN j_users u ON u.id = big.user_id GROUP BY u.city ORDER BY u.city
WITH a AS (SELECT id FROM j_users WHERE id < 20), b AS (SELECT user_id FROM j_orders WHERE user_id < 20) SELECT a.id, count(b.user_id) FROM a LEFT JOIN b ON b.user_id = a.id GROUP BY a.id ORDER BY a.id
WITH RECURSIVE chain(id, depth) AS (SELECT id, 0 FROM j_users WHERE id = 1 UNION ALL SELECT u.id, c.depth + 1 FROM chain c JOIN j_users u ON u.id = c.id + 7 WHERE c.depth < 10) SELECT * FROM chain ORDER BY depth
WITH m AS MATERIALIZED (SELECT user_id, max(amount) m FROM j_orders GROUP BY user_id) SELECT count(*) FROM m JOIN j_users u ON u.id = m.user_id
SELECT id FROM j_users WHERE id < 30 UNION SELECT user_id FROM j_orders WHERE user_id BETWEEN 20 AND 50 ORDER BY 1
SELECT city FROM j_users UNION SELECT status FROM j_orders ORDER BY 1
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 5 UNION SELECT o.user_id, o.id FROM j_orders o WHERE o.user_id BETWEEN 3 AND 8 ORDER BY 1, 2
SELECT id FROM j_users WHERE id < 30 UNION ALL SELECT user_id FROM j_orders WHERE user_id BETWEEN 20 AND 50 ORDER BY 1
SELECT city FROM j_users UNION ALL SELECT status FROM j_orders ORDER BY 1
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 5 UNION ALL SELECT o.user_id, o.id FROM j_orders o WHERE o.user_id BETWEEN 3 AND 8 ORDER BY 1, 2
SELECT id FROM j_users WHERE id < 30 INTERSECT SELECT user_id FROM j_orders WHERE user_id BETWEEN 20 AND 50 ORDER BY 1
SELECT city FROM j_users INTERSECT SELECT status FROM j_orders ORDER BY 1
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 5 INTERSECT SELECT o.user_id, o.id FROM j_orders o WHERE o.user_id BETWEEN 3 AND 8 ORDER BY 1, 2
SELECT id FROM j_users WHERE id < 30 INTERSECT ALL SELECT user_id FROM j_orders WHERE user_id BETWEEN 20 AND 50 ORDER BY 1
SELECT city FROM j_users INTERSECT ALL SELECT status FROM j_orders ORDER BY 1
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 5 INTERSECT ALL SELECT o.user_id, o.id FROM j_orders o WHERE o.user_id BETWEEN 3 AND 8 ORDER BY 1, 2
SELECT id FROM j_users WHERE id < 30 EXCEPT SELECT user_id FROM j_orders WHERE user_id BETWEEN 20 AND 50 ORDER BY 1
SELECT city FROM j_users EXCEPT SELECT status FROM j_orders ORDER BY 1
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 5 EXCEPT SELECT o.user_id, o.id FROM j_orders o WHERE o.user_id BETWEEN 3 AND 8 ORDER BY 1, 2
SELECT id FROM j_users WHERE id < 30 EXCEPT ALL SELECT user_id FROM j_orders WHERE user_id BETWEEN 20 AND 50 ORDER BY 1
SELECT city FROM j_users EXCEPT ALL SELECT status FROM j_orders ORDER BY 1
SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 5 EXCEPT ALL SELECT o.user_id, o.id FROM j_orders o WHERE o.user_id BETWEEN 3 AND 8 ORDER BY 1, 2
SELECT count(*) FROM (SELECT id FROM j_users UNION SELECT user_id FROM j_orders) t
(SELECT id FROM j_users ORDER BY id LIMIT 3) UNION ALL (SELECT user_id FROM j_orders ORDER BY user_id DESC, id DESC LIMIT 3) ORDER BY 1

-- group: window functions over joins
SELECT u.id, o.id, row_number() OVER (PARTITION BY u.id ORDER BY o.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 10 ORDER BY u.id, o.id
SELECT u.id, sum(o.amount) OVER (PARTITION BY u.city ORDER BY u.id, o.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 25 ORDER BY u.id, o.id
SELECT u.id, rank() OVER (ORDER BY count(o.id) DESC) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY u.id ORDER BY u.id

-- group: joins with ORDER BY expressions and LIMIT
SELECT u.id, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY o.amount DESC, o.user_id, o.id LIMIT 1
SELECT u.id, o.id FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id DESC, o.id NULLS FIRST LIMIT 1
SELECT o.user_id, o.id, i.code FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY i.code NULLS FIRST, o.user_id, o.id LIMIT 1 OFFSET 2
SELECT u.id, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY o.amount DESC, o.user_id, o.id LIMIT 3
SELECT u.id, o.id FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id DESC, o.id NULLS FIRST LIMIT 3
SELECT o.user_id, o.id, i.code FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY i.code NULLS FIRST, o.user_id, o.id LIMIT 3 OFFSET 2
SELECT u.id, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY o.amount DESC, o.user_id, o.id LIMIT 10
SELECT u.id, o.id FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id DESC, o.id NULLS FIRST LIMIT 10
SELECT o.user_id, o.id, i.code FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY i.code NULLS FIRST, o.user_id, o.id LIMIT 10 OFFSET 2
SELECT u.id, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY o.amount DESC, o.user_id, o.id LIMIT 50
SELECT u.id, o.id FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id DESC, o.id NULLS FIRST LIMIT 50
SELECT o.user_id, o.id, i.code FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY i.code NULLS FIRST, o.user_id, o.id LIMIT 50 OFFSET 2

-- group: filters on both sides
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (1, 2, 120, 130) AND o.amount > 400 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 85 AND 130 OR o.status = 'paid' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.city = 'Oslo' AND o.user_id = 119 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.city IS NULL OR o.status IS NULL ORDER BY u.id, o.user_id, o.id
SELECT count(*), count(u.*), count(o.*) FROM j_users u JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.score > 50 AND o.user_id = 5 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 5 OR o.status IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (1, 2, 120, 130) AND o.user_id BETWEEN 85 AND 130 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 85 AND 130 OR o.amount > 400 ORDER BY u.id, o.user_id, o.id
SELECT count(*), count(u.*), count(o.*) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.city = 'Oslo' AND o.user_id BETWEEN 25 AND 65 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.city IS NULL OR o.amount > 400 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.score > 50 AND o.status = 'paid' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id WHERE u.id = 5 OR o.user_id = 30 ORDER BY u.id, o.user_id, o.id
SELECT count(*), count(u.*), count(o.*) FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.id IN (1, 2, 120, 130) AND o.status = 'paid' ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 85 AND 130 OR o.user_id = 90 ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.city = 'Oslo' AND o.status IS NULL ORDER BY u.id, o.user_id, o.id
SELECT u.id, u.name, o.id, o.amount FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id WHERE u.city IS NULL OR o.user_id BETWEEN 85 AND 130 ORDER BY u.id, o.user_id, o.id
SELECT count(*), count(u.*), count(o.*) FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.status IS NULL AND i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.status = 'paid' OR i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.user_id BETWEEN 25 AND 65 AND i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE o.user_id = 61 OR i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT count(*), count(o.*), count(i.*) FROM j_orders o JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.amount > 400 AND i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.status IS NULL OR i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.status = 'paid' AND i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code WHERE o.user_id BETWEEN 1 AND 20 OR i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT count(*), count(o.*), count(i.*) FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.user_id = 30 AND i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.amount > 400 OR i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.status IS NULL AND i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code WHERE o.status = 'paid' OR i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT count(*), count(o.*), count(i.*) FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.user_id BETWEEN 85 AND 130 AND i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.user_id = 5 OR i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.amount > 400 AND i.code < 'i20' ORDER BY o.user_id, o.id, i.code
SELECT o.user_id, o.id, i.code, i.title FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code WHERE o.status IS NULL OR i.price >= 30 ORDER BY o.user_id, o.id, i.code
SELECT count(*), count(o.*), count(i.*) FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.city = 'Oslo' AND e.kind = 'click' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.city IS NULL OR e.user_id IS NULL ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.score > 50 AND e.user_id = 5 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u JOIN j_events e ON e.user_id = u.id WHERE u.id = 5 OR e.kind = 'click' ORDER BY u.id, e.id
SELECT count(*), count(u.*), count(e.*) FROM j_users u JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.id IN (1, 2, 120, 130) AND e.user_id = 61 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.id BETWEEN 85 AND 130 OR e.kind = 'click' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.city = 'Oslo' AND e.user_id IS NULL ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id WHERE u.city IS NULL OR e.user_id = 125 ORDER BY u.id, e.id
SELECT count(*), count(u.*), count(e.*) FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.score > 50 AND e.user_id IS NULL ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.id = 5 OR e.user_id = 30 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.id IN (1, 2, 120, 130) AND e.kind = 'click' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id WHERE u.id BETWEEN 85 AND 130 OR e.user_id IS NULL ORDER BY u.id, e.id
SELECT count(*), count(u.*), count(e.*) FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.city = 'Oslo' AND e.kind = 'click' ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.city IS NULL OR e.user_id IS NULL ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.score > 50 AND e.user_id = 5 ORDER BY u.id, e.id
SELECT u.id, e.kind, e.at FROM j_users u FULL JOIN j_events e ON e.user_id = u.id WHERE u.id = 5 OR e.kind = 'click' ORDER BY u.id, e.id
SELECT count(*), count(u.*), count(e.*) FROM j_users u FULL JOIN j_events e ON e.user_id = u.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i20' AND c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.cat IS NULL OR c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.price >= 30 AND c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.code = 'i07' OR c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT count(*), count(i.*), count(c.*) FROM j_items i JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i20' AND c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.cat IS NULL OR c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.price >= 30 AND c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.code = 'i07' OR c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT count(*), count(i.*), count(c.*) FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i20' AND c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE i.cat IS NULL OR c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE i.price >= 30 AND c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE i.code = 'i07' OR c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT count(*), count(i.*), count(c.*) FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i20' AND c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE i.cat IS NULL OR c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE i.price >= 30 AND c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT i.code, c.label FROM j_items i FULL JOIN j_cats c ON c.id = i.cat WHERE i.code = 'i07' OR c.label LIKE 'c%' ORDER BY i.code, c.id
SELECT count(*), count(i.*), count(c.*) FROM j_items i FULL JOIN j_cats c ON c.id = i.cat

-- group: tables of the other groups: hash-sharded keys, text and composite keys
SELECT u.id, ev.kind, ev.score FROM j_users u JOIN events ev ON ev.id = u.id WHERE coalesce(u.id, ev.id) < 30 ORDER BY u.id, ev.id
SELECT u.id, t.name FROM j_users u JOIN t_int t ON t.id = u.id WHERE coalesce(u.id, t.id) BETWEEN -5 AND 20 ORDER BY u.id, t.id
SELECT p.a, p.b, u.name FROM parts p JOIN j_users u ON u.id = p.a WHERE coalesce(p.a, u.id) > 50 ORDER BY p.a, p.b, u.id
SELECT o.user_id, o.id, x.k FROM j_orders o JOIN t_text x ON x.k = o.item_code WHERE o.user_id < 8 OR x.k LIKE 'i%' ORDER BY o.user_id, o.id, x.k
SELECT u.id, a.email FROM j_users u JOIN accounts a ON a.id = u.id WHERE u.id IN (3, 50, 110) OR a.id IN (4, 299) ORDER BY u.id, a.id
SELECT c.a, c.b, u.id FROM t_comp c JOIN j_users u ON u.id = c.a WHERE c.a BETWEEN 5 AND 12 OR u.id = 100 ORDER BY c.a, c.b, u.id
SELECT u.id, ev.kind, ev.score FROM j_users u LEFT JOIN events ev ON ev.id = u.id WHERE coalesce(u.id, ev.id) < 30 ORDER BY u.id, ev.id
SELECT u.id, t.name FROM j_users u LEFT JOIN t_int t ON t.id = u.id WHERE coalesce(u.id, t.id) BETWEEN -5 AND 20 ORDER BY u.id, t.id
SELECT p.a, p.b, u.name FROM parts p LEFT JOIN j_users u ON u.id = p.a WHERE coalesce(p.a, u.id) > 50 ORDER BY p.a, p.b, u.id
SELECT o.user_id, o.id, x.k FROM j_orders o LEFT JOIN t_text x ON x.k = o.item_code WHERE o.user_id < 8 OR x.k LIKE 'i%' ORDER BY o.user_id, o.id, x.k
SELECT u.id, a.email FROM j_users u LEFT JOIN accounts a ON a.id = u.id WHERE u.id IN (3, 50, 110) OR a.id IN (4, 299) ORDER BY u.id, a.id
SELECT c.a, c.b, u.id FROM t_comp c LEFT JOIN j_users u ON u.id = c.a WHERE c.a BETWEEN 5 AND 12 OR u.id = 100 ORDER BY c.a, c.b, u.id
SELECT u.id, ev.kind, ev.score FROM j_users u RIGHT JOIN events ev ON ev.id = u.id WHERE coalesce(u.id, ev.id) < 30 ORDER BY u.id, ev.id
SELECT u.id, t.name FROM j_users u RIGHT JOIN t_int t ON t.id = u.id WHERE coalesce(u.id, t.id) BETWEEN -5 AND 20 ORDER BY u.id, t.id
SELECT p.a, p.b, u.name FROM parts p RIGHT JOIN j_users u ON u.id = p.a WHERE coalesce(p.a, u.id) > 50 ORDER BY p.a, p.b, u.id
SELECT o.user_id, o.id, x.k FROM j_orders o RIGHT JOIN t_text x ON x.k = o.item_code WHERE o.user_id < 8 OR x.k LIKE 'i%' ORDER BY o.user_id, o.id, x.k
SELECT u.id, a.email FROM j_users u RIGHT JOIN accounts a ON a.id = u.id WHERE u.id IN (3, 50, 110) OR a.id IN (4, 299) ORDER BY u.id, a.id
SELECT c.a, c.b, u.id FROM t_comp c RIGHT JOIN j_users u ON u.id = c.a WHERE c.a BETWEEN 5 AND 12 OR u.id = 100 ORDER BY c.a, c.b, u.id
SELECT u.id, ev.kind, ev.score FROM j_users u FULL JOIN events ev ON ev.id = u.id WHERE coalesce(u.id, ev.id) < 30 ORDER BY u.id, ev.id
SELECT u.id, t.name FROM j_users u FULL JOIN t_int t ON t.id = u.id WHERE coalesce(u.id, t.id) BETWEEN -5 AND 20 ORDER BY u.id, t.id
SELECT p.a, p.b, u.name FROM parts p FULL JOIN j_users u ON u.id = p.a WHERE coalesce(p.a, u.id) > 50 ORDER BY p.a, p.b, u.id
SELECT o.user_id, o.id, x.k FROM j_orders o FULL JOIN t_text x ON x.k = o.item_code WHERE o.user_id < 8 OR x.k LIKE 'i%' ORDER BY o.user_id, o.id, x.k
SELECT u.id, a.email FROM j_users u FULL JOIN accounts a ON a.id = u.id WHERE u.id IN (3, 50, 110) OR a.id IN (4, 299) ORDER BY u.id, a.id
SELECT c.a, c.b, u.id FROM t_comp c FULL JOIN j_users u ON u.id = c.a WHERE c.a BETWEEN 5 AND 12 OR u.id = 100 ORDER BY c.a, c.b, u.id

-- group: grouping per join shape
SELECT u.city, count(*), count(DISTINCT u.*) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT o.status, count(*), count(DISTINCT u.*) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY o.status ORDER BY o.status
SELECT u.city, count(*), count(DISTINCT u.*) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT o.status, count(*), count(DISTINCT u.*) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY o.status ORDER BY o.status
SELECT u.city, count(*), count(DISTINCT u.*) FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT o.status, count(*), count(DISTINCT u.*) FROM j_users u RIGHT JOIN j_orders o ON o.user_id = u.id GROUP BY o.status ORDER BY o.status
SELECT u.city, count(*), count(DISTINCT u.*) FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT o.status, count(*), count(DISTINCT u.*) FROM j_users u FULL JOIN j_orders o ON o.user_id = u.id GROUP BY o.status ORDER BY o.status
SELECT o.status, count(*), count(DISTINCT o.*) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.status ORDER BY o.status
SELECT i.cat, count(*), count(DISTINCT o.*) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY i.cat ORDER BY i.cat
SELECT o.status, count(*), count(DISTINCT o.*) FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code GROUP BY o.status ORDER BY o.status
SELECT i.cat, count(*), count(DISTINCT o.*) FROM j_orders o LEFT JOIN j_items i ON i.code = o.item_code GROUP BY i.cat ORDER BY i.cat
SELECT o.status, count(*), count(DISTINCT o.*) FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code GROUP BY o.status ORDER BY o.status
SELECT i.cat, count(*), count(DISTINCT o.*) FROM j_orders o RIGHT JOIN j_items i ON i.code = o.item_code GROUP BY i.cat ORDER BY i.cat
SELECT o.status, count(*), count(DISTINCT o.*) FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code GROUP BY o.status ORDER BY o.status
SELECT i.cat, count(*), count(DISTINCT o.*) FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code GROUP BY i.cat ORDER BY i.cat
SELECT u.city, count(*), count(DISTINCT u.*) FROM j_users u JOIN j_events e ON e.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT e.kind, count(*), count(DISTINCT u.*) FROM j_users u JOIN j_events e ON e.user_id = u.id GROUP BY e.kind ORDER BY e.kind
SELECT u.city, count(*), count(DISTINCT u.*) FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT e.kind, count(*), count(DISTINCT u.*) FROM j_users u LEFT JOIN j_events e ON e.user_id = u.id GROUP BY e.kind ORDER BY e.kind
SELECT u.city, count(*), count(DISTINCT u.*) FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT e.kind, count(*), count(DISTINCT u.*) FROM j_users u RIGHT JOIN j_events e ON e.user_id = u.id GROUP BY e.kind ORDER BY e.kind
SELECT u.city, count(*), count(DISTINCT u.*) FROM j_users u FULL JOIN j_events e ON e.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT e.kind, count(*), count(DISTINCT u.*) FROM j_users u FULL JOIN j_events e ON e.user_id = u.id GROUP BY e.kind ORDER BY e.kind
SELECT i.cat, count(*), count(DISTINCT i.*) FROM j_items i JOIN j_cats c ON c.id = i.cat GROUP BY i.cat ORDER BY i.cat
SELECT c.label, count(*), count(DISTINCT i.*) FROM j_items i JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT i.cat, count(*), count(DISTINCT i.*) FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat GROUP BY i.cat ORDER BY i.cat
SELECT c.label, count(*), count(DISTINCT i.*) FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT i.cat, count(*), count(DISTINCT i.*) FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat GROUP BY i.cat ORDER BY i.cat
SELECT c.label, count(*), count(DISTINCT i.*) FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT i.cat, count(*), count(DISTINCT i.*) FROM j_items i FULL JOIN j_cats c ON c.id = i.cat GROUP BY i.cat ORDER BY i.cat
SELECT c.label, count(*), count(DISTINCT i.*) FROM j_items i FULL JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label

-- group: a reference table: alone, twice, and on either side of spread tables
SELECT * FROM j_cats ORDER BY id
SELECT count(*), min(label), max(id) FROM j_cats
SELECT label, count(*) FROM j_cats GROUP BY label ORDER BY label
SELECT c1.id, c2.id FROM j_cats c1 JOIN j_cats c2 ON c2.id = c1.id + 1 ORDER BY c1.id, c2.id
SELECT c.id, count(i.code) FROM j_cats c LEFT JOIN j_items i ON i.cat = c.id GROUP BY c.id ORDER BY c.id
SELECT c.id, i.code FROM j_cats c LEFT JOIN j_items i ON i.cat = c.id AND i.price > 40 ORDER BY c.id, i.code
SELECT c.id, i.code FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE c.id > 5 ORDER BY c.id, i.code
SELECT c.id, i.code FROM j_cats c FULL JOIN j_items i ON i.cat = c.id ORDER BY c.id, i.code
SELECT c.id FROM j_cats c WHERE NOT EXISTS (SELECT 1 FROM j_items i WHERE i.cat = c.id) ORDER BY c.id
SELECT c.id FROM j_cats c WHERE c.id IN (SELECT cat FROM j_items WHERE price < 20) ORDER BY c.id
SELECT c.id, (SELECT count(*) FROM j_items i WHERE i.cat = c.id) FROM j_cats c ORDER BY c.id
SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.code IN ('i03', 'i33') ORDER BY i.code
SELECT o.user_id, o.id, i.code, c.label FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat WHERE o.user_id = 61 ORDER BY o.user_id, o.id, i.code, c.id
SELECT c.label, sum(o.amount) FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label
SELECT c.id FROM j_cats c UNION SELECT cat FROM j_items WHERE cat IS NOT NULL ORDER BY 1
SELECT c.id FROM j_cats c EXCEPT SELECT cat FROM j_items ORDER BY 1
WITH cs AS (SELECT id, label FROM j_cats WHERE id <= 4) SELECT cs.id, i.code FROM cs JOIN j_items i ON i.cat = cs.id ORDER BY cs.id, i.code
SELECT u.id, c.label FROM j_users u CROSS JOIN j_cats c WHERE u.id IN (2, 77) AND c.id < 3 ORDER BY u.id, c.id
SELECT c.id, row_number() OVER (ORDER BY c.label DESC) FROM j_cats c ORDER BY c.id
SELECT i.cat, c.label, count(*) OVER (PARTITION BY i.cat) FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i12' ORDER BY i.code

-- group: co-located tables: j_users and their j_visits, joined on the key prefix and otherwise
SELECT u.id, v.n, v.page FROM j_users u JOIN j_visits v ON v.user_id = u.id ORDER BY u.id, v.n
SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE u.id BETWEEN 25 AND 65 ORDER BY u.id, v.n
SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE v.user_id IN (2, 59, 61, 118) ORDER BY u.id, v.n
SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE u.id = 88 ORDER BY v.n
SELECT u.city, count(*), sum(v.secs), min(v.page), max(v.secs) FROM j_users u JOIN j_visits v ON v.user_id = u.id GROUP BY u.city ORDER BY u.city
SELECT u.id, count(v.n) FROM j_users u JOIN j_visits v ON u.id = v.user_id GROUP BY u.id HAVING count(v.n) > 3 ORDER BY u.id
SELECT u.id, v.n, v.secs FROM j_users u JOIN j_visits v ON v.user_id = u.id ORDER BY v.secs DESC, u.id, v.n LIMIT 10
SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id ORDER BY u.id, v.n LIMIT 7 OFFSET 30
SELECT DISTINCT v.page FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE u.score > 50 ORDER BY v.page
SELECT count(*), avg(v.secs) FROM j_users u, j_visits v WHERE v.user_id = u.id AND u.city = 'Rome'
SELECT u.id, v.n, c.label FROM j_users u JOIN j_visits v ON v.user_id = u.id JOIN j_cats c ON c.id = v.n ORDER BY u.id, v.n
SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id LEFT JOIN j_cats c ON c.id = u.score % 10 WHERE c.id IS NULL ORDER BY u.id, v.n
SELECT v1.user_id, v1.n, v2.n FROM j_visits v1 JOIN j_visits v2 ON v2.user_id = v1.user_id AND v2.n = v1.n + 1 ORDER BY v1.user_id, v1.n
SELECT u.id, v.n FROM j_users u LEFT JOIN j_visits v ON v.user_id = u.id ORDER BY u.id, v.n
SELECT u.id, v.user_id, v.n FROM j_users u RIGHT JOIN j_visits v ON v.user_id = u.id ORDER BY v.user_id, v.n, u.id
SELECT u.id, v.user_id, v.n FROM j_users u FULL JOIN j_visits v ON v.user_id = u.id ORDER BY v.user_id, v.n, u.id
SELECT u.id, count(v.n) FROM j_users u LEFT JOIN j_visits v ON v.user_id = u.id GROUP BY u.id ORDER BY u.id
SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.secs = u.id ORDER BY u.id, v.user_id, v.n
SELECT u.id, v.user_id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id + 1 ORDER BY u.id, v.n
SELECT u.id FROM j_users u WHERE EXISTS (SELECT 1 FROM j_visits v WHERE v.user_id = u.id AND v.secs > 250) ORDER BY u.id
SELECT u.id FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_visits v WHERE v.user_id = u.id) ORDER BY u.id
SELECT u.id, v.n, o.id FROM j_users u JOIN j_visits v ON v.user_id = u.id JOIN j_orders o ON o.user_id = u.id AND o.id % 5 = v.n WHERE u.id < 40 ORDER BY u.id, v.n, o.id
SELECT u.id, v.n, row_number() OVER (PARTITION BY u.id ORDER BY v.n DESC) FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE u.id < 20 ORDER BY u.id, v.n
SELECT count(DISTINCT v.page) FROM j_users u JOIN j_visits v ON v.user_id = u.id
SELECT v.page, count(*) FROM j_visits v GROUP BY v.page ORDER BY v.page
WITH t AS (SELECT u.id, sum(v.secs) AS s FROM j_users u JOIN j_visits v ON v.user_id = u.id GROUP BY u.id) SELECT count(*), max(s) FROM t

-- group: lookups by values of another integer width or of varchar, and self-joins left in place
SELECT i.code, u.id, u.name FROM j_items i JOIN j_users u ON u.id = i.cat WHERE i.code < 'i30' ORDER BY i.code, u.id
SELECT t.id, t.i8, n.id, n.b FROM t_types t JOIN t_nulls n ON n.id = t.i8 WHERE t.id > 190 OR t.id = 60 ORDER BY t.id, n.id
SELECT t.id, t.i2, n.a FROM t_types t JOIN t_nulls n ON n.id = t.i2 WHERE t.id < 40 ORDER BY t.id, n.id
SELECT t.id, n.id FROM t_types t JOIN t_nulls n ON n.id = t.i8 WHERE t.id BETWEEN 100 AND 120 ORDER BY t.id, n.id
SELECT t.id, t.vc, x.k, x.n FROM t_types t JOIN t_text x ON x.k = t.vc WHERE t.id < 60 ORDER BY t.id, x.k
SELECT a.id, a.score, b.id, b.name FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id = 5 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id = 30 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id = 61 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id = 90 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id = 119 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id = 125 ORDER BY b.id
SELECT i.code, u.id, u.name FROM j_items i LEFT JOIN j_users u ON u.id = i.cat WHERE i.code < 'i30' ORDER BY i.code, u.id
SELECT t.id, t.i8, n.id, n.b FROM t_types t LEFT JOIN t_nulls n ON n.id = t.i8 WHERE t.id > 190 OR t.id = 60 ORDER BY t.id, n.id
SELECT t.id, t.i2, n.a FROM t_types t LEFT JOIN t_nulls n ON n.id = t.i2 WHERE t.id < 40 ORDER BY t.id, n.id
SELECT t.id, n.id FROM t_types t LEFT JOIN t_nulls n ON n.id = t.i8 WHERE t.id BETWEEN 100 AND 120 ORDER BY t.id, n.id
SELECT t.id, t.vc, x.k, x.n FROM t_types t LEFT JOIN t_text x ON x.k = t.vc WHERE t.id < 60 ORDER BY t.id, x.k
SELECT a.id, a.score, b.id, b.name FROM j_users a LEFT JOIN j_users b ON b.id = a.score WHERE a.id = 5 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a LEFT JOIN j_users b ON b.id = a.score WHERE a.id = 30 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a LEFT JOIN j_users b ON b.id = a.score WHERE a.id = 61 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a LEFT JOIN j_users b ON b.id = a.score WHERE a.id = 90 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a LEFT JOIN j_users b ON b.id = a.score WHERE a.id = 119 ORDER BY b.id
SELECT a.id, a.score, b.id, b.name FROM j_users a LEFT JOIN j_users b ON b.id = a.score WHERE a.id = 125 ORDER BY b.id
SELECT a.id, b.id, b.city FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id BETWEEN 1 AND 20 ORDER BY a.id, b.id
SELECT b.city, count(*), sum(a.score) FROM j_users a JOIN j_users b ON b.id = a.score + 1 WHERE a.id BETWEEN 1 AND 20 GROUP BY b.city ORDER BY b.city
SELECT a.id, b.id FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id BETWEEN 1 AND 20 ORDER BY b.id, a.id LIMIT 7
SELECT o.user_id, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id BETWEEN 1 AND 20 AND o.amount > (SELECT avg(o2.amount) FROM j_orders o2 WHERE o2.user_id < 20) ORDER BY o.user_id, o.id
SELECT a.id, b.id, b.city FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id BETWEEN 25 AND 65 ORDER BY a.id, b.id
SELECT b.city, count(*), sum(a.score) FROM j_users a JOIN j_users b ON b.id = a.score + 1 WHERE a.id BETWEEN 25 AND 65 GROUP BY b.city ORDER BY b.city
SELECT a.id, b.id FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id BETWEEN 25 AND 65 ORDER BY b.id, a.id LIMIT 7
SELECT o.user_id, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id BETWEEN 25 AND 65 AND o.amount > (SELECT avg(o2.amount) FROM j_orders o2 WHERE o2.user_id < 20) ORDER BY o.user_id, o.id
SELECT a.id, b.id, b.city FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id BETWEEN 85 AND 130 ORDER BY a.id, b.id
SELECT b.city, count(*), sum(a.score) FROM j_users a JOIN j_users b ON b.id = a.score + 1 WHERE a.id BETWEEN 85 AND 130 GROUP BY b.city ORDER BY b.city
SELECT a.id, b.id FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id BETWEEN 85 AND 130 ORDER BY b.id, a.id LIMIT 7
SELECT o.user_id, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id BETWEEN 85 AND 130 AND o.amount > (SELECT avg(o2.amount) FROM j_orders o2 WHERE o2.user_id < 20) ORDER BY o.user_id, o.id
