#!/usr/bin/python3
"""An application as psycopg2 users write it (autocommit off, its default), in phases.

    psycopg2_app.py DSN migrate|work|joins

`migrate` creates the schema in one transaction, as Alembic or Django migrations do; `work`
fills the tables keyed by serial, identity and uuid defaults, queries them, and runs a
migration that fails and must leave nothing behind; `joins` joins them (with the reference
table ref_cities the test makes) and writes through joins. Everything it prints is compared between
pgrange and one plain PostgreSQL, so it prints nothing that may differ between them (uuids,
times), and each error as its SQLSTATE.
"""
import sys

import psycopg2
import psycopg2.extras


def show(label, value):
    print(f"{label}: {value}")


def error_code(cur, sql, params=None):
    try:
        cur.execute(sql, params)
        return "ok"
    except psycopg2.Error as e:
        return e.pgcode


def migrate(conn):
    cur = conn.cursor()
    # One transaction: psycopg2 sends BEGIN before the first statement.
    cur.execute("DROP TABLE IF EXISTS line_items")
    cur.execute("DROP TABLE IF EXISTS orders")
    cur.execute("DROP TABLE IF EXISTS customers")
    cur.execute("DROP TABLE IF EXISTS events")
    cur.execute("CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, "
                "city text)")
    cur.execute("CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                "customer_id int NOT NULL, total numeric(10,2) NOT NULL, status text "
                "DEFAULT 'new')")
    cur.execute("CREATE INDEX orders_customer ON orders (customer_id)")
    cur.execute("CREATE TABLE line_items (order_id bigint, line int, sku text, qty int, "
                "PRIMARY KEY (order_id, line))")
    cur.execute("CREATE TABLE events (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), "
                "kind text, payload jsonb)")
    cur.execute("COMMENT ON TABLE orders IS 'customer orders'")
    conn.commit()
    show("migrated", conn.status == psycopg2.extensions.STATUS_READY)


def work(conn):
    cur = conn.cursor()
    # Rows keyed by serial: RETURNING gives the ids the application keeps.
    ids = []
    for name, city in [("ada", "london"), ("grace", "arlington"), ("edsger", "nuenen"),
                       ("barbara", "boston"), ("donald", "milwaukee")]:
        cur.execute("INSERT INTO customers (name, city) VALUES (%s, %s) RETURNING id",
                    (name, city))
        ids.append(cur.fetchone()[0])
    conn.commit()
    show("customer ids", ids)
    # Identity keys, in a batch (execute_batch: several INSERTs in one query string).
    rows = [(ids[i % len(ids)], 10 * i + 0.5) for i in range(1, 40)]
    psycopg2.extras.execute_batch(
        cur, "INSERT INTO orders (customer_id, total) VALUES (%s, %s)", rows, page_size=10)
    cur.executemany("INSERT INTO line_items VALUES (%s, %s, %s, %s)",
                    [(o, l, f"sku-{o}-{l}", l) for o in range(1, 40) for l in range(1, 3)])
    conn.commit()
    cur.execute("SELECT count(*), min(id), max(id), sum(total) FROM orders")
    show("orders", cur.fetchone())
    # uuid keys pgrange makes.
    cur.execute("INSERT INTO events (kind, payload) VALUES (%s, %s), (%s, %s) RETURNING kind",
                ("signup", psycopg2.extras.Json({"a": 1}), "order", psycopg2.extras.Json([2])))
    show("events", sorted(r[0] for r in cur.fetchall()))
    conn.commit()
    # Queries an application sends.
    cur.execute("SELECT name, city FROM customers WHERE id = %s", (ids[1],))
    show("one customer", cur.fetchall())
    cur.execute("SELECT count(*), sum(total) FROM orders WHERE customer_id = %s", (ids[1],))
    show("their orders", cur.fetchall())
    cur.execute("SELECT customer_id, count(*), sum(total) FROM orders GROUP BY customer_id "
                "ORDER BY customer_id")
    show("per customer", cur.fetchall())
    cur.execute("SELECT id, total FROM orders WHERE total > %s ORDER BY total DESC LIMIT %s",
                (100, 5))
    show("top orders", cur.fetchall())
    cur.execute("SELECT sku, qty FROM line_items WHERE order_id = %s ORDER BY line", (7,))
    show("order 7", cur.fetchall())
    cur.execute("SELECT kind, payload FROM events ORDER BY kind")
    show("event payloads", cur.fetchall())
    # Server-side (named) cursors, read a batch at a time: DECLARE, FETCH FORWARD n, CLOSE.
    with conn.cursor(name="all_lines") as named:
        named.itersize = 7
        named.execute("SELECT order_id, line, sku FROM line_items WHERE qty > %s "
                      "ORDER BY order_id DESC, line", (0,))
        show("lines by cursor", [r for r in named][:3] + [named.rownumber])
    with conn.cursor(name="per_customer") as named:
        named.execute("SELECT customer_id, count(*) FROM orders GROUP BY customer_id "
                      "ORDER BY customer_id")
        show("first group", named.fetchone())
        show("next groups", named.fetchmany(2))
        show("other groups", named.fetchall())
    conn.commit()
    # A unit of work with a savepoint, as ORMs nest them.
    cur.execute("UPDATE orders SET status = 'paid' WHERE customer_id = %s", (ids[0],))
    cur.execute("SAVEPOINT sp1")
    show("duplicate line", error_code(cur, "INSERT INTO line_items VALUES (1, 1, 'x', 1)"))
    cur.execute("ROLLBACK TO SAVEPOINT sp1")
    cur.execute("DELETE FROM line_items WHERE order_id = %s", (39,))
    show("deleted lines", cur.rowcount)
    conn.commit()
    cur.execute("SELECT status, count(*) FROM orders GROUP BY status ORDER BY status")
    show("statuses", cur.fetchall())
    # A migration that fails half way: nothing of it may stay, on any shard.
    cur.execute("CREATE TABLE audit (id bigserial PRIMARY KEY, what text)")
    cur.execute("INSERT INTO audit (what) VALUES ('started')")
    cur.execute("ALTER TABLE orders ADD COLUMN note text")
    show("failing step", error_code(cur, "ALTER TABLE no_such_table ADD COLUMN x int"))
    conn.rollback()
    show("audit after rollback", error_code(cur, "SELECT count(*) FROM audit"))
    conn.rollback()
    cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = "
                "'orders' ORDER BY ordinal_position")
    show("orders columns", [r[0] for r in cur.fetchall()])
    conn.commit()
    # The same migration done right.
    cur.execute("CREATE TABLE audit (id bigserial PRIMARY KEY, what text)")
    cur.execute("INSERT INTO audit (what) VALUES ('started'), ('done') RETURNING id")
    show("audit ids", [r[0] for r in cur.fetchall()])
    cur.execute("ALTER TABLE orders ADD COLUMN note text")
    cur.execute("UPDATE orders SET note = 'checked' WHERE id <= %s", (3,))
    conn.commit()
    cur.execute("SELECT id, note FROM orders WHERE id <= 4 ORDER BY id")
    show("notes", cur.fetchall())
    cur.execute("SELECT what FROM audit ORDER BY id")
    show("audit", [r[0] for r in cur.fetchall()])
    conn.commit()


