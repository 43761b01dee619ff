// mnemodb.mjs — reads the corpus of a data directory that `mnemo bench
// --keep` left (its synthetic corpus, internal/enginetest/synth), so that
// Mastra can be measured on the same messages: one resource, thread and
// message each per mnemo's, in thread order.
//
// Mastra has no tool messages in the shape mnemo stores them; a tool result
// becomes an assistant text message holding its content, and an assistant
// turn that only calls tools holds its tool_calls JSON as text.
import { createClient } from '@libsql/client';

/** loadMnemoDB returns {resources, questions: [], skipped: 0} as loadLoCoMo does. */
export async function loadMnemoDB(path) {
  const db = createClient({ url: 'file:' + path });
  const rows = (await db.execute(`
    SELECT m.id, m.thread_id, m.resource_id, m.role, COALESCE(b.content, m.content) AS content,
           m.name, m.tool_calls, m.created_at, t.title
    FROM messages m JOIN threads t ON t.id = m.thread_id
    LEFT JOIN message_blobs b ON b.message_id = m.id
    ORDER BY m.resource_id, m.thread_id, m.seq`)).rows;
  db.close();
  const resources = [];
  let res = null, thread = null;
  for (const r of rows) {
    if (!res || res.id !== r.resource_id) {
      res = { id: r.resource_id, threads: [] };
      resources.push(res);
      thread = null;
    }
    if (!thread || thread.id !== r.thread_id) {
      thread = { id: r.thread_id, title: r.title, messages: [] };
      res.threads.push(thread);
    }
    const content = r.content || r.tool_calls || '';
    const name = r.name || '';
    thread.messages.push({
      id: r.id,
      role: r.role === 'user' ? 'user' : 'assistant',
      tool: r.role === 'tool',
      name,
      text: name ? `${name}: ${content}` : content,
      content,
      createdAt: new Date(Number(r.created_at)), // Unix milliseconds
    });
  }
  return { resources, questions: [], skipped: 0 };
}
