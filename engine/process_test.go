package engine_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// The cross-process tests run engines in helper processes (this test
// binary re-executed with procEnv set to a procSpec, running
// TestProcessWorker), as a deployment runs several engine processes on one
// database, and kill them with SIGKILL:
//
//   - TestTwoProcesses: two processes append to the same threads and load
//     contexts at once (Postgres only: SQLite's data directory admits one
//     process);
//   - TestKillMidAppend: a process appending a stream of batches is killed;
//   - TestKillMidErasure: a process erasing a large resource is killed.
//
// Workers log each acknowledged message (and each batch before it is
// sent) as a JSON line written straight to a file, so the log survives
// SIGKILL: what the parent reads is what the worker was told.
const procEnv = "MNEMO_PROC_WORKER"

// procSpec tells a worker what to do.
type procSpec struct {
	Role  string // "share", "append" or "erase"
	Store string // enginetest.Store.String()
	ID    int    // the worker's number, in its ids
	Log   string // the acknowledgement log
	Until int64  // "share": when to stop (Unix ms)
	Seed  uint64
	// Resource is the resource "erase" erases.
	Resource string
}

// procLine is one line of a worker's log: a batch about to be sent
// (Intent: its ids), or an acknowledged message (ID, Thread, Seq).
type procLine struct {
	Intent []string `json:"intent,omitempty"`
	ID     string   `json:"id,omitempty"`
	Thread string   `json:"thread,omitempty"`
	Seq    int64    `json:"seq,omitempty"`
	// Loads counts the contexts a "share" worker loaded (its last line).
	Loads int `json:"loads,omitempty"`
}

// procDuration is how long TestTwoProcesses runs: $MNEMO_PROC_DURATION (a
// Go duration; .ci/run sets 15s), else 5 s; at most 10 s in a -race build
// (CI runs the engine's tests twice, the second time under -race).
func procDuration(t *testing.T) time.Duration {
	v := os.Getenv("MNEMO_PROC_DURATION")
	if v == "" {
		return 5 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("MNEMO_PROC_DURATION=%q: want a positive Go duration such as 60s", v)
	}
	if raceEnabled {
		d = min(d, 10*time.Second)
	}
	return d
}

// TestProcessWorker is the helper process; it does nothing in a normal run.
func TestProcessWorker(t *testing.T) {
	raw := os.Getenv(procEnv)
	if raw == "" {
		t.Skip("helper process of the cross-process tests")
	}
	var spec procSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		t.Fatal(err)
	}
	st, ok := enginetest.ParseStore(spec.Store)
	if !ok {
		t.Fatalf("store %q", spec.Store)
	}
	log, err := os.OpenFile(spec.Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	ctx := context.Background()
	e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: procEmbedder{}}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	w := &procWorker{t: t, ctx: ctx, e: e, spec: spec, log: log, rng: rand.New(rand.NewPCG(spec.Seed, uint64(spec.ID)))}
	switch spec.Role {
	case "share":
		w.share()
	case "append":
		w.appendForever()
	case "erase":
		w.erase()
	default:
		t.Fatalf("role %q", spec.Role)
	}
}

// procWorker is the state of a helper process.
type procWorker struct {
	t     *testing.T
	ctx   context.Context
	e     *engine.Engine
	spec  procSpec
	log   *os.File
	rng   *rand.Rand
	acked []procLine
}

// write logs l as one line, in one write(2).
func (w *procWorker) write(l procLine) {
	b, _ := json.Marshal(l)
	if _, err := w.log.Write(append(b, '\n')); err != nil {
		w.t.Fatal(err)
	}
}

// sharedThreads are the threads both "share" workers append to.
var sharedThreads = []string{"s0", "s1", "s2", "s3"}

// procEmbedder is hash-384 cut to its first 16 dimensions: what the
// cross-process tests check does not depend on the vectors, and Postgres
// inserts 16-dimension vectors into its HNSW index far faster than 384
// (filling TestKillMidErasure's resources took 90 s with hash-384).
type procEmbedder struct{ recall.HashEmbedder }

