// verify-embedder.mjs — checks that hash384.mjs gives mnemo's vectors.
//
//   node verify-embedder.mjs [--testvectors FILE] [--mnemo-db FILE]
//
// 1. The reference vectors of ../shared/data/hash384-testvectors.json
//    ($MNEMO_SHARED_DATA, else ../shared/data beside the repository): the
//    SHA-256 of the 384 float32 values (little-endian), the tokens and the
//    raw FNV-1a hashes must match exactly.
// 2. With --mnemo-db, the vectors mnemo's Go embedder stored
//    (table embeddings, embedder 'hash-384') for every message of a data
//    directory, e.g. after
//      mnemo --dir /tmp/mnemo-vx --embedder hash-384 ingest ../shared/data/locomo/locomo10-dev.json
//    are compared with embed("Name: content") (mnemo embeds the speaker's
//    name with the content): counted bit-identical, or equal within 1e-6.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createClient } from '@libsql/client';
import { join } from 'node:path';
import { embed, fnv1a32, hashVector, tokens } from './hash384.mjs';
import { sharedData } from './locomo.mjs';

const { values: args } = parseArgs({
  options: {
    testvectors: { type: 'string', default: join(sharedData(), 'hash384-testvectors.json') },
    'mnemo-db': { type: 'string' },
  },
});

const f32hex = (v) => Buffer.from(new Float32Array(v).buffer).toString('hex');
let failed = 0;

const ref = JSON.parse(readFileSync(args.testvectors, 'utf8'));
for (const [feature, h] of Object.entries(ref.fnv1a32)) {
  if (fnv1a32(feature) !== h) { failed++; console.log(`FNV-1a of ${JSON.stringify(feature)}: ${fnv1a32(feature)}, want ${h}`); }
}
for (const s of ref.samples) {
  const sha = createHash('sha256').update(Buffer.from(new Float32Array(hashVector(s.text)).buffer)).digest('hex');
  const toks = JSON.stringify(tokens(s.text)) === JSON.stringify(s.tokens);
  if (sha !== s.sha256_f32le || !toks) { failed++; console.log(`reference ${JSON.stringify(s.text)}: sha ${sha === s.sha256_f32le}, tokens ${toks}`); }
}
console.log(`reference vectors: ${ref.samples.length} samples, ${Object.keys(ref.fnv1a32).length} hashes, ${failed} mismatches`);

if (args['mnemo-db']) {
  const db = createClient({ url: 'file:' + args['mnemo-db'] });
  const rows = (await db.execute(
    `SELECT m.id, m.name, m.content, e.vector FROM messages m JOIN embeddings e ON e.message_id = m.id WHERE e.embedder = 'hash-384'`,
  )).rows;
  let identical = 0, close = 0, far = 0, maxDiff = 0;
  for (const r of rows) {
    const text = r.name ? `${r.name}: ${r.content}` : r.content;
    const js = embed(text);
    const go = new Float32Array(new Uint8Array(r.vector).slice().buffer);
    if (f32hex(js) === Buffer.from(new Uint8Array(r.vector)).toString('hex')) { identical++; continue; }
    let d = 0;
    for (let i = 0; i < go.length; i++) d = Math.max(d, Math.abs(go[i] - js[i]));
    maxDiff = Math.max(maxDiff, d);
    if (d <= 1e-6) close++; else { far++; if (far <= 5) console.log(`differs (${d}): ${r.id} ${JSON.stringify(text).slice(0, 80)}`); }
  }
  failed += far;
  console.log(`mnemo's stored vectors: ${rows.length} messages, ${identical} bit-identical, ${close} within 1e-6, ${far} further apart (max |Δ| ${maxDiff})`);
  db.close();
}
process.exit(failed ? 1 : 0);
