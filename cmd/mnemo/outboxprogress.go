package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/mnemo-go/mnemo/engine"
)

// progressFrom is the fewest messages outboxProgress shows progress for.
const progressFrom = 200

// progressLineEvery is how often, when standard error is not a terminal,
// outboxProgress says how far the indexing is.
const progressLineEvery = 10 * time.Second

// outboxProgress runs fn, which drains the outbox (after queueing, when it
// re-indexes), and for progressFrom messages or more shows how many of
// total are done: total less the outbox rows still pending (engine.Stats).
// On a terminal it is a bar with the rate; elsewhere (a log, a pipe) plain
// lines (outboxLines), so a long indexing after ingest's summary is not
// minutes of silence while it holds the data directory.
func (m *Main) outboxProgress(ctx context.Context, e *engine.Engine, total int64, what string, fn func() error) error {
	pending := func() (int64, bool) {
		s, err := e.Stats(ctx)
		return s.OutboxPending, err == nil
	}
	switch {
	case total < progressFrom:
		return fn()
	case !isTerminal(m.Stderr):
		return outboxLines(m.Stderr, total, what, m.target().dsn == "", progressLineEvery, pending, fn)
	}
	bar := progressbar.NewOptions64(total, progressbar.OptionSetWriter(m.bar.writer(rawWriter(m.Stderr))), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("msg"), progressbar.OptionThrottle(200*time.Millisecond))
	bar.StartWithoutRender() // its first frame's rate is over the first 250 ms, not over the microseconds since its first count
	stop := every(250*time.Millisecond, func() {
		if n, ok := pending(); ok && n > 0 {
			_ = bar.Set64(max(total-n, 0))
		}
	})
	err := fn()
	stop()
	if err == nil {
		_ = bar.Finish()
	}
	m.bar.end()
	return err
}

// outboxLines runs fn as outboxProgress does, writing to w plain lines:
// one before, "WHAT: N messages to index; the data directory is in use
// until done (a line every 10s)" (inDir; on Postgres, which no command
// holds, "WHAT: N messages to index (a line every 10s)"), one each
// interval while rows are
// pending, "WHAT: 4000 of 16673 messages indexed (23%)", and, when fn
// succeeds, "WHAT: caught up, 16673 messages in 7m50s". A failed or
// interrupted fn gets no last line: its error says what became of it.
func outboxLines(w io.Writer, total int64, what string, inDir bool, interval time.Duration, pending func() (int64, bool), fn func() error) error {
	start := time.Now()
	held := ""
	if inDir {
		held = "; the data directory is in use until done"
	}
	fmt.Fprintf(w, "%s: %s to index%s (a line every %s)\n", what, count(total, "message"), held, interval)
	stop := every(interval, func() {
		if n, ok := pending(); ok && n > 0 {
			done := max(total-n, 0)
			fmt.Fprintf(w, "%s: %d of %s indexed (%d%%)\n", what, done, count(total, "message"), done*100/total)
		}
	})
	err := fn()
	stop()
	if err == nil {
		fmt.Fprintf(w, "%s: caught up, %s in %s\n", what, count(total, "message"), time.Since(start).Round(time.Second))
	}
	return err
}

// every calls f each interval until the returned stop is called; stop
// returns once f is not running, so nothing f writes follows it.
func every(interval time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
