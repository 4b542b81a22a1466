-- tuplekv_multimap: the guide's multimap, `enroll` from student to classes.
-- Run with: sqlite3 :memory: -cmd '.load build/release/tuplekv' < sql/multimap.sql
-- Each pair is one key pack((S, student, class)) with an empty value;
-- reverse=1 also keeps pack((S, 'reverse', class, student)).
CREATE VIRTUAL TABLE enroll USING tuplekv_multimap(student, class, reverse=1);

-- add_class(student, class): INSERT OR IGNORE adds a pair once.
INSERT OR IGNORE INTO enroll VALUES ('alice', 'math'), ('alice', 'art'), ('bob', 'math'),
                                    ('carol', 'art'), ('alice', 'math');
SELECT tuple_repr(k), length(v) FROM enroll_kv;

-- get_classes(student): one prefix scan.
SELECT class FROM enroll WHERE student = 'alice';
-- Membership: one point lookup.
SELECT count(*) FROM enroll WHERE student = 'bob' AND class = 'art';
-- How many classes: counts keys without reading values.
SELECT count(*) FROM enroll WHERE student = 'alice';
-- Who takes math: a prefix scan of the reverse entries.
SELECT student FROM enroll WHERE class = 'math';
-- A plain INSERT of an existing pair is a constraint error (shown by the
-- changes() count staying 0 under OR IGNORE).
INSERT OR IGNORE INTO enroll VALUES ('bob', 'math');
SELECT changes();
-- drop_class(student, class)
DELETE FROM enroll WHERE student = 'alice' AND class = 'art';
SELECT student, class FROM enroll ORDER BY student, class;

-- Typed columns, as in tuplekv_table: values are coerced and checked as in
-- a STRICT table, and a lookup gets the column's affinity ('101' finds 101).
CREATE VIRTUAL TABLE rooms USING tuplekv_multimap(class TEXT, room INTEGER);
INSERT INTO rooms VALUES ('math', 101), ('math', '102'), ('art', 7.0);
SELECT class, room, typeof(room) FROM rooms ORDER BY class, room;
SELECT class FROM rooms WHERE room = '101';
-- INSERT INTO rooms VALUES ('art', 'studio') fails with
--   cannot store TEXT value in INTEGER column rooms.room
SELECT count(*) FROM rooms WHERE class = 'math';