func (procEmbedder) ID() string { return "test-hash-16" }
func (procEmbedder) Dims() int  { return 16 }
func (p procEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := p.HashEmbedder.Embed(ctx, texts)
	for i := range vs {
		vs[i] = vs[i][:16]
	}
	return vs, err
}

// procContent is a message's text: its id and a word no other message has.
func procContent(id string) string { return "turn " + id + " mentions " + crashToken(id) }

// appendBatch appends msgs to thread, logging the intent first and each
// message once acknowledged.
func (w *procWorker) appendBatch(thread string, msgs []engine.Message) (*engine.AppendResult, error) {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	w.write(procLine{Intent: ids})
	res, err := w.e.Append(w.ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: msgs})
	if err != nil {
		return nil, err
	}
	for i, id := range res.IDs {
		l := procLine{ID: id, Thread: thread, Seq: res.Seqs[i]}
		w.write(l)
		w.acked = append(w.acked, l)
	}
	return res, nil
}

// share runs until spec.Until: appends of 1-3 new messages, appends of
// messages both workers send (same id and text, so one is stored and the
// other told it is a duplicate), re-sends of its own acknowledged
// messages, and LoadContext with recall on the shared threads.
func (w *procWorker) share() {
	loads := 0
	for i := 0; time.Now().UnixMilli() < w.spec.Until; i++ {
		// A pause of 0-30 ms between operations, as an agent's turns have:
		// flat out, two workers append ~1,600 messages a second, eight
		// times what the drainers embed into Postgres's HNSW index here,
		// and the check after the run would wait for the backlog.
		time.Sleep(time.Duration(w.rng.IntN(30)) * time.Millisecond)
		thread := sharedThreads[w.rng.IntN(len(sharedThreads))]
		switch op := w.rng.IntN(10); {
		case op < 6:
			var msgs []engine.Message
			for j := range 1 + w.rng.IntN(3) {
				id := fmt.Sprintf("p%d-%d-%d", w.spec.ID, i, j)
				msgs = append(msgs, user(id, procContent(id)))
			}
			if _, err := w.appendBatch(thread, msgs); err != nil {
				w.t.Fatalf("append: %v", err)
			}
		case op < 7:
			// A message both workers send: its thread follows from its id.
			n := w.rng.IntN(300)
			id := fmt.Sprintf("both-%d", n)
			if _, err := w.appendBatch(sharedThreads[n%len(sharedThreads)], []engine.Message{user(id, procContent(id))}); err != nil {
				w.t.Fatalf("append shared %s: %v", id, err)
			}
		case op < 8 && len(w.acked) > 0:
			a := w.acked[w.rng.IntN(len(w.acked))]
			res, err := w.e.Append(w.ctx, engine.AppendRequest{ThreadID: a.Thread, Messages: []engine.Message{user(a.ID, procContent(a.ID))}})
			if err != nil || res.Duplicates != 1 || res.Seqs[0] != a.Seq {
				w.t.Fatalf("re-send of %s (seq %d): %+v, %v; want a duplicate with its seq", a.ID, a.Seq, res, err)
			}
		default:
			c, err := w.e.LoadContext(w.ctx, engine.LoadRequest{RunID: fmt.Sprintf("p%d-run-%d", w.spec.ID, i), ThreadID: thread,
				RecentN: 6, Recall: &recall.Options{TopK: 3, Scope: recall.ScopeResource}})
			if errors.Is(err, engine.ErrThreadNotFound) {
				continue // not created yet
			}
			if err != nil {
				w.t.Fatalf("LoadContext: %v", err)
			}
			if c.MemCtx.RecentCount == 0 {
				w.t.Fatalf("LoadContext of %s: an empty recent window", thread)
			}
			loads++
		}
	}
	w.write(procLine{Loads: loads})
}

// appendForever appends batches of 1-4 messages to three threads until it
// is killed.
func (w *procWorker) appendForever() {
	for i := 0; ; i++ {
		var msgs []engine.Message
		for j := range 1 + w.rng.IntN(4) {
			id := fmt.Sprintf("k%d-%d-%d", w.spec.ID, i, j)
			msgs = append(msgs, user(id, procContent(id)))
		}
		if _, err := w.appendBatch(fmt.Sprintf("k%d", i%3), msgs); err != nil {
			w.t.Fatalf("append: %v", err)
		}
	}
}

