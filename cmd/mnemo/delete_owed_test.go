package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// TestDeleteOwedPurge: an erasure that committed but whose physical purge
// was cut (SIGINT during the purge: engine.ErrEraseIncomplete) printed
// "purged in 1.029s (deleted rows zeroed, index merge, WAL checkpoint)"
// on standard output while standard error said the purge was incomplete,
// and --json had no purgeIncomplete, which the DELETE routes and
// memory_delete answer. Now the text says the purge is owed and --json
// carries purgeIncomplete with why.
func TestDeleteOwedPurge(t *testing.T) {
	cut := fmt.Errorf("%w: index removal: %w", engine.ErrEraseIncomplete, context.Canceled)
	result := func() *engine.EraseResult {
		return &engine.EraseResult{Messages: []string{"m1"}, Threads: []string{"t1"}, Embeddings: 1, Purge: 1029 * time.Millisecond}
	}
	t.Run("text", func(t *testing.T) {
		var out, errOut strings.Builder
		c := &DeleteCommand{&Main{Stdout: &out, Stderr: &errOut}}
		if err := c.report(result(), cut, false); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "purged in") {
			t.Errorf("standard output claims the purge:\n%s", out.String())
		}
		if !strings.Contains(out.String(), "purge incomplete: the erased data can no longer be read") {
			t.Errorf("standard output does not say the purge is owed:\n%s", out.String())
		}
		// Said once on standard error: the command's error line
		// (readme51 F13: the summary, two lines of report's and the
		// error, four in all).
		if errOut.Len() > 0 {
			t.Errorf("report wrote to standard error: %q", errOut.String())
		}
		for _, ctx := range []context.Context{context.Background(), canceled()} {
			errOut.Reset()
			if code := c.exitStatus(ctx, "delete", owedPurge(cut)); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n"); len(lines) != 1 ||
				!strings.Contains(lines[0], "purge is incomplete") || !strings.Contains(lines[0], "the next delete or open finishes the purge") {
				t.Errorf("standard error (ctx err %v): %q, want one line saying the purge is owed", ctx.Err(), errOut.String())
			}
		}
	})
	t.Run("json", func(t *testing.T) {
		var out, errOut strings.Builder
		c := &DeleteCommand{&Main{Stdout: &out, Stderr: &errOut}}
		if err := c.report(result(), cut, true); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		if got["purgeIncomplete"] != cut.Error() {
			t.Errorf("purgeIncomplete = %v, want %q (%s)", got["purgeIncomplete"], cut.Error(), out.String())
		}
		if got["embeddings"] != 1.0 || got["purgeNanos"] == nil {
			t.Errorf("the result's fields are lost: %s", out.String())
		}
	})
	t.Run("complete", func(t *testing.T) {
		var out, errOut strings.Builder
		c := &DeleteCommand{&Main{Stdout: &out, Stderr: &errOut}}
		if err := c.report(result(), nil, true); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "purgeIncomplete") {
			t.Errorf("a complete purge says purgeIncomplete: %s", out.String())
		}
		out.Reset()
		if err := c.report(result(), nil, false); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "purged in 1.029s") || errOut.Len() > 0 {
			t.Errorf("a complete purge: %q, stderr %q", out.String(), errOut.String())
		}
	})
}

// canceled returns a cancelled context, as a SIGINT leaves the command's.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
