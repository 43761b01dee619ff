package engine_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/recall"
)

// The crash harness (issue 7, "Crash safety"): a writer runs in a
// subprocess (this test binary, re-executed with crashEnv set), appending,
// ingesting, loading contexts and erasing on one data directory while it
// logs, fsynced, what it is about to do and what returned. The parent kills
// it with SIGKILL at a random moment, reopens the directory and checks:
//
//   - every acknowledged append and ingest is present, with its content;
//   - an append is all or nothing, acknowledged or not (ingest is
//     per-batch, so only content is checked for an unacknowledged one);
//   - nothing is stored that the writer did not write;
//   - an acknowledged erasure is complete, and an interrupted one is either
//     undone or complete: the erased text is in no file of the directory
//     (Open finishes the purge);
//   - Check passes (gap-free seqs with erased seqs accounted for, both
//     indexes match the store) after the outbox drains.
//
// -crash.n sets the number of kill points (default 50, about 15 s on 2
// cores); MNEMO_CRASH_N overrides it for long runs.
var crashN = flag.Int("crash.n", 50, "kill points in TestCrashHarness")

const crashEnv = "MNEMO_CRASH_WRITER" // "<dir>|<log>|<seed>"

// crashID's content and token are derived from the id, so the parent can
// check integrity and scan for erased text.
func crashContent(id string) string { return "message " + id + " says " + crashToken(id) }

// crashToken is a unique word per message, derived from a hash of its id
// so that tokens share no prefix: bleve's term dictionary (an FST) stores
// shared prefixes once, which would hide a leftover term from a byte scan.
func crashToken(id string) string {
	h := sha256.Sum256([]byte(id))
	return "q" + strings.ToLower(base32.StdEncoding.EncodeToString(h[:])[:20]) + "z"
}

