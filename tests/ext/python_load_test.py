#!/usr/bin/env python3
"""The loadable module through Python's sqlite3 module, the way ETL scripts
use it: enable_load_extension + load_extension, then SQL with bound
parameters.

    python3 tests/ext/python_load_test.py <build dir>/tuplekv

The argument is the module path without its suffix, as `.load` takes it.
Run by CTest; fails (never skips) when this python3 cannot load extensions.
It also checks the JSON form against Python's own json module: doubles are
spelled as json.dumps / repr spells them, and every value reads back equal.
"""
import json
import math
import sqlite3
import struct
import sys
import unittest

MODULE = None


def connect():
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(MODULE)
    conn.enable_load_extension(False)
    return conn


class LoadExtensionTest(unittest.TestCase):
    def setUp(self):
        self.conn = connect()

    def tearDown(self):
        self.conn.close()

    def one(self, sql, *params):
        return self.conn.execute(sql, params).fetchone()[0]

    def test_pack_returns_bytes_and_unpack_json(self):
        packed = self.one("SELECT tuple_pack(?, ?, ?, ?)", "CA", 42, 1.5, None)
        self.assertIsInstance(packed, bytes)
        self.assertEqual(packed.hex(), "024341001" "52a21bff800000000000000")
        self.assertEqual(json.loads(self.one("SELECT tuple_unpack(?)", packed)),
                         ["CA", 42, 1.5, None])
        self.assertEqual(self.one("SELECT tuple_repr(?)", packed), "('CA', 42, 1.5, None)")

    def test_bytes_parameters_are_bytes_elements(self):
        packed = self.one("SELECT tuple_pack(?)", b"\x00\xff")
        self.assertEqual(packed, b"\x01\x00\xff\xff\x00")
        self.assertEqual(json.loads(self.one("SELECT tuple_unpack(?)", packed)),
                         [{"$bytes": "00ff"}])

    def test_pack_json_is_the_inverse(self):
        for text in ['[]', '["a",[1,[null]],true,{"$float":0.1}]',
                     '[18446744073709551616,-1e+300,{"$double":"nan"}]',
                     '[{"$uuid":"00112233445566778899aabbccddeeff"},'
                     '{"$versionstamp":"ffffffffffffffffffff0001"},{"$user":64,"data":"ab"}]']:
            packed = self.one("SELECT tuple_pack_json(?)", text)
            self.assertEqual(self.one("SELECT tuple_unpack(?)", packed), text)

    def test_doubles_are_spelled_as_python_spells_them(self):
        values = [0.0, 1.0, -2.5, 0.1, 1e16, 1e15, 1e-5, 1e-4, 123456789012345680000.0,
                  5e-324, 1.7976931348623157e308, 2.0 ** 53 + 2, 1 / 3]
        for v in values:
            text = self.one("SELECT tuple_unpack(tuple_pack(?))", v)
            self.assertEqual(text, "[" + json.dumps(v) + "]")
            self.assertEqual(json.loads(text)[0], v)
        # Special values come back tagged, with their exact bits.
        self.assertEqual(self.one("SELECT tuple_unpack(tuple_pack(-0.0))"),
                         '[{"$double":"-0.0"}]')
        nan = struct.unpack(">d", bytes.fromhex("7ff8000000000001"))[0]
        self.assertTrue(math.isnan(nan))
        raw = self.one("SELECT tuple_pack_json(?)", '[{"$double":"0x7ff8000000000001"}]')
        self.assertEqual(raw.hex(), "21fff8000000000001")

    def test_integers_keep_every_digit(self):
        for v in [0, -1, 2 ** 63 - 1, -2 ** 63, 2 ** 64, -2 ** 64, 2 ** 2040 - 1,
                  -(2 ** 2040 - 1)]:
            if -2 ** 63 <= v < 2 ** 63:
                packed = self.one("SELECT tuple_pack(?)", v)
            else:
                packed = self.one("SELECT tuple_pack(tuple_bigint(?))", str(v))
            self.assertEqual(json.loads(self.one("SELECT tuple_unpack(?)", packed)), [v])

    def test_strings_with_nul_and_unicode(self):
        s = "a\x00b \u00e9 \U0001f600"
        packed = self.one("SELECT tuple_pack(?)", s)
        text = self.one("SELECT tuple_unpack(?)", packed)
        self.assertIn("\\u0000", text)
        self.assertEqual(json.loads(text), [s])

    def test_tuple_each_rows(self):
        rows = self.conn.execute(
            "SELECT idx, type, value FROM tuple_each(tuple_pack('x', 7, 2.5, x'00'))").fetchall()
        self.assertEqual(rows, [(0, "string", "x"), (1, "int", 7), (2, "double", 2.5),
                                (3, "bytes", b"\x00")])

    def test_etl_insert_and_range_scan(self):
        c = self.conn
        c.execute("CREATE TABLE kv(k BLOB PRIMARY KEY, v) WITHOUT ROWID")
        rows = [("CA", "Alameda", 1), ("CA", "Berkeley", 2), ("NY", "Albany", 3)]
        c.executemany("INSERT INTO kv VALUES (tuple_pack(?, ?), ?)", rows)
        got = c.execute("SELECT tuple_unpack(k), v FROM kv WHERE k >= tuple_pack('CA') "
                        "AND k < tuple_range_end(tuple_pack('CA')) ORDER BY k").fetchall()
        self.assertEqual(got, [('["CA","Alameda"]', 1), ('["CA","Berkeley"]', 2)])

    def test_errors_are_operational_errors_naming_the_function(self):
        cases = [
            ("SELECT tuple_unpack(?)", b"\x15\x01\xff",
             "tuple_unpack: malformed tuple: unknown type code at byte 2 (type code 0xff)"),
            ("SELECT tuple_unpack(?)", "text", "tuple_unpack: argument must be a BLOB, got TEXT"),
            ("SELECT tuple_pack_json(?)", "[1,",
             "tuple_pack_json: invalid JSON at byte 3: unclosed array or object at the end of "
             "the input"),
            ("SELECT * FROM tuple_each(?)", 7,
             "tuple_each: argument must be a BLOB (a packed tuple), got INTEGER"),
        ]
        for sql, arg, message in cases:
            with self.assertRaises(sqlite3.OperationalError) as cm:
                self.conn.execute(sql, (arg,)).fetchall()
            self.assertEqual(str(cm.exception), message)

    def test_random_blobs_give_results_or_errors(self):
        import random
        rng = random.Random(8)
        codes = [0x00, 0x01, 0x02, 0x05, 0x0b, 0x0c, 0x14, 0x15, 0x1c, 0x1d, 0x20, 0x21,
                 0x26, 0x27, 0x30, 0x33, 0x40, 0xff]
        for _ in range(3000):
            blob = bytes(rng.choice(codes) if rng.random() < 0.6 else rng.randrange(256)
                         for _ in range(rng.randrange(24)))
            try:
                text = self.one("SELECT tuple_unpack(?)", blob)
            except sqlite3.OperationalError as e:
                self.assertTrue(str(e).startswith("tuple_unpack: malformed tuple: "), str(e))
                continue
            json.loads(text)  # always valid JSON
            again = self.one("SELECT tuple_pack_json(?)", text)
            self.assertTrue(again == blob or len(again) < len(blob), blob.hex())


def main():
    global MODULE
    if len(sys.argv) < 2:
        sys.exit("usage: python_load_test.py <module path without suffix>")
    MODULE = sys.argv.pop(1)
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        sys.exit("FAIL: this python3 (%s) was built without sqlite3 extension loading "
                 "(enable_load_extension is missing); use Debian's python3" % sys.executable)
    unittest.main(verbosity=2)


if __name__ == "__main__":
    main()
