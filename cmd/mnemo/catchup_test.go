package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestCatchUpHint: a one-shot search or context that answered while an
// index was catching up says that the command's exit stops the catching
// up and that `mnemo check` finishes it (the review found repeated
// `mnemo search` runs after a quarantined lexical index each saying
// "catching up", none of them getting further); nothing is said when both
// channels are caught up or merely off.
func TestCatchUpHint(t *testing.T) {
	for _, tc := range []struct {
		lexical, vector string
		hint            bool
	}{
		{recall.StatusOK, recall.StatusOK, false},
		{recall.StatusOff, recall.StatusOK, false},
		{recall.StatusOK, recall.StatusOff, false},
		{"unavailable: index closed", recall.StatusOK, false},
		{recall.StatusCatchingUp, recall.StatusOK, true},
		{recall.StatusOK, "degraded: 160 of 1360 messages not embedded yet", true},
		{recall.StatusCatchingUp, "degraded: 1 of 2 messages not embedded yet", true},
		{recall.StatusOff, recall.StatusCatchingUp, true},
	} {
		var b bytes.Buffer
		catchUpHint(&b, "search", target{dir: "my data"}, tc.lexical, tc.vector)
		got := b.String()
		if tc.hint != (got != "") {
			t.Errorf("lexical %q, vector %q: hint %q, want one: %v", tc.lexical, tc.vector, got, tc.hint)
		}
		if tc.hint && (!strings.HasPrefix(got, "mnemo search: ") || !strings.Contains(got, "to finish it now, run: mnemo --dir 'my data' check\n")) {
			t.Errorf("lexical %q, vector %q: hint %q does not name the command and what finishes it", tc.lexical, tc.vector, got)
		}
	}
}