// TestCrashHarness runs the crash harness above. SQLite only: it kills a
// writer on a data directory; the kill tests on both backends are
// TestKillMidAppend and TestKillMidErasure (process_test.go).
func TestCrashHarness(t *testing.T) {
	t.Parallel() // waits on child processes and its kill points' sleeps: overlaps the other waiting tests at the end of the run
	if os.Getenv(crashEnv) != "" {
		t.Skip("writer process")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	n := *crashN
	if raceEnabled && n == 50 {
		n = 15 // the default count, in a -race build: see race_on_test.go
	}
	if v, err := strconv.Atoi(os.Getenv("MNEMO_CRASH_N")); err == nil && v > 0 {
		n = v
	}
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	logPath := filepath.Join(base, "writer.log")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	start := time.Now()
	var stats crashStats
	duringOpen := 0
	for i := range n {
		seed := rng.Int64N(1 << 40)
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashWriter$", "-test.count=1")
		cmd.Env = childEnv(t, fmt.Sprintf("%s=%s|%s|%d", crashEnv, dir, logPath, seed))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if i%8 == 7 {
			// Kill during start-up or Open (rebuild, resumed erasure).
			time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
			duringOpen++
		} else {
			ready := make(chan bool, 1)
			go func() {
				line, _ := bufio.NewReader(out).ReadString('\n')
				ready <- strings.HasPrefix(line, "ready")
			}()
			select {
			case ok := <-ready:
				if !ok {
					t.Fatalf("kill point %d: the writer did not start", i)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("kill point %d: the writer did not start in time", i)
			}
			time.Sleep(time.Duration(10+rng.IntN(150)) * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		verifyCrash(t, i, dir, logPath, &stats)
	}
	t.Logf("%d kill points (%d during start-up/open) in %s; log: %d appends begun (%d acknowledged), %d ingests (%d), %d erasures (%d), %d thread deletions (%d), %d contexts",
		n, duringOpen, time.Since(start).Round(time.Millisecond),
		stats.appends, stats.appendsAck, stats.ingests, stats.ingestsAck, stats.erases, stats.erasesAck, stats.threadDels, stats.threadDelsAck, stats.contexts)
}

// crashStats counts the operations in the writer log.
type crashStats struct {
	appends, appendsAck, ingests, ingestsAck, erases int
	erasesAck, threadDels, threadDelsAck, contexts   int
}

// crashLog is the parsed writer log: op lines "B <kind> <key> <ids…>" before
// a call and "K <kind> <key>" after it returned successfully.
type crashLog struct {
	begun map[string][]string // kind+key -> ids (threads for T)
	acked map[string]bool
	kinds map[string]string
	order []string
}

func readCrashLog(t *testing.T, path string) *crashLog {
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	l := &crashLog{begun: map[string][]string{}, acked: map[string]bool{}, kinds: map[string]string{}}
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasSuffix(line, "\n") {
			continue // torn by the kill
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		key := f[1] + " " + f[2]
		switch f[0] {
		case "B":
			l.begun[key] = f[3:]
			l.kinds[key] = f[1]
			l.order = append(l.order, key)
		case "K":
			l.acked[key] = true
		}
	}
	return l
}

func verifyCrash(t *testing.T, point int, dir, logPath string, stats *crashStats) {
	t.Helper()
	ctx := context.Background()
	fail := func(format string, a ...any) {
		t.Helper()
		t.Fatalf("kill point %d: "+format, append([]any{point}, a...)...)
	}
	l := readCrashLog(t, logPath)
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		fail("reopen: %v", err)
	}
	defer e.Close()
	stored := map[string]string{}
	threadOf := map[string]string{}
	rows, err := engine.DBOf(e).QueryContext(ctx, `SELECT id, thread_id, content FROM messages`)
	if err != nil {
		fail("%v", err)
	}
	for rows.Next() {
		var id, th, c string
		if err := rows.Scan(&id, &th, &c); err != nil {
			fail("%v", err)
		}
		stored[id], threadOf[id] = c, th
	}
	rows.Close()

	maybeGone := map[string]bool{}  // erasure begun
	surelyGone := map[string]bool{} // erasure acknowledged
	written := map[string]string{}  // id -> thread
	*stats = crashStats{}
	for _, key := range l.order {
		ids := l.begun[key]
		switch l.kinds[key] {
		case "E":
			stats.erases++
			for _, id := range ids {
				maybeGone[id] = true
				if l.acked[key] {
					surelyGone[id] = true
				}
			}
			if l.acked[key] {
				stats.erasesAck++
			}
		case "T":
			stats.threadDels++
			if l.acked[key] {
				stats.threadDelsAck++
			}
		case "A", "I":
			if l.kinds[key] == "A" {
				stats.appends++
				if l.acked[key] {
					stats.appendsAck++
				}
			} else {
				stats.ingests++
				if l.acked[key] {
					stats.ingestsAck++
				}
			}
			th := ids[0]
			for _, id := range ids[1:] {
				written[id] = th
			}
		case "C":
			stats.contexts++
		}
	}
	// A thread deletion erases everything written to the thread before it;
	// later appends recreate the thread, so judge by order.
	deletedBefore := map[string]bool{} // written to a thread whose deletion began later
	seen := map[string][]string{}
	for _, key := range l.order {
		ids := l.begun[key]
		switch l.kinds[key] {
		case "A", "I":
			seen[ids[0]] = append(seen[ids[0]], ids[1:]...)
		case "T":
			for _, id := range seen[ids[0]] {
				deletedBefore[id] = true
				if l.acked[key] {
					surelyGone[id] = true
				}
			}
			seen[ids[0]] = nil
		}
	}
	for id, c := range stored {
		if _, ok := written[id]; !ok {
			fail("message %s is stored but was never written", id)
		}
		if c != crashContent(id) {
			fail("message %s content %q, want %q", id, c, crashContent(id))
		}
		if surelyGone[id] {
			fail("message %s is stored after its erasure was acknowledged", id)
		}
	}
	for _, key := range l.order {
		kind, ids := l.kinds[key], l.begun[key]
		if kind != "A" && kind != "I" {
			continue
		}
		present, total := 0, 0
		for _, id := range ids[1:] {
			if maybeGone[id] || deletedBefore[id] {
				continue
			}
			total++
			if _, ok := stored[id]; ok {
				present++
			}
		}
		if l.acked[key] && present != total {
			fail("%s acknowledged, but %d of its %d messages are stored", key, present, total)
		}
		if kind == "A" && present != 0 && present != total {
			fail("%s half-written: %d of %d messages stored", key, present, total)
		}
	}
	if err := e.Check(ctx); err != nil {
		fail("check: %v", err)
	}
	// Erased text is in no file: acknowledged erasures, and interrupted ones
	// that committed (Open completed them).
	var gone []string
	for id := range written {
		if _, ok := stored[id]; !ok && (maybeGone[id] || deletedBefore[id]) {
			gone = append(gone, id)
		}
	}
	if len(gone) > 0 {
		if err := e.Close(); err != nil {
			fail("close: %v", err)
		}
		blob := readAll(t, dir)
		sort.Strings(gone)
		for _, id := range gone {
			if bytes.Contains(blob, []byte(crashToken(id))) {
				var story []string
				for _, key := range l.order {
					ids := l.begun[key]
					if slices.Contains(ids[1:], id) || (l.kinds[key] == "T" && ids[0] == written[id]) || (l.kinds[key] == "E" && slices.Contains(ids, id)) {
						story = append(story, fmt.Sprintf("%s(acked=%v)", key, l.acked[key]))
					}
				}
				ctxt := ""
				if db, err := os.ReadFile(filepath.Join(dir, engine.DatabaseFile)); err == nil {
					if i := bytes.Index(db, []byte(crashToken(id))); i >= 0 {
						ctxt = fmt.Sprintf("; in %s at page %d: %q", engine.DatabaseFile, i/4096+1, db[max(0, i-300):min(len(db), i+100)])
					}
				}
				fail("erased message %s: its text %s is still in %v; log: %v%s", id, crashToken(id), filesContaining(t, dir, crashToken(id)), story, ctxt)
			}
		}
	}
}

// readAll concatenates every file under dir (separated by NUL bytes).
func readAll(t *testing.T, dir string) []byte {
	var buf bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte(0)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCrashWriter is the writer process of TestCrashHarness; it runs only
// when re-executed with crashEnv set, and loops until killed.
//
// SQLite only: the subprocess of TestCrashHarness.
func TestCrashWriter(t *testing.T) {
	spec := os.Getenv(crashEnv)
	if spec == "" {
		t.Skip("only run by TestCrashHarness")
	}
	parts := strings.Split(spec, "|")
	dir, logPath := parts[0], parts[1]
	seed, _ := strconv.ParseInt(parts[2], 10, 64)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	note := func(line string) {
		if _, err := logf.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
		if err := logf.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatalf("writer open: %v", err)
	}
	fmt.Println("ready")
	tmp := t.TempDir()
	for op := 0; ; op++ {
		key := fmt.Sprintf("s%d-%d", seed, op)
		thread := fmt.Sprintf("t%d", rng.IntN(4))
		resource := fmt.Sprintf("r%d", rng.IntN(2))
		if thread == "t0" || thread == "t2" {
			resource = "r0" // a thread keeps its resource
		} else {
			resource = "r1"
		}
		switch p := rng.IntN(100); {
		case p < 55:
			n := 1 + rng.IntN(5)
			var msgs []engine.Message
			ids := []string{thread}
			for k := range n {
				id := fmt.Sprintf("%s-%d", key, k)
				msgs = append(msgs, engine.Message{ID: id, Role: engine.RoleUser, Content: crashContent(id)})
				ids = append(ids, id)
			}
			note("B A " + key + " " + strings.Join(ids, " "))
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: resource, Messages: msgs}); err != nil {
				t.Fatalf("append: %v", err)
			}
			note("K A " + key)
		case p < 70:
			th := "ing-" + thread
			var lines []string
			ids := []string{th}
			for k := range 3 + rng.IntN(8) {
				id := fmt.Sprintf("%s-i%d", key, k)
				rec, _ := json.Marshal(map[string]string{"thread": th, "resource": resource, "id": id, "role": "user", "content": crashContent(id)})
				lines = append(lines, string(rec))
				ids = append(ids, id)
			}
			path := filepath.Join(tmp, key+".jsonl")
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			note("B I " + key + " " + strings.Join(ids, " "))
			if _, err := importer.Import(ctx, e, path, importer.Options{Format: importer.FormatJSONL, Strict: true}); err != nil {
				t.Fatalf("ingest: %v", err)
			}
			note("K I " + key)
		case p < 85:
			var ids []string
			rows, err := engine.DBOf(e).QueryContext(ctx, `SELECT id FROM messages ORDER BY random() LIMIT ?`, 1+rng.IntN(3))
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id string
				rows.Scan(&id)
				ids = append(ids, id)
			}
			rows.Close()
			if len(ids) == 0 {
				continue
			}
			note("B E " + key + " " + strings.Join(ids, " "))
			if _, err := e.DeleteMessages(ctx, ids...); err != nil {
				t.Fatalf("erase: %v", err)
			}
			note("K E " + key)
		case p < 90:
			th := "ing-" + thread
			note("B T " + key + " " + th)
			if _, err := e.DeleteThread(ctx, th); err != nil && !strings.Contains(err.Error(), "not found") {
				t.Fatalf("delete thread: %v", err)
			}
			note("K T " + key)
		default:
			note("B C " + key + " " + thread)
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: key, ThreadID: thread, ResourceID: resource, RecentN: 3,
				Recall: &recall.Options{TopK: 3}}); err != nil {
				t.Fatalf("context: %v", err)
			}
			note("K C " + key)
		}
	}
}
