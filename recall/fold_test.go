package recall_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

func TestFold(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Hello World", "hello world"},
		{"r\u00e9sum\u00e9", "resume"},   // NFC
		{"re\u0301sume\u0301", "resume"}, // NFD
		{"ＲＥＳＵＭＥ ２０２３", "resume 2023"},   // full-width
		{"İstanbul", "istanbul"},         // dotted capital I
		{"ıspanak", "ispanak"},           // dotless i
		{"Straße", "strasse"},            // ß folds to ss
		{"ﬁle", "file"},                  // ligature
		{"Ångström", "angstrom"},         // ring above, both
		{"Łódź Ørsted", "lodz orsted"},   // letters with stroke
		{"Ελληνικά ΆΈ", "ελληνικα αε"},   // Greek tonos
		{"Ёлка", "елка"},                 // Cyrillic diaeresis
		{"Tiếng Việt", "tieng viet"},     // stacked marks
		{"東京タワー", "東京タワー"},               // CJK unchanged
		{"ｶﾞｲﾄﾞ", "ガイド"},                 // half-width kana widened, voicing kept
		{"がっこう", "がっこう"},                 // dakuten is not an accent
		{"한국어", "한국어"},                   // Hangul recomposed
		{"हिन्दी", "हिन्दी"},             // virama and vowel signs kept
		{"العربية", "العربية"},           // Arabic unchanged
	} {
		if got := recall.Fold(c.in); got != c.want {
			t.Errorf("Fold(%q)=%q, want %q", c.in, got, c.want)
		}
	}
}

// TestUnicodeLexical indexes one message per script and searches it with
// other spellings of the same word: NFC against NFD, full-width against
// ASCII, accented against plain, Turkish dotted capital I against i, and
// CJK by a word inside a longer run. Before Fold, the Latin rows failed.
func TestUnicodeLexical(t *testing.T) {
	cases := []struct {
		name, stored, query string
		vector              bool // hash-384 sees the same folded tokens
	}{
		{"NFD-stored-NFC-query", "my re\u0301sume\u0301 is ready", "r\u00e9sum\u00e9", true},
		{"NFC-stored-NFD-query", "my r\u00e9sum\u00e9 is ready", "re\u0301sume\u0301", true},
		{"accent-folded-query", "I updated my résumé yesterday", "resume", true},
		{"accented-query", "I updated my resume yesterday", "résumé", true},
		{"full-width-stored", "ＺＥＰＨＹＲ quote arrived", "zephyr", true},
		{"full-width-query", "zephyr quote arrived", "ＺＥＰＨＹＲ", true},
		{"dotted-capital-I", "Flight to İstanbul booked", "istanbul", true},
		{"uppercase-query", "flight to istanbul booked", "İSTANBUL", true},
		{"german-sharp-s", "Die Straße ist lang", "strasse", true},
		{"greek", "Ταξίδι στην Αθήνα", "αθηνα", false},
		{"cyrillic", "Поездка в МОСКВУ", "москву", false},
		{"japanese", "東京タワーに行きました", "東京", false},
		{"chinese", "我们明天去北京", "北京", false},
		{"korean", "서울 여행 계획", "서울", false},
	}
	// One resource per case, each with a distractor: spellings of one
	// word in two cases must not answer for each other.
	var docs []recall.Doc
	for i, c := range cases {
		res := fmt.Sprintf("r%02d", i)
		for j, text := range []string{c.stored, "nothing to see in this other message"} {
			docs = append(docs, recall.Doc{ID: fmt.Sprintf("m%02d-%d", i, j), ThreadID: res, ResourceID: res, Seq: int64(j + 1), Role: "user",
				Content: text, CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		}
	}
	f := newFixture(t, docs)
	ctx := context.Background()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := f.ix.Search(ctx, recall.Query{Text: c.query, ResourceID: fmt.Sprintf("r%02d", i), Options: recall.Options{Mode: recall.ModeLexical, TopK: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 1 || res.Hits[0].MessageID != docs[2*i].ID {
				t.Fatalf("lexical %q: hits %+v, want %s (%q)", c.query, res.Hits, docs[2*i].ID, c.stored)
			}
			if !c.vector {
				return
			}
			res, err = f.ix.Search(ctx, recall.Query{Text: c.query, ResourceID: fmt.Sprintf("r%02d", i), Options: recall.Options{Mode: recall.ModeVector, TopK: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 1 || res.Hits[0].MessageID != docs[2*i].ID {
				t.Fatalf("vector %q: hits %+v, want %s (%q)", c.query, res.Hits, docs[2*i].ID, c.stored)
			}
		})
	}
}

// TestHashEmbedderFolds: the embedder folds (so NFC, NFD and full-width
// spellings embed alike) and leaves ASCII text at the specification's
// vectors.
func TestHashEmbedderFolds(t *testing.T) {
	ctx := context.Background()
	vs, _ := recall.HashEmbedder{}.Embed(ctx, []string{"r\u00e9sum\u00e9 Ｏｋ", "re\u0301sume\u0301 ok", "Resume OK", "Hello, World!"})
	for i := 1; i < 3; i++ {
		if got, want := vectorSHA(vs[i]), vectorSHA(vs[0]); got != want {
			t.Errorf("text %d embeds differently from text 0", i)
		}
	}
	if got, want := vectorSHA(vs[3]), vectorSHA(recall.HashVector("Hello, World!")); got != want {
		t.Errorf("ASCII text: embedder and specification differ")
	}
}
