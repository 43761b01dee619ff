package recall_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestHybridRulesText: the session rules are named only where they ran
// (a resource-wide search with an embedder other than hash-384), as a
// condition when the embedder is not known; the exchange order and the
// boosts always.
func TestHybridRulesText(t *testing.T) {
	const session = "standardised again and raised by its session's evidence"
	for _, tc := range []struct {
		scope, embedder string
		session         string // "" when the session rules must not be named
	}{
		{"", "use-lite", "; " + session},
		{string(recall.ScopeResource), "use-lite", "; " + session},
		{string(recall.ScopeThread), "use-lite", ""},
		{"", recall.HashID, ""},
		{"", "", "; unless the embedder was " + recall.HashID + ", " + session},
	} {
		got := recall.HybridRulesText(tc.scope, tc.embedder)
		if !strings.HasPrefix(got, "then mnemo's hybrid rules (a user's turn takes the better") || !strings.HasSuffix(got, "; speaker and date boosts)") {
			t.Errorf("%q/%q: %q lacks the exchange order or the boosts", tc.scope, tc.embedder, got)
		}
		if has := strings.Contains(got, session); has != (tc.session != "") || (tc.session != "" && !strings.Contains(got, tc.session)) {
			t.Errorf("%q/%q: %q, want session part %q", tc.scope, tc.embedder, got, tc.session)
		}
	}
}
