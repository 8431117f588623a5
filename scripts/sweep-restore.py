#!/usr/bin/env python3
"""Rebuild the public sweep sets from docs/sweep-sets/manifest.tsv.

Each row names a repository, a commit and a path; the blob is read from the
repository's fetched snapshot (MAXFS_MIRROR, default /work/.mirror, /<owner>+<name>/repo) and checked
against the manifest's sha256. Fetch the repositories first (the `fetch` tool,
github:<owner>/<name>). Usage: restore.py [--root DIR] [SET ...]
(sets are written to DIR/<set>, default /tmp).
"""
import argparse, csv, hashlib, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument('--root', default='/tmp')
ap.add_argument('--manifest', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'docs', 'sweep-sets', 'manifest.tsv'))
ap.add_argument('sets', nargs='*')
a = ap.parse_args()

def gitdir(repo):
    d = os.path.join(os.environ.get('MAXFS_MIRROR', '/work/.mirror'), repo.replace('/', '+'), 'repo')
    return os.path.join(d, '.git') if os.path.isdir(os.path.join(d, '.git')) else d

bad = 0
with open(a.manifest, newline='') as fh:
    for row in csv.DictReader(fh, delimiter='\t'):
        if a.sets and row['set'] not in a.sets:
            continue
        r = subprocess.run(['git', '--git-dir', gitdir(row['repo']), 'cat-file', 'blob',
                            f"{row['commit']}:{row['path']}"], capture_output=True)
        if r.returncode != 0:
            print(f"MISSING {row['set']} {row['repo']} {row['path']}: {r.stderr.decode().strip()}")
            bad += 1
            continue
        if hashlib.sha256(r.stdout).hexdigest() != row['sha256']:
            print(f"SHA256 DIFFERS {row['set']} {row['repo']} {row['path']}")
            bad += 1
            continue
        out = os.path.join(a.root, row['set'])
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, row['local_name']), 'wb') as f:
            f.write(r.stdout)
print('problems:', bad)
sys.exit(1 if bad else 0)