// erase erases spec.Resource, saying "erasing" on stdout first and
// "erased <ms>" once it returned.
func (w *procWorker) erase() {
	fmt.Println("erasing")
	start := time.Now()
	if _, err := w.e.DeleteResource(w.ctx, w.spec.Resource); err != nil {
		w.t.Fatalf("DeleteResource: %v", err)
	}
	fmt.Printf("erased %d\n", time.Since(start).Milliseconds())
}

// startWorker starts a helper process with spec; its output goes to a
// buffer the caller reads after Wait (or to stdout, a pipe, when pipe).
func startWorker(t *testing.T, spec procSpec, pipe bool) (*exec.Cmd, *bytes.Buffer, io.Reader) {
	t.Helper()
	raw, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0], "-test.run=^TestProcessWorker$", "-test.v")
	cmd.Env = childEnv(t, procEnv+"="+string(raw))
	var out bytes.Buffer
	cmd.Stderr = &out
	var stdout io.Reader
	if pipe {
		r, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout = r
	} else {
		cmd.Stdout = &out
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out, stdout
}

// readLog reads a worker's log; a last line cut by a kill is ignored.
func readLog(t *testing.T, path string) []procLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []procLine
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		if len(l) == 0 {
			continue
		}
		var pl procLine
		if err := json.Unmarshal(l, &pl); err != nil {
			if i == len(lines)-1 {
				break // cut by the kill
			}
			t.Fatalf("log %s line %d: %v", path, i+1, err)
		}
		out = append(out, pl)
	}
	return out
}

// TestTwoProcesses runs two engine processes on one Postgres database for
// procDuration: both append to the same four threads (new messages,
// messages both send, re-sends) and load contexts with recall. Then: each
// thread's seqs are 1..n with no gap or repeat, every acknowledged message
// is stored under the seq it was acknowledged with (a message both sent
// is stored once, both told its seq), nothing is stored that no worker
// was told of, and after SyncIndexes every message is indexed (Check) and
// a sample is found by search. The workers must finish by a deadline (no
// deadlock). Postgres only: a SQLite data directory admits one process.
func TestTwoProcesses(t *testing.T) {
	t.Parallel() // waits out timers and deadlines: overlaps the other waiting tests at the end of the run
	if testing.Short() {
		t.Skip("-short")
	}
	st := enginetest.Postgres.NewStore(t)
	d := procDuration(t)
	until := time.Now().Add(d + 2*time.Second).UnixMilli() // the workers' open included
	dir := t.TempDir()
	type worker struct {
		cmd *exec.Cmd
		out *bytes.Buffer
		log string
	}
	var ws []worker
	for id := range 2 {
		log := filepath.Join(dir, fmt.Sprintf("worker-%d.log", id))
		cmd, out, _ := startWorker(t, procSpec{Role: "share", Store: st.String(), ID: id, Log: log, Until: until, Seed: uint64(time.Now().UnixNano())}, false)
		ws = append(ws, worker{cmd, out, log})
	}
	deadline := time.Now().Add(d + 2*time.Minute)
	for i, w := range ws {
		done := make(chan error, 1)
		go func() { done <- w.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("worker %d: %v\n%s", i, err, w.out)
			}
		case <-time.After(time.Until(deadline)):
			for _, w := range ws {
				w.cmd.Process.Kill()
			}
			t.Fatalf("worker %d still running %s after its end: deadlock?\n%s", i, time.Until(deadline)+d, w.out)
		}
	}
	var acks []procLine
	loads := map[int]int{}
	for i, w := range ws {
		for _, l := range readLog(t, w.log) {
			switch {
			case l.ID != "":
				acks = append(acks, l)
			case l.Loads > 0:
				loads[i] = l.Loads
			}
		}
	}
	t.Logf("workers done %s after their end", time.Since(time.UnixMilli(until)).Round(time.Millisecond))
	e := enginetest.MustOpen(t, st.Config(engine.Config{Embedder: procEmbedder{}}))
	verifyShared(t, e, acks)
	t.Logf("%s: %d acknowledged messages, contexts loaded %v", d, len(acks), loads)
	if loads[0] == 0 || loads[1] == 0 {
		t.Fatalf("a worker loaded no context: %v", loads)
	}
}