def joins(conn):
    cur = conn.cursor()
    # Orders with their lines (co-located through pgrange), customers with their city's
    # country (a reference table), customers with their orders (placed independently).
    cur.execute("SELECT o.id, li.line, li.sku FROM orders o JOIN line_items li ON "
                "li.order_id = o.id WHERE o.customer_id = %s ORDER BY o.id, li.line", (2,))
    show("lines of customer 2", cur.fetchall())
    cur.execute("SELECT o.status, count(li.line), sum(li.qty) FROM orders o JOIN line_items li "
                "ON li.order_id = o.id GROUP BY o.status ORDER BY o.status")
    show("lines per status", cur.fetchall())
    cur.execute("SELECT c.name, r.country FROM customers c JOIN ref_cities r ON r.city = c.city "
                "ORDER BY c.id")
    show("countries", cur.fetchall())
    cur.execute("SELECT c.name, count(o.id), sum(o.total) FROM customers c LEFT JOIN orders o "
                "ON o.customer_id = c.id GROUP BY c.name ORDER BY c.name")
    show("orders per customer", cur.fetchall())
    cur.execute("SELECT c.name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o "
                "WHERE o.customer_id = c.id AND o.total > %s) ORDER BY 1", (300,))
    show("no big order", cur.fetchall())
    # EXPLAIN inside the transaction psycopg2 keeps open: a plan, whoever makes it.
    cur.execute("EXPLAIN SELECT c.name, o.id FROM customers c JOIN orders o ON "
                "o.customer_id = c.id WHERE o.total > %s", (0,))
    show("explained", len(cur.fetchall()) > 0)
    # A server-side cursor over a join of independently placed tables.
    with conn.cursor(name="customer_orders") as named:
        named.itersize = 3
        named.execute("SELECT c.name, o.id, o.total FROM customers c JOIN orders o ON "
                      "o.customer_id = c.id WHERE o.total > %s ORDER BY o.id", (0,))
        show("orders by cursor", [r for r in named][:5] + [named.rownumber])
    conn.commit()
    # Writes through joins, in one transaction with the reference table's own write.
    cur.execute("UPDATE ref_cities SET country = %s WHERE city = %s", ("NL", "nuenen"))
    cur.execute("UPDATE orders o SET status = 'local' FROM customers c, ref_cities r WHERE "
                "c.id = o.customer_id AND r.city = c.city AND r.country = %s", ("NL",))
    show("local orders", cur.rowcount)
    cur.execute("SELECT r.country, count(*) FROM orders o JOIN customers c ON c.id = "
                "o.customer_id JOIN ref_cities r ON r.city = c.city GROUP BY r.country "
                "ORDER BY 1")
    show("orders per country", cur.fetchall())
    conn.commit()
    cur.execute("SELECT status, count(*) FROM orders GROUP BY status ORDER BY status")
    show("statuses after", cur.fetchall())
    conn.commit()


def main():
    conn = psycopg2.connect(sys.argv[1])
    show("autocommit", conn.autocommit)
    {"migrate": migrate, "work": work, "joins": joins}[sys.argv[2]](conn)
    conn.close()


if __name__ == "__main__":
    main()
