package engine

import (
	"encoding/base64"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// FuzzParseThreadCursor: whatever the text, parseThreadCursor returns a
// key or a *ValidationError naming "cursor", never panics; a key it
// returns holds valid ids and re-encodes to the same text (one cursor a
// place), and every key of valid ids (ValidID) encodes to a cursor that
// parses back to it.
func FuzzParseThreadCursor(f *testing.F) {
	for _, k := range []msgstore.ThreadKey{
		{ResourceID: "r", CreatedAt: 0, ID: "t"},
		{ResourceID: "res-alice", CreatedAt: 1764758400000, ID: "thread:1@x"},
		{ResourceID: "R.1:x@y_z-", CreatedAt: -1, ID: strings.Repeat("z", 128)},
		{ResourceID: "r", CreatedAt: math.MinInt64, ID: "t"},
		{ResourceID: "r", CreatedAt: math.MaxInt64, ID: "t"},
	} {
		f.Add(threadCursor(k), k.ResourceID, k.CreatedAt, k.ID)
	}
	for _, s := range []string{"", "x", "AQ", "AQEA", "AgFyAHQ", "AQFyAHQ=", "AQFyAHQ!", "AQFy", "AQGAcgB0", "AQFyAP8"} {
		f.Add(s, "", int64(0), "")
	}
	f.Fuzz(func(t *testing.T, s, res string, created int64, id string) {
		k, err := parseThreadCursor(s)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "cursor" || !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("%q: %v, want a *ValidationError naming cursor", s, err)
			}
		} else if again := threadCursor(k); again != s || !ValidID(k.ResourceID) || !ValidID(k.ID) {
			t.Fatalf("%q parses to %+v, which encodes to %q", s, k, again)
		}
		want := msgstore.ThreadKey{ResourceID: res, CreatedAt: created, ID: id}
		if !ValidID(res) || !ValidID(id) {
			return
		}
		c := threadCursor(want)
		if got, err := parseThreadCursor(c); err != nil || got != want {
			t.Fatalf("%+v: cursor %q parses to %+v, %v", want, c, got, err)
		}
	})
}

// TestParseThreadCursorRefuses: texts that are not a cursor of this
// build are refused naming "cursor", each for its reason.
func TestParseThreadCursorRefuses(t *testing.T) {
	good := threadCursor(msgstore.ThreadKey{ResourceID: "r", CreatedAt: 5, ID: "t"})
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	enc := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	long := threadCursor(msgstore.ThreadKey{ResourceID: "r", CreatedAt: 5, ID: strings.Repeat("t", maxCursorID+1)})
	for why, s := range map[string]string{
		"too long":          strings.Repeat("A", maxCursorLen+1),
		"not base64url":     good + "=",
		"std base64":        strings.ReplaceAll(base64.StdEncoding.EncodeToString([]byte{1, 1, '?', 10, '?'}), "=", ""),
		"unknown version":   enc(append([]byte{2}, raw[1:]...)),
		"truncated":         enc(raw[:3]),
		"no thread id":      enc(raw[:len(raw)-1]),
		"empty resource":    enc([]byte{1, 0, 10, 't'}),
		"resource overruns": enc([]byte{1, 9, 'r', 10, 't'}),
		"overlong varint":   enc([]byte{1, 0x81, 0x00, 'r', 10, 't'}),
		"not UTF-8":         enc([]byte{1, 1, 0xff, 10, 't'}),
		"NUL in the id":     enc([]byte{1, 1, 'r', 10, 't', 0}),
		"not an id":         enc([]byte{1, 1, 'r', 10, 't', '/'}),
		"id too long":       long,
		"trailing bits":     good[:len(good)-1] + "B",
	} {
		if _, err := parseThreadCursor(s); err == nil || !strings.Contains(err.Error(), "invalid cursor") {
			t.Errorf("%s (%q): %v, want an error naming cursor", why, s, err)
		}
	}
	if k, err := parseThreadCursor(good); err != nil || k != (msgstore.ThreadKey{ResourceID: "r", CreatedAt: 5, ID: "t"}) {
		t.Fatalf("good cursor: %+v %v", k, err)
	}
}

// TestThreadCursorFrozen: cursors made by earlier builds (these texts
// were written by main at b477b4d) still parse to their place and encode
// the same: a client holding a nextCursor across an upgrade keeps its
// page. A change of the encoding fails here.
func TestThreadCursorFrozen(t *testing.T) {
	for _, c := range []struct {
		text string
		key  msgstore.ThreadKey
	}{
		{"AQFyAHQ", msgstore.ThreadKey{ResourceID: "r", CreatedAt: 0, ID: "t"}},
		{"AQlyZXMtYWxpY2WAsOG83GZ0aHJlYWQ6MUB4", msgstore.ThreadKey{ResourceID: "res-alice", CreatedAt: 1764758400000, ID: "thread:1@x"}},
		{"AQpSLjE6eEB5X3otAXp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6", msgstore.ThreadKey{ResourceID: "R.1:x@y_z-", CreatedAt: -1, ID: strings.Repeat("z", 128)}},
		{"AQFy____________AXQ", msgstore.ThreadKey{ResourceID: "r", CreatedAt: math.MinInt64, ID: "t"}},
		{"AYABUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlL-__________8BdC05", msgstore.ThreadKey{ResourceID: strings.Repeat("R", 128), CreatedAt: math.MaxInt64, ID: "t-9"}},
	} {
		if got := threadCursor(c.key); got != c.text {
			t.Errorf("%+v encodes to %q, want %q", c.key, got, c.text)
		}
		if got, err := parseThreadCursor(c.text); err != nil || got != c.key {
			t.Errorf("%q parses to %+v, %v; want %+v", c.text, got, err, c.key)
		}
	}
}
