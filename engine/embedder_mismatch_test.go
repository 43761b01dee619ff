package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestEmbedderMismatchCommand: the CLI command an EmbedderMismatchError
// suggests names the memory refused. It read "mnemo --embedder hash-384
// reindex --vectors", which re-embedded ./mnemo-data (or $MNEMO_DIR), not
// the directory given (readme54).
func TestEmbedderMismatchCommand(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  engine.EmbedderMismatchError
		want string
	}{
		{"dir", engine.EmbedderMismatchError{Dir: "./foo", Recorded: "use-lite", Requested: "hash-384"}, "(CLI: mnemo --dir ./foo --embedder hash-384 reindex --vectors;"},
		{"dir to quote", engine.EmbedderMismatchError{Dir: "my data/it's", Recorded: "use-lite", Requested: "hash-384"}, `(CLI: mnemo --dir 'my data/it'\''s' --embedder hash-384 reindex --vectors;`},
		{"postgres", engine.EmbedderMismatchError{Recorded: "use-lite", Requested: "hash-384"}, "(CLI: mnemo --db URL --embedder hash-384 reindex --vectors;"},
		{"not loaded", engine.EmbedderMismatchError{Dir: "./foo", Recorded: "use-lite", Cause: errors.New("not installed")}, "(CLI: mnemo --dir ./foo --embedder NAME reindex --vectors)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); !strings.Contains(got, tc.want) {
				t.Errorf("error %q, want it to hold %q", got, tc.want)
			}
		})
	}
}
