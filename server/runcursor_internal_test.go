package server

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// FuzzParseRunCursor: whatever the text, ParseRunCursor returns a key or
// a 400 naming "cursor", never panics; a key it returns holds a valid run
// id and re-encodes to the same text; every key of a valid id encodes to
// a cursor that parses back to it.
func FuzzParseRunCursor(f *testing.F) {
	for _, k := range []journal.RunKey{{CreatedAt: 0, RunID: "r"}, {CreatedAt: 1764758400000, RunID: "run-1"},
		{CreatedAt: math.MinInt64, RunID: strings.Repeat("z", 128)}, {CreatedAt: math.MaxInt64, RunID: "a:b@c"}} {
		f.Add(RunCursor(k), k.CreatedAt, k.RunID)
	}
	for _, s := range []string{"", "x", "AQ", "AQBy", "AgBy", "AQBy=", "AQCAcg", "AQAA", "AQB/"} {
		f.Add(s, int64(0), "")
	}
	f.Fuzz(func(t *testing.T, s string, created int64, id string) {
		k, err := ParseRunCursor(s)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.kind != kindInvalid || ae.field != "cursor" {
				t.Fatalf("%q: %v, want a 400 naming cursor", s, err)
			}
		} else if RunCursor(k) != s || !engine.ValidID(k.RunID) {
			t.Fatalf("%q parses to %+v, which encodes to %q", s, k, RunCursor(k))
		}
		if !engine.ValidID(id) {
			return
		}
		want := journal.RunKey{CreatedAt: created, RunID: id}
		if got, err := ParseRunCursor(RunCursor(want)); err != nil || got != want {
			t.Fatalf("%+v: parses back to %+v, %v", want, got, err)
		}
	})
}

// TestRunCursorFrozen: cursors made by earlier builds (these texts were
// written by main at b477b4d) still parse to their place and encode the
// same: a client holding a nextCursor (or `mnemo runs --cursor`) across an
// upgrade keeps its page. A change of the encoding fails here.
func TestRunCursorFrozen(t *testing.T) {
	for _, c := range []struct {
		text string
		key  journal.RunKey
	}{
		{"AQBy", journal.RunKey{CreatedAt: 0, RunID: "r"}},
		{"AYCw4bzcZnJ1bi0x", journal.RunKey{CreatedAt: 1764758400000, RunID: "run-1"}},
		{"Af___________wF6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6eg", journal.RunKey{CreatedAt: math.MinInt64, RunID: strings.Repeat("z", 128)}},
		{"Af7__________wFhOmJAYw", journal.RunKey{CreatedAt: math.MaxInt64, RunID: "a:b@c"}},
		{"AQFydW4tOQ", journal.RunKey{CreatedAt: -1, RunID: "run-9"}},
	} {
		if got := RunCursor(c.key); got != c.text {
			t.Errorf("%+v encodes to %q, want %q", c.key, got, c.text)
		}
		if got, err := ParseRunCursor(c.text); err != nil || got != c.key {
			t.Errorf("%q parses to %+v, %v; want %+v", c.text, got, err, c.key)
		}
	}
}
