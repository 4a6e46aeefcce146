#!/usr/bin/python3
"""An application as SQLAlchemy ORM users write it (Debian's python3-sqlalchemy 1.4 over
psycopg2, autocommit off as SQLAlchemy always has it), in phases.

    sqlalchemy_app.py DSN migrate|work

`migrate` drops and creates the declarative models' tables with `metadata.create_all` (one
transaction, after SQLAlchemy's own catalog queries), prints what `inspect()` reads back from
pg_catalog, and runs a migration that fails half way and must leave nothing behind. `work`
fills the tables through the unit of work (batched INSERT … RETURNING, executemany), nests
savepoints that fail with IntegrityError, pages and aggregates, updates and deletes through
the ORM and in bulk, upserts, rolls a transaction back, streams with server-side cursors
(DECLARE / FETCH FORWARD / CLOSE), and prints every table. psycopg2 sends everything through
the simple query protocol. Everything it prints is compared between pgrange and one plain
PostgreSQL, so it prints nothing that may differ between them (random uuids, times, OIDs),
and each expected error as its SQLSTATE.
"""
import itertools
import sys
import uuid
from datetime import timedelta
from decimal import Decimal

import psycopg2

from sqlalchemy import (BigInteger, CheckConstraint, Column, DateTime, Enum, Identity, Index,
                        Integer, Numeric, String, UniqueConstraint, bindparam, cast,
                        create_engine, delete, desc, func, inspect, select, text, update)
from sqlalchemy.dialects.postgresql import JSONB, UUID, insert as pg_insert
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, declarative_base, relationship, selectinload
from sqlalchemy.orm.exc import StaleDataError

Base = declarative_base()


class Customer(Base):
    __tablename__ = "sa_customers"
    id = Column(BigInteger, Identity(), primary_key=True)
    name = Column(String(40), nullable=False)
    city = Column(String(40))
    tier = Column(Integer, nullable=False, server_default=text("1"))
    version = Column(Integer, nullable=False)
    orders = relationship("Order", primaryjoin="Customer.id == foreign(Order.customer_id)",
                          back_populates="customer", cascade="all, delete-orphan",
                          order_by="Order.id")
    __table_args__ = (CheckConstraint("tier BETWEEN 1 AND 3", name="sa_customers_tier_check"),
                      UniqueConstraint("id", "name", name="sa_customers_id_name_key"))
    __mapper_args__ = {"version_id_col": version}


class Order(Base):
    __tablename__ = "sa_orders"
    id = Column(BigInteger, primary_key=True, autoincrement=True)
    # No ForeignKey: pgrange refuses foreign keys over several shards.
    customer_id = Column(BigInteger, nullable=False, index=True)
    total = Column(Numeric(10, 2), nullable=False)
    status = Column(String(20), nullable=False, server_default="new")
    # now(): the time the transaction started, the same for every row a transaction writes.
    created_at = Column(DateTime(timezone=True), nullable=False, server_default=func.now())
    updated_at = Column(DateTime(timezone=True), onupdate=func.now())
    customer = relationship("Customer", primaryjoin="foreign(Order.customer_id) == Customer.id",
                            back_populates="orders")
    lines = relationship("LineItem", primaryjoin="Order.id == foreign(LineItem.order_id)",
                         cascade="all, delete-orphan", order_by="LineItem.line")
    __table_args__ = (CheckConstraint("total >= 0", name="sa_orders_total_check"),
                      Index("ix_sa_orders_status_total", "status", "total"))


class LineItem(Base):
    __tablename__ = "sa_line_items"
    order_id = Column(BigInteger, primary_key=True)
    line = Column(Integer, primary_key=True)
    sku = Column(String(40), nullable=False)
    qty = Column(Integer, nullable=False)
    __table_args__ = (UniqueConstraint("order_id", "line", "sku",
                                       name="sa_line_items_order_line_sku_key"),
                      CheckConstraint("qty > 0", name="sa_line_items_qty_check"))


