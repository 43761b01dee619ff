//go:build linux

package main

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestProgressBarInterrupted: Ctrl-C during ingest's progress bar, on a
// terminal. The signal's notice (said as stopOnSignal says it, through
// Main.bar) begins its own line, where it ran on after the bar's frame;
// the bar is left where the import stopped (it was filled to 100%); the
// error after it begins its own line; and no frame shows a rate not
// measured (the first frame said "11 GB/s", the bytes of the first buffer
// over microseconds) nor the byte rate again as "it/s" (cli58, from cli56
// #6 and readme57).
func TestProgressBarInterrupted(t *testing.T) {
	ptmx, pts := openPTY(t)
	src := writeJSONL(t, 9000, func(int) string { return " " + strings.Repeat("padding ", 60) })
	var mu sync.Mutex
	var screen strings.Builder
	read := make(chan struct{})
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := ptmx.Read(b)
			mu.Lock()
			screen.Write(b[:n])
			mu.Unlock()
			if err != nil {
				close(read)
				return
			}
		}
	}()
	shown := func() string { mu.Lock(); defer mu.Unlock(); return screen.String() }
	m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: pts, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int)
	go func() { done <- m.Run(ctx, []string{"--dir", t.TempDir(), "ingest", src}) }()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(shown(), "storing "); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no bar drawn in 30 s:\n%q", shown())
		}
	}
	const notice = "mnemo ingest: interrupt: stopping (send it again to stop at once)\n"
	m.bar.say(pts, notice)
	cancel()
	code := <-done
	pts.Close()
	<-read
	out := shown()
	at := strings.Index(out, "mnemo ingest: interrupt: stopping")
	if code == 0 || at < 0 {
		t.Fatalf("exit %d; screen:\n%q", code, out)
	}
	if !strings.HasSuffix(out[:at], "\n") {
		t.Errorf("the notice runs on after the bar's frame:\n%q", out[:at+40])
	}
	if strings.Contains(out[at:], "100%") {
		t.Errorf("the bar was filled after the interrupt:\n%q", out[at:])
	}
	if e := strings.Index(out, "mnemo ingest: interrupted"); e < 0 || !strings.HasSuffix(out[:e], "\n") {
		t.Errorf("the error does not begin its own line:\n%q", out[at:])
	}
	for _, bad := range []string{"it/s", "GB/s"} {
		if strings.Contains(out, bad) {
			t.Errorf("a frame shows %q:\n%q", bad, out)
		}
	}
}
