# SPDX-License-Identifier: BSD-3-Clause
"""Source readers of check_parity.py: the report, a P4 const-entry table
evaluator and small C parsers (regular expressions, no compiler).
Standard library only."""
import re

# ---------------------------------------------------------------- helpers --


class FirstFailure(BaseException):
    """Raised by Report.fail with first_failure set: the rest is skipped."""


class Report:
    def __init__(self, quiet, first_failure=False):
        self.quiet = quiet
        self.first_failure = first_failure
        self.errors = []
        self.checked = []

    def ok(self, what):
        self.checked.append(what)
        if not self.quiet:
            print("  ok   %s" % what)

    def fail(self, what, lines):
        self.errors.append(what)
        print("  FAIL %s" % what)
        for ln in lines:
            print("         %s" % ln)
        if self.first_failure:
            raise FirstFailure()

    def compare(self, what, left_name, left, right_name, right):
        """Compare two dicts key -> value; report every difference."""
        diff = []
        for k in sorted(set(left) | set(right), key=str):
            a = left.get(k, "<missing>")
            b = right.get(k, "<missing>")
            if a != b:
                diff.append("%-28s %s: %-24s %s: %s" %
                            (k, left_name, fmt(a), right_name, fmt(b)))
        if diff:
            self.fail(what, diff)
        else:
            self.ok("%s (%d items)" % (what, len(left)))


def fmt(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return "0x%x" % v if v > 9 else str(v)
    return str(v)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def strip_c_comments(s):
    s = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), s,
               flags=re.S)
    return re.sub(r"//[^\n]*", "", s)


def parse_int(tok):
    """P4 or C integer literal: 0x1f, 12, 32w0x80, 8w3, 0x9e3779b9u."""
    tok = tok.strip()
    m = re.fullmatch(r"(?:\d+[ws])?(0x[0-9a-fA-F]+|\d+)[uUlL]*", tok)
    if not m:
        raise ValueError("not an integer literal: %r" % tok)
    return int(m.group(1), 0)


def c_function(src, name):
    """Body of the C function `name` (text between its outer braces)."""
    m = re.search(r"\n[a-z_ \t]*\b%s\s*\([^;{]*\)\s*\{" % re.escape(name), src)
    if not m:
        return None
    i = m.end()
    depth = 1
    while depth and i < len(src):
        if src[i] == "{":
            depth += 1
        elif src[i] == "}":
            depth -= 1
        i += 1
    return src[m.end():i - 1]


def c_macro(src, name):
    """Body of a multi-line #define NAME(X) ... (continuations joined)."""
    m = re.search(r"#define\s+%s\(X\)((?:[^\n]*\\\n)*[^\n]*)" % name, src)
    if not m:
        return None
    return m.group(1).replace("\\\n", " ")


# ------------------------------------------------------------ P4 parsing --