class Event(Base):
    __tablename__ = "sa_events"
    id = Column(UUID(as_uuid=True), primary_key=True, server_default=text("gen_random_uuid()"))
    seq = Column(Integer, nullable=False)
    kind = Column(Enum("signup", "order", "refund", name="sa_event_kind"), nullable=False)
    payload = Column(JSONB)
    __table_args__ = (Index("ix_sa_events_seq", "seq"),)


# Events with keys of their own, spread over the key space (the rest get gen_random_uuid()).
FIXED_EVENTS = [uuid.UUID(f"{c * 8}-0000-4000-8000-000000000000") for c in "13679be"]


def show(label, value):
    print(f"{label}: {value}")


def engine_for(dsn):
    # The DSN is a libpq connection string, as the other client programs take it.
    return create_engine("postgresql+psycopg2://", creator=lambda: psycopg2.connect(dsn),
                         future=True)


def key_of(event_id):
    return str(event_id) if event_id in FIXED_EVENTS else ("set" if event_id else "null")


# ---------------------------------------------------------------------------------------------
# migrate


def describe_schema(engine, label):
    insp = inspect(engine)
    names = sorted(n for n in insp.get_table_names() if n.startswith("sa_"))
    show(f"{label} tables", names)
    for t in names:
        for c in insp.get_columns(t):
            show(f"  {t} column", (c["name"], c["type"].compile(dialect=engine.dialect),
                                   c["nullable"], c["default"],
                                   c.get("autoincrement"), "identity" in c))
        show(f"  {t} primary key", insp.get_pk_constraint(t))
        for i in sorted(insp.get_indexes(t), key=lambda i: i["name"]):
            show(f"  {t} index", (i["name"], i["column_names"], i["unique"]))
        for u in sorted(insp.get_unique_constraints(t), key=lambda u: u["name"]):
            show(f"  {t} unique", (u["name"], u["column_names"]))
        for k in sorted(insp.get_check_constraints(t), key=lambda k: k["name"]):
            show(f"  {t} check", (k["name"], k["sqltext"]))
    show(f"{label} enums", sorted((e["name"], tuple(e["labels"])) for e in insp.get_enums()
                                  if e["name"].startswith("sa_")))


def migrate(engine):
    # drop_all / create_all check the catalog first (has_table, has_type), then run the DDL in
    # one transaction.
    Base.metadata.drop_all(engine)
    Base.metadata.create_all(engine)
    show("created", sorted(Base.metadata.tables))
    describe_schema(engine, "schema")
    # An Alembic-style migration that fails half way, in one transaction.
    try:
        with engine.begin() as conn:
            conn.execute(text("ALTER TABLE sa_orders ADD COLUMN note VARCHAR(200)"))
            conn.execute(text("CREATE TABLE sa_audit (id BIGSERIAL PRIMARY KEY, what TEXT)"))
            conn.execute(text("INSERT INTO sa_audit (what) VALUES ('started')"))
            conn.execute(text("CREATE INDEX ix_sa_orders_note ON sa_orders (note)"))
            conn.execute(text("ALTER TABLE sa_missing ADD COLUMN x INTEGER"))
        show("failing step", "ok")
    except DBAPIError as e:
        show("failing step", e.orig.pgcode)
    describe_schema(engine, "after failed migration")
    with engine.connect() as conn:
        show("audit exists", conn.execute(
            text("SELECT to_regclass('public.sa_audit') IS NOT NULL")).scalar())


# ---------------------------------------------------------------------------------------------
# work

CUSTOMERS = [("ada", "london"), ("grace", "arlington"), ("edsger", "nuenen"),
             ("barbara", "boston"), ("donald", "milwaukee"), ("alan", "wilmslow"),
             ("frances", "new york"), ("tony", "cambridge")]


def count(s, model, *criteria):
    """Query.count(): SELECT count(*) FROM (SELECT … FROM t WHERE …) AS anon_1."""
    return s.query(model).filter(*criteria).count()


