-- tuplekv_docs: the data-modeling guide's hierarchies and documents.
-- Run with: sqlite3 :memory: -cmd '.load build/release/tuplekv' < sql/docs.sql
-- Every leaf of a JSON document is one key; a subtree is one key prefix.

-- Hierarchy (mode=merge): the guide's nested keyspace. Each inserted JSON
-- object is merged into one tree stored as pack(('hier',) + path + (leaf,)).
CREATE VIRTUAL TABLE hier USING tuplekv_docs(mode=merge);
INSERT INTO hier(doc) VALUES ('{"user": {"jones": {"friendOf": "smith", "group": ["sales", "service"]},
                                         "smith": {"friendOf": "jones", "group": ["dev", "research"]}}}');
-- Exactly the guide's six tuples.
SELECT tuple_repr(k) FROM hier_kv;
-- The sub-tree for ('user', 'smith'): one prefix scan.
SELECT doc FROM hier WHERE path = '$.user.smith';
-- A later object about the same entities merges into the tree.
INSERT INTO hier(doc) VALUES ('{"user": {"smith": {"group": ["ops"]}, "brown": {"friendOf": "smith"}}}');
SELECT doc FROM hier;

-- Documents: pack(('doc', id) + path) -> pack((leaf,)), as the guide's insert_doc.
CREATE VIRTUAL TABLE doc USING tuplekv_docs;
INSERT INTO doc(doc) VALUES
  ('{"name": "Ada", "langs": ["en", "fr"], "region": "EU", "born": 1815, "score": 9.75}'),
  ('{"name": "Alan", "langs": [], "region": "EU", "address": {}}'),
  ('{"name": "Grace", "langs": ["en"], "region": "US", "ranks": {"navy": "rear admiral"}}');
SELECT id, doc FROM doc;
SELECT tuple_repr(k), tuple_repr(v) FROM doc_kv WHERE k >= tuple_pack('doc', 2) AND k < tuple_pack('doc', 3);
-- One field by path; absent paths are NULL.
SELECT id, doc FROM doc WHERE path = '$.langs[0]';
-- Replace a subtree, creating intermediate objects; append with [#].
UPDATE doc SET doc = '{"city": "London"}' WHERE id = 2 AND path = '$.address.home';
UPDATE doc SET doc = '"de"' WHERE id = 1 AND path = '$.langs[#]';
-- Remove a subtree; later array elements move down.
DELETE FROM doc WHERE id = 1 AND path = '$.langs[0]';
SELECT id, doc FROM doc WHERE id IN (1, 2);
-- Leaves: one row per key, so documents can be filtered by a field.
CREATE VIRTUAL TABLE doc_leaves USING tuplekv_leaves(doc);
SELECT id, path, type, value FROM doc_leaves WHERE id = 3;
SELECT d.doc FROM doc_leaves l JOIN doc d ON d.id = l.id AND d.path = '$.name'
 WHERE l.path = '$.region' AND l.value = 'EU';
-- Bad input is an error and changes nothing.
UPDATE doc SET doc = '{"x":' WHERE id = 3;
