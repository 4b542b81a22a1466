-- tuplekv_table: county populations by state, the guide's composite key.
-- Run with: sqlite3 :memory: -cmd '.load build/release/tuplekv' < sql/table_counties.sql
-- (not with -bail: some statements fail on purpose, to show the error;
-- the shell reports each as "Runtime error near line N: <message>", which
-- sql/table_counties.expected writes as "error: <message>")
-- The key pack(('county', state, county)) puts a state's counties next to
-- each other, so everything about one state is one prefix scan.
CREATE VIRTUAL TABLE county USING tuplekv_table(
    state TEXT, county TEXT, population INTEGER NOT NULL,
    PRIMARY KEY(state, county));

INSERT INTO county VALUES
  ('CA', 'Alameda', 1682353), ('CA', 'Los Angeles', 10014009), ('CA', 'Alpine', 1204),
  ('NV', 'Clark', 2265461), ('NV', 'Washoe', 486492), ('NV', 'Esmeralda', 729),
  ('OR', 'Multnomah', 815428);
SELECT tuple_repr(k), tuple_repr(v) FROM county_kv LIMIT 3;

-- One state's counties, in key order.
SELECT county, population FROM county WHERE state = 'NV';
-- A state's total, and every state's total.
SELECT sum(population) FROM county WHERE state = 'CA';
SELECT state, sum(population), count(*) FROM county GROUP BY state;
-- Counties of a state by name prefix: a LIKE on a key column is a range.
SELECT county FROM county WHERE state = 'CA' AND county LIKE 'al%';
-- A county key cannot repeat, and the population must be an integer.
INSERT INTO county VALUES ('CA', 'Alpine', 1);
INSERT INTO county VALUES ('CA', 'Inyo', 'many');
INSERT INTO county VALUES ('CA', 'Inyo', '18718');
SELECT population, typeof(population) FROM county WHERE state = 'CA' AND county = 'Inyo';
-- The largest counties, across states.
SELECT state, county FROM county ORDER BY population DESC LIMIT 3;