def dump(s):
    """Every table's content in key order (event uuids made by the server as "set")."""
    out = {}
    out["customers"] = [(c.id, c.name, c.city, c.tier, c.version)
                        for c in s.query(Customer).order_by(Customer.id)]
    out["orders"] = [(o.id, o.customer_id, o.total, o.status)
                     for o in s.query(Order).order_by(Order.id)]
    out["line_items"] = [(li.order_id, li.line, li.sku, li.qty)
                         for li in s.query(LineItem).order_by(LineItem.order_id, LineItem.line)]
    events = s.query(Event).order_by(Event.id).all()
    out["events in key order"] = [e.id for e in events] == sorted(e.id for e in events)
    out["events"] = sorted((e.seq, key_of(e.id), e.kind, e.payload) for e in events)
    return out


def unit_of_work(engine):
    with Session(engine) as s:
        customers = []
        for i, (name, city) in enumerate(CUSTOMERS):
            c = Customer(name=name, city=city, tier=1 + i % 3)
            for j in range(4):
                o = Order(total=Decimal(f"{(i + 1) * 10 + j * 7}.{j * 25 % 100:02d}"),
                          status="new" if j % 2 == 0 else "paid")
                for line in range(1, 3):
                    o.lines.append(LineItem(line=line, sku=f"{name}-{j}-{line}", qty=line + j))
                c.orders.append(o)
            customers.append(c)
        s.add_all(customers)
        s.flush()  # INSERT … RETURNING id, batched; line items by executemany
        # Inside a transaction over several shards now() is each shard's own transaction start
        # (a documented difference from one PostgreSQL): the times are set, not compared.
        started = s.execute(select(func.now())).scalar_one()
        show("orders stamped", count(s, Order, Order.created_at <= started + timedelta(hours=1)))
        show("customer ids", [c.id for c in customers])
        show("order ids", [o.id for c in customers for o in c.orders])
        show("line keys of ada", [(li.order_id, li.line) for li in customers[0].orders[1].lines])
        show("server defaults", sorted({(c.tier, c.version) for c in customers}))
        events = [Event(id=FIXED_EVENTS[k], seq=k, kind="signup", payload={"fixed": k})
                  for k in range(len(FIXED_EVENTS))]
        events += [Event(seq=100 + k, kind=("order", "refund")[k % 2], payload={"n": [k, k * k]})
                   for k in range(14)]
        s.add_all(events)
        s.flush()
        show("event keys", [key_of(e.id) for e in events])
        # The ORM gave each object the key of the row RETURNING answered in its place: every
        # object must find its own row by that key.
        show("events found by their keys", [s.execute(select(Event.seq)
                                                      .where(Event.id == e.id)).scalar_one()
                                            == e.seq for e in events].count(True))
        show("orders found by their keys", sum(
            s.execute(select(Order.total).where(Order.id == o.id)).scalar_one() == o.total
            for c in customers for o in c.orders))
        for e in events[len(FIXED_EVENTS):]:
            e.payload = {"n": e.payload["n"], "written for": e.seq}
        s.commit()
        show("after commit", [count(s, m) for m in (Customer, Order, LineItem, Event)])


