package msgstore_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// TestPrefixesByID: PrefixesByID reads the first characters (runes) of
// each message's content and tool calls, each to its own count, says
// whether more follows, never cuts inside a character (two-, three- and
// four-byte UTF-8 at the cut), leaves out unknown ids and other
// resources' messages, on SQLite and Postgres alike.
func TestPrefixesByID(t *testing.T) { forEachBackend(t, testPrefixesByID) }

func testPrefixesByID(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, conn := b.openStore(t)
	const chars, callsChars = 5, 8
	rows := []struct {
		id, resource, content, calls string
	}{
		{"short", "r1", "abc", ""},
		{"exact", "r1", "abcde", ""},
		{"one-more", "r1", "abcdef", ""},
		{"two-byte", "r1", strings.Repeat("é", 7), ""},
		{"three-byte", "r1", "ab日本語の文章", ""},
		{"four-byte", "r1", "a😀😀😀😀😀", ""},
		{"mixed-at-cut", "r1", "abcd€x", ""},
		{"calls", "r1", "", `[{"id":"c1","name":"f","arguments":{}}]`},
		{"calls-exact", "r1", "", `[{}]` + "xxxx"},
		{"calls-long-content", "r1", "abcdefgh", `[{"a":"日本語の文章"}]`},
		{"other", "r2", "elsewhere", ""},
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, 10), ('t2', 'r2', 0, 0, 1)`); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		thread := map[string]string{"r1": "t1", "r2": "t2"}[r.resource]
		var calls any
		if r.calls != "" {
			calls = r.calls
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, created_at, tokens, digest) VALUES (?, ?, ?, ?, 'user', ?, ?, 1, 1, '')`,
			r.id, thread, r.resource, i+1, r.content, calls); err != nil {
			t.Fatal(err)
		}
	}
	ids := []string{"unknown", "other"}
	for _, r := range rows[:len(rows)-1] {
		ids = append(ids, r.id)
	}
	got, err := s.PrefixesByID(ctx, "r1", ids, chars, callsChars)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]msgstore.Prefix{}
	for _, p := range got {
		byID[p.ID] = p
	}
	if got, want := len(got), len(rows)-1; got != want {
		t.Fatalf("%d prefixes, want %d (no unknown id, no other resource's message): %+v", got, want, byID)
	}
	for _, c := range []struct {
		id, content string
		cut         bool
		calls       string
		callsCut    bool
	}{
		{"short", "abc", false, "", false},
		{"exact", "abcde", false, "", false},
		{"one-more", "abcde", true, "", false},
		{"two-byte", "ééééé", true, "", false},
		{"three-byte", "ab日本語", true, "", false},
		{"four-byte", "a😀😀😀😀", true, "", false},
		{"mixed-at-cut", "abcd€", true, "", false},
		{"calls", "", false, `[{"id":"`, true},
		{"calls-exact", "", false, `[{}]xxxx`, false},
		{"calls-long-content", "abcde", true, `[{"a":"日`, true},
	} {
		p, ok := byID[c.id]
		if !ok {
			t.Errorf("%s: no prefix", c.id)
			continue
		}
		if p.Content != c.content || p.ContentCut != c.cut || p.ToolCalls != c.calls || p.ToolCallsCut != c.callsCut {
			t.Errorf("%s: content %q cut %v, tool calls %q cut %v; want %q %v, %q %v", c.id, p.Content, p.ContentCut, p.ToolCalls, p.ToolCallsCut, c.content, c.cut, c.calls, c.callsCut)
		}
		if !utf8.ValidString(p.Content) || p.ThreadID != "t1" || p.Seq == 0 {
			t.Errorf("%s: %+v: want valid UTF-8 of thread t1 with its seq", c.id, p)
		}
	}
	for _, n := range [][2]int{{0, 1}, {1, 0}} {
		if _, err := s.PrefixesByID(ctx, "r1", ids, n[0], n[1]); err == nil {
			t.Errorf("PrefixesByID of %d and %d characters: no error", n[0], n[1])
		}
	}
}
