package recall

import (
	"context"
	"hash/fnv"
	"math"
)

// HashID is the ID of the hashing embedder; HashDims its dimension.
const (
	HashID   = "hash-384"
	HashDims = 384
)

// HashEmbedder is mnemo's offline default embedder, "hash-384": deterministic
// feature hashing of words and character trigrams into 384 dimensions.
//
// Its similarity is lexical-level, not semantic: it sees the same words a
// BM25 index sees (plus trigram overlap), so it never carries meaning that the
// lexical channel lacks. Say so wherever its figures are reported.
//
// The algorithm is fixed by ../shared/data/README.md so that figures compare
// across systems run on the same vectors: lowercase ASCII A–Z; tokens are
// maximal runs of [a-z0-9] (every other byte separates, bytes ≥ 0x80 too);
// per token t, feature "w:"+t with weight 1.0, then "c:"+t[i:i+3] for
// i = 0…len(t)−3 with weight 0.5; each feature hashed with FNV-1a 32-bit;
// idx = (h & 0x7FFFFFFF) % 384, sign −1 when bit 31 is set; accumulate in
// float64; L2-normalise summing in ascending index; an all-zero vector becomes
// the unit vector at index 0.
//
// The embedder hashes Fold(text), not text: NFC and NFD spellings,
// full-width letters and accented words ("résumé") get the vectors of
// their plain forms, as the lexical channel sees them. For ASCII text
// Fold only lowercases, so the vectors are exactly the specification's
// (../shared/data/README.md); bytes ≥ 0x80 left after folding still separate tokens.
//
// The zero value is ready to use and safe for concurrent use.
type HashEmbedder struct{}

var _ Embedder = HashEmbedder{}

// ID returns "hash-384".
func (HashEmbedder) ID() string { return HashID }

// Dims returns 384.
func (HashEmbedder) Dims() int { return HashDims }

// InProcess marks HashEmbedder as computed in this process (InProcess).
func (HashEmbedder) InProcess() {}

// Embed returns the hash-384 vector of Fold(text) for each text, of unit
// length. It never fails.
func (h HashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hashVector(Fold(t))
	}
	return out, nil
}

// hashTokens returns the hash-384 tokens of text: maximal runs of ASCII
// letters and digits, lowercased.
func hashTokens(text string) []string {
	var toks []string
	start := -1
	b := []byte(text)
	for i := 0; i <= len(b); i++ {
		alnum := false
		if i < len(b) {
			c := b[i]
			if c >= 'A' && c <= 'Z' {
				b[i] = c + ('a' - 'A')
				alnum = true
			} else if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
				alnum = true
			}
		}
		if alnum && start < 0 {
			start = i
		} else if !alnum && start >= 0 {
			toks = append(toks, string(b[start:i]))
			start = -1
		}
	}
	return toks
}

// fnv1a32 is the 32-bit FNV-1a hash of s, as hash-384 uses it.
func fnv1a32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// FNV-1a 32-bit parameters (hash/fnv), for hashing features without
// building their strings.
const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

// fnvAdd continues an FNV-1a 32-bit hash h over the bytes of s.
func fnvAdd(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime32
	}
	return h
}

// Hashes of the feature prefixes "w:" and "c:": a feature's hash is its
// prefix's continued over the token or trigram (FNV-1a is a left fold over
// the bytes), exactly fnv1a32("w:"+t).
var (
	fnvWord    = fnvAdd(fnvOffset32, "w:")
	fnvTrigram = fnvAdd(fnvOffset32, "c:")
)

// hashVector returns the hash-384 vector of text exactly as
// ../shared/data/README.md specifies it (no folding; see HashEmbedder).
// It hashes the features in place (no feature string, no hash.Hash per
// feature: they were most of the drainer's allocations at ingest).
func hashVector(text string) []float32 {
	var v [HashDims]float64
	add := func(h uint32, w float64) {
		idx := (h & 0x7FFFFFFF) % HashDims
		if h&0x80000000 != 0 {
			w = -w
		}
		v[idx] += w
	}
	eachHashToken(text, func(t []byte) {
		add(fnvAddBytes(fnvWord, t), 1.0)
		for i := 0; i+3 <= len(t); i++ {
			add(fnvAddBytes(fnvTrigram, t[i:i+3]), 0.5)
		}
	})
	var sum float64
	for i := 0; i < HashDims; i++ {
		sum += v[i] * v[i]
	}
	out := make([]float32, HashDims)
	norm := math.Sqrt(sum)
	if norm == 0 {
		out[0] = 1
		return out
	}
	for i := range out {
		out[i] = float32(v[i] / norm)
	}
	return out
}

// fnvAddBytes is fnvAdd over a byte slice.
func fnvAddBytes(h uint32, b []byte) uint32 {
	for _, c := range b {
		h ^= uint32(c)
		h *= fnvPrime32
	}
	return h
}

// eachHashToken calls fn with each hash-384 token of text (hashTokens'
// tokens, in order) in a buffer that fn must not keep: maximal runs of
// ASCII letters and digits, lowercased.
func eachHashToken(text string, fn func(tok []byte)) {
	var small [64]byte
	buf := small[:0]
	for i := 0; i <= len(text); i++ {
		if i < len(text) {
			c := text[i]
			switch {
			case c >= 'A' && c <= 'Z':
				buf = append(buf, c+('a'-'A'))
				continue
			case (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'):
				buf = append(buf, c)
				continue
			}
		}
		if len(buf) > 0 {
			fn(buf)
			buf = buf[:0]
		}
	}
}
