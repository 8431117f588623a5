#!/usr/bin/env bash
# Robustness sweep over a folder of .max files nobody on the project has seen
# (docs/unseen-files.md): runs, file by file and under a timeout,
#   maxfs check --coverage --json                      (T1/T2, versions, coverage)
#   maxfs export --kind shape,ig,skel,anim,swt --gltf  (one output folder per file)
#   maxfs nel --check on every NeL file written        (our reader re-reads them)
#   the NeL oracle (NeL's own loader), with --oracle
#   the Khronos glTF validator on every .glb, with --gltf-validator
#   maxfs ls -R + maxfs cat of every generated file of the first --sample files
#   3ds Max's own Mesh Totals (DocumentSummaryInformation) against the vertices
#   of json/meshes.json, on files whose every mesh evaluates
#   a FUSE mount walked with find + cat of everything, with --mount (chunk
#   trees left out of the walk unless --mount-chunks: they are raw bytes and
#   nearly all of the tree's entries)
# and prints the results table and the most frequent "not evaluated" classes.
#
# Usage: scripts/sweep.sh [--out DIR] [--maxfs BIN] [--timeout SECS] [--sample N]
#                         [--oracle] [--gltf-validator] [--mount [--mount-chunks]]
#                         [--reuse | --summary-only] FOLDER
# --reuse keeps the per-file results already in --out and redoes the rest;
# --summary-only only prints the table again from --out.
# Needs python3 (the summary); node/npm for --gltf-validator; /dev/fuse for --mount.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The whole script is one function, parsed before it runs: editing this file
# during a sweep cannot change what the running sweep executes.
main() {
out=""
maxfs="$here/../target/release/maxfs"
limit=600
sample=10
oracle=0
validator=0
mount=0
reuse=0
summary_only=0
hide=--hide-chunks
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --maxfs) maxfs="$2"; shift 2 ;;
        --timeout) limit="$2"; shift 2 ;;
        --sample) sample="$2"; shift 2 ;;
        --oracle) oracle=1; shift ;;
        --gltf-validator) validator=1; shift ;;
        --mount) mount=1; shift ;;
        --mount-chunks) hide=""; shift ;;
        --reuse) reuse=1; shift ;;
        --summary-only) summary_only=1; shift ;;
        -h|--help) sed -n 2,25p "$0"; exit 0 ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || { echo "usage: $0 [options] FOLDER (see --help)" >&2; exit 2; }
src=$(cd "$1" && pwd)
[ -x "$maxfs" ] || { echo "maxfs not found at $maxfs (cargo build --release, or --maxfs BIN)" >&2; exit 2; }
out="${out:-$(mktemp -d /tmp/maxfs-sweep.XXXXXX)}"
mkdir -p "$out/check" "$out/export" "$out/ls" "$out/totals"
out=$(cd "$out" && pwd)
if [ "$summary_only" = 0 ]; then
[ "$reuse" = 1 ] && [ -s "$out/runs.tsv" ] || : > "$out/runs.tsv"
echo "sweep of $src into $out" >&2

