// bench.mjs — Mastra's memory (@mastra/memory with the LibSQL store and
// vector) measured on LoCoMo with mnemo's hash-384 vectors, for the side by
// side in BENCHMARKS.md. See README.md for how to run it.
//
//   node bench.mjs [--file F | --mnemo-db DIR/mnemo.db] [--batch 0] [--top-k 5] [--range 1]
//                  [--recent 10] [--contexts 300] [--seed 1] [--work DIR]
//                  [--keep] [--reuse DIR] [--json]
//
// --work DIR --keep keeps Mastra's databases (store.db, vector.db) in DIR;
// --reuse DIR measures them again without ingesting (the same corpus
// arguments are needed, to choose the queries).
//
// Phases, in one process:
//   ingest    every thread saved (saveThread) and its messages saved with
//             saveMessages, --batch messages per call (0: the whole thread in
//             one call, Mastra's fastest). saveMessages returns after the
//             messages are stored AND embedded AND upserted into the vector
//             index, so msgs/s counts until every index is caught up.
//   questions each LoCoMo question (categories 1–4 with evidence) recalled
//             with recall({threadId: an empty thread of the resource,
//             resourceId, vectorSearchString: question}): semantic recall
//             topK, messageRange, scope resource. Latency p50/p99, and
//             turn recall_any: an evidence turn among the returned messages
//             (the top-k hits and their range neighbours), as mnemo eval
//             --k 5 --range 1 scores it.
//   contexts  --contexts recall() calls shaped like mnemo bench's
//             LoadContext: a random thread of the resources in turn, the
//             first 12 words of its newest user message as the search
//             string, the thread's --recent last messages plus semantic
//             recall. Latency p50/p99.
// RSS: peak resident set (VmHWM) during ingest, and during the two serving
// phases (the peak is reset through /proc/self/clear_refs after ingest).
// Process CPU time (user + system) is reported per message and per call,
// steadier than the wall clock on a shared machine.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir, loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Memory } from '@mastra/memory';
import { LibSQLStore, LibSQLVector } from '@mastra/libsql';
import { hashEmbeddingModel } from './hash384.mjs';
import { loadLoCoMo, sharedData } from './locomo.mjs';
import { loadMnemoDB } from './mnemodb.mjs';

const { values: opt } = parseArgs({
  options: {
    file: { type: 'string', default: join(sharedData(), 'locomo', 'locomo10-dev.json') },
    'mnemo-db': { type: 'string' },
    batch: { type: 'string', default: '0' },
    'top-k': { type: 'string', default: '5' },
    range: { type: 'string', default: '1' },
    recent: { type: 'string', default: '10' },
    contexts: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
    work: { type: 'string' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const batch = Number(opt.batch), topK = Number(opt['top-k']), range = Number(opt.range);
const recent = Number(opt.recent), nContexts = Number(opt.contexts);

// Deterministic PRNG (mulberry32) for the choice of context threads.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const status = () => readFileSync('/proc/self/status', 'utf8');
const vm = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status())[1]) * 1024;
function resetPeak() {
  try { writeFileSync('/proc/self/clear_refs', '5'); } catch { /* not Linux, or not allowed: the peak stays cumulative */ }
}
const cpuSeconds = (u) => (u.user + u.system) / 1e6;
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
};
const now = () => Number(process.hrtime.bigint()) / 1e6;
function dirBytes(dir) {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    n += e.isDirectory() ? dirBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  }
  return n;
}

const source = opt['mnemo-db'] ?? opt.file;
const data = opt['mnemo-db'] ? await loadMnemoDB(opt['mnemo-db']) : loadLoCoMo(opt.file);
if (opt.reuse && !existsSync(join(opt.reuse, 'store.db'))) throw new Error(`--reuse ${opt.reuse}: no store.db (keep one with --work DIR --keep)`);
const work = opt.reuse ?? opt.work ?? mkdtempSync(join(tmpdir(), 'mastra-bench-'));
mkdirSync(work, { recursive: true });
const storage = new LibSQLStore({ id: 'bench-store', url: `file:${join(work, 'store.db')}` });
const vector = new LibSQLVector({ id: 'bench-vector', url: `file:${join(work, 'vector.db')}` });
const memory = new Memory({
  storage,
  vector,
  embedder: hashEmbeddingModel,
  options: {
    lastMessages: recent,
    semanticRecall: { topK, messageRange: range, scope: 'resource' },
    workingMemory: { enabled: false },
    generateTitle: false,
  },
});

