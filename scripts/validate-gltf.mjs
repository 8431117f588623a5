// Runs the Khronos glTF validator over GLB files: one line per error or
// warning (file, level, code, JSON pointer, message) on stdout, then a JSON summary
// {"files", "errors", "warnings", "codes"} on the last line of stderr.
// Usage: GLTF_VALIDATOR_DIR=<dir from gltf-validator.sh> node validate-gltf.mjs FILE.glb...
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';

const dir = process.env.GLTF_VALIDATOR_DIR;
if (!dir) {
  console.error('GLTF_VALIDATOR_DIR is not set (run scripts/gltf-validator.sh)');
  process.exit(2);
}
const require = createRequire(path.join(dir, 'package.json'));
const validator = require('gltf-validator');
let errors = 0;
let warnings = 0;
const codes = {};
const files = process.argv.slice(2);
for (const f of files) {
  const data = new Uint8Array(fs.readFileSync(f));
  const r = await validator.validateBytes(data, {
    uri: f,
    maxIssues: 0,
    // Our GLBs are self-contained: an external reference is an error.
    externalResourceFunction: (uri) => Promise.reject(`external resource ${uri}`),
  });
  for (const m of r.issues.messages) {
    if (m.severity > 1) continue;
    if (m.severity === 1) warnings++;
    else errors++;
    codes[m.code] = (codes[m.code] || 0) + 1;
    const level = m.severity === 0 ? 'error' : 'warning';
    console.log(`${f}\t${level}\t${m.code}\t${m.pointer || ''}\t${m.message}`);
  }
}
console.error(JSON.stringify({ files: files.length, errors, warnings, codes }));
