// locomo.mjs — reads LoCoMo (../shared/data/locomo, see its README) the way
// mnemo's importer maps it (importer/locomo.go): one resource per sample, one
// thread per session, one message per turn; speaker_a → user, speaker_b →
// assistant; content "text [image: caption]"; the embedded text is
// "Speaker: content" (recall.Doc.Text), which is what Mastra gets as the
// message text here, so both sides embed the same strings.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** sharedData returns $MNEMO_SHARED_DATA, else ../shared/data beside the repository. */
export function sharedData() {
  if (process.env.MNEMO_SHARED_DATA) return process.env.MNEMO_SHARED_DATA;
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const beside = join(repo, '..', 'shared', 'data');
  return existsSync(beside) ? beside : '/work/shared/data';
}

// "1:56 pm on 8 May, 2023" → Date (UTC, as mnemo's importer reads it).
const MONTHS = { january: 0, february: 1, march: 2, april: 3, may: 4, june: 5, july: 6, august: 7, september: 8, october: 9, november: 10, december: 11 };
function parseDate(s) {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm) on (\d{1,2}) (\w+),? (\d{4})$/i.exec(s.trim());
  if (!m) throw new Error(`LoCoMo date ${JSON.stringify(s)}`);
  let h = Number(m[1]) % 12;
  if (m[3].toLowerCase() === 'pm') h += 12;
  return new Date(Date.UTC(Number(m[6]), MONTHS[m[5].toLowerCase()], Number(m[4]), h, Number(m[2])));
}

/**
 * loadLoCoMo returns {resources: [{id, threads: [{id, title, messages}]}],
 * questions: [{resource, text, category, evidence: [messageId]}], skipped}.
 * Message ids are "<sample>:<dia_id>" and thread ids "<sample>:session_<n>",
 * as in mnemo. As mnemo eval does (cmd/mnemo/internal/evalset): only
 * categories 1–4 are scored; evidence ids are the D<n>:<m> found in each
 * evidence entry; ids that name no turn are counted in skipped, and a
 * question left with no evidence turn is not scored.
 */
export function loadLoCoMo(path) {
  const samples = JSON.parse(readFileSync(path, 'utf8'));
  const resources = [];
  const questions = [];
  let skipped = 0;
  for (const s of samples) {
    const conv = s.conversation;
    const a = conv.speaker_a, b = conv.speaker_b;
    const sessions = Object.keys(conv).map((k) => /^session_(\d+)$/.exec(k)).filter(Boolean).map((m) => Number(m[1])).sort((x, y) => x - y);
    const known = new Set();
    const threads = [];
    for (const n of sessions) {
      const start = parseDate(conv[`session_${n}_date_time`]);
      const thread = { id: `${s.sample_id}:session_${n}`, title: `${a} & ${b}, session ${n}`, messages: [] };
      conv[`session_${n}`].forEach((t, j) => {
        let content = t.text;
        const cap = (t.blip_caption ?? '').trim();
        if (cap) content = `${content} [image: ${cap}]`.trim();
        const id = `${s.sample_id}:${t.dia_id}`;
        known.add(id);
        thread.messages.push({
          id,
          role: t.speaker === a ? 'user' : 'assistant',
          name: t.speaker,
          text: `${t.speaker}: ${content}`,
          content,
          createdAt: new Date(start.getTime() + j * 1000),
        });
      });
      threads.push(thread);
    }
    resources.push({ id: s.sample_id, threads });
    s.qa.forEach((q, i) => {
      if (!(q.category >= 1 && q.category <= 4)) return;
      const evidence = new Set();
      for (const e of q.evidence ?? []) {
        const ids = String(e).match(/D\d+:\d+/g) ?? [];
        if (ids.length === 0) skipped++;
        for (const dia of ids) {
          const id = `${s.sample_id}:${dia}`;
          if (known.has(id)) evidence.add(id); else skipped++;
        }
      }
      if (evidence.size > 0) questions.push({ id: `${s.sample_id}#${i}`, resource: s.sample_id, text: q.question, category: q.category, evidence: [...evidence] });
    });
  }
  return { resources, questions, skipped };
}
