package uselite_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/recall/uselite"
)

// FuzzTokenizer checks that Encode never panics, returns ids inside the
// vocabulary, never two unknown ids in a row, no tokens exactly when the
// NFKC-normalised text is empty, and the same ids for the same text.
func FuzzTokenizer(f *testing.F) {
	for _, tc := range loadReference(f).Texts {
		f.Add(tc.Text)
	}
	f.Add("")
	f.Add("\xff\xfe invalid utf-8")
	f.Add("   ")
	b, err := os.ReadFile(filepath.Join(modelDir(f), uselite.VocabFile))
	if err != nil {
		f.Fatal(err)
	}
	tok, err := uselite.NewTokenizer(b)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ids := tok.Encode(text)
		for i, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("id %d out of range", id)
			}
			if i > 0 && id == 0 && ids[i-1] == 0 {
				t.Fatalf("two unknown ids in a row: %v", ids)
			}
		}
		if utf8.ValidString(text) && text == "" && len(ids) != 0 {
			t.Fatalf("empty text has tokens %v", ids)
		}
		if text != "" && len(ids) == 0 {
			t.Fatalf("%q has no tokens", text)
		}
		if again := tok.Encode(text); !slices.Equal(ids, again) {
			t.Fatalf("not deterministic: %v then %v", ids, again)
		}
	})
}
