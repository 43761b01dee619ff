package uselite

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// separator is SentencePiece's word-boundary mark, U+2581 LOWER ONE EIGHTH
// BLOCK; the tokenizer puts it before the text and in place of every space.
const separator = '\u2581'

// reservedPieces is the number of leading vocabulary entries (unknown, <s>,
// </s> and three extra ids) that never match text. Source:
// @energetic-ai/embeddings 0.2.0 lib/tokenizer.ts, RESERVED_SYMBOLS_COUNT.
const reservedPieces = 6

// unknownID is the id of the unknown piece; a run of unknown characters
// becomes one unknownID.
const unknownID = 0

// Tokenizer splits text into SentencePiece ids with the unigram model of the
// use-lite vocabulary (8,000 pieces with log-probability scores).
//
// It reproduces the reference runtime, @energetic-ai/embeddings 0.2.0
// (itself TensorFlow.js's universal-sentence-encoder tokenizer), decision for
// decision, including its quirks: NFKC normalisation; only U+0020 becomes the
// separator (tabs and newlines stay and are unknown); a character with no
// piece is the unknown id with score 0; the Viterbi pass treats a best score
// of exactly 0 as "unset" and prefers the later candidate on ties; the
// backtrack steps by the UTF-16 length of the chosen piece; consecutive
// unknown ids merge into one. Parity is pinned by testdata/reference.json.
//
// A Tokenizer is immutable after NewTokenizer and safe for concurrent use.
type Tokenizer struct {
	pieces []piece
	root   *trieNode
}

// piece is one vocabulary entry.
type piece struct {
	text     string
	score    float64
	utf16Len int
}

// trieNode is a node of the prefix tree over the pieces' code points.
type trieNode struct {
	children map[rune]*trieNode
	end      bool
	length   int // code points from the root; meaningful when end
	score    float64
	id       int
}

// NewTokenizer builds a Tokenizer from the model's vocab.json: a JSON array
// of [piece, score] pairs whose position is the token id. It returns an error
// wrapping ErrBadModel when the JSON has another shape or fewer than 7
// entries (the 6 reserved pieces and one more).
func NewTokenizer(vocabJSON []byte) (*Tokenizer, error) {
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(vocabJSON, &raw); err != nil {
		return nil, fmt.Errorf("%w: vocab.json: %v", ErrBadModel, err)
	}
	if len(raw) <= reservedPieces {
		return nil, fmt.Errorf("%w: vocab.json has %d pieces", ErrBadModel, len(raw))
	}
	t := &Tokenizer{pieces: make([]piece, len(raw)), root: &trieNode{}}
	for i, r := range raw {
		var p piece
		if err := json.Unmarshal(r[0], &p.text); err != nil {
			return nil, fmt.Errorf("%w: vocab.json piece %d: %v", ErrBadModel, i, err)
		}
		if err := json.Unmarshal(r[1], &p.score); err != nil {
			return nil, fmt.Errorf("%w: vocab.json score %d: %v", ErrBadModel, i, err)
		}
		p.utf16Len = len(utf16.Encode([]rune(p.text)))
		t.pieces[i] = p
		if i >= reservedPieces && p.text != "" {
			t.insert(p.text, p.score, i)
		}
	}
	return t, nil
}

// insert adds a piece to the trie; a later duplicate overwrites the earlier
// one's score and id, as in the reference.
func (t *Tokenizer) insert(text string, score float64, id int) {
	n := t.root
	length := 0
	for _, r := range text {
		if n.children == nil {
			n.children = make(map[rune]*trieNode)
		}
		c := n.children[r]
		if c == nil {
			c = &trieNode{}
			n.children[r] = c
		}
		n = c
		length++
	}
	n.end, n.length, n.score, n.id = true, length, score, id
}

// VocabSize is the number of pieces, reserved ones included.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// candidate is a piece that can end a Viterbi lattice position.
type candidate struct {
	start int
	score float64
	id    int
	len   int
}

// Encode returns the token ids of text. The empty text (after NFKC) has no
// tokens. Encode never fails: characters without a piece become the
// unknown token, id 0.
func (t *Tokenizer) Encode(text string) []int {
	s := norm.NFKC.String(text)
	if s == "" {
		return nil
	}
	s = string(separator) + strings.ReplaceAll(s, " ", string(separator))
	symbols := []rune(s)
	n := len(symbols)

	// ends[e] lists the candidates ending at e in increasing start order,
	// the order in which the reference iterates its per-position objects.
	ends := make([][]candidate, n+1)
	for i := 0; i < n; i++ {
		found := false
		node := t.root.children[symbols[i]]
		for j := i; node != nil; {
			if node.end {
				found = true
				ends[i+node.length] = append(ends[i+node.length], candidate{i, node.score, node.id, node.length})
			}
			j++
			if j >= n {
				break
			}
			node = node.children[symbols[j]]
		}
		if !found {
			ends[i+1] = append(ends[i+1], candidate{i, 0, unknownID, 1})
		}
	}
	// Candidates were appended in increasing start order already, because
	// the outer loop runs over starts.
	best := make([]float64, n+1)
	words := make([]int, n+1)
	for e := 0; e <= n; e++ {
		for _, c := range ends[e] {
			score := c.score + best[e-c.len]
			if best[e] == 0 || score >= best[e] {
				best[e] = score
				words[e] = c.id
			}
		}
	}
	var rev []int
	for i := n; i > 0; i -= t.pieces[words[i]].utf16Len {
		rev = append(rev, words[i])
	}
	out := make([]int, 0, len(rev))
	prevUnknown := false
	for _, id := range rev {
		if !(prevUnknown && id == unknownID) {
			out = append(out, id)
		}
		prevUnknown = id == unknownID
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
