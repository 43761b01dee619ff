// client.mjs: spawn `mnemo mcp` over stdio with the official MCP TypeScript
// SDK, list the tools, append a conversation, search it and check the text
// comes back, read the memctx resource of a context. Prints one JSON line
// with what it saw; exits non-zero on any failure.
//
// usage: node client.mjs MNEMO_BINARY DATA_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, dir] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: bin,
  args: ["--dir", dir, "--embedder", "hash-384", "mcp", "--resources", "node-user"],
  stderr: "inherit",
});
const client = new Client({ name: "node-test-client", version: "0.0.0" });
await client.connect(transport);

const fail = (msg) => { console.error(msg); process.exit(1); };
const structured = (res, tool) => {
  if (res.isError) fail(`${tool} failed: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
};

const tools = (await client.listTools()).tools.map((t) => t.name).sort();
const app = structured(await client.callTool({
  name: "memory_append",
  arguments: {
    threadId: "node-thread",
    messages: [
      { role: "user", content: "My sister Inês is visiting from Coimbra in May" },
      { role: "assistant", content: "How lovely, what will you show her?" },
      { role: "user", content: "Probably the tile museum" },
    ],
  },
}), "memory_append");
// the indexes catch up asynchronously: retry the search briefly
let hits = [];
for (let i = 0; i < 50 && hits.length === 0; i++) {
  hits = structured(await client.callTool({ name: "memory_search", arguments: { query: "sister visiting Coimbra" } }), "memory_search").hits;
  if (hits.length === 0) await new Promise((r) => setTimeout(r, 100));
}
const ctx = structured(await client.callTool({
  name: "memory_context",
  arguments: { threadId: "node-thread", runId: "node-run", recentN: 1, query: "sister", topK: 2 },
}), "memory_context");
const memctx = await client.readResource({ uri: "mnemo://runs/node-run/memctx" });
const refused = await client.callTool({ name: "memory_delete", arguments: { threadId: "node-thread" } });
await client.close();
console.log(JSON.stringify({
  tools,
  stored: app.stored,
  top: hits.length ? hits[0].content : "",
  recalled: ctx.recalled,
  memctxHasHash: memctx.contents[0].text.includes(ctx.promptHash),
  deleteRefused: refused.isError === true,
}));
