// hash384.mjs — mnemo's offline "hash-384" embedder (recall/embed_hash.go,
// recall/fold.go), ported to JavaScript so that Mastra runs on exactly the
// vectors mnemo uses. The algorithm is fixed by ../shared/data/README.md:
// lowercase ASCII A–Z; tokens are maximal runs of ASCII [a-z0-9] (every other
// byte separates, bytes ≥ 0x80 too); per token t the feature "w:"+t with
// weight 1.0, then "c:"+t[i:i+3] for i = 0…len(t)−3 with weight 0.5; each
// feature hashed with FNV-1a 32-bit; idx = (h & 0x7FFFFFFF) % 384, sign −1
// when bit 31 is set; accumulate in float64; L2-normalise summing in
// ascending index; an all-zero vector becomes the unit vector at index 0;
// components rounded to float32.
//
// mnemo hashes recall.Fold(text): for ASCII text that only lowercases. For
// other text Fold applies NFKC, Unicode case folding, NFD, removes diacritic
// marks, maps a few letters to their base letter and recomposes (NFC). fold()
// below mirrors it with String.prototype.normalize and toLowerCase (plus the
// full-folding cases that change ASCII tokens: ß → ss); verify-embedder.mjs
// compares the result with Go's vectors on every LoCoMo turn and question.

export const HASH_ID = 'hash-384';
export const HASH_DIMS = 384;

const encoder = new TextEncoder();

/** fnv1a32 returns the 32-bit FNV-1a hash of the bytes of s (ASCII). */
export function fnv1a32(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i) & 0xff;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** tokens returns the hash-384 tokens of text (no folding). */
export function tokens(text) {
  const b = encoder.encode(text);
  const out = [];
  let cur = '';
  for (let i = 0; i < b.length; i++) {
    let c = b[i];
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
      cur += String.fromCharCode(c);
    } else if (cur !== '') {
      out.push(cur);
      cur = '';
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}

const DIACRITIC = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/gu;
const BASE = { 'ø': 'o', 'ł': 'l', 'đ': 'd', 'ħ': 'h', 'ı': 'i' };

/** fold mirrors mnemo's recall.Fold. */
export function fold(text) {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  let s = text.normalize('NFKC').toLowerCase().replace(/ß/g, 'ss').replace(/ſ/g, 's');
  s = s.normalize('NFD').replace(DIACRITIC, '');
  s = s.replace(/[øłđħı]/g, (r) => BASE[r] ?? r);
  return s.normalize('NFC');
}

/** hashVector returns the specification's vector of text (no folding). */
export function hashVector(text) {
  const v = new Float64Array(HASH_DIMS);
  const add = (feature, w) => {
    const h = fnv1a32(feature);
    const idx = (h & 0x7fffffff) % HASH_DIMS;
    v[idx] += h & 0x80000000 ? -w : w;
  };
  for (const t of tokens(text)) {
    add('w:' + t, 1.0);
    for (let i = 0; i + 3 <= t.length; i++) add('c:' + t.slice(i, i + 3), 0.5);
  }
  let sum = 0;
  for (let i = 0; i < HASH_DIMS; i++) sum += v[i] * v[i];
  const out = new Array(HASH_DIMS).fill(0);
  const norm = Math.sqrt(sum);
  if (norm === 0) {
    out[0] = 1;
    return out;
  }
  for (let i = 0; i < HASH_DIMS; i++) out[i] = Math.fround(v[i] / norm);
  return out;
}

/** embed returns hashVector(fold(text)), as mnemo's HashEmbedder does. */
export function embed(text) {
  return hashVector(fold(text));
}

/**
 * hashEmbeddingModel is an AI SDK embedding model (specification v2) that
 * Mastra's Memory accepts as its embedder.
 */
export const hashEmbeddingModel = {
  specificationVersion: 'v2',
  provider: 'mnemo',
  modelId: HASH_ID,
  maxEmbeddingsPerCall: Infinity,
  supportsParallelCalls: true,
  async doEmbed({ values }) {
    return { embeddings: values.map(embed) };
  },
};
