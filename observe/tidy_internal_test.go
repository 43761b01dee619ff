package observe

import (
	"strings"
	"testing"
)

// TestTidyContent: the list debris of rows stored before obs60 reads as
// one marker per item; what renderItems writes now, and lines not
// starting "- ", read as stored.
func TestTidyContent(t *testing.T) {
	const u = UntrustedMark
	for _, c := range []struct{ name, stored, want string }{
		{"as written now", "- Ana keeps bees.\n- " + u + "Rain in Lyon.", ""},
		{"reflection of reflections", "- - - Ana keeps bees.\n- - Ana likes honey.", "- Ana keeps bees.\n- Ana likes honey."},
		{"untrusted then dash", "- " + u + "- Rain in Lyon.", "- " + u + "Rain in Lyon."},
		{"untrusted twice", "- " + u + u + "Rain in Lyon.\n- Ana keeps bees.", "- " + u + "Rain in Lyon.\n- Ana keeps bees."},
		{"dash then untrusted", "- - " + u + "Rain.", "- " + u + "Rain."},
		{"a minus sign is no marker", "- -5 degrees in Oslo.", ""},
		{"other lines", "free text - - kept\n\n- - fact", "free text - - kept\n\n- fact"},
		{"empty", "", ""},
	} {
		want := c.want
		if want == "" {
			want = c.stored
		}
		if got := tidyContent(c.stored); got != want {
			t.Errorf("%s: tidyContent(%q) = %q, want %q", c.name, c.stored, got, want)
		}
		if got := tidyContent(want); got != want {
			t.Errorf("%s: not a fixed point: %q became %q", c.name, want, got)
		}
	}
}

// FuzzTidyContent: tidyContent is idempotent, keeps every line, and what
// renderItems writes from any items is its own tidy form.
func FuzzTidyContent(f *testing.F) {
	f.Add("- - - fact\n- " + UntrustedMark + "- x")
	f.Add("-  -\tfact\n")
	f.Fuzz(func(t *testing.T, s string) {
		once := tidyContent(s)
		if twice := tidyContent(once); twice != once {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, once, twice)
		}
		if strings.Count(once, "\n") != strings.Count(s, "\n") {
			t.Fatalf("lines changed: %q -> %q", s, once)
		}
		items := []Item{{Text: stripMarkers(strings.Join(strings.Fields(s), " ")), Untrusted: len(s)%2 == 0}}
		if r := renderItems(items); tidyContent(r) != r {
			t.Fatalf("renderItems wrote %q, tidy %q", r, tidyContent(r))
		}
	})
}