// verifyShared checks the shared threads against the acknowledgements.
func verifyShared(t *testing.T, e *engine.Engine, acks []procLine) {
	t.Helper()
	ctx := context.Background()
	want := map[string]procLine{}
	for _, a := range acks {
		if w, ok := want[a.ID]; ok && (w.Seq != a.Seq || w.Thread != a.Thread) {
			t.Fatalf("%s acknowledged as %s seq %d and as %s seq %d", a.ID, w.Thread, w.Seq, a.Thread, a.Seq)
		}
		want[a.ID] = a
	}
	stored := 0
	both := map[string]bool{} // threads holding messages of both workers
	for _, th := range sharedThreads {
		ms, err := e.Messages(ctx, th, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		from := map[byte]bool{}
		for i, m := range ms {
			if m.Seq != int64(i+1) {
				t.Fatalf("thread %s: message %d has seq %d: a gap or a repeat", th, i, m.Seq)
			}
			w, ok := want[m.ID]
			if !ok {
				t.Fatalf("thread %s seq %d: %s is stored but no worker was told so", th, m.Seq, m.ID)
			}
			if w.Thread != th || w.Seq != m.Seq || m.Content != procContent(m.ID) {
				t.Fatalf("%s stored as %s seq %d %q, acknowledged as %s seq %d", m.ID, th, m.Seq, m.Content, w.Thread, w.Seq)
			}
			if m.ID[0] == 'p' {
				from[m.ID[1]] = true
			}
		}
		stored += len(ms)
		both[th] = len(from) == 2
	}
	if stored != len(want) {
		t.Fatalf("%d messages stored, %d acknowledged", stored, len(want))
	}
	if !both[sharedThreads[0]] && !both[sharedThreads[1]] && !both[sharedThreads[2]] && !both[sharedThreads[3]] {
		t.Fatalf("no thread holds messages of both workers: they did not share")
	}
	start := time.Now()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("sync %s", time.Since(start).Round(time.Millisecond))
	mustCheck(t, e)
	t.Logf("check %s", time.Since(start).Round(time.Millisecond))
	searchSample(t, e, acks, 60)
}

// searchSample searches for the unique word of up to n acknowledged
// messages (spread over acks, the last one included) and wants each found.
func searchSample(t *testing.T, e *engine.Engine, acks []procLine, n int) {
	t.Helper()
	if len(acks) == 0 {
		return
	}
	step := max(1, len(acks)/n)
	for i := len(acks) - 1; i >= 0; i -= step {
		a := acks[i]
		res, err := e.Search(context.Background(), engine.SearchRequest{ResourceID: "r", Query: crashToken(a.ID), Options: recall.Options{TopK: 3}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Hits {
			found = found || h.MessageID == a.ID
		}
		if !found {
			t.Fatalf("acknowledged %s (thread %s seq %d) not found by search: %+v", a.ID, a.Thread, a.Seq, res.Hits)
		}
	}
}

// TestKillMidAppend kills (SIGKILL) a process appending a stream of batches
// to three threads, three times, and reopens the store after each kill:
// every acknowledged message is there with its seq and text, each batch is
// stored whole or not at all (the one in flight at the kill included),
// nothing else is stored, and after SyncIndexes every message is indexed
// (Check: gap-free seqs, both indexes) and the last acknowledged ones are
// found by search.
func TestKillMidAppend(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		if testing.Short() {
			t.Skip("-short")
		}
		st := be.NewStore(t)
		log := filepath.Join(t.TempDir(), "append.log")
		for round := range 3 {
			spec := procSpec{Role: "append", Store: st.String(), ID: round, Log: log, Seed: uint64(round)}
			// Kill after a varying number of new acknowledgements.
			target := countAcks(t, log) + 20 + rand.IntN(150)
			cmd, out, _ := startWorker(t, spec, false)
			deadline := time.Now().Add(60 * time.Second)
			for countAcks(t, log) < target && time.Now().Before(deadline) {
				time.Sleep(time.Duration(1+rand.IntN(5)) * time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			lines := readLog(t, log)
			if countAcks(t, log) < target {
				t.Fatalf("round %d: the writer acknowledged %d messages in 60 s\n%s", round, countAcks(t, log), out)
			}
			verifyAfterKill(t, be, st, lines)
			t.Logf("round %d: killed after %d acknowledged messages", round, countAcks(t, log))
		}
	})
}

// endLeases ends the leases of the outbox rows a killed process's drainer
// had claimed on Postgres: another drainer would embed them only when the
// lease ends (outboxLease, 2 minutes), and SyncIndexes waits for them; the
// messages are searchable lexically meanwhile. Only for a store whose
// other processes are dead.
func endLeases(t *testing.T, e *engine.Engine) {
	t.Helper()
	if _, err := engine.ConnOf(e).ExecContext(context.Background(), `UPDATE outbox SET not_before = 0`); err != nil {
		t.Fatal(err)
	}
}

// countAcks counts the acknowledged messages of a log.
func countAcks(t *testing.T, path string) int {
	n := 0
	for _, l := range readLog(t, path) {
		if l.ID != "" {
			n++
		}
	}
	return n
}

// verifyAfterKill reopens st and checks it against the log of the killed
// writer(s).
func verifyAfterKill(t *testing.T, be enginetest.Backend, st enginetest.Store, lines []procLine) {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: procEmbedder{}}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	acked := map[string]procLine{}
	var acks []procLine
	for _, l := range lines {
		if l.ID != "" {
			acked[l.ID] = l
			acks = append(acks, l)
		}
	}
	stored := map[string]engine.Message{}
	for i := range 3 {
		ms, err := e.Messages(ctx, fmt.Sprintf("k%d", i), 1, 0)
		if err != nil && !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatal(err)
		}
		for j, m := range ms {
			if m.Seq != int64(j+1) {
				t.Fatalf("thread k%d: message %d has seq %d", i, j, m.Seq)
			}
			stored[m.ID] = m
		}
	}
	for id, a := range acked {
		m, ok := stored[id]
		if !ok {
			t.Fatalf("acknowledged %s (thread %s seq %d) is lost", id, a.Thread, a.Seq)
		}
		if m.ThreadID != a.Thread || m.Seq != a.Seq || m.Content != procContent(id) {
			t.Fatalf("%s stored as %s seq %d %q, acknowledged as %s seq %d", id, m.ThreadID, m.Seq, m.Content, a.Thread, a.Seq)
		}
	}
	intended := map[string]bool{}
	for _, l := range lines {
		if l.Intent == nil {
			continue
		}
		n := 0
		for _, id := range l.Intent {
			intended[id] = true
			if _, ok := stored[id]; ok {
				n++
			}
		}
		if n != 0 && n != len(l.Intent) {
			t.Fatalf("batch %v stored in part: %d of %d messages", l.Intent, n, len(l.Intent))
		}
	}
	for id := range stored {
		if !intended[id] {
			t.Fatalf("%s is stored but the writer never sent it", id)
		}
	}
	if be.Name == enginetest.Postgres.Name {
		endLeases(t, e)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, e)
	searchSample(t, e, acks[max(0, len(acks)-10):], 10)
}

// TestKillMidErasure kills (SIGKILL) a process while it erases a large
// resource (2,000 messages in eight threads, beside a resource that must
// stay), at several points of the erasure (its length measured in a first
// round that is not killed), and reopens the store: the erasure is either
// complete (no thread, message or search hit of the resource left) or
// invisible (every thread whole, every message there and found by search),
// never in part; the other resource is intact; Check passes.
func TestKillMidErasure(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		if testing.Short() {
			t.Skip("-short")
		}
		st := be.NewStore(t)
		fillKeep(t, st)
		var full time.Duration
		outcomes := map[string]int{}
		for round, frac := range killFracs {
			resource := fmt.Sprintf("big%d", round)
			fillBig(t, st, resource)
			spec := procSpec{Role: "erase", Store: st.String(), ID: round, Log: filepath.Join(t.TempDir(), "erase.log"), Resource: resource}
			cmd, out, stdout := startWorker(t, spec, true)
			sc := bufio.NewScanner(stdout)
			said := func(prefix string) string {
				for sc.Scan() {
					if l := sc.Text(); strings.HasPrefix(l, prefix) {
						return l
					}
				}
				return ""
			}
			if said("erasing") == "" {
				cmd.Wait()
				t.Fatalf("round %d: the worker never started erasing\n%s", round, out)
			}
			if frac < 0 { // measure
				l := said("erased ")
				if err := cmd.Wait(); err != nil || l == "" {
					t.Fatalf("round %d: %v %q\n%s", round, err, l, out)
				}
				ms, _ := strconv.Atoi(strings.TrimPrefix(l, "erased "))
				full = time.Duration(ms) * time.Millisecond
				t.Logf("erasing %d messages takes %s", bigThreads*bigPerThread, full)
			} else {
				time.Sleep(time.Duration(frac * float64(full)))
				cmd.Process.Signal(syscall.SIGKILL)
				go io.Copy(io.Discard, stdout)
				cmd.Wait()
			}
			outcomes[verifyErasure(t, st, resource)]++
		}
		t.Logf("outcomes of the killed erasures (and the measured one): %v", outcomes)
	})
}