def savepoints(engine):
    with Session(engine) as s:
        ada = s.get(Customer, 1)
        ada.city = "paris"  # the outer transaction's own write
        with s.begin_nested():
            s.add(Customer(name="linus", city="helsinki", tier=2,
                           orders=[Order(total=Decimal("12.00"),
                                         lines=[LineItem(line=1, sku="linus-0-1", qty=3)])]))
        show("nested ok", "released")
        try:
            with s.begin_nested():
                s.add(Customer(id=2, name="grace again", city="nowhere", tier=1))
        except IntegrityError as e:
            show("nested duplicate customer", e.orig.pgcode)
        try:
            with s.begin_nested():
                s.add(Order(customer_id=3, total=Decimal("-5.00")))
        except IntegrityError as e:
            show("nested negative total", e.orig.pgcode)
        try:
            with s.begin_nested():
                o5 = s.get(Order, 5)
                o5.status = "held"
                s.add(Order(customer_id=4, total=Decimal("1.00"), status="held"))
                s.flush()
                s.add(LineItem(order_id=1, line=1, sku="dup", qty=1))
        except IntegrityError as e:
            show("nested duplicate line", e.orig.pgcode)
        try:
            with s.begin_nested():
                s.get(LineItem, (30, 2)).qty = 0
        except IntegrityError as e:
            show("nested check on update", e.orig.pgcode)
        show("order 5 after rollback to savepoint", s.get(Order, 5).status)
        s.commit()
        show("survivors", [(c.id, c.name, c.city) for c in
                           s.query(Customer).order_by(Customer.id)])
        show("held orders", count(s, Order, Order.status == "held"))
        linus = s.query(Customer).filter_by(name="linus").one()
        show("linus", (linus.id, [(o.id, o.total, [(li.line, li.sku) for li in o.lines])
                                  for o in linus.orders]))


def queries(engine):
    with Session(engine) as s:
        q = s.query(Order).order_by(Order.id)
        for page in range(4):
            show(f"page {page}", [o.id for o in q.limit(9).offset(page * 9)])
        by_total = s.query(Order.id, Order.total).order_by(desc(Order.total), Order.id)
        show("by total page 2", by_total.limit(5).offset(5).all())
        show("slice", [o.id for o in q.slice(20, 24)])
        show("first", (q.first().id, by_total.first()))
        show("get customer", (lambda c: (c.name, c.city))(s.get(Customer, 3)))
        show("get line", (lambda li: (li.sku, li.qty))(s.get(LineItem, (26, 2))))
        show("get fixed event", s.get(Event, FIXED_EVENTS[4]).payload)
        show("get missing", s.get(Order, 999))
        show("key range", [o.id for o in s.query(Order).filter(Order.id.between(8, 27))
                           .order_by(Order.id)])
        show("key above", [o.id for o in s.query(Order).filter(Order.id > 29)
                           .order_by(desc(Order.id))])
        show("key in", [o.id for o in s.query(Order).filter(Order.id.in_([3, 11, 26, 40]))
                        .order_by(Order.id)])
        show("lines of orders 9..11",
             [(li.order_id, li.line) for li in s.query(LineItem)
              .filter(LineItem.order_id >= 9, LineItem.order_id <= 11)
              .order_by(LineItem.order_id, LineItem.line)])
        show("fixed events in key range", count(
            s, Event, Event.id >= uuid.UUID("30000000-0000-0000-0000-000000000000"),
            Event.id < uuid.UUID("a0000000-0000-0000-0000-000000000000"), Event.seq < 100))
        show("count", s.query(func.count(Order.id)).scalar())
        show("count 2.0", s.execute(select(func.count()).select_from(Order)).scalar_one())
        show("paid", count(s, Order, Order.status == "paid"))
        # Query.count() wraps the query in a subquery: fine when it stays on one shard.
        show("query count on one shard", (s.query(Order).filter(Order.id == 7).count(),
                                          s.query(Order).filter(Order.id < 6).count()))
        show("per customer", s.query(Order.customer_id, func.count(Order.id),
                                     func.sum(Order.total))
             .group_by(Order.customer_id).order_by(Order.customer_id).all())
        show("having", s.query(Order.customer_id, func.sum(Order.total))
             .group_by(Order.customer_id).having(func.sum(Order.total) > 200)
             .order_by(desc(func.sum(Order.total))).all())
        show("per status", s.query(Order.status, func.count(), func.min(Order.total),
                                   func.max(Order.total), func.avg(Order.total))
             .group_by(Order.status).order_by(Order.status).all())
        show("distinct", [r[0] for r in s.query(Order.status).distinct().order_by(Order.status)])
        show("distinct customers", s.query(Order.customer_id).distinct()
             .order_by(desc(Order.customer_id)).limit(3).all())
        show("like", [c.name for c in s.query(Customer).filter(Customer.name.like("a%"))
                      .order_by(Customer.name)])
        # Grouped as text: pgrange does not compare values of enum types over several shards.
        kind = cast(Event.kind, String)
        show("events per kind", s.query(kind, func.count(Event.id))
             .group_by(kind).order_by(kind).all())
        show("selectinload", [(c.name, [o.id for o in c.orders]) for c in
                              s.query(Customer).options(selectinload(Customer.orders))
                              .filter(Customer.id <= 3).order_by(Customer.id)])
        show("lazy load", [(o.id, len(o.lines)) for o in s.get(Customer, 7).orders])
        show("2.0 select", s.execute(select(Customer.name).where(Customer.tier == 2)
                                     .order_by(Customer.name)).scalars().all())
        show("text", s.execute(text("SELECT id, total FROM sa_orders WHERE customer_id = :c "
                                    "ORDER BY id"), {"c": 6}).all())
        s.commit()


