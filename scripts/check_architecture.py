#!/usr/bin/env python3
"""The architecture as a test (docs/architecture.md): engine/ and include/gpubill/ are laid out
by area, an area includes only itself and the areas below it that it may use, and no function
is longer than MAX_FUNCTION_LINES lines.

Usage: scripts/check_architecture.py [SOURCE_DIR]   (exit 0: holds; 1: prints each breach)
       scripts/check_architecture.py --self-test      (the check fails on a tree made to break it)
"""
import os
import re
import sys

# Each area and the areas it may include, from the ground up. A public header
# (include/gpubill/<area>/) and a private one (engine/<area>/) belong to the same area.
MAY_USE = {
    'base': [],
    'store': ['base'],
    'catalog': ['base', 'store'],
    'fetch': ['base', 'store', 'catalog'],  # providers' price lists fetched into the catalog
    'rules': ['base', 'catalog'],  # pure: never the database (store) nor the clock
    'replay': ['base', 'store', 'catalog', 'rules'],
    'ledger': ['base', 'store', 'catalog', 'rules'],
    'quote': ['base', 'store', 'catalog', 'rules'],
    'tco': ['base', 'store', 'catalog', 'rules', 'quote'],
    'report': ['base', 'store', 'catalog', 'rules', 'replay', 'ledger', 'quote', 'tco'],
    'reconcile': ['base', 'store', 'catalog', 'rules', 'ledger'],
}
MAX_FUNCTION_LINES = 120
CODE_DIRS = ['engine', 'cli', 'tests', 'bench', 'fuzz']
UMBRELLA = 'gpubill/gpubill.hpp'

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


def blank(src):
    """Comments and string and character literals as spaces, line breaks kept."""
    out, i, n = [], 0, len(src)
    keep_lines = lambda s: re.sub(r'[^\n]', ' ', s)
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == '_')):
            k = src.find('(', i)
            delim = src[i + 2:k]
            j = src.find(')' + delim + '"', k)
            j = n if j < 0 else j + len(delim) + 2
        elif c == '"' or (c == "'" and not (i > 0 and src[i - 1].isalnum())):
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            j += 1
        else:
            out.append(c)
            i += 1
            continue
        out.append(keep_lines(src[i:j]))
        i = j
    return ''.join(out)


TOKEN = re.compile(r'[A-Za-z_][A-Za-z_0-9]*|::|->|\S')
# What may stand between a parameter list's ")" and a function body's "{".
BETWEEN = {'const', 'noexcept', 'override', 'final', 'mutable', 'constexpr', '->', '::', '<',
           '>', '&', '*', ','}
NOT_FUNCTION = {'struct', 'class', 'namespace', 'enum', 'union', 'extern'}


def long_functions(path):
    """(first line, lines) of each outermost function body (lambdas inside count with it)."""
    text = blank(open(path, encoding='utf-8').read())
    tokens = [(m.group(), m.start()) for m in TOKEN.finditer(text)]
    stack, depth_in_function, found = [], 0, []
    for i, (tok, pos) in enumerate(tokens):
        if tok == '{':
            is_function = False
            if depth_in_function == 0:
                k = i - 1
                while k >= 0 and tokens[k][0] not in NOT_FUNCTION and (
                        tokens[k][0] in BETWEEN or tokens[k][0][0].isalpha() or tokens[k][0][0] == '_'):
                    k -= 1
                is_function = k >= 0 and tokens[k][0] == ')'
            stack.append((is_function, pos))
            depth_in_function += is_function
        elif tok == '}' and stack:
            is_function, start = stack.pop()
            if is_function:
                depth_in_function -= 1
                first = text.count('\n', 0, start) + 1
                lines = text.count('\n', start, pos) + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append((first, lines))
    return found


def area_of(rel):
    """The area of a file under engine/<area>/ or include/gpubill/<area>/, else None."""
    parts = rel.split('/')
    if parts[0] == 'engine' and len(parts) == 3:
        return parts[1]
    if parts[:2] == ['include', 'gpubill'] and len(parts) == 4:
        return parts[2]
    return None


def included_area(name):
    """The area an include names: "gpubill/<area>/x.hpp" or "<area>/x.hpp" (engine/)."""
    parts = name.split('/')
    if parts[0] == 'gpubill' and len(parts) == 3:
        return parts[1]
    if len(parts) == 2 and parts[0] in MAY_USE:
        return parts[0]
    return None


