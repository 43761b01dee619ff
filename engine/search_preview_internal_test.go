package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCutCallsText: for a stored tool_calls array cut after any number
// of characters, cutCallsText gives the start of callsText of the whole
// (words joined by single spaces): the whole calls it holds, then the
// name and the arguments read of the call it ends in, never a text the
// whole does not begin with. Arguments that are a number cut by the read
// ("1234" of 123456789) are not closed: it showed "→ g(1234)".
func TestCutCallsText(t *testing.T) {
	calls := []ToolCall{
		{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"q":"harbour <b> & é 日本","n":[1,2]}`)},
		{ID: "c2", Name: "fetch_page", Arguments: json.RawMessage(`"a string, with: colons"`)},
		{ID: "c3", Name: "f", Arguments: json.RawMessage(`{}`)},
		{ID: "c4", Name: "count", Arguments: json.RawMessage(`-12.5e3`)},
		{ID: "c5", Name: "g", Arguments: json.RawMessage(`123456789`)},
	}
	stored, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	// Preview shows the arguments as stored: json.Marshal escaped "<" and "&".
	if err := json.Unmarshal(stored, &calls); err != nil {
		t.Fatal(err)
	}
	whole := strings.Join(strings.Fields(callsText(calls)), " ")
	longest := 0
	for i := range string(stored) {
		got := strings.Join(strings.Fields(cutCallsText(string(stored[:i]))), " ")
		if !strings.HasPrefix(whole, got) {
			t.Fatalf("cut after %d bytes (%s): %q, not the start of %q", i, stored[:i], got, whole)
		}
		if len(got) < longest-len(`→ fetch_page(`) {
			t.Fatalf("cut after %d bytes (%s): %q, shorter than a shorter cut's (%d bytes)", i, stored[:i], got, longest)
		}
		longest = max(longest, len(got))
	}
	if got, want := cutCallsText(string(stored[:len(stored)-1])), callsText(calls); got != want {
		t.Fatalf("all but the closing bracket: %q, want %q", got, want)
	}
}
