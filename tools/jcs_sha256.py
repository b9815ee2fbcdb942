#!/usr/bin/env python3
"""Recompute RFC 8785 (JCS) SHA-256 hashes of JSON objects, independently of pledge.

Reads JSON Lines (one JSON value per line; empty lines are skipped) and prints, per line,
`LINE<TAB>SHA256` where SHA256 is the lowercase hex SHA-256 of the RFC 8785 canonical form of
the selected value. With --expect KEY the line also says `ok` or `MISMATCH` (the selected object's
KEY compared with the hash) and the exit status is 1 if any line mismatches.

  --select KEY   hash value[KEY] instead of the whole line (e.g. `entry` for an export line)
  --drop KEY     remove KEY from the selected object before hashing (repeatable; e.g.
                 `entry_sha256`, which is not part of the hashed form)
  --expect KEY   compare with the selected object's KEY (read before --drop removes it)
  --impl NAME    `stdlib` (this file's own implementation, standard library only),
                 `rfc8785` (the PyPI package of that name), or `auto` (rfc8785 when installed,
                 else stdlib; the default)

Exit status: 0 all hashed (and matched), 1 a mismatch, 2 bad input (file and line named).

The standard-library implementation follows RFC 8785 section 3.2: members sorted by the UTF-16
code units of their names; strings escaped as ECMAScript's JSON.stringify does; numbers parsed as
IEEE 754 doubles and written as ECMAScript's Number.prototype.toString does (shortest round-trip
digits from Python's repr, placed by ECMA-262 section 7.1.12.1). I-JSON rules are enforced: no
duplicate member names, no NaN/Infinity, no lone surrogates, numbers within double range.
"""

import argparse
import hashlib
import json
import math
import sys


class InputError(Exception):
    pass


def _no_constants(name):
    raise InputError("%s is not JSON (RFC 8785 admits finite numbers only)" % name)


def _unique_pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise InputError("duplicate member name %r (I-JSON forbids it)" % k)
        out[k] = v
    return out


def _parse_float(text):
    x = float(text)
    if math.isinf(x):
        raise InputError("number %s is outside the IEEE 754 double range" % text)
    return x


def loads(text):
    return json.loads(
        text,
        object_pairs_hook=_unique_pairs,
        parse_constant=_no_constants,
        parse_float=_parse_float,
        parse_int=lambda s: _parse_float(s),
    )


def es_number(x):
    """ECMAScript Number::toString for a finite double."""
    if x != x or math.isinf(x):
        raise InputError("NaN and infinities are not JSON")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    r = repr(abs(x))  # shortest digits that round-trip, e.g. '1e+21', '5e-324', '0.001'
    if "e" in r:
        mant, exp = r.split("e")
        exp = int(exp)
    else:
        mant, exp = r, 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    digits = (ip + fp).lstrip("0")
    # Position of the decimal point relative to the first significant digit.
    lead_zeros = len(ip + fp) - len((ip + fp).lstrip("0"))
    n = len(ip) - lead_zeros + exp
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    es = ("+" if e >= 0 else "-") + str(abs(e))
    if k == 1:
        return sign + digits + "e" + es
    return sign + digits[0] + "." + digits[1:] + "e" + es


_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def es_string(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if 0xD800 <= o <= 0xDFFF:
            raise InputError("lone surrogate U+%04X (RFC 8785 requires valid Unicode)" % o)
        if ch in _ESC:
            out.append(_ESC[ch])
        elif o < 0x20:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canonical(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return es_number(float(v))
    if isinstance(v, str):
        return es_string(v)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v.keys(), key=lambda k: k.encode("utf-16-be", "surrogatepass"))
        return "{" + ",".join(es_string(k) + ":" + canonical(v[k]) for k in keys) + "}"
    raise InputError("not a JSON value: %r" % (v,))


def stdlib_dumps(v):
    return canonical(v).encode("utf-8")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--select")
    ap.add_argument("--drop", action="append", default=[])
    ap.add_argument("--expect")
    ap.add_argument("--impl", choices=["auto", "stdlib", "rfc8785"], default="auto")
    a = ap.parse_args(argv)
    dumps = stdlib_dumps
    name = "stdlib"
    if a.impl in ("auto", "rfc8785"):
        try:
            import rfc8785  # noqa: F401

            dumps = rfc8785.dumps
            name = "rfc8785"
        except ImportError:
            if a.impl == "rfc8785":
                print("error: the rfc8785 package is not installed (pip install rfc8785)", file=sys.stderr)
                return 2
    bad = 0
    try:
        with open(a.file, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        print("error: %s: %s" % (a.file, e), file=sys.stderr)
        return 2
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            v = loads(line)
            if a.select is not None:
                if not isinstance(v, dict) or a.select not in v:
                    raise InputError("no member %r to select" % a.select)
                v = v[a.select]
            expected = None
            if a.expect is not None:
                if not isinstance(v, dict) or not isinstance(v.get(a.expect), str):
                    raise InputError("no string member %r to compare with" % a.expect)
                expected = v[a.expect]
            if a.drop:
                if not isinstance(v, dict):
                    raise InputError("--drop needs an object")
                v = {k: x for k, x in v.items() if k not in a.drop}
            h = hashlib.sha256(dumps(v)).hexdigest()
        except (InputError, ValueError, UnicodeEncodeError) as e:
            print("error: %s:%d: %s" % (a.file, no, e), file=sys.stderr)
            return 2
        except Exception as e:  # the rfc8785 package's own errors (e.g. integer range)
            print("error: %s:%d: %s: %s" % (a.file, no, name, e), file=sys.stderr)
            return 2
        if expected is None:
            print("%d\t%s" % (no, h))
        else:
            ok = h == expected
            bad += 0 if ok else 1
            print("%d\t%s\t%s" % (no, h, "ok" if ok else "MISMATCH"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