def cursors(engine):
    with Session(engine) as s:
        stmt = (select(Order).order_by(Order.id)
                .execution_options(stream_results=True, yield_per=3))
        result = s.execute(stmt)
        ids = [o.id for o in result.scalars()]
        show("streamed orders", (len(ids), ids[:4], ids[-2:]))
        stmt = (select(Order.id, Order.total).order_by(desc(Order.total), Order.id)
                .execution_options(stream_results=True, yield_per=3))
        result = s.execute(stmt)
        show("partial stream", list(itertools.islice(result, 4)))
        result.close()
        lines = s.query(LineItem).order_by(LineItem.order_id.desc(), LineItem.line).yield_per(3)
        seen = [(li.order_id, li.line) for li in lines]
        show("yield_per query", (len(seen), seen[:5]))
        # A cursor whose query stays on one shard, in a transaction already over several.
        one_shard = s.execute(select(Order.id).where(Order.id.between(1, 6)).order_by(Order.id)
                              .execution_options(stream_results=True, yield_per=2))
        show("one shard stream", [r.id for r in itertools.islice(one_shard, 3)])
        one_shard.close()
        grouped = s.execute(select(Order.customer_id, func.count()).group_by(Order.customer_id)
                            .order_by(Order.customer_id)
                            .execution_options(stream_results=True, yield_per=2))
        show("streamed groups", grouped.all())
        show("after cursors", s.query(Order).filter(Order.id == 2).one().total)
        s.commit()


