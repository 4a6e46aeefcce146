// A node-postgres (npm's pg) program as an application writes one: parameterised queries
// (the extended protocol, unnamed statements), named prepared statements, transactions with
// BEGIN/COMMIT/ROLLBACK sent as queries, an error inside a transaction, identity and uuid keys
// with RETURNING, bulk inserts of several rows with parameters, paging with LIMIT $1 OFFSET $2, joins with a reference table. Usage: node node_app.js <dsn>
// migrate|work|joins
'use strict';
const { Client } = require('pg');

function show(label, value) {
  console.log(`${label}: ${JSON.stringify(value)}`);
}

async function migrate(c) {
  await c.query('BEGIN');
  await c.query('DROP TABLE IF EXISTS node_moves');
  await c.query('DROP TABLE IF EXISTS node_items');
  await c.query(`CREATE TABLE node_items (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      sku text NOT NULL, qty int NOT NULL CHECK (qty >= 0))`);
  await c.query(`CREATE TABLE node_moves (
      id uuid DEFAULT gen_random_uuid() PRIMARY KEY,
      item_id bigint NOT NULL, delta int NOT NULL, at_step int NOT NULL)`);
  await c.query('COMMIT');
  show('migrated', true);
}

async function work(c) {
  const ids = [];
  for (let i = 1; i <= 12; i++) {
    const r = await c.query('INSERT INTO node_items (sku, qty) VALUES ($1, $2) RETURNING id',
                            [`sku-${i}`, 10 * i]);
    ids.push(Number(r.rows[0].id));
  }
  show('item ids', ids);
  // A named statement, prepared once per connection and bound many times.
  for (const id of [1, 5, 9, 12]) {
    const r = await c.query({ name: 'item-by-id', text: 'SELECT sku, qty FROM node_items WHERE id = $1',
                              values: [id] });
    show(`item ${id}`, r.rows);
  }
  // A transaction over several shards.
  await c.query('BEGIN');
  for (const [id, delta] of [[2, -5], [6, 3], [11, -7]]) {
    await c.query('UPDATE node_items SET qty = qty + $1 WHERE id = $2', [delta, id]);
    await c.query('INSERT INTO node_moves (item_id, delta, at_step) VALUES ($1, $2, $3)',
                  [id, delta, 1]);
  }
  await c.query('COMMIT');
  // Bulk inserts, several rows with parameters in one statement (TypeORM, knex): the rows go
  // to several shards, inside a transaction and on their own.
  await c.query('BEGIN');
  const bulk = await c.query(
      'INSERT INTO node_moves (item_id, delta, at_step) VALUES ($1, $2, $3), ($4, $5, $3), ' +
          '($6, $7, $3), ($8, $2, $3) RETURNING item_id, delta, at_step',
      [1, 4, 3, 8, -2, 12, 6, 5]);
  show('bulk in a transaction', bulk.rows);
  await c.query('COMMIT');
  const items = await c.query(
      'INSERT INTO node_items (sku, qty) VALUES ($1, $2), ($3, $4), ($5, $2) RETURNING id, sku, qty',
      ['bulk-a', 1, 'bulk-b', 2, 'bulk-c']);
  show('bulk on its own', items.rows);
  // A transaction rolled back, and one that fails: nothing of either stays.
  await c.query('BEGIN');
  await c.query('UPDATE node_items SET qty = 0 WHERE id IN (1, 7, 12)');
  await c.query('ROLLBACK');
  await c.query('BEGIN');
  await c.query('INSERT INTO node_moves (item_id, delta, at_step) VALUES ($1, $2, $3)', [3, 1, 2]);
  try {
    await c.query('UPDATE node_items SET qty = qty - 1000 WHERE id = $1', [10]);
  } catch (e) {
    show('failed update', e.code);
  }
  try {
    await c.query('SELECT 1');
  } catch (e) {
    show('after the error', e.code);
  }
  await c.query('ROLLBACK');
  const moves = await c.query(
      'SELECT item_id, delta, at_step FROM node_moves ORDER BY item_id, at_step');
  show('moves', moves.rows);
  const sums = await c.query('SELECT count(*) AS n, sum(qty) AS total FROM node_items');
  show('totals', sums.rows);
  for (let page = 0; page < 3; page++) {
    const r = await c.query({ text: 'SELECT id, qty FROM node_items ORDER BY id LIMIT $1 OFFSET $2',
                              values: [5, page * 5], rowMode: 'array' });
    show(`page ${page}`, r.rows);
  }
  const grouped = await c.query(
      'SELECT qty % 3 AS r, count(*) AS n, max(sku) AS top FROM node_items GROUP BY 1 ORDER BY 1');
  show('grouped', grouped.rows);
  try {
    await c.query('INSERT INTO node_items (id, sku, qty) VALUES ($1, $2, $3)', [99, 'x', 1]);
  } catch (e) {
    show('identity always', e.code);
  }
}

async function joins(c) {
  // Parameterised joins: items with their moves (placed independently), items with their
  // category (a reference table), in and outside a transaction.
  let r = await c.query(
      `SELECT i.id, i.sku, count(m.id) AS moves, coalesce(sum(m.delta), 0) AS net
         FROM node_items i LEFT JOIN node_moves m ON m.item_id = i.id
        WHERE i.id <= $1 GROUP BY i.id, i.sku ORDER BY i.id`, [6]);
  show('moves per item', r.rows);
  r = await c.query(
      `SELECT i.sku, g.name FROM node_items i JOIN ref_groups g ON g.id = i.id % 4
        WHERE i.qty > $1 ORDER BY i.id LIMIT $2`, [30, 5]);
  show('groups', r.rows);
  await c.query('BEGIN');
  await c.query('UPDATE ref_groups SET name = $1 WHERE id = $2', ['zero', 0]);
  r = await c.query(
      `SELECT g.name, count(*)::int AS n FROM node_items i JOIN ref_groups g ON g.id = i.id % 4
        GROUP BY g.name ORDER BY g.name`);
  show('per group', r.rows);
  await c.query('COMMIT');
  // Writes reading another spread table, with parameters (the extended protocol): outside a
  // transaction, then inside one with a read of what they wrote.
  r = await c.query(
      `UPDATE node_items i SET qty = i.qty + $1 FROM node_moves m
        WHERE m.item_id = i.id AND m.delta < $2 RETURNING i.id, i.qty`, [100, 0]);
  show('raised items', r.rows.sort((a, b) => Number(a.id) - Number(b.id)));
  await c.query('BEGIN');
  r = await c.query(
      `DELETE FROM node_moves m USING node_items i
        WHERE i.id = m.item_id AND i.qty > $1 AND m.at_step = $2`, [100, 1]);
  show('moves deleted', r.rowCount);
  r = await c.query(
      `UPDATE node_items SET sku = sku || $1
        WHERE id IN (SELECT item_id FROM node_moves WHERE delta > $2)`, ['+', 0]);
  show('items marked', r.rowCount);
  r = await c.query('SELECT id, sku, qty FROM node_items ORDER BY id');
  show('items after', r.rows);
  await c.query('COMMIT');
}

async function main() {
  const c = new Client({ connectionString: process.argv[2] });
  await c.connect();
  const phases = { migrate, work, joins };
  await phases[process.argv[3]](c);
  await c.end();
}

main().catch((e) => {
  console.error(`failed: ${e.code || ''} ${e.message}`);
  process.exit(1);
});
