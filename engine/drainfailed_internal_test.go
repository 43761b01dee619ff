package engine

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestDrainFailedBacksOff: failed drains in a row (a database unreachable
// for an hour and more) wait longer and longer, up to drainMaxBackoff,
// and log the first failure then every power of two, not each one.
// Before, the drainer retried every second and logged every failure.
func TestDrainFailedBacksOff(t *testing.T) {
	var buf bytes.Buffer
	e := &Engine{log: slog.New(slog.NewTextHandler(&buf, nil))}
	cause := errors.New("engine: claim outbox: dial tcp 127.0.0.1:5432: connect: connection refused")
	var waited, last time.Duration
	failures := 0
	for waited < 2*time.Hour {
		failures++
		wait := e.drainFailed(failures, cause)
		if wait < last || wait > drainMaxBackoff || wait < time.Second {
			t.Fatalf("failure %d: wait %s after %s; want non-decreasing, 1 s to %s", failures, wait, last, drainMaxBackoff)
		}
		last, waited = wait, waited+wait
	}
	if last != drainMaxBackoff {
		t.Fatalf("wait after %d failures: %s, want %s", failures, last, drainMaxBackoff)
	}
	lines := strings.Count(buf.String(), "\n")
	if lines > 10 {
		t.Fatalf("%d failures over %s logged %d lines, want at most 10:\n%s", failures, waited, lines, buf.String())
	}
	if !strings.Contains(buf.String(), "connection refused") || !strings.Contains(buf.String(), "failures=64") {
		t.Fatalf("log lacks the cause or the count:\n%s", buf.String())
	}
}