def writes(engine):
    with Session(engine) as s:
        o = s.get(Order, 3)
        o.status = "shipped"
        for oid in (11, 26):
            s.get(Order, oid).total += Decimal("1.50")
        s.get(Customer, 5).city = "stanford"
        s.commit()
        show("updated", [(o.id, o.total, o.status) for o in
                         s.query(Order).filter(Order.id.in_([3, 11, 26])).order_by(Order.id)])
        show("version", s.get(Customer, 5).version)
        # An ORM-enabled UPDATE statement by key, then optimistic locking: another session's
        # write makes this one's UPDATE … WHERE id = … AND version = … match no row.
        s.execute(update(Customer).where(Customer.id == 6).values(version=Customer.version + 1))
        s.commit()
        alan = s.get(Customer, 6)
        with Session(engine) as other:
            other.get(Customer, 6).tier = 1
            other.commit()
        alan.city = "manchester"
        try:
            s.commit()
            show("stale", "not detected")
        except StaleDataError:
            show("stale", "detected")
            s.rollback()
        # session.refresh after a change made by another session.
        cust = s.get(Customer, 8)
        with Session(engine) as other:
            other.get(Customer, 8).city = "oxford"
            other.commit()
        show("before refresh", cust.city)
        s.refresh(cust)
        show("after refresh", (cust.city, cust.version))
        # merge(): SELECT by key, then UPDATE or INSERT.
        s.merge(LineItem(order_id=12, line=2, sku="merged", qty=9))
        s.merge(LineItem(order_id=27, line=3, sku="new-by-merge", qty=1))
        s.commit()
        show("merged", [(li.order_id, li.line, li.sku) for li in s.query(LineItem)
                        .filter(LineItem.sku.in_(["merged", "new-by-merge"]))
                        .order_by(LineItem.order_id)])
        # A line moved to another order: the key changes, so does the shard.
        li = s.get(LineItem, (2, 2))
        li.order_id = 29
        li.line = 5
        s.commit()
        show("moved line", [(x.order_id, x.line, x.sku) for x in s.query(LineItem)
                            .filter(LineItem.sku == "ada-1-2")])
        # Bulk update and delete through the query API.
        n = s.query(Order).filter(Order.total < 25).update({"status": "small"},
                                                            synchronize_session="evaluate")
        show("bulk update evaluate", n)
        n = s.query(Order).filter(Order.customer_id.in_([2, 7])).update(
            {Order.total: Order.total * 2}, synchronize_session="fetch")
        show("bulk update fetch", n)
        show("in session", s.get(Order, 25).total)
        n = s.query(LineItem).filter(LineItem.qty >= 5).delete(synchronize_session="fetch")
        show("bulk delete", n)
        n = s.execute(delete(Event).where(Event.kind == "refund")).rowcount
        show("core delete", n)
        s.commit()
        # Delete with cascade: the customer, its orders and their lines.
        s.delete(s.get(Customer, 4))
        s.commit()
        show("after delete", (s.get(Customer, 4), count(s, Order, Order.customer_id == 4),
                              count(s, LineItem, LineItem.order_id.between(13, 16))))
        s.delete(s.get(Order, 10))
        s.commit()
        show("order 10", s.get(Order, 10))


