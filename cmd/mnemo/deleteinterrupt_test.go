package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestDeleteInterruptedBeforeCommit: a delete stopped by SIGINT (its
// context cancelled) before its erasure committed says that nothing was
// erased and what it was about to erase, with and without --json (whose
// standard output stays empty), and everything is still stored. Before
// (brief cli45 #5), it said only "interrupted: context canceled".
func TestDeleteInterruptedBeforeCommit(t *testing.T) {
	dir := storedDir(t, engine.Config{}, true,
		inThreadT(engine.Message{ID: "m1", Role: "user", Content: "hello"}, engine.Message{ID: "m2", Role: "assistant", Content: "hi"}))
	const again = "; run the same delete again to erase it\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--thread", "t"}, "nothing was erased (stopped before the erasure of thread t of resource r (2 messages) committed)"},
		{[]string{"--json", "--resource", "r"}, "nothing was erased (stopped before the erasure of resource r (1 thread, 2 messages, and its working memory) committed)"},
		{[]string{"--message", "m1"}, "nothing was erased (stopped before the erasure of 1 message (1 of 1 id stored) committed)"},
	} {
		code, out, stderr := runInterrupted(t, "delete:erase", append([]string{"--dir", dir, "delete", "--yes"}, c.args...)...)
		want := "mnemo delete: interrupted: " + c.want + again
		if code != 1 || out != "" || stderr != want {
			t.Errorf("delete %v: exit %d, stdout %q, stderr %q; want 1, nothing and %q", c.args, code, out, stderr, want)
		}
	}
	code, out, stderr := run(t, nil, "--dir", dir, "messages", "--thread", "t", "--json")
	if code != 0 || !strings.Contains(out, `"m1"`) || !strings.Contains(out, `"m2"`) {
		t.Fatalf("messages after the interrupted deletes: exit %d, %s%s; want m1 and m2 still stored", code, out, stderr)
	}
}

// TestDeleteInterruptedOnPostgres: a delete on Postgres stopped while its
// erasure ran does not claim that nothing was erased (rev47: the stop may
// come while COMMIT is on its way, and Postgres may have committed); it
// says the erasure may have committed and that the same delete run again
// is safe. An error that is not the stop passes through as it is. (The
// window itself, a cancel during COMMIT's round trip, is not reproduced.)
func TestDeleteInterruptedOnPostgres(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	other := errors.New("engine: connection refused")
	if err := erasureUnknown(ctx, other, "thread t"); err != other {
		t.Errorf("not interrupted: got %v, want the error as it is", err)
	}
	cancel()
	err := erasureUnknown(ctx, fmt.Errorf("engine: erase: %w", context.Canceled), "thread t of resource r (2 messages)")
	want := "stopped while the erasure of thread t of resource r (2 messages) ran on Postgres: it may have committed just before the stop, or not at all; run the same delete again: it erases what is left, or finds nothing"
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "nothing was erased") {
		t.Errorf("got %q, want %q and context.Canceled", err, want)
	}
}
