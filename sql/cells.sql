-- tuplekv_cells: the data-modeling guide's table of cells, three ways.
-- Run with: sqlite3 :memory: -cmd '.load build/release/tuplekv' < sql/cells.sql
-- Each cell (row, col) -> value is one key; unassigned cells take no space.

-- Row-oriented: pack((S, row, col)) -> pack((value,)). A row is one prefix.
CREATE VIRTUAL TABLE sheet USING tuplekv_cells(layout=row);
INSERT INTO sheet VALUES (1, 'name', 'Ada'), (1, 'born', 1815), (1, 'field', 'math'),
                         (2, 'name', 'Alan'), (2, 'born', 1912),
                         (3, 'name', 'Grace'), (3, 'field', 'compilers');
-- The stored keys, decoded.
SELECT tuple_repr(k), tuple_repr(v) FROM sheet_kv;
-- A row as a JSON object: one prefix scan of (sheet, 1).
SELECT json_group_object(col, value) FROM sheet WHERE row = 1;
-- One cell: a point lookup.
SELECT value FROM sheet WHERE row = 2 AND col = 'born';
-- "Set row 2": replace all its cells in one transaction.
BEGIN;
DELETE FROM sheet WHERE row = 2;
INSERT OR REPLACE INTO sheet VALUES (2, 'name', 'Alan Turing'), (2, 'field', 'computing');
COMMIT;
SELECT json_group_object(col, value) FROM sheet WHERE row = 2;
-- 2 and 2.0 are the same row, as in any SQLite table.
SELECT count(*) FROM sheet WHERE row = 2.0;

-- Column-oriented: pack((S, col, row)). A column is one prefix.
CREATE VIRTUAL TABLE bycol USING tuplekv_cells(layout=column);
INSERT INTO bycol SELECT row, col, value FROM sheet;
SELECT tuple_repr(k) FROM bycol_kv WHERE k < tuple_pack('bycol', 'c');
SELECT json_group_object(row, value) FROM bycol WHERE col = 'name';

-- Both: pack((S, 'row_idx', row, col)) and pack((S, 'col_idx', col, row)),
-- written and deleted together; rows and columns are both prefix scans.
CREATE VIRTUAL TABLE grid USING tuplekv_cells(layout=both, subspace=people);
INSERT INTO grid SELECT row, col, value FROM sheet;
SELECT tuple_repr(k) FROM grid_kv WHERE k >= tuple_pack('people', 'row_idx', 3);
SELECT row, value FROM grid WHERE col = 'field';
SELECT json_group_object(col, value) FROM grid WHERE row = 3;
DELETE FROM grid WHERE row = 3;
SELECT count(*) FROM grid_kv;