def more(engine):
    with Session(engine) as s:
        # Keyset paging.
        pages, last = [], 0
        while True:
            page = [o.id for o in s.query(Order).filter(Order.id > last)
                    .order_by(Order.id).limit(7)]
            if not page:
                break
            pages.append(page)
            last = page[-1]
        show("keyset pages", pages)
        # Row lock by key, then an UPDATE setting updated_at = now() on several shards.
        locked = s.get(Order, 12, with_for_update=True)
        show("locked", (locked.id, locked.status))
        for oid in (1, 12, 30):
            s.get(Order, oid).status = "audited"
        s.commit()
        show("update times set", count(s, Order, Order.status == "audited",
                                       Order.updated_at.isnot(None)))
        # bulk_insert_mappings: one multi-row INSERT without the key (execute_values).
        s.bulk_insert_mappings(Order, [{"customer_id": 9, "total": Decimal(f"{k}.99")}
                                       for k in range(1, 6)])
        s.commit()
        show("bulk inserted", [(o.id, o.total) for o in s.query(Order)
                               .filter(Order.customer_id == 9).order_by(Order.id)])
        # Upserts (INSERT … ON CONFLICT) over several shards, with RETURNING.
        stmt = pg_insert(LineItem).values([
            {"order_id": 1, "line": 1, "sku": "ada-0-1", "qty": 7},
            {"order_id": 30, "line": 9, "sku": "upserted", "qty": 1},
            {"order_id": 12, "line": 1, "sku": "edsger-3-1", "qty": 8},
            {"order_id": 17, "line": 4, "sku": "upserted", "qty": 2}])
        stmt = stmt.on_conflict_do_update(index_elements=["order_id", "line"],
                                          set_={"qty": stmt.excluded.qty})
        rows = s.execute(stmt.returning(LineItem.order_id, LineItem.line, LineItem.qty)).all()
        show("upsert returning", rows)
        stmt = pg_insert(LineItem).values([
            {"order_id": 2, "line": 1, "sku": "ignored", "qty": 1},
            {"order_id": 31, "line": 7, "sku": "kept", "qty": 1}]).on_conflict_do_nothing()
        show("insert or ignore", s.execute(stmt).rowcount)
        s.commit()
        # UPDATE / DELETE … RETURNING over several shards.
        rows = s.execute(update(Order).where(Order.total > 150).values(status="big")
                         .returning(Order.id, Order.status)
                         .execution_options(synchronize_session=False)).all()
        show("update returning", sorted(rows))
        rows = s.execute(delete(LineItem).where(LineItem.sku == "upserted")
                         .returning(LineItem.order_id, LineItem.line)
                         .execution_options(synchronize_session=False)).all()
        show("delete returning", sorted(rows))
        s.commit()
        # NULLs in ORDER BY, an expression in ORDER BY, an expanding IN in text().
        s.get(Customer, 9).city = None
        s.commit()
        show("nulls first", [c.id for c in s.query(Customer)
                             .order_by(Customer.city.asc().nullsfirst(), Customer.id)])
        show("desc (nulls first)", [c.city for c in s.query(Customer)
                                    .order_by(Customer.city.desc())])
        show("asc (nulls last)", [c.city for c in s.query(Customer).order_by(Customer.city)
                                  .limit(3).offset(5)])
        show("lower", [c.name for c in s.query(Customer).order_by(func.lower(Customer.name))])
        q = text("SELECT order_id, line FROM sa_line_items WHERE order_id IN :ids "
                 "ORDER BY order_id, line").bindparams(bindparam("ids", expanding=True))
        show("expanding in", s.execute(q, {"ids": [5, 20, 31]}).all())
        # Nested savepoints, the inner one rolled back.
        with s.begin_nested():
            s.get(Customer, 2).city = "washington"
            try:
                with s.begin_nested():
                    s.get(Customer, 7).tier = 9
            except IntegrityError as e:
                show("inner savepoint", e.orig.pgcode)
        s.commit()
        show("after nested", [(c.id, c.city, c.tier) for c in s.query(Customer)
                              .filter(Customer.id.in_([2, 7])).order_by(Customer.id)])
    # REPEATABLE READ: a snapshot over every shard, unchanged by another session's commit.
    with Session(engine.execution_options(isolation_level="REPEATABLE READ")) as s:
        first = s.query(func.count(), func.sum(Order.total)).one()
        with Session(engine) as other:
            other.add(Order(customer_id=1, total=Decimal("1000.00")))
            other.query(Order).filter(Order.id.in_([4, 22])).update(
                {"total": Order.total + 100}, synchronize_session=False)
            other.commit()
        show("repeatable read", (first, s.query(func.count(), func.sum(Order.total)).one()))
        s.commit()
        show("after snapshot", s.query(func.count(), func.sum(Order.total)).one())


def rollback(engine):
    with Session(engine) as s:
        before = dump(s)
        s.commit()
        for cid in (1, 5, 8):
            s.get(Customer, cid).city = "nowhere"
        s.query(Order).filter(Order.id.in_([2, 12, 30])).update({"status": "void"},
                                                                 synchronize_session=False)
        s.add(Customer(name="ghost", city="limbo", tier=3,
                       orders=[Order(total=Decimal("3.00"))]))
        s.delete(s.get(LineItem, (3, 1)))
        s.execute(delete(Event).where(Event.seq >= 100))
        s.flush()
        show("inside", (count(s, Customer, Customer.city == "nowhere"),
                        count(s, Order, Order.status == "void"), count(s, Event)))
        s.rollback()
        show("unchanged after rollback", dump(s) == before)
        show("city", s.get(Customer, 1).city)


def work(engine):
    unit_of_work(engine)
    savepoints(engine)
    queries(engine)
    writes(engine)
    more(engine)
    rollback(engine)
    cursors(engine)
    with Session(engine) as s:
        for table, rows in dump(s).items():
            if isinstance(rows, list):
                show(table, len(rows))
                for row in rows:
                    print(f"  {row}")
            else:
                show(table, rows)


def main():
    engine = engine_for(sys.argv[1])
    with engine.connect() as conn:
        show("autocommit", conn.connection.dbapi_connection.autocommit)
    {"migrate": migrate, "work": work}[sys.argv[2]](engine)
    engine.dispose()


if __name__ == "__main__":
    main()
