-- ETL: load a JSON-lines file (one document per line) into tuplekv_docs.
-- Run from the repository root with the sqlite3 shell (readfile() is a shell function):
--   sqlite3 :memory: -cmd '.load build/release/tuplekv' < sql/docs_etl.sql
CREATE VIRTUAL TABLE events USING tuplekv_docs(subspace=events);
-- Split the file on newlines; each non-empty line is one document (id 1, 2, ...).
WITH RECURSIVE lines(line, rest) AS (
  SELECT NULL, CAST(readfile('sql/docs_etl.jsonl') AS TEXT) || char(10)
  UNION ALL
  SELECT substr(rest, 1, instr(rest, char(10)) - 1), substr(rest, instr(rest, char(10)) + 1)
    FROM lines WHERE rest <> ''
)
INSERT INTO events(doc) SELECT line FROM lines WHERE trim(ifnull(line, '')) <> '';
SELECT count(*) FROM events;
-- One field of every document, without reading the rest of each.
SELECT id, doc FROM events WHERE path = '$.event';
-- Leaves make fields queryable: who signed up, on which plan.
CREATE VIRTUAL TABLE event_leaves USING tuplekv_leaves(events);
SELECT u.value AS user, p.value AS plan
  FROM event_leaves e
  JOIN event_leaves u ON u.id = e.id AND u.path = '$.user'
  JOIN event_leaves p ON p.id = e.id AND p.path = '$.plan.name'
 WHERE e.path = '$.event' AND e.value = 'signup';
-- Revenue of the purchases: every leaf under $.items, grouped per item.
SELECT sum(q.value * p.value)
  FROM event_leaves q JOIN event_leaves p
    ON p.id = q.id AND p.path = replace(q.path, '.qty', '.price')
 WHERE q.prefix = '$.items' AND q.path LIKE '%.qty';
-- Export back to JSON lines (members come back sorted by name).
SELECT doc FROM events WHERE id <= 2;
