#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""uapi-ref.py - the ABI reference of /dev/twheel, from uapi/linux/twheel.h

The header's comments are the one source of the reference: its kernel-doc
(struct twheel_* with an @field line per member) and the comment above each
#define. Two uses:

  uapi-ref.py rst HEADER
      print the reference as reStructuredText (constants, then structures
      with their layout and fields); man/Makefile puts it into twheel(4) in
      place of the line ".. uapi-reference::".

  uapi-ref.py check HEADER --lib HEADER... --complete DOC... --names DOC...
      fail (exit 1, one line per problem) when a constant, an ioctl, a
      structure or a field of HEADER is missing from a --complete document
      (a field counts when ``field`` or ``struct.field`` appears in it), or
      when a --names document names a TWHEEL_* constant, a struct twheel_*
      or a twheel_*.field that neither HEADER nor a --lib header defines
      (TWHEEL_X_* must match at least one name).
"""
import re
import sys

DEFINE = re.compile(r'^#define\s+(TWHEEL_\w+)\s*(.*)$')
STRUCT_DOC = re.compile(r'^\s*\*\s*struct\s+(twheel_\w+)\s*-\s*(.*)$')
FIELD_DOC = re.compile(r'^\s*\*\s*@(\w+):\s*(.*)$')
MEMBER = re.compile(r'^\s*(__[us]\d+)\s+(\w+)(\[\w+\])?;')


def comment_text(lines):
    """The words of a /* ... */ block given as its lines."""
    out = []
    for ln in lines:
        ln = ln.strip()
        ln = re.sub(r'^/\*+', '', ln)
        ln = re.sub(r'\*+/$', '', ln)
        ln = re.sub(r'^\*', '', ln)
        if ln.strip():
            out.append(ln.strip())
    return ' '.join(out)


def parse(path):
    """Constants [(name, value, doc)], structures [(name, desc, members, docs, text)]."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    defines, structs = [], []
    pending = []        # the comment block just above, if any
    group = ''          # the first comment after a blank line: its group's
    after_blank = True
    i = 0
    while i < len(lines):
        ln = lines[i]
        blank = not ln.strip()
        if ln.lstrip().startswith('/**'):
            block = []
            while '*/' not in lines[i]:
                block.append(lines[i])
                i += 1
            block.append(lines[i])
            m = STRUCT_DOC.match(block[1]) if len(block) > 1 else None
            if m:
                structs.append(parse_struct(m, block, lines, i + 1))
            pending = []
        elif ln.lstrip().startswith('/*'):
            pending = [ln]
            while '*/' not in lines[i]:
                i += 1
                pending.append(lines[i])
            if after_blank:
                group = comment_text(pending)
        elif DEFINE.match(ln):
            m = DEFINE.match(ln)
            value = m.group(2)
            while value.endswith('\\'):
                i += 1
                value = value[:-1].rstrip() + ' ' + lines[i].strip()
            name = m.group(1)
            value = ' '.join(value.split())
            doc = comment_text(pending) or implied_doc(name, value) or group
            defines.append((name, value, doc))
            pending = []
        elif blank:
            pending = []
            group = ''
        after_blank = blank
        i += 1
    return defines, structs


IOCTL = re.compile(r'_IO(W?R?)\(TWHEEL_IOC_MAGIC,\s*(\w+),\s*struct\s+(\w+)\)')
DIRECTION = {'R': 'the kernel writes it', 'W': 'the kernel reads it',
             'WR': 'the kernel reads it and writes it back'}


def implied_doc(name, value):
    """What an ioctl, a feature bit, a mask or a size means, from its form."""
    m = IOCTL.match(value)
    if m:
        return ('ioctl %s; its argument is a struct %s (%s).'
                % (m.group(2), m.group(3), DIRECTION[m.group(1)]))
    m = re.match(r'TWHEEL_FEAT_(\w+)$', name)
    if m:
        return 'Bit of twheel_info.ioctls: the module has TWHEEL_IOC_%s.' % m.group(1)
    m = re.match(r'TWHEEL_(\w+)_SIZE_VER(\d+)$', name)
    if m:
        s = 'twheel_' + m.group(1).lower()
        return ('Size of struct %s as of its version %s: the ioctls accept '
                'any size from TWHEEL_%s_SIZE_VER0 up.' % (s, m.group(2), m.group(1)))
    m = re.match(r'TWHEEL_(\w+)_FLAGS_ALL$', name)
    if m:
        return ('Every TWHEEL_%s_* flag: other bits fail with EINVAL.'
                % m.group(1))
    return ''


def parse_struct(m, block, lines, start):
    """One kernel-doc'd structure: its fields' docs and its members."""
    docs, text, cur = {}, [], None
    for ln in block[2:-1]:
        fm = FIELD_DOC.match(ln)
        body = re.sub(r'^\s*\*\s?', '', ln)
        if fm:
            cur = fm.group(1)
            docs[cur] = fm.group(2).strip()
        elif not body.strip():
            cur = None
            if text:
                text.append('')
        elif cur:
            docs[cur] += ' ' + body.strip()
        else:
            text.append(body.strip())
    members, layout = [], []
    i = start + 1       # past "struct NAME {"
    while not lines[i].startswith('};'):
        layout.append(lines[i])
        mm = MEMBER.match(lines[i])
        if mm:
            members.append(mm.group(2))
        i += 1
    layout.append('};')
    return (m.group(1), m.group(2).strip(), members, docs,
            ' '.join(t if t else '\n\n' for t in text).strip(), layout)


