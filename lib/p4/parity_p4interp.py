# SPDX-License-Identifier: BSD-3-Clause
"""A small interpreter of the P4 statements the queued-mode parity checks run
(parity_queue.py, parity_qlock.py): RegisterAction bodies and control apply
blocks made of if / else if / else, assignments and calls, with conditions
over fields, slices, constants, masks and unsigned compares. Also the
LCF_QUEUE preprocessing of a source (the two builds). Standard library only.
"""
import functools
import re


def preprocess(src, queue):
    """`src` with every `#if LCF_QUEUE` block resolved for LCF_QUEUE=queue
    (other directives are kept)."""
    out, stack = [], []
    for line in src.split("\n"):
        s = line.strip()
        if s.startswith("#if"):
            stack.append((s == "#if LCF_QUEUE", bool(queue) if s == "#if LCF_QUEUE" else True))
            if s == "#if LCF_QUEUE":
                continue
        elif s.startswith("#else") and stack and stack[-1][0]:
            stack[-1] = (True, not stack[-1][1])
            continue
        elif s.startswith("#endif") and stack:
            mine, _ = stack.pop()
            if mine:
                continue
        if all(on for _, on in stack):
            out.append(line)
    return "\n".join(out)


def _balanced(s, i, op, cl):
    """Index after the bracket that closes the one at s[i]."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == op:
            depth += 1
        elif s[j] == cl:
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError("unbalanced %s in %r" % (op, s[i:i + 60]))


@functools.lru_cache(maxsize=None)
def parse(s):
    """Statements of a block body: ("if", [(cond, stmts), ...], else_stmts)
    or ("stmt", text)."""
    out, i = [], 0
    while True:
        m = re.compile(r"\s*").match(s, i)
        i = m.end()
        if i >= len(s):
            return out
        if re.match(r"if\s*\(", s[i:]):
            arms, els = [], []
            while True:
                p = s.index("(", i)
                q = _balanced(s, p, "(", ")")
                b = s.index("{", q)
                e = _balanced(s, b, "{", "}")
                arms.append((s[p + 1:q - 1], parse(s[b + 1:e - 1])))
                i = e
                m = re.compile(r"\s*else\s*").match(s, i)
                if not m:
                    break
                i = m.end()
                if re.match(r"if\s*\(", s[i:]):
                    continue
                b = s.index("{", i)
                e = _balanced(s, b, "{", "}")
                els = parse(s[b + 1:e - 1])
                i = e
                break
            out.append(("if", tuple(arms), tuple(els)))
        elif s[i] == "{":
            e = _balanced(s, i, "{", "}")
            out.extend(parse(s[i + 1:e - 1]))
            i = e
        else:
            j = s.index(";", i)
            out.append(("stmt", s[i:j].strip()))
            i = j + 1


def expr(e, consts):
    """A P4 expression as Python over F(name)."""
    e = re.sub(r"\s+", " ", e).strip()
    e = re.sub(r"\b(\d+)w(0x[0-9a-fA-F]+|\d+)", r"\2", e)
    e = re.sub(r"([A-Za-z_][\w.]*)\[(\d+):(\d+)\]",
               lambda m: "((F('%s') >> %s) & %d)" % (m.group(1), m.group(3),
                                                     (1 << (int(m.group(2)) - int(m.group(3)) + 1)) - 1),
               e)

    def name(m):
        n = m.group(0)
        if n in consts:
            return str(consts[n])
        if n in ("and", "or", "not", "F"):
            return n
        if re.fullmatch(r"[A-Z][A-Z0-9_]+", n):
            return "0"      # a constant of another type (ResubmitType_t, ...)
        return "F('%s')" % n
    e = re.sub(r"(?<!['\w.])[A-Za-z_][\w.]*(?![\w'(])", name, e)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    return e


def part_width(p, widths):
    """Width of one operand of a P4 concatenation."""
    m = re.fullmatch(r"(\d+)w(0x[0-9a-fA-F]+|\d+)", p)
    if m:
        return int(m.group(1))
    m = re.fullmatch(r"[\w.]+\[(\d+):(\d+)\]", p)
    if m:
        return int(m.group(1)) - int(m.group(2)) + 1
    return widths[p]


def run(stmts, consts, env, width=32, calls=None, widths=None):
    """Execute parsed statements on env (a dict of field -> int); calls
    (`x();`, `t.apply();`) are appended to `calls`. Assignments are masked
    to `width` bits; a concatenation takes its operands' widths from their
    form or `widths`."""
    calls = [] if calls is None else calls
    mask = (1 << width) - 1

    def F(n):
        if n not in env:
            raise KeyError(n)
        return env[n]

    def val(e):
        if "++" in e:
            v = 0
            for p in (x.strip() for x in e.split("++")):
                w = part_width(p, widths or {})
                v = v << w | (eval(_code(p, consts), {"F": F}) & ((1 << w) - 1))
            return v
        return eval(_code(e, consts), {"F": F})

    for st in stmts:
        if st[0] == "if":
            for cond, body in st[1]:
                if val(cond):
                    run(body, consts, env, width, calls, widths)
                    break
            else:
                run(st[2], consts, env, width, calls, widths)
            continue
        text = st[1]
        m = re.fullmatch(r"([\w.]+)\s*=\s*([^=].*)", text, re.S)
        if m:
            env[m.group(1)] = val(m.group(2)) & mask
            continue
        m = re.fullmatch(r"([\w.]+)\s*\((.*)\)", text, re.S)
        if m:
            calls.append((m.group(1), m.group(2).strip()))
            continue
        raise ValueError("statement not understood: %r" % text)
    return env, calls


_CODE = {}


def _code(e, consts):
    k = (e, id(consts))
    if k not in _CODE:
        _CODE[k] = compile(expr(e, consts), "<p4>", "eval")
    return _CODE[k]


def ra_bodies(src, reg):
    """{name: body} of the RegisterActions on register `reg`."""
    out = {}
    for m in re.finditer(r"RegisterAction<[^(]*>\(%s\)\s*(\w+)\s*=\s*\{\s*void\s+apply"
                         r"\([^)]*\)\s*\{" % reg, src):
        b = m.end() - 1
        out[m.group(1)] = src[b + 1:_balanced(src, b, "{", "}") - 1]
    return out


def control_apply(src, control):
    """The apply block's body of `control NAME`."""
    m = re.search(r"control\s+%s\b" % re.escape(control), src)
    if not m:
        return None
    a = re.compile(r"\n    apply\s*\{").search(src, m.end())
    if not a:
        return None
    b = a.end() - 1
    return src[b + 1:_balanced(src, b, "{", "}") - 1]


def const_widths(src):
    """{name: width} of the `const bit<N> NAME` declarations."""
    return {m.group(2): int(m.group(1))
            for m in re.finditer(r"const\s+bit<(\d+)>\s+(\w+)\s*=", src)}