# One line per run: step, file index, exit status (124 = timeout, 101 = panic), path.
n=0
[ "$reuse" = 1 ] && [ -s "$out/runs.tsv" ] || while IFS= read -r -d '' f; do
    n=$((n + 1))
    rel=${f#"$src"/}
    rc=0
    timeout "$limit" "$maxfs" check --coverage --json "$f" > "$out/check/$n.json" 2> "$out/check/$n.err" || rc=$?
    printf 'check\t%s\t%s\t%s\n' "$n" "$rc" "$rel" >> "$out/runs.tsv"
    mkdir -p "$out/export/$n"
    rc=0
    timeout "$limit" "$maxfs" export --kind shape,ig,skel,anim,swt --gltf --json --jobs 1 \
        --out "$out/export/$n" "$f" > "$out/export/$n.json" 2> "$out/export/$n.err" || rc=$?
    printf 'export\t%s\t%s\t%s\n' "$n" "$rc" "$rel" >> "$out/runs.tsv"
    timeout "$limit" "$maxfs" cat "$f/json/summary_information.json" > "$out/totals/$n.summary.json" 2>/dev/null || true
    timeout "$limit" "$maxfs" cat "$f/json/meshes.json" > "$out/totals/$n.meshes.json" 2>/dev/null || true
    timeout "$limit" "$maxfs" cat "$f/json/nodes.json" > "$out/totals/$n.nodes.json" 2>/dev/null || true
    timeout "$limit" "$maxfs" cat "$f/json/shapes.json" > "$out/totals/$n.shapes.json" 2>/dev/null || true
    if [ "$n" -le "$sample" ]; then
        rc=0
        timeout "$limit" "$maxfs" ls -R "$f" > "$out/ls/$n.txt" 2> "$out/ls/$n.err" || rc=$?
        printf 'ls\t%s\t%s\t%s\n' "$n" "$rc" "$rel" >> "$out/runs.tsv"
        bad=0
        while IFS= read -r p; do
            # Chunk trees are raw bytes (the --mount walk can read them all).
            case "$p" in */|chunks/*) continue ;; esac
            timeout "$limit" "$maxfs" cat "$f/$p" > /dev/null 2>> "$out/ls/$n.err" || {
                bad=$((bad + 1)); printf '%s\n' "$p" >> "$out/ls/$n.failed"; }
        done < "$out/ls/$n.txt"
        printf 'cat\t%s\t%s\t%s\n' "$n" "$bad" "$rel" >> "$out/runs.tsv"
    fi
    printf '\r%d files' "$n" >&2
done < <(find "$src" -type f -iname '*.max' -print0 | sort -z)
echo >&2

# NeL files re-read by our own reader, then (optionally) by NeL itself.
find "$out/export" -type f \( -name '*.shape' -o -name '*.ig' -o -name '*.skel' \
    -o -name '*.anim' -o -name '*.swt' \) | sort > "$out/nel-files.txt"
: > "$out/nel-check.txt"
while IFS= read -r f; do
    "$maxfs" nel --check "$f" > /dev/null 2>> "$out/nel-check.err" \
        || printf '%s\n' "$f" >> "$out/nel-check.txt"
done < "$out/nel-files.txt"
: > "$out/oracle.txt"
if [ "$oracle" = 1 ] && [ -s "$out/nel-files.txt" ]; then
    # The oracle lives beside the corpus (../shared/oracles/nel); NEL_ORACLE overrides.
    local oracle_sh
    oracle_sh="$(cd "${NEL_ORACLE:-$here/../../shared/oracles/nel}" && pwd)/check.sh"
    # NeL writes a nel_report_*.log into the working directory for every
    # failed assertion: keep them in the output folder.
    (cd "$out" && tr '\n' '\0' < "$out/nel-files.txt" | xargs -0 -r -n 100 -P 2 \
        bash "$oracle_sh" >> "$out/oracle.txt" 2>> "$out/oracle.err") || true
fi
: > "$out/gltf.txt"
if [ "$validator" = 1 ]; then
    vdir=$(bash "$here/gltf-validator.sh")
    find "$out/export" -name '*.glb' -print0 | sort -z | xargs -0 -r -n 100 env GLTF_VALIDATOR_DIR="$vdir" \
        node "$here/validate-gltf.mjs" >> "$out/gltf.txt" 2>> "$out/gltf.err" || true
fi

: > "$out/mount.txt"
if [ "$mount" = 1 ]; then
    mnt=$(mktemp -d /tmp/maxfs-sweep-mnt.XXXXXX)
    "$maxfs" mount $hide "$src" "$mnt" 2> "$out/mount.err" &
    pid=$!
    for _ in $(seq 100); do [ -n "$(ls -A "$mnt" 2>/dev/null)" ] && break; sleep 0.1; done
    # Every file of the mounted tree, chunk trees included, read to the end.
    timeout "$limit" find "$mnt" -type f -print0 2>> "$out/mount.txt" \
        | xargs -0 -r -n 50 sh -c 'for p; do cat "$p" > /dev/null 2>&1 || echo "read failed: $p"; done' sh \
        >> "$out/mount.txt" || echo "find/cat over the mount: status $?" >> "$out/mount.txt"
    # maxfs mount unmounts and exits on SIGINT.
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" || true
    rmdir "$mnt" 2>/dev/null || true
fi
fi

python3 - "$out" <<'EOF'
import collections, json, os, re, sys
out = sys.argv[1]
runs = collections.defaultdict(dict)
for line in open(os.path.join(out, "runs.tsv")):
    step, n, rc, rel = line.rstrip("\n").split("\t", 3)
    runs[n][step] = int(rc)
    runs[n]["path"] = rel
t = collections.Counter()
versions = collections.Counter()
unknown_versions = collections.Counter()
classes, class_nodes = collections.Counter(), collections.Counter()
failures = []
for n, r in sorted(runs.items(), key=lambda x: int(x[0])):
    t["files"] += 1
    rc = r.get("check", 0)
    if rc == 124: t["hangs (timeout)"] += 1; failures.append(("check hang", r["path"], ""))
    if rc not in (0, 1, 2, 124): t["crashes/panics"] += 1; failures.append(("check crash", r["path"], str(rc)))
    try:
        d = json.load(open(os.path.join(out, "check", n + ".json")))
        f = d["files"][0]
    except Exception:
        f = None
    if f is None:
        pass
    elif f["outcome"] == "not-a-compound-file":
        t["not OLE (negative cases)"] += 1
    else:
        t["OLE .max files"] += 1
        versions[f.get("version_name") or "?"] += 1
        vn = f.get("version_name") or ""
        if "unknown" in vn.lower(): unknown_versions[vn] += 1
        if not f["passed"]:
            t["T1/T2 or read failures"] += 1; failures.append(("check", r["path"], f.get("why", "")))
        if f["partial"]: t["partial (something not evaluated)"] += 1
        for w in f.get("warnings", []):
            if "graph" in w.lower() or "typed" in w.lower():
                t["typed-layer/graph warnings"] += 1
        for u in f["unevaluated"]:
            m = re.match(r'(.*?) not evaluated: (\d+) nodes?', u)
            if m:
                k = re.sub(r'\(damaged: .*', '(damaged)', m.group(1))
                classes[k] += 1; class_nodes[k] += int(m.group(2))
            else:
                classes[u[:90]] += 1
    rc = r.get("export", 0)
    if rc == 124: t["hangs (timeout)"] += 1; failures.append(("export hang", r["path"], ""))
    if rc not in (0, 1, 2, 124): t["crashes/panics"] += 1; failures.append(("export crash", r["path"], str(rc)))
    try:
        e = json.load(open(os.path.join(out, "export", n + ".json")))["files"][0]
    except Exception:
        e = None
    if e is not None and f is not None and f["outcome"] != "not-a-compound-file":
        if e.get("error"):
            t["export errors (whole file)"] += 1; failures.append(("export", r["path"], e["error"]))
        # Named gaps ("not evaluated", a glTF limit, a NeL name clash, a spline
        # Max does not render picked by shape_export.ms's `shapes`: no mesh in
        # Max either, a mesh too big for NeL's 16-bit indices) are not
        # evaluation errors; what remains is a decode or evaluation failure.
        benign = ("not evaluated", "not exported", "not decoded", "overwrites the earlier",
                  "is not geometry", "do not fit NeL's 16-bit mesh indices")
        # A named approximation (the glTF's Skin baked at frame 0, an alpha
        # taken from another map, Max's triangulation not known) is written
        # and said so: counted apart from failures.
        approx = ("exported without", "exported as", "taken from")
        ne = [x for x in e.get("node_errors", []) if not any(b in x for b in benign)]
        named = [x for x in ne if any(a in x for a in approx)]
        ne = [x for x in ne if x not in named]
        if named:
            t["files with named approximations"] += 1
        if ne:
            t["files with evaluation errors"] += 1
            for x in ne[:3]: failures.append(("eval", r["path"], x))
        t["NeL files written"] += sum(1 for o in e.get("outputs", []) if o["kind"] != "gltf")
        t["glTF files written"] += sum(1 for o in e.get("outputs", []) if o["kind"] == "gltf")
    try:
        summ = open(os.path.join(out, "totals", n + ".summary.json")).read()
        mv = re.search(r'Mesh Totals.*?Vertices: (\d+)', summ, re.S)
        meshes = json.load(open(os.path.join(out, "totals", n + ".meshes.json")))["meshes"]
        nodes = json.load(open(os.path.join(out, "totals", n + ".nodes.json")))["nodes"]
        total = re.search(r'"Total: (\d+)"', summ)
    except Exception:
        mv, meshes, nodes, total = None, None, None, None
    # Totals are written at save for the whole scene: a file saved with "Save
    # Selected" lists more objects than it holds, and is left out.
    if mv and meshes is not None and total and int(total.group(1)) == len(nodes) - 1:
        if f is not None and not f["partial"] and all(m.get("evaluated") and not m.get("error") for m in meshes):
            # Max's totals leave bare shapes out (a spline without modifiers,
            # a mesh only when rendered as a tube; docs/evaluation.md).
            try:
                shapes = {x["index"] for x in json.load(open(os.path.join(out, "totals", n + ".shapes.json")))["shapes"]}
            except Exception:
                shapes = set()
            ours = sum(m.get("vertices", 0) for m in meshes
                       if not (m.get("index") in shapes and not m.get("has_modifiers")))
            t["Mesh Totals checked (every mesh evaluated)"] += 1
            if ours == int(mv.group(1)):
                t["Mesh Totals: vertex total = Max's"] += 1
            else:
                failures.append(("mesh totals", r["path"], f"ours {ours}, Max {mv.group(1)}"))
    if "ls" in r:
        if r["ls"] != 0: t["ls -R failures"] += 1; failures.append(("ls", r["path"], str(r["ls"])))
        if r.get("cat", 0): t["cat failures (files)"] += r["cat"]; failures.append(("cat", r["path"], str(r["cat"])))
nel_bad = [l.strip() for l in open(os.path.join(out, "nel-check.txt")) if l.strip()]
t["NeL files our reader rejects"] = len(nel_bad)
for l in nel_bad: failures.append(("nel --check", l, ""))
oracle = [l for l in open(os.path.join(out, "oracle.txt")) if l.strip()]
if oracle:
    bad = [l for l in oracle if not l.startswith("OK")]
    t["NeL files the oracle rejects"] = len(bad)
    for l in bad[:20]: failures.append(("oracle", l.split("\t")[2] if l.count("\t") > 2 else "", l.strip()[:200]))
gl = [l for l in open(os.path.join(out, "gltf.txt")) if "\terror\t" in l]
if os.path.getsize(os.path.join(out, "gltf.txt")) or os.path.exists(os.path.join(out, "gltf.err")):
    t["glTF validator errors"] = len(gl)
    codes = collections.Counter(l.split("\t")[2] for l in gl)
    for c, k in codes.most_common(10): failures.append(("gltf", c, str(k)))
mnt = [l for l in open(os.path.join(out, "mount.txt")) if l.strip()]
if os.path.exists(os.path.join(out, "mount.err")):
    t["mount read failures"] = len(mnt)
    for l in mnt[:20]: failures.append(("mount", l.strip(), ""))

print("| measure | count |\n|---|---|")
for k in ["files", "not OLE (negative cases)", "OLE .max files", "T1/T2 or read failures",
          "crashes/panics", "hangs (timeout)", "partial (something not evaluated)",
          "typed-layer/graph warnings", "export errors (whole file)", "files with evaluation errors", "files with named approximations",
          "NeL files written", "NeL files our reader rejects", "NeL files the oracle rejects",
          "glTF files written", "glTF validator errors",
          "Mesh Totals checked (every mesh evaluated)", "Mesh Totals: vertex total = Max's", "ls -R failures", "cat failures (files)",
          "mount read failures"]:
    if k in t or k in ("T1/T2 or read failures", "crashes/panics", "hangs (timeout)"):
        print(f"| {k} | {t.get(k, 0)} |")
print("\n| Max version | files |\n|---|---|")
for v, k in sorted(versions.items()):
    print(f"| {v} | {k} |")
print("\n| not evaluated | files | nodes |\n|---|---|---|")
for c, k in classes.most_common(25):
    print(f"| {c} | {k} | {class_nodes[c]} |")
if failures:
    print("\nproblems (at most 12 of each kind):")
    shown = collections.Counter()
    for kind, p, why in failures:
        shown[kind] += 1
        if shown[kind] <= 12:
            print(f"  {kind}\t{p}\t{why[:240]}")
    for kind, k in shown.items():
        if k > 12:
            print(f"  {kind}: {k - 12} more")
EOF
}
main "$@"
