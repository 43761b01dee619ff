package observe

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestStripMarkers: the markers renderItems writes before an item come
// off however often they were copied; a dash that is text stays.
func TestStripMarkers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"The user lives in Lyon.", "The user lives in Lyon."},
		{"- The user lives in Lyon.", "The user lives in Lyon."},
		{"- - - - XXX", "XXX"}, // walk58 F4, after four reflections
		{UntrustedMark + "Rain tomorrow.", "Rain tomorrow."},
		{"- " + UntrustedMark + "- " + UntrustedMark + "Rain tomorrow.", "Rain tomorrow."},
		{strings.TrimSpace(UntrustedMark), ""},
		{"-", ""},
		{"-5 degrees in Lyon", "-5 degrees in Lyon"},
		{"--verbose is a flag", "--verbose is a flag"},
		{"Lyon - Paris by train", "Lyon - Paris by train"},
		{"[untrusted] text", "[untrusted] text"},
	} {
		if got := stripMarkers(c.in); got != c.want {
			t.Errorf("stripMarkers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSplitText: a text longer than the bound is split after its last
// sentence end in the second half of the piece, else at its last space
// there, else after max runes (counted in runes, not bytes).
func TestSplitText(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want []string
	}{
		{"short.", 20, []string{"short."}},
		{"", 20, nil},
		{"One two. Three four five six.", 20, []string{"One two. Three four", "five six."}}, // "One two." is under half the bound: the last space instead
		{"Ab cd ef gh. Ij kl mn op qr st", 20, []string{"Ab cd ef gh.", "Ij kl mn op qr st"}},
		{"A. bcdefghij klmnopqrstuvwxyz", 20, []string{"A. bcdefghij", "klmnopqrstuvwxyz"}}, // the sentence end is in the first half
		{"abcdefghijklmnopqrstuvwxyz", 10, []string{"abcdefghij", "klmnopqrst", "uvwxyz"}},
		{"ééééééééééé", 5, []string{"ééééé", "ééééé", "é"}},
		{"Is it? Yes! Done; ok", 8, []string{"Is it?", "Yes!", "Done; ok"}},
	} {
		if got := splitText(c.in, c.max); !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitText(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// FuzzSplitText: the pieces of a one-line text are non-empty, at most max
// runes each, and hold every character of it in order (only the spaces
// between pieces go).
func FuzzSplitText(f *testing.F) {
	f.Add("One two. Three four five six.", 20)
	f.Add("ééééééééééé", 5)
	f.Add("a b", 1)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 1 || max > 64 || !utf8.ValidString(s) {
			return
		}
		s = strings.Join(strings.Fields(s), " ") // one line, as parseAnswer leaves it
		pieces := splitText(s, max)
		for _, p := range pieces {
			if p == "" || utf8.RuneCountInString(p) > max {
				t.Fatalf("piece %q of %q (max %d)", p, s, max)
			}
		}
		noSpace := func(s string) string { return strings.ReplaceAll(s, " ", "") }
		if got := noSpace(strings.Join(pieces, "")); got != noSpace(s) {
			t.Fatalf("pieces %q of %q lose text", pieces, s)
		}
	})
}

// TestSplitItems: a long item becomes pieces of at most MaxItemChars that
// keep its citations and trust; a piece repeating an earlier item is kept
// once, the citations joined; items within the bound are untouched.
func TestSplitItems(t *testing.T) {
	long := strings.Repeat("The user lives in Lyon. ", 120) // 2,880 characters
	same := strings.Repeat("a", 2*MaxItemChars)             // two equal pieces
	items := []Item{
		{Text: "The user is a baker.", Seqs: []int64{3}},
		{Text: strings.TrimSpace(long), Seqs: []int64{4}, Untrusted: true},
		{Text: same, Seqs: []int64{5}},
	}
	got, split, repeats := splitItems(items)
	if split != 2 || repeats != 1 || len(got) != 4 {
		t.Fatalf("split %d, repeats %d, %d items; want 2, 1, 4", split, repeats, len(got))
	}
	if got[0].Text != "The user is a baker." || got[1].Text+" "+got[2].Text != strings.TrimSpace(long) {
		t.Fatalf("items %+v", got[:3])
	}
	for _, it := range got[1:3] {
		if !it.Untrusted || !reflect.DeepEqual(it.Seqs, []int64{4}) || utf8.RuneCountInString(it.Text) > MaxItemChars {
			t.Fatalf("piece %+v", it)
		}
	}
	if got[3].Text != same[:MaxItemChars] {
		t.Fatalf("last item %d runes", len(got[3].Text))
	}
	if short, n, r := splitItems(items[:1]); n != 0 || r != 0 || len(short) != 1 {
		t.Fatalf("an item within the bound: %v, %d, %d", short, n, r)
	}
}
