package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/importer"
)

// TestInterruptedIsCanceled: an ingest stopped by its context is said
// "interrupted" (exitStatus looks for context.Canceled) whatever error the
// step that saw the cancel returned. CI saw SIGTERM's last line without
// "interrupted: " once: the import's error was one that does not wrap
// context.Canceled (a statement the cancel stopped fails with SQLite's own
// error), so exitStatus took it for a plain failure.
func TestInterruptedIsCanceled(t *testing.T) {
	sqliteInterrupt := errors.New("interrupted (9)")
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"sqlite's own error", sqliteInterrupt},
		{"context.Canceled", context.Canceled},
		{"nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := interrupted("msgs.jsonl", tc.err, &importer.Report{Messages: 400})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("errors.Is(%v, context.Canceled) = false", err)
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("errors.Is(%v, the step's error) = false", err)
			}
			if !strings.HasPrefix(err.Error(), "msgs.jsonl: 400 messages of it are stored and stay") {
				t.Errorf("text %q", err)
			}
		})
	}
}
