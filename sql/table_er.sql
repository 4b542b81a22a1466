-- tuplekv_table for the guide's entity-relationship model: attributes of
-- entities, and relationships between them, each a table keyed by a tuple.
-- Run with: sqlite3 :memory: -cmd '.load build/release/tuplekv' < sql/table_er.sql
--   attribute     pack(('attr', entity, name)) = pack((value,))
--   relationship  pack(('rel', a, b))          = pack(())   and its index
--                 pack(('rel_by_b', b, a, b)) = '' for the reverse direction
--                 (an index entry is the indexed values, then the whole key)
CREATE VIRTUAL TABLE attr USING tuplekv_table(entity TEXT, name TEXT, value ANY,
                                              PRIMARY KEY(entity, name));
CREATE VIRTUAL TABLE rel USING tuplekv_table(a TEXT, b TEXT, PRIMARY KEY(a, b),
                                             INDEX rel_by_b(b));

INSERT INTO attr VALUES ('alice', 'age', 34), ('alice', 'email', 'alice@example.com'),
                        ('bob', 'age', 29), ('bob', 'city', 'Lisbon'),
                        ('acme', 'founded', 1999), ('acme', 'city', 'Lisbon');
INSERT INTO rel VALUES ('alice', 'acme'), ('bob', 'acme'), ('alice', 'bob');
SELECT tuple_repr(k), tuple_repr(v) FROM rel_kv;

-- Every attribute of one entity: one prefix scan.
SELECT name, value FROM attr WHERE entity = 'alice';
-- One attribute: one point lookup.
SELECT value FROM attr WHERE entity = 'bob' AND name = 'city';
-- Set or replace an attribute (the key is the entity and the name).
INSERT OR REPLACE INTO attr VALUES ('bob', 'city', 'Porto');
-- Entities related to alice, and entities related to acme (the index).
SELECT b FROM rel WHERE a = 'alice';
SELECT a FROM rel WHERE b = 'acme';
-- A join over both: where do the people related to acme live?
SELECT rel.a, attr.value FROM rel JOIN attr ON attr.entity = rel.a AND attr.name = 'city'
 WHERE rel.b = 'acme';
-- Removing an entity: its attributes and relationships in both directions.
BEGIN;
DELETE FROM attr WHERE entity = 'bob';
DELETE FROM rel WHERE a = 'bob' OR b = 'bob';
COMMIT;
SELECT entity, name FROM attr ORDER BY entity, name;
SELECT a, b FROM rel;
SELECT tuplekv_check('rel');
