package main

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// barLine is the line a progress bar draws on (ingest's, the indexing
// bar): open while the bar has drawn on it since its last line feed. A
// notice said meanwhile (the signal's "interrupt: stopping", from
// stopOnSignal's goroutine) first ends that line, rather than run on
// after the bar's frame, and the bar's next frame is drawn below it.
type barLine struct {
	mu   sync.Mutex
	w    io.Writer // what the bar draws on; nil before one draws
	open bool      // the bar drew since the last line feed
}

// writer is w for a bar to draw on: its writes mark the line open.
func (l *barLine) writer(w io.Writer) io.Writer {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w = w
	return barWriter{l}
}

type barWriter struct{ l *barLine }

func (b barWriter) Write(p []byte) (int, error) {
	b.l.mu.Lock()
	defer b.l.mu.Unlock()
	n, err := b.l.w.Write(p)
	if n > 0 {
		b.l.open = p[n-1] != '\n'
	}
	return n, err
}

// end ends the bar's line when the bar drew on it last.
func (l *barLine) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked()
}

func (l *barLine) endLocked() {
	if l.open {
		_, _ = io.WriteString(l.w, "\n")
		l.open = false
	}
}

// say writes text to w (standard error) on a line of its own: after
// ending the bar's line, and with no frame of the bar drawn between.
func (l *barLine) say(w io.Writer, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked()
	_, _ = io.WriteString(w, text)
}

// rateAfter is how long a bar runs before it is first drawn: its first
// frame's rate is then measured over that time at least.
const rateAfter = 500 * time.Millisecond

// fileBar is ingest's bar of the bytes of a file of size bytes read,
// drawn on m's standard error (a terminal), and the function that moves
// it (importer.Options.Progress). It shows no rate until one is
// measured: its clock starts now and it is first drawn after rateAfter,
// so the first frame's rate is the bytes over that time (it was the first
// buffer's bytes over microseconds, "11 GB/s"); and the rate is given
// once, in bytes a second (it was repeated as "11010752688 it/s").
func (m *Main) fileBar(size int64, desc string) (*progressbar.ProgressBar, func(read, total int64)) {
	bar := progressbar.NewOptions64(size, progressbar.OptionSetWriter(m.bar.writer(rawWriter(m.Stderr))), progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true), progressbar.OptionThrottle(200*time.Millisecond))
	bar.StartWithoutRender()
	start := time.Now()
	return bar, func(read, _ int64) {
		if time.Since(start) >= rateAfter {
			_ = bar.Set64(read)
		}
	}
}

// endBar ends bar after the work it showed: full when err is nil, else
// left where the work stopped (Finish filled it to 100% after an
// interrupt), and its line ended.
func (m *Main) endBar(bar *progressbar.ProgressBar, err error) {
	if err == nil {
		_ = bar.Finish()
	} else {
		_ = bar.Exit()
	}
	m.bar.end()
}