// bigThreads and bigPerThread shape the large resource of
// TestKillMidErasure; killFracs are the points of the erasure (fractions
// of its measured length, -1 the measuring round) where it is killed. A
// -race build (about ten times slower) erases a smaller resource once.
var (
	bigThreads, bigPerThread = 8, 250
	killFracs                = []float64{-1, 0.1, 0.4, 0.7, 0.95}
)

func init() {
	if raceEnabled {
		bigThreads, bigPerThread = 4, 100
		killFracs = []float64{-1, 0.5}
	}
}

// fillBig stores the large resource (threads <resource>-t<i>).
func fillBig(t *testing.T, st enginetest.Store, resource string) {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: procEmbedder{}}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i := range bigThreads {
		var msgs []engine.Message
		for j := range bigPerThread {
			id := fmt.Sprintf("%s-%d-%d", resource, i, j)
			msgs = append(msgs, user(id, procContent(id)))
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("%s-t%d", resource, i), ResourceID: resource, Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
}

// fillKeep stores the resource no erasure touches.
func fillKeep(t *testing.T, st enginetest.Store) {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: procEmbedder{}}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var msgs []engine.Message
	for j := range 20 {
		id := fmt.Sprintf("keep-%d", j)
		msgs = append(msgs, user(id, procContent(id)))
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "keep", ResourceID: "keep", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
}

// verifyErasure reopens st after an erasure of resource that may have been
// killed and returns "complete" or "invisible", failing t on anything in
// between.
func verifyErasure(t *testing.T, st enginetest.Store, resource string) string {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: procEmbedder{}}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, e)
	ths, err := e.ListThreads(ctx, resource)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, th := range ths {
		ms, err := e.Messages(ctx, th.ID, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != bigPerThread {
			t.Fatalf("thread %s erased in part: %d of %d messages left", th.ID, len(ms), bigPerThread)
		}
		total += len(ms)
	}
	hit := func(id string) bool {
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: resource, Query: crashToken(id), Options: recall.Options{TopK: 3}})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.MessageID == id {
				return true
			}
		}
		return false
	}
	first, last := resource+"-0-0", fmt.Sprintf("%s-%d-%d", resource, bigThreads-1, bigPerThread-1)
	outcome := "invisible"
	switch {
	case len(ths) == 0:
		outcome = "complete"
		if hit(first) || hit(last) {
			t.Fatalf("%s erased, but search still finds its messages", resource)
		}
	case len(ths) != bigThreads || total != bigThreads*bigPerThread:
		t.Fatalf("%s erased in part: %d threads, %d messages left", resource, len(ths), total)
	case !hit(first) || !hit(last):
		t.Fatalf("%s is whole, but search does not find its messages", resource)
	}
	keep, err := e.Messages(ctx, "keep", 1, 0)
	if err != nil || len(keep) != 20 {
		t.Fatalf("the other resource: %d messages, %v", len(keep), err)
	}
	return outcome
}