def check(root):
    """Every breach of the rules in the tree at `root`, as text."""
    breaches = []
    for top in ('engine', 'include/gpubill'):
        for entry in sorted(os.listdir(os.path.join(root, top))):
            full = os.path.join(root, top, entry)
            if os.path.isfile(full) and not (top == 'include/gpubill' and entry == 'gpubill.hpp'):
                breaches.append(f'{top}/{entry}: not in an area folder')
            elif os.path.isdir(full) and entry not in MAY_USE:
                breaches.append(f'{top}/{entry}/: not an area ({", ".join(MAY_USE)})')
    for top in CODE_DIRS + ['include']:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(('.cpp', '.hpp')):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root)
                area = area_of(rel)
                text = open(full, encoding='utf-8').read()
                for m in INCLUDE.finditer(text):
                    inc = m.group(2)
                    line = text.count('\n', 0, m.start()) + 1
                    if inc == UMBRELLA and (rel.startswith('engine/') or area):
                        breaches.append(f'{rel}:{line}: includes the umbrella header')
                        continue
                    target = included_area(inc)
                    if area is None:
                        if rel.startswith('cli/') and target and not inc.startswith('gpubill/'):
                            breaches.append(f'{rel}:{line}: the CLI includes the engine\'s '
                                            f'private header {inc}')
                        continue
                    if rel.startswith('include/') and m.group(1) == '"' and target and \
                            not inc.startswith('gpubill/'):
                        breaches.append(f'{rel}:{line}: a public header includes the private {inc}')
                    if target is None and m.group(1) == '"':
                        breaches.append(f'{rel}:{line}: "{inc}" does not name its area '
                                        f'("<area>/file.hpp" or "gpubill/<area>/file.hpp")')
                    elif target and target != area and target not in MAY_USE[area]:
                        breaches.append(f'{rel}:{line}: {area} includes {inc} ({target}); '
                                        f'{area} may use only {", ".join(MAY_USE[area]) or "nothing"}')
                for first, lines in long_functions(full):
                    breaches.append(f'{rel}:{first}: a function of {lines} lines '
                                    f'(at most {MAX_FUNCTION_LINES})')
    return breaches


def self_test():
    """A tree with one breach of each kind: each must be reported, and a clean tree passes."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w', encoding='utf-8') as f:
                f.write(text)
        for d in CODE_DIRS:
            os.makedirs(os.path.join(root, d), exist_ok=True)
        write('include/gpubill/base/money.hpp', '#pragma once\n')
        write('engine/store/store.hpp', '#include "gpubill/base/money.hpp"\n')
        write('engine/base/ok.cpp', 'int f() {\n' + '  ;\n' * 100 + '  return 0;\n}\n')
        if check(root):
            raise SystemExit('self-test: a clean tree was reported: ' + '; '.join(check(root)))
        write('engine/rules/rules.cpp', '#include "store/store.hpp"\nint g() {\n' +
              '  // "}" in a comment and a string: "{"\n' * 130 + '  return 1;\n}\n')
        write('engine/stray.cpp', '')
        write('engine/base/bare.cpp', '#include "store.hpp"\n')
        write('cli/main.cpp', '#include "store/store.hpp"\n')
        found = '\n'.join(check(root))
        for expected in ('engine/rules/rules.cpp:1: rules includes store/store.hpp',
                         'engine/rules/rules.cpp:2: a function of 133 lines',
                         'engine/stray.cpp: not in an area folder',
                         'engine/base/bare.cpp:1: "store.hpp" does not name its area',
                         "cli/main.cpp:1: the CLI includes the engine's private header"):
            if expected not in found:
                raise SystemExit(f'self-test: missed "{expected}" in:\n{found}')
    print('self-test: every breach made was found')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    breaches = check(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.'))
    for b in breaches:
        print(b)
    if breaches:
        print(f'{len(breaches)} breach(es) of docs/architecture.md', file=sys.stderr)
        return 1
    print('architecture holds: areas, layers, functions of at most '
          f'{MAX_FUNCTION_LINES} lines')
    return 0


if __name__ == '__main__':
    sys.exit(main())
