package recall

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// sameTokens fails t unless asciiTokenizer gives bleve's unicode
// tokenizer's tokens for text, and returns how many there were.
func sameTokens(t *testing.T, text string) int {
	t.Helper()
	want := unicode.NewUnicodeTokenizer().Tokenize([]byte(text))
	got := asciiTokenizer{fallback: unicode.NewUnicodeTokenizer()}.Tokenize([]byte(text))
	if len(got) != len(want) {
		t.Fatalf("%q: %d tokens, want %d:\n got %v\nwant %v", text, len(got), len(want), tokenList(got), tokenList(want))
	}
	for i := range want {
		g, w := *got[i], *want[i]
		if string(g.Term) != string(w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position || g.Type != w.Type || g.KeyWord != w.KeyWord {
			t.Fatalf("%q: token %d is %v, want %v", text, i, g.String(), w.String())
		}
	}
	return len(want)
}

func tokenList(ts analysis.TokenStream) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// TestASCIITokenizerMatchesUnicode: the ASCII path gives the unicode
// tokenizer's tokens (terms, offsets, positions, types) for every kind of
// ASCII text, the word-joining punctuation (: , ; . ' _) around letters and
// digits above all; and non-ASCII text goes to the unicode tokenizer.
func TestASCIITokenizerMatchesUnicode(t *testing.T) {
	for _, text := range []string{
		"", " ", "a", "_", "__", "1", "a1", "1a", "a.b", "a..b", "a.b.", ".a", "1.2", "1,2", "1;2", "a,b", "a:b", "1:2",
		"a'b", "1'2", "can't won't", "e.g. i.e.", "3.14abc", "abc3.14", "a_:b", "1_,2", "_1_", "a_1.2_b", "x.1", "1.x",
		"v1.2.3-rc1", "foo@example.com", "https://x.y/z?q=1&r=2", "line\r\nbreak\rcr\nlf\vvt\fff", "tab\there",
		"\x00nul\x7fdel", "\"quoted\"", "It's 5:30, isn't it?", "1,000,000.50 dollars", "snake_case_name and CamelCase",
		"café", "naïve résumé", "日本語のテキスト", "mixed ascii и кириллица", "\xff\xfe invalid",
	} {
		sameTokens(t, text)
	}
	const alphabet = "aZq09__::,,;;..''\"\" \n\r\t-/@#()!?\x0b\x0c\x00"
	rng := rand.New(rand.NewPCG(1, 2))
	tokens := 0
	for range 20000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		tokens += sameTokens(t, string(b))
	}
	for range 2000 {
		b := make([]byte, rng.IntN(200))
		for i := range b {
			b[i] = byte(rng.IntN(128))
		}
		tokens += sameTokens(t, string(b))
	}
	if tokens < 50000 {
		t.Fatalf("only %d tokens compared", tokens)
	}
}

// TestASCIITokenizerCorpora compares both tokenizers on every turn of the
// shared LoCoMo and LongMemEval dev sets (MNEMO_SHARED_DATA; skipped
// without them).
func TestASCIITokenizerCorpora(t *testing.T) {
	dir := os.Getenv("MNEMO_SHARED_DATA")
	if dir == "" {
		t.Skip("MNEMO_SHARED_DATA not set")
	}
	n := 0
	for _, f := range []string{"locomo/locomo10-dev.json", "longmemeval/longmemeval_s_dev34.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		eachString(v, func(s string) { n += sameTokens(t, s) })
	}
	t.Logf("%d tokens compared", n)
}

// eachString calls fn with every string in v (decoded JSON).
func eachString(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case []any:
		for _, e := range v {
			eachString(e, fn)
		}
	case map[string]any:
		for _, e := range v {
			eachString(e, fn)
		}
	}
}

// BenchmarkTokenize: bleve's unicode tokenizer against the ASCII path on a
// chat turn.
func BenchmarkTokenize(b *testing.B) {
	text := []byte("I went to the farmers' market on Saturday, 3.5 miles away, and bought 12 apples for $4.20; it's a nice walk when the weather isn't too hot. Did you know the market opens at 7:30?")
	for _, c := range []struct {
		name string
		tok  analysis.Tokenizer
	}{{"unicode", unicode.NewUnicodeTokenizer()}, {"ascii", asciiTokenizer{fallback: unicode.NewUnicodeTokenizer()}}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.tok.Tokenize(text)
			}
		})
	}
}