NAME = re.compile(r'(\bTWHEEL_[A-Z0-9_]*[A-Z0-9_](?:\*)?|\btwheel_\w+(?:\.\w+)?|@\w+(?:\[\w+\])?)')


def rst_escape(s):
    """Comment text as reStructuredText: names as literals, the rest escaped."""
    out = []
    for i, part in enumerate(NAME.split(s)):
        if i % 2:
            out.append('``%s``' % part.lstrip('@'))
        else:
            out.append(re.sub(r'([*`_|\\])', r'\\\1', part))
    return ''.join(out)


def emit_rst(path):
    defines, structs = parse(path)
    out = ['Constants', '---------', '']
    for name, value, doc in defines:
        out.append('``%s`` = ``%s``' % (name, value))
        out.append('    ' + rst_escape(doc))
        out.append('')
    out += ['Structures', '----------', '']
    for name, desc, members, docs, text, layout in structs:
        out.append('**struct %s** - %s' % (name, rst_escape(desc)))
        out.append('')
        out.append('::')
        out.append('')
        out += ['    ' + ln.replace('\t', '    ') for ln in
                ['struct %s {' % name] + layout]
        out.append('')
        for f in members:
            out.append('``%s.%s``' % (name, f))
            out.append('    ' + rst_escape(docs.get(f, '')))
        out.append('')
        for para in text.split('\n\n'):
            if para.strip():
                out.append(rst_escape(' '.join(para.split())))
                out.append('')
    print('\n'.join(out))


def check(argv):
    header, libs, complete, names, mode = argv[0], [], [], [], None
    for a in argv[1:]:
        if a in ('--lib', '--complete', '--names'):
            mode = a
        elif mode == '--lib':
            libs.append(a)
        elif mode == '--complete':
            complete.append(a)
        elif mode == '--names':
            names.append(a)
    defines, structs = parse(header)
    known = {d[0] for d in defines}
    fields = {s[0]: set(s[2]) for s in structs}
    for lib in libs:
        ldefs, lstructs = parse_lib(lib)
        known |= ldefs
        for s, fs in lstructs.items():
            fields.setdefault(s, set()).update(fs)
    problems = []
    text = open(header, encoding='utf-8').read()
    for name in re.findall(r'^struct\s+(twheel_\w+)\s*\{', text, re.M):
        if name not in fields:
            problems.append('%s: struct %s has no kernel-doc' % (header, name))
    for name, _, members, docs, _, _ in structs:
        for f in members:
            if f not in docs:
                problems.append('%s: struct %s: no @%s' % (header, name, f))
    for doc in complete:
        text = open(doc, encoding='utf-8').read()
        for name, _, _ in defines:
            if not re.search(r'\b%s\b' % name, text):
                problems.append('%s: no %s (uapi/linux/twheel.h)' % (doc, name))
        for name, _, members, _, _, _ in structs:
            if not re.search(r'struct\s+%s\b' % name, text):
                problems.append('%s: no struct %s' % (doc, name))
            for f in members:
                if not re.search(r'``(%s\.)?%s``' % (name, f), text):
                    problems.append('%s: no ``%s`` (struct %s)' % (doc, f, name))
    for doc in names:
        text = open(doc, encoding='utf-8').read()
        for tok in sorted(set(re.findall(r'\bTWHEEL_[A-Z0-9_]*[A-Z0-9]\b(?:_\*)?', text))):
            if tok.endswith('_*'):
                if not any(k.startswith(tok[:-1]) for k in known):
                    problems.append('%s: %s matches nothing' % (doc, tok))
            elif tok not in known:
                problems.append('%s: names %s, which does not exist' % (doc, tok))
        for s in sorted(set(re.findall(r'struct\s+(twheel_\w+)', text))):
            if s not in fields:
                problems.append('%s: names struct %s, which does not exist' % (doc, s))
        for s, f in sorted(set(re.findall(r'\b(twheel_\w+)\.(\w+)', text))):
            if s in fields and f not in fields[s]:
                problems.append('%s: names %s.%s, which does not exist' % (doc, s, f))
    for p in problems:
        print(p)
    return 1 if problems else 0


def parse_lib(path):
    """The TWHEEL_* macros and the structures' members of libtwheel.h."""
    text = open(path, encoding='utf-8').read()
    defs = set(re.findall(r'^#define\s+(TWHEEL_\w+)', text, re.M))
    structs = {}
    for name, body in re.findall(r'^struct\s+(twheel_\w+)\s*\{(.*?)^\};', text,
                                 re.M | re.S):
        structs[name] = set(re.findall(r'\b(\w+)(?:\[\w+\])?;', body))
    return defs, structs


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'rst':
        emit_rst(sys.argv[2])
        return 0
    if len(sys.argv) > 2 and sys.argv[1] == 'check':
        return check(sys.argv[2:])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
