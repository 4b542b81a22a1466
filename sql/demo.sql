-- tuplekv demo: run with
--   sqlite3 -bail -cmd '.load build/release/tuplekv' :memory: < sql/demo.sql
--
-- Walks through the tuple codec and every table model, following
-- FoundationDB's data-modeling guide: keys are packed tuples, so related
-- facts sit next to each other and a tuple prefix is one range scan.
.headers on
.mode box --wrap 0

-- 1. Tuples ---------------------------------------------------------------
-- tuple_pack writes FoundationDB's bytes; tuple_unpack reads them back as
-- JSON (types JSON lacks are tagged); tuple_repr is for people.
SELECT hex(tuple_pack('users', 123456, 'region'))        AS packed,
       tuple_unpack(tuple_pack('users', 123456, 'region')) AS unpacked,
       tuple_repr(tuple_pack('users', 123456, 'region'))   AS repr;

-- Every FoundationDB element type: nested tuples, big integers, float32,
-- bool, UUID, versionstamp, bytes and null.
SELECT tuple_repr(tuple_pack(NULL, x'00ff', 'text', tuple_pack(1, 2),
                             tuple_bigint('18446744073709551616'), 1.5,
                             tuple_float(0.25), tuple_bool(1),
                             tuple_uuid('00112233-4455-6677-8899-aabbccddeeff')))
       AS every_type;

-- Order is preserved: byte order of packed tuples is tuple order, across
-- types too (every integer sorts before every double).
SELECT tuple_repr(k) AS sorted_keys
FROM (SELECT tuple_pack('a', 2) AS k UNION ALL SELECT tuple_pack('a', 10)
      UNION ALL SELECT tuple_pack('a', -1) UNION ALL SELECT tuple_pack('a', 1.5)
      UNION ALL SELECT tuple_pack('a') UNION ALL SELECT tuple_pack('b'))
ORDER BY k;

-- One row per element, with its type and its encoded bytes.
SELECT idx, type, value, hex(raw) AS raw
FROM tuple_each(tuple_pack('CA', 'Alameda', 1682353));

-- JSON form round-trips exactly, including the values JSON cannot carry.
SELECT tuple_unpack(tuple_pack_json('[1, 1.0, {"$float":0.5}, {"$bytes":"00ff"}, [null, true]]'))
       AS json_round_trip;

-- 2. An ordered key/value table -------------------------------------------
-- County populations keyed by (state, county), as in the guide.
CREATE VIRTUAL TABLE population USING tuplekv_kv;
INSERT INTO population(key, value) VALUES
  (tuple_pack('CA', 'Alameda'),     tuple_pack(1682353)),
  (tuple_pack('CA', 'Los Angeles'), tuple_pack(10014009)),
  (tuple_pack('CA', 'San Diego'),   tuple_pack(3298634)),
  (tuple_pack('NY', 'Kings'),       tuple_pack(2736074)),
  (tuple_pack('NY', 'Queens'),      tuple_pack(2405464)),
  (tuple_pack('TX', 'Harris'),      tuple_pack(4731145));

-- Every county of one state: the hidden `prefix` column makes it one range
-- scan over exactly the keys that start with ('CA',).
SELECT tuple_repr(key) AS county, tuple_repr(value) AS people
FROM population WHERE prefix = tuple_pack('CA');

-- Ranges and reverse scans come from the key order itself.
SELECT tuple_repr(key) AS last_two
FROM population ORDER BY key DESC LIMIT 2;

-- What the planner did with those constraints.
EXPLAIN QUERY PLAN SELECT * FROM population WHERE prefix = tuple_pack('CA');
EXPLAIN QUERY PLAN SELECT * FROM population WHERE key >= tuple_pack('NY') ORDER BY key DESC;

-- The stored keys are FoundationDB's: the table's subspace prefix
-- ('population',) followed by the packed key, in the shadow table.
SELECT tuple_repr(k) AS stored_key FROM population_kv ORDER BY k LIMIT 3;

-- Writes are part of the SQLite transaction.
BEGIN;
DELETE FROM population WHERE prefix = tuple_pack('NY');
SELECT count(*) AS rows_inside_transaction FROM population;
ROLLBACK;
SELECT count(*) AS rows_after_rollback FROM population;

-- 3. A table of cells -----------------------------------------------------
-- The guide's sparse table: each assigned cell (row, col) is one key, so a
-- row is one prefix scan and empty cells take no space. layout=both also
-- keeps the column-major copy, so a whole column is a prefix scan as well.
CREATE VIRTUAL TABLE sheet USING tuplekv_cells(layout=both);
INSERT INTO sheet(row, col, value) VALUES
  ('ada',   'born', 1815), ('ada',   'field', 'mathematics'),
  ('alan',  'born', 1912), ('alan',  'field', 'computing'),
  ('grace', 'born', 1906);
SELECT json_group_object(col, value) AS ada FROM sheet WHERE row = 'ada';
SELECT row, value AS born FROM sheet WHERE col = 'born' ORDER BY row;
SELECT tuple_repr(k) AS stored_key FROM sheet_kv WHERE k < tuple_pack('sheet', 'row_idx');

-- 4. A multimap ------------------------------------------------------------
-- One key per (student, class) pair with an empty value; reverse=1 also
-- keeps (class, student) so both directions are prefix scans.
CREATE VIRTUAL TABLE enroll USING tuplekv_multimap(student, class, reverse=1);
INSERT OR IGNORE INTO enroll VALUES
  ('alice', 'math'), ('alice', 'art'), ('bob', 'math'), ('alice', 'math');
SELECT student, group_concat(class, ', ') AS classes FROM enroll GROUP BY student;
SELECT student AS takes_math FROM enroll WHERE class = 'math';

-- 5. JSON documents --------------------------------------------------------
-- Every leaf of a document is one key (id, path...) -> leaf, so one field or
-- subtree is read or replaced without touching the rest.
CREATE VIRTUAL TABLE docs USING tuplekv_docs;
INSERT INTO docs(doc) VALUES
  ('{"name":"Ada","langs":["en","fr"],"region":"EU"}'),
  ('{"name":"Alan","langs":["en"],"region":"UK"}');
SELECT id, doc FROM docs;
SELECT doc AS ada_langs FROM docs WHERE id = 1 AND path = '$.langs';
UPDATE docs SET doc = '"de"' WHERE id = 1 AND path = '$.langs[#]';
SELECT tuple_repr(k) AS stored_key, tuple_repr(v) AS leaf
FROM docs_kv WHERE k < tuple_pack('docs', 2);

-- 6. Typed tables and a secondary index ----------------------------------
-- Users by region: rows under ('user', user_id), index entries under
-- ('region_idx', region, user_id), written together; values checked as in
-- a STRICT table.
CREATE VIRTUAL TABLE users USING tuplekv_table(
  user_id INTEGER, name TEXT NOT NULL, region TEXT,
  PRIMARY KEY(user_id), INDEX region_idx(region), subspace=user);
INSERT INTO users VALUES (1, 'Ada', 'EU'), (2, 'Alan', 'UK'), (3, 'Grace', 'US'), (4, 'Edsger', 'EU');
SELECT user_id, name FROM users WHERE region = 'EU';
UPDATE users SET region = 'EU' WHERE user_id = 2;
SELECT region, count(*) AS users FROM users GROUP BY region;
SELECT tuple_repr(k) AS stored_key, tuple_repr(v) AS stored_value
FROM users_kv WHERE k < tuple_pack('region_idx', 'UK');
SELECT tuplekv_check('users') AS index_check;