const report = {
  peer: 'mastra',
  versions: {},
  node: process.version,
  file: source,
  settings: { batch, topK, messageRange: range, scope: 'resource', lastMessages: recent, embedder: 'hash-384' },
  corpus: { resources: data.resources.length, threads: 0, messages: 0, questions: data.questions.length, skippedEvidence: data.skipped },
  loadavg: { start: loadavg() },
  cpus: cpus().length,
};
for (const p of ['@mastra/core', '@mastra/memory', '@mastra/libsql']) {
  report.versions[p] = JSON.parse(readFileSync(new URL(`./node_modules/${p}/package.json`, import.meta.url))).version;
}

// Ingest.
const toDB = (m, thread, resourceId) => ({
  id: m.id,
  role: m.role,
  threadId: thread.id,
  resourceId,
  createdAt: m.createdAt,
  type: 'text',
  content: { format: 2, parts: [{ type: 'text', text: m.text }], content: m.text },
});
let cpu0, cpu, t0;
if (opt.reuse) {
  for (const r of data.resources) {
    report.corpus.threads += r.threads.length;
    for (const th of r.threads) report.corpus.messages += th.messages.length;
  }
} else {
  resetPeak();
  cpu0 = process.cpuUsage();
  t0 = now();
  for (const r of data.resources) {
    for (const th of r.threads) {
      await memory.saveThread({ thread: { id: th.id, resourceId: r.id, title: th.title, createdAt: th.messages[0]?.createdAt ?? new Date(), updatedAt: new Date(), metadata: {} } });
      const msgs = th.messages.map((m) => toDB(m, th, r.id));
      const step = batch > 0 ? batch : msgs.length;
      for (let i = 0; i < msgs.length; i += step) await memory.saveMessages({ messages: msgs.slice(i, i + step) });
      report.corpus.threads++;
      report.corpus.messages += msgs.length;
    }
  }
  const secs = (now() - t0) / 1000;
  cpu = cpuSeconds(process.cpuUsage(cpu0));
  report.ingest = {
    seconds: secs,
    msgsPerSec: report.corpus.messages / secs,
    cpuSeconds: cpu,
    cpuMsPerMsg: (cpu * 1000) / report.corpus.messages,
    peakRSS: vm('VmHWM'),
  };
}
report.loadavg.afterIngest = loadavg();

// Questions: recall_any over the range-expanded set, and latency.
resetPeak();
if (data.questions.length > 0) {
  const questionThread = new Map();
  for (const r of data.resources) {
    const id = `${r.id}:questions`;
    await memory.saveThread({ thread: { id, resourceId: r.id, title: 'questions', createdAt: new Date(), updatedAt: new Date(), metadata: {} } });
    questionThread.set(r.id, id);
    await memory.recall({ threadId: id, resourceId: r.id, vectorSearchString: 'warm up' });
  }
  const qLat = [];
  let hits = 0, returned = 0;
  const byCat = {};
  cpu0 = process.cpuUsage();
  for (const q of data.questions) {
    t0 = now();
    const res = await memory.recall({ threadId: questionThread.get(q.resource), resourceId: q.resource, vectorSearchString: q.text });
    qLat.push(now() - t0);
    const ids = new Set(res.messages.map((m) => m.id));
    returned += ids.size;
    const hit = q.evidence.some((id) => ids.has(id));
    hits += hit;
    byCat[q.category] ??= { n: 0, hits: 0 };
    byCat[q.category].n++;
    byCat[q.category].hits += hit;
  }
  cpu = cpuSeconds(process.cpuUsage(cpu0));
  report.questions = {
    n: qLat.length,
    p50ms: pct(qLat, 50),
    p99ms: pct(qLat, 99),
    cpuMsPerCall: (cpu * 1000) / qLat.length,
    recallAny: hits / data.questions.length,
    recallAnyByCategory: Object.fromEntries(Object.entries(byCat).map(([c, v]) => [c, v.hits / v.n])),
    meanMessagesReturned: returned / qLat.length,
  };
}

