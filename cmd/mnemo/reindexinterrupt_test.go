package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestReindexInterrupted: a reindex stopped by SIGINT says that nothing
// stored is lost and how the rebuild goes on (walk48 F10: it said only
// "interrupted: begin: context canceled"); an error that is no
// interruption is said as it is.
func TestReindexInterrupted(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	stopped := fmt.Errorf("begin: %w", context.Canceled)
	got := reindexStopped(cancelled, stopped)
	if !strings.HasPrefix(got.Error(), "stopped during the rebuild: nothing stored is lost") || !errors.Is(got, context.Canceled) || !errors.Is(got, stopped) {
		t.Errorf("interrupted reindex: %v", got)
	}
	other := errors.New("disk I/O error")
	if got := reindexStopped(context.Background(), other); got != other {
		t.Errorf("an error that is no interruption became %v", got)
	}
	if got := reindexStopped(cancelled, nil); got != nil {
		t.Errorf("a reindex that finished as it was stopped: %v", got)
	}
}