class P4:
    def __init__(self, texts):
        self.raw = "\n".join(texts)
        self.src = strip_c_comments(self.raw)
        self.consts = {}
        for m in re.finditer(r"const\s+bit<(\d+)>\s+(\w+)\s*=\s*([^;]+);",
                             self.src):
            try:
                self.consts[m.group(2)] = parse_int(m.group(3))
            except ValueError:
                pass
        # trailing comment names: const ... NAME = v;   // name
        self.const_comment = {}
        for m in re.finditer(r"const\s+bit<\d+>\s+(\w+)\s*=\s*[^;]+;\s*//\s*(\S+)",
                             self.raw):
            self.const_comment[m.group(1)] = m.group(2)

    def header(self, name):
        m = re.search(r"header\s+%s\s*\{([^}]*)\}" % re.escape(name), self.src)
        if not m:
            return None
        fields = []
        for fm in re.finditer(r"bit<(\d+)>\s+(\w+)\s*;", m.group(1)):
            fields.append((fm.group(2), int(fm.group(1))))
        return fields

    def value(self, tok):
        tok = tok.strip()
        if tok in self.consts:
            return self.consts[tok]
        if tok in ("true", "false"):
            return tok == "true"
        return parse_int(tok)

    def pattern(self, tok):
        """A key pattern as a predicate on an int."""
        tok = tok.strip()
        if tok == "_":
            return ("any",)
        if "&&&" in tok:
            v, m = tok.split("&&&")
            return ("mask", self.value(v), self.value(m))
        if ".." in tok:
            a, b = tok.split("..")
            return ("range", self.value(a.strip().strip("()")),
                    self.value(b.strip().strip("()")))
        return ("eq", self.value(tok))

    def entries(self, table):
        """[(patterns, action, args)] of `table NAME`'s const entries."""
        m = re.search(r"\btable\s+%s\s*\{" % re.escape(table), self.src)
        if not m:
            return None
        e = re.search(r"const\s+entries\s*=\s*\{", self.src[m.end():])
        if not e:
            return None
        i = m.end() + e.end()
        depth = 1
        j = i
        while depth:
            if self.src[j] == "{":
                depth += 1
            elif self.src[j] == "}":
                depth -= 1
            j += 1
        body = self.src[i:j - 1]
        out = []
        for em in re.finditer(r"\(([^:]*?)\)\s*:\s*(\w+)\s*\(([^)]*)\)\s*;",
                              body, flags=re.S):
            keys = split_top(em.group(1))
            pats = [self.pattern(k) for k in keys]
            args = [a.strip() for a in em.group(3).split(",") if a.strip()]
            out.append((pats, em.group(2), args))
        return out

    def action_body(self, name):
        memo = self.__dict__.setdefault("_bodies", {})
        if name not in memo:
            memo[name] = self._action_body(name)
        return memo[name]

    def _action_body(self, name):
        m = re.search(r"\baction\s+%s\s*\([^)]*\)\s*\{" % re.escape(name),
                      self.src)
        if not m:
            return None
        i, depth = m.end(), 1
        j = i
        while depth:
            if self.src[j] == "{":
                depth += 1
            elif self.src[j] == "}":
                depth -= 1
            j += 1
        return self.src[i:j - 1]


def split_top(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def matches(pat, x):
    kind = pat[0]
    if kind == "any":
        return True
    if kind == "mask":
        return (x & pat[2]) == (pat[1] & pat[2])
    if kind == "range":
        return pat[1] <= x <= pat[2]
    return x == pat[1]


def first_match(entries, key):
    for pats, action, args in entries:
        if len(pats) != len(key):
            raise ValueError("entry has %d keys, expected %d" %
                             (len(pats), len(key)))
        if all(matches(p, x) for p, x in zip(pats, key)):
            return action, args
    return None, None

# ------------------------------------------------------------- C parsing --


C_WIDTH = {"uint8_t": 8, "uint16_t": 16, "uint32_t": 32, "uint64_t": 64,
           "int8_t": 8, "int16_t": 16, "int32_t": 32, "int64_t": 64}


def c_struct(src, name):
    m = re.search(r"struct\s+%s\s*\{([^}]*)\}" % re.escape(name), src)
    if not m:
        return None
    fields = []
    for fm in re.finditer(r"(\w+)\s+(\w+)(?:\[(\d+)\])?\s*;", m.group(1)):
        t, n, arr = fm.group(1), fm.group(2), fm.group(3)
        if t not in C_WIDTH:
            fields.append((n, None))
            continue
        fields.append((n, C_WIDTH[t] * (int(arr) if arr else 1)))
    return fields


def c_defines(src):
    d = {}
    for m in re.finditer(r"#define\s+(\w+)\s+(\(?[^\s/]+\)?)", src):
        v = m.group(2).strip("()")
        try:
            d[m.group(1)] = parse_int(v)
        except ValueError:
            d[m.group(1)] = v          # symbolic, resolved later
    return d


def c_enum_values(src, enum_name):
    m = re.search(r"enum\s+%s\s*\{([^}]*)\}" % re.escape(enum_name), src)
    if not m:
        return None
    vals, nxt = {}, 0
    for part in m.group(1).split(","):
        part = part.strip()
        if not part:
            continue
        if "=" in part:
            n, v = part.split("=")
            nxt = parse_int(v.strip())
            vals[n.strip()] = nxt
        else:
            vals[part] = nxt
        nxt += 1
    return vals


def offsets(fields):
    off, out = 0, {}
    for n, w in fields:
        out[n] = (off // 8 if off % 8 == 0 else off / 8.0, w)
        off += w if w else 0
    return out, off
