package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopBound is how long a command may take to exit after SIGINT or SIGTERM
// (generous: the machine is shared; the CLI itself exits within stopGrace).
const stopBound = 30 * time.Second

// TestSignalStopsIngest: Ctrl-C (SIGINT) and SIGTERM stop a long ingest
// promptly with exit 130 and 143, and the directory is consistent after
// (check exits 0). Before, the CLI swallowed the signals while a command
// did not look at its context. The last line says what was stored and
// that running the ingest again stores the rest (it said "interrupted:
// msgs.jsonl: begin: context canceled").
func TestSignalStopsIngest(t *testing.T) {
	file := writeJSONL(t, 60000, nil)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := cli(t, dir, "ingest", file)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until it is storing messages (a new directory's WAL
			// passes 256 KiB while it opens: a signal then found nothing
			// stored, "count messages: context canceled").
			deadline := time.Now().Add(stopBound)
			for {
				if storedMessages(dir) > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("ingest did not start storing within %s: %s", stopBound, stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			sent := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(stopBound):
				cmd.Process.Kill()
				t.Fatalf("still running %s after %v", stopBound, tc.sig)
			}
			took := time.Since(sent)
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Fatalf("exit code %d after %v, want %d; stderr:\n%s", got, tc.sig, tc.code, stderr.String())
			}
			t.Logf("%v: exit %d after %s", tc.sig, tc.code, took.Round(time.Millisecond))
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			// Every line names the command, the signal's notice too (it
			// read "mnemo: interrupt: stopping …").
			notice := "mnemo ingest: " + map[syscall.Signal]string{syscall.SIGINT: "interrupt", syscall.SIGTERM: "terminated"}[tc.sig] + ": stopping (send it again to stop at once)"
			if !slices.Contains(lines, notice) {
				t.Errorf("stderr lacks the notice %q:\n%s", notice, stderr.String())
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, "mnemo ingest: ") {
					t.Errorf("stderr line %q does not start \"mnemo ingest: \"", l)
				}
			}
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "mnemo ingest: interrupted: "+file+": ") || !strings.Contains(last, " messages of it are stored and stay") ||
				!strings.Contains(last, "run the same ingest again to store the rest") || strings.Contains(last, "context canceled") {
				t.Errorf("last line %q, want what was stored and that running the ingest again stores the rest", last)
			}
			// What the indexes owe is said as a search sees it, with what
			// computes it (fix52: a later check indexed 12,900 in 1m14s).
			// It said "N outbox rows are not indexed yet (search does not
			// find what they hold)", and the next search found them by
			// their words (readme54).
			// The line is written before the engine's close, whose drain
			// may index some more (cli56 saw 300 said, 50 owed after the
			// exit, under load): what it says is an upper bound of what is
			// owed once the process is gone, and nothing owed then is left
			// unsaid.
			owed := owedEmbeddings(dir)
			t.Logf("%d messages owe an embedding after it", owed)
			last := lines[len(lines)-1]
			said, saidOK := owedSaid(last, dir)
			if owed > 1 && (!saidOK || said < owed) || saidOK && said <= 1 || !saidOK && strings.Contains(last, "no embedding") || strings.Contains(last, "outbox") {
				t.Errorf("%d messages owe an embedding after the interrupt; last line %q, want it to end with at least that many with no embedding yet and the check to run", owed, last)
			}
			if owed > 0 {
				foundByWords(t, dir)
			}
			out, err := cli(t, dir, "check").CombinedOutput()
			if err != nil {
				t.Fatalf("check after the interrupted ingest: %v\n%s", err, out)
			}
		})
	}
}

// TestDamagedSegmentCLI is issue 12's item 4 through the binary: 200 random
// bytes of a segment file overwritten, then delete --thread, check and
// threads. Before, check panicked inside zapx and delete hung forever in
// the purge, ignoring SIGINT and SIGTERM. Now each exits, the erasure
// completes, and the erased text is in no file of the index.
func TestDamagedSegmentCLI(t *testing.T) {
	const secret = "zqxwvplughsecret"
	file := writeJSONL(t, 3000, func(i int) string {
		if i < 50 {
			return " " + secret
		}
		return ""
	})
	dir := t.TempDir()
	if out, err := cli(t, dir, "ingest", file).CombinedOutput(); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "index", "lexical", "store", "*.zap"))
	if len(segs) == 0 {
		t.Fatal("no segment files")
	}
	size := func(p string) int64 { fi, _ := os.Stat(p); return fi.Size() }
	slices.SortFunc(segs, func(a, b string) int { return int(size(b) - size(a)) })
	b, _ := os.ReadFile(segs[0])
	x := uint64(1)
	for range 200 { // xorshift: the same 200 bytes every run
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[x%uint64(len(b))] = byte(x >> 32)
	}
	if err := os.WriteFile(segs[0], b, 0o600); err != nil {
		t.Fatal(err)
	}

	run := func(args ...string) (int, string) {
		t.Helper()
		cmd := cli(t, dir, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(stopBound * 3):
			cmd.Process.Kill()
			t.Fatalf("mnemo %v still running after %s:\n%s", args, stopBound*3, out.String())
		}
		if strings.Contains(out.String(), "panic") {
			t.Fatalf("mnemo %v panicked:\n%s", args, out.String())
		}
		return cmd.ProcessState.ExitCode(), out.String()
	}
	if code, out := run("delete", "--thread", "t0", "--yes"); code != 0 || !strings.Contains(out, "erased 50 messages") {
		t.Fatalf("delete on a damaged index: exit %d\n%s", code, out)
	}
	if code, out := run("check"); code != 0 && !strings.Contains(out, "damaged") {
		t.Fatalf("check: exit %d\n%s", code, out)
	}
	if code, out := run("check"); code != 0 {
		t.Fatalf("second check: exit %d\n%s", code, out)
	}
	if code, out := run("threads"); code != 0 || strings.Contains(out, "t0 ") {
		t.Fatalf("threads: exit %d\n%s", code, out)
	}
	filepath.WalkDir(filepath.Join(dir, "index"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s still holds the erased text", p)
			}
		}
		return nil
	})
}

