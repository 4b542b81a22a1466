-- tuplekv_table: users with a secondary ("region") index, the guide's
-- index pattern, kept in step with the rows in the same transaction.
-- Run with: sqlite3 :memory: -cmd '.load build/release/tuplekv' < sql/table_users.sql
-- (not with -bail: some statements fail on purpose, to show the error;
-- the shell reports each as "Runtime error near line N: <message>", which
-- sql/table_users.expected writes as "error: <message>")
--   row    pack(('user', user_id))               = pack((name, region))
--   index  pack(('region_idx', region, user_id)) = ''
CREATE VIRTUAL TABLE users USING tuplekv_table(
    user_id INTEGER, name TEXT, region TEXT,
    PRIMARY KEY(user_id), INDEX region_idx(region), subspace=user);

INSERT INTO users VALUES (1, 'ann', 'eu'), (2, 'bob', 'us'), (3, 'cyd', 'eu'), (4, 'dee', 'ap');
SELECT tuple_repr(k), tuple_repr(v) FROM users_kv;

-- Users in a region: the index gives the keys, then each row is read.
SELECT user_id, name FROM users WHERE region = 'eu';
-- Only the key and the region: answered by the index entries alone, in
-- index order (region, then key), as SQLite reads its own index.
SELECT user_id FROM users WHERE region IN ('ap', 'us');
-- Moving a user to another region moves the index entry with the row.
UPDATE users SET region = 'us' WHERE user_id = 3;
SELECT region, group_concat(name) FROM users GROUP BY region ORDER BY region;
-- Changing a key moves the row and its index entry.
UPDATE users SET user_id = 10 WHERE user_id = 1;
SELECT user_id, name FROM users ORDER BY user_id;
-- A failing statement leaves rows and index as they were.
INSERT INTO users VALUES (5, 'eve', 'eu'), (2, 'dup', 'eu');
SELECT count(*) FROM users WHERE region = 'eu';
-- Rolled back work leaves nothing behind either.
BEGIN;
DELETE FROM users WHERE region = 'us';
ROLLBACK;
SELECT count(*) FROM users;
SELECT tuplekv_check('users');

-- Case-insensitive keys: under COLLATE NOCASE 'Ann@Example.org' and
-- 'ann@example.ORG' are one key. The key holds the folded text, the row
-- the text as written, which is what reads return.
CREATE VIRTUAL TABLE logins USING tuplekv_table(email TEXT COLLATE NOCASE PRIMARY KEY, user_id INTEGER);
INSERT INTO logins VALUES ('Ann@Example.org', 10);
INSERT INTO logins VALUES ('ann@example.ORG', 99);
SELECT email, user_id FROM logins WHERE email = 'ANN@EXAMPLE.ORG';
SELECT tuple_repr(k), tuple_repr(v) FROM logins_kv;
