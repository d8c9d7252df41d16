#!/usr/bin/env python3
"""Fails on an include that points up the module graph.

Every source folder is a layer and may include only the layers it depends on
(directly or through others), as LAYERS below says; CMake links the same
graph (each module's CMakeLists.txt). A file in folder F that includes a
header of folder G is an error unless G is F or below F. A test is in the
layer of the library its suite links (tests/CMakeLists.txt, TEST_SUITES
below) and may include the test helpers (tests/...).

  scripts/layers/check_layers.py [--root DIR]    exit 0: clean, 1: upward includes
  scripts/layers/check_layers.py --self-test     plants an upward include in a
      copy of the tree (the parser including the session) and fails unless the
      check reports exactly it
"""
import argparse
import os
import re
import sys

# layer -> the layers it may include directly. "forktail" is the public API
# (include/forktail/): the engine's internals stay behind it, as RocksDB's
# include/rocksdb over db/.
LAYERS = {
    'storage': [],
    'forktail': ['storage'],
    'recovery': ['forktail', 'storage'],
    'tiering': ['recovery'],
    'txn': ['recovery', 'tiering'],
    'scheduler': ['storage'],
    'snapshot': ['txn'],
    'olap/common': ['storage'],
    'olap/expression': ['olap/common'],
    'olap/execution/operator': ['olap/expression', 'scheduler'],
    'olap/execution/aggregate': ['olap/execution/operator'],
    'olap/execution/join': ['olap/execution/operator'],
    'olap/execution/sort': ['olap/execution/aggregate'],
    'olap/execution': ['olap/execution/sort', 'olap/execution/join'],
    'olap/parser': ['storage'],
    'olap/plan': ['olap/execution', 'olap/parser'],  # the logical plan, constant folding
    'olap/plan/catalog': ['olap/plan'],
    'olap/plan/binder': ['olap/plan/catalog'],
    'olap/plan/optimizer': ['olap/plan'],
    'olap/plan/planner': ['olap/plan/binder', 'olap/plan/optimizer'],
    'olap/session': ['olap/plan/planner', 'snapshot'],
    'olap': ['olap/session'],  # the doors: olap/olap.h, olap/sql.h
    'server': ['olap'],
    'tools': ['server'],
    'bench': ['tools'],
}

# Files whose layer is not their folder's: olap/olap.h is the door of the
# execution layer only.
FILE_LAYERS = {'olap/olap.h': 'olap/execution'}

# tests/<suite>/... -> the layer of the library the suite links.
TEST_SUITES = {
    'olap/parser': 'olap/parser',
    'olap/execution': 'olap/execution',
    'olap/expression': 'olap/plan/planner',  # scalar functions, bound from SQL text
    'olap/plan': 'olap/plan/planner',
    'olap/session': 'olap/session',
    'olap/sql': 'olap',
}

SOURCE_ROOTS = ['storage', 'recovery', 'tiering', 'txn', 'scheduler', 'snapshot', 'olap',
                'server', 'tools', 'bench', 'include/forktail', 'tests']
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def closure():
    below = {}

    def visit(layer):
        if layer not in below:
            below[layer] = {layer}
            for dep in LAYERS[layer]:
                below[layer] |= visit(dep)
        return below[layer]

    for layer in LAYERS:
        visit(layer)
    return below


def layer_of(path):
    """The layer of a repository-relative path, or None for files outside them."""
    if path in FILE_LAYERS:
        return FILE_LAYERS[path]
    parts = path.split('/')
    if parts[0] == 'tests':
        for suite, layer in TEST_SUITES.items():
            if path.startswith('tests/' + suite + '/'):
                return layer
    if parts[0] == 'include':
        return 'forktail' if len(parts) > 2 and parts[1] == 'forktail' else None
    if parts[0] == 'tests':
        parts = parts[1:]  # tests/olap/plan/binder/x.cc mirrors olap/plan/binder
        if not parts or parts[0] == 'common':
            return None
    for n in range(len(parts) - 1, 0, -1):
        candidate = '/'.join(parts[:n])
        if candidate in LAYERS:
            return candidate
    return None


def header_layer(include):
    if include.startswith('forktail/'):
        return 'forktail'
    if include.startswith('tests/'):
        return None  # test helpers: checked where they live
    return layer_of(include)


def check(root):
    below = closure()
    errors = []
    for top in SOURCE_ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(('.h', '.cc')):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root)
                src = layer_of(rel)
                if src is None:
                    continue
                with open(full, encoding='utf-8', errors='replace') as f:
                    text = f.read()
                for m in INCLUDE.finditer(text):
                    dst = header_layer(m.group(1))
                    if dst is None or dst in below[src]:
                        continue
                    line = text.count('\n', 0, m.start()) + 1
                    errors.append(f'{rel}:{line}: {src} includes "{m.group(1)}" ({dst}), '
                                  f'which is not below it')
    return errors


def self_test(root):
    import shutil
    import tempfile
    planted = 'olap/parser/lexer.cc'
    with tempfile.TemporaryDirectory() as tmp:
        for top in SOURCE_ROOTS:
            shutil.copytree(os.path.join(root, top), os.path.join(tmp, top),
                            ignore=shutil.ignore_patterns('*.sql', '*.csv', 'data', 'e2e'))
        if check(tmp):
            print('self-test: the copied tree is not clean')
            return 1
        with open(os.path.join(tmp, planted), 'a') as f:
            f.write('#include "olap/session/sql_session.h"\n')
        errors = check(tmp)
        want = f'{planted}:'
        if len(errors) != 1 or not errors[0].startswith(want) or 'olap/session' not in errors[0]:
            print('self-test: the planted upward include was not reported alone:', errors)
            return 1
        print('self-test: reported', errors[0])
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--root', default=os.path.join(os.path.dirname(__file__), '..', '..'))
    parser.add_argument('--self-test', action='store_true')
    args = parser.parse_args()
    if args.self_test:
        return self_test(os.path.abspath(args.root))
    errors = check(os.path.abspath(args.root))
    for e in errors:
        print(e)
    if errors:
        print(f'{len(errors)} upward include(s); the layers are in {__file__}', file=sys.stderr)
        return 1
    print('layers: no upward include')
    return 0


if __name__ == '__main__':
    sys.exit(main())