// Contexts shaped like mnemo bench's LoadContext. The search string is, for
// LoCoMo, the first 12 words of the thread's newest user message (mnemo
// bench's fileQueries); for a corpus of mnemo bench, 3–6 distinct words of
// four letters or more from a random non-tool message of a random thread of
// the resource (synth's Query, whose stop list is the commonest words);
// there, how often the message a query was drawn from is among those
// returned is reported, as mnemo bench's "source message in prompt".
function locomoQuery(th) {
  const user = [...th.messages].reverse().find((m) => m.role === 'user') ?? th.messages[th.messages.length - 1];
  return user.content.split(/\s+/).filter(Boolean).slice(0, 12).join(' ');
}
function synthQuery(r, rand) {
  for (let tries = 0; tries < 8; tries++) {
    const src = r.threads[Math.floor(rand() * r.threads.length)];
    const m = src.messages[Math.floor(rand() * src.messages.length)];
    if (m.tool) continue;
    const words = [...new Set(m.content.split(/\s+/).map((w) => w.replace(/^[.?,]+|[.?,]+$/g, '')).filter((w) => w.length >= 4))];
    if (words.length < 3) continue;
    for (let i = words.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [words[i], words[j]] = [words[j], words[i]];
    }
    return { text: words.slice(0, 3 + Math.floor(rand() * 4)).join(' '), target: m.id };
  }
  return { text: r.threads[0].messages[0].content, target: r.threads[0].messages[0].id };
}
const rand = rng(Number(opt.seed));
const cLat = [];
let sourceFound = 0; // the message a synthetic query was drawn from, among those returned
cpu0 = process.cpuUsage();
for (let i = 0; i < nContexts; i++) {
  const r = data.resources[i % data.resources.length];
  const th = r.threads[Math.floor(rand() * r.threads.length)];
  const { text, target } = opt['mnemo-db'] ? synthQuery(r, rand) : { text: locomoQuery(th) };
  t0 = now();
  const res = await memory.recall({ threadId: th.id, resourceId: r.id, vectorSearchString: text });
  cLat.push(now() - t0);
  if (res.messages.length === 0) throw new Error(`context ${i}: recall returned no messages`);
  if (target !== undefined) sourceFound += res.messages.some((m) => m.id === target);
}
cpu = cpuSeconds(process.cpuUsage(cpu0));
report.contexts = { n: cLat.length, p50ms: pct(cLat, 50), p99ms: pct(cLat, 99), cpuMsPerCall: nContexts ? (cpu * 1000) / nContexts : 0 };
if (opt['mnemo-db']) report.contexts.sourceInResult = sourceFound / nContexts;
report.servingPeakRSS = vm('VmHWM');
report.rssEnd = vm('VmRSS');
report.loadavg.end = loadavg();
report.diskBytes = dirBytes(work);
report.work = opt.keep ? work : undefined;

await memory.settled?.();
await vector.close?.();
await storage.close?.();
if (!opt.keep && !opt.work && !opt.reuse) rmSync(work, { recursive: true, force: true });

if (opt.json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const mib = (b) => (b / 1048576).toFixed(1) + ' MiB';
  const f = (x, d = 2) => x.toFixed(d);
  const la = (l) => l.map((x) => x.toFixed(2)).join(' ');
  console.log(`mastra ${report.versions['@mastra/memory']} (core ${report.versions['@mastra/core']}, libsql ${report.versions['@mastra/libsql']}), node ${report.node}, ${report.cpus} CPUs`);
  console.log(`corpus: ${source}: ${report.corpus.resources} resources, ${report.corpus.threads} threads, ${report.corpus.messages} messages, ${report.corpus.questions} questions (${report.corpus.skippedEvidence} evidence ids skipped)`);
  console.log(`settings: hash-384, semantic recall topK ${topK}, messageRange ${range}, scope resource, lastMessages ${recent}, batch ${batch || 'whole thread'}`);
  if (report.ingest) console.log(`ingest:    ${f(report.ingest.msgsPerSec, 1)} msgs/s (${f(report.ingest.seconds)} s; CPU ${f(report.ingest.cpuMsPerMsg)} ms/msg), peak RSS ${mib(report.ingest.peakRSS)}`);
  if (report.questions) console.log(`questions: recall p50 ${f(report.questions.p50ms)} ms, p99 ${f(report.questions.p99ms)} ms (CPU ${f(report.questions.cpuMsPerCall)} ms/call), turn recall_any ${f(report.questions.recallAny, 3)} over ${report.questions.n} (mean ${f(report.questions.meanMessagesReturned, 1)} messages returned)`);
  if (report.questions) console.log(`           by category: ${Object.entries(report.questions.recallAnyByCategory).map(([c, v]) => `${c}: ${f(v, 3)}`).join(', ')}`);
  console.log(`contexts:  recall p50 ${f(report.contexts.p50ms)} ms, p99 ${f(report.contexts.p99ms)} ms (CPU ${f(report.contexts.cpuMsPerCall)} ms/call) over ${report.contexts.n}${report.contexts.sourceInResult !== undefined ? `; source message returned (sanity) ${f(report.contexts.sourceInResult)}` : ''}`);
  console.log(`RSS: serving peak ${mib(report.servingPeakRSS)}, at the end ${mib(report.rssEnd)}; disk ${mib(report.diskBytes)}`);
  console.log(`load average: start ${la(report.loadavg.start)}, after ingest ${la(report.loadavg.afterIngest)}, end ${la(report.loadavg.end)}`);
}
