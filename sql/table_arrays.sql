-- tuplekv_table as the guide's arrays: temps2012, one temperature per day
-- of 2012, keyed by the day's index; and a sparse 3-dimensional array.
-- Run with: sqlite3 :memory: -cmd '.load build/release/tuplekv' < sql/table_arrays.sql
-- (not with -bail: some statements fail on purpose, to show the error;
-- the shell reports each as "Runtime error near line N: <message>", which
-- sql/table_arrays.expected writes as "error: <message>")
-- Element i of the array is the key pack(('temps2012', i)) with the value
-- pack((temp,)), so a slice of days is one range scan.
CREATE VIRTUAL TABLE temps2012 USING tuplekv_table(day INTEGER, temp REAL, PRIMARY KEY(day));

-- The first ten days (temperatures in °C).
INSERT INTO temps2012 VALUES (0, 2.5), (1, 5.0), (2, 5.2), (3, 2.9), (4, 0.2), (5, -0.4),
                             (6, 1.7), (7, 4.5), (8, 5.5), (9, 3.7);
SELECT tuple_repr(k), tuple_repr(v) FROM temps2012_kv WHERE k < tuple_pack('temps2012', 3);

-- temps2012[4]: a point lookup.
SELECT temp FROM temps2012 WHERE day = 4;
-- A slice, days 2..5, and the same slice backwards (a reverse scan).
SELECT day, temp FROM temps2012 WHERE day BETWEEN 2 AND 5;
SELECT day FROM temps2012 WHERE day BETWEEN 2 AND 5 ORDER BY day DESC;
-- Integers go into a REAL column as reals, as in a STRICT table.
UPDATE temps2012 SET temp = 4 WHERE day = 4;
SELECT temp, typeof(temp) FROM temps2012 WHERE day = 4;
-- A value the column cannot hold is refused, naming the column.
INSERT INTO temps2012 VALUES (10, 'warm');
SELECT count(*), round(avg(temp), 2) FROM temps2012;

-- A sparse 3-D array: only the cells that hold a value are stored.
CREATE VIRTUAL TABLE grid USING tuplekv_table(x INTEGER, y INTEGER, z INTEGER, value ANY,
                                              PRIMARY KEY(x, y, z));
INSERT INTO grid VALUES (0, 0, 0, 'origin'), (1, 2, 3, 42), (1, 2, 4, 4.5), (1, 3, 0, x'01'),
                        (2, 0, 0, NULL);
-- One plane (x = 1), and one line in it (x = 1, y = 2): prefix scans.
SELECT y, z, quote(value) FROM grid WHERE x = 1;
SELECT z, value, typeof(value) FROM grid WHERE x = 1 AND y = 2 ORDER BY z DESC;