// storedMessages counts the messages stored in dir's mnemo.db, read-only
// beside the process writing it (WAL); 0 while there is no such table.
func storedMessages(dir string) int {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "mnemo.db")+"?mode=ro")
	if err != nil {
		return 0
	}
	defer db.Close()
	n := 0
	db.QueryRow("SELECT count(*) FROM messages").Scan(&n)
	return n
}

// owedSaid reads the count of an interrupted ingest's last line's note on
// the messages that have no embedding yet; ok is false when the line has
// no such note, or one worded otherwise than "; N stored messages have no
// embedding yet (…): …; to complete it alone, run: mnemo --dir DIR check".
func owedSaid(last, dir string) (n int, ok bool) {
	const head = "; "
	const tail = " stored messages have no embedding yet (search finds them by their words only until then): the same ingest run again completes the indexing first; to complete it alone, run: mnemo --dir "
	i := strings.LastIndex(last, tail)
	if i < 0 || last[i+len(tail):] != shellWord(dir)+" check" {
		return 0, false
	}
	j := strings.LastIndex(last[:i], head)
	if j < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(last[j+len(head) : i])
	return n, err == nil
}

// owedEmbeddings counts the messages of data directory dir that are
// stored without a hash-384 embedding and queued for one (msgstore's
// EmbeddingCounts).
func owedEmbeddings(dir string) int {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "mnemo.db")+"?mode=ro")
	if err != nil {
		return 0
	}
	defer db.Close()
	n := 0
	db.QueryRow(`SELECT COUNT(DISTINCT o.message_id) FROM outbox o JOIN messages m ON m.id = o.message_id
		WHERE o.op IN ('index', 'embed') AND NOT EXISTS (SELECT 1 FROM embeddings x WHERE x.message_id = o.message_id AND x.embedder = 'hash-384')`).Scan(&n)
	return n
}

// foundByWords checks that a lexical search finds the newest message of
// dir still queued for indexing (writeJSONL's "note N" of message mN) at
// the top of its answer.
func foundByWords(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "mnemo.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var i int
	err = db.QueryRow(`SELECT CAST(SUBSTR(message_id, 2) AS INTEGER) FROM outbox WHERE op = 'index' ORDER BY id DESC LIMIT 1`).Scan(&i)
	db.Close()
	if err != nil {
		t.Fatalf("the newest message queued: %v", err)
	}
	out, err := cli(t, dir, "search", "--mode", "lexical", "--resource", fmt.Sprintf("r%d", i/50%5), fmt.Sprintf("note %d", i)).CombinedOutput()
	if err != nil {
		t.Fatalf("search: %v\n%s", err, out)
	}
	top := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "t") && !strings.HasPrefix(l, "thread") {
			top = l
			break
		}
	}
	if f := strings.Fields(top); len(f) < 2 || f[0] != fmt.Sprintf("t%d", i/50) || f[1] != fmt.Sprint(i%50+1) {
		t.Errorf("a lexical search for m%d, queued for indexing, answered with %q first, want t%d #%d:\n%s", i, top, i/50, i%50+1, out)
	}
}

// TestRunningCommand: the signal notices name the command Run chose, with
// its subcommand ("mnemo wm get: interrupt: stopping …"), and say "mnemo"
// before one is chosen.
func TestRunningCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"version"}, "version"},
		{[]string{"--dir", t.TempDir(), "threads"}, "threads"},
		{[]string{"--dir", t.TempDir(), "wm", "get", "--thread", "t1"}, "wm get"},
	} {
		m := &Main{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
		if tc.args != nil {
			m.Run(t.Context(), tc.args)
		}
		if got, want := noticePrefix(m.Running()), strings.TrimSpace("mnemo "+tc.want); got != want {
			t.Errorf("mnemo %v: the notices say %q, want %q", tc.args, got, want)
		}
	}
}
