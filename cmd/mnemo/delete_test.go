package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

func TestDelete(t *testing.T) {
	var reqs []engine.AppendRequest
	for _, th := range []string{"t1", "t2"} {
		reqs = append(reqs, engine.AppendRequest{ThreadID: th, ResourceID: "r", Messages: []engine.Message{
			{ID: th + "-a", Role: "user", Content: "hello"}, {ID: th + "-b", Role: "user", Content: "bye"},
		}})
	}
	dir := storedDir(t, engine.Config{}, false, reqs...)

	code, out, stderr := run(t, nil, "--dir", dir, "delete", "--message", "t1-a", "nope", "--yes")
	if code != 0 || !strings.Contains(out, "erased 1 message (t1-a)") || !strings.Contains(out, "not found: 1 (nope)") {
		t.Fatalf("delete --message: code %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "delete", "--thread", "t2", "--json", "--yes")
	if code != 0 || !strings.Contains(out, `"threads": [`) {
		t.Fatalf("delete --thread: code %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "delete", "--resource", "r", "--yes")
	if code != 0 || !strings.Contains(out, "erased 1 message (t1-b)") || !strings.Contains(out, "deleted 1 thread (t1)") {
		t.Fatalf("delete --resource: code %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = run(t, nil, "--dir", dir, "delete", "--thread", "t2", "--yes")
	if code != 1 || !strings.Contains(stderr, "thread not found") {
		t.Fatalf("delete of a missing thread: code %d, %s", code, stderr)
	}
	// Nothing stored to erase: said, and no purge paid (it rebuilt every
	// index before: "erased 0 messages … purged in 112ms (… indexes
	// rebuilt …)").
	code, out, stderr = run(t, nil, "--dir", dir, "delete", "--resource", "r", "--yes")
	if code != 0 || !strings.Contains(out, "nothing erased") || strings.Contains(out, "purged in") {
		t.Fatalf("delete of a resource with nothing stored: code %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "delete", "--message", "nope", "--yes")
	if code != 1 || !strings.Contains(out, "nothing erased") || strings.Contains(out, "purged in") || !strings.Contains(stderr, "no message found: nope") {
		t.Fatalf("delete of a missing message: code %d\n%s%s", code, out, stderr)
	}
	// Without --yes (standard input no terminal): nothing to confirm, the
	// same exit 1. It said "refusing to erase 0 messages (0 of 1 id
	// stored) without --yes", exit 2 (walk48).
	for _, ids := range [][]string{{"nope"}, {"nope", "nada"}} {
		code, out, stderr = run(t, nil, append([]string{"--dir", dir, "delete", "--message"}, ids...)...)
		want := "mnemo delete: no message found: " + strings.Join(ids, ", ") + ": nothing is stored under "
		if code != 1 || !strings.HasPrefix(stderr, want) || strings.Contains(stderr, "refusing") {
			t.Fatalf("delete --message %v without --yes: code %d\n%s%s; want 1 saying %q", ids, code, out, stderr, want)
		}
	}
	for _, args := range [][]string{{"delete"}, {"delete", "--thread", "a", "--resource", "b"}, {"delete", "stray"}} {
		if code, _, _ := run(t, nil, append([]string{"--dir", dir}, args...)...); code != 2 {
			t.Fatalf("%q: code %d, want 2", args, code)
		}
	}
}

func TestDeleteNeedsYesWithoutTerminal(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", "../../demodata/conversation.jsonl"); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	code, _, stderr := run(t, nil, "--dir", dir, "delete", "--thread", "ana:work")
	// The refusal is its line and the help hint, not the whole usage
	// (which followed it, 14 lines): the command line's shape was right.
	want := "mnemo delete: refusing to erase thread ana:work of resource ana (5 messages) without --yes: standard input is not a terminal, so there is no one to confirm\nRun 'mnemo help delete' for the flags.\n"
	if code != 2 || stderr != want {
		t.Fatalf("delete without --yes on a pipe: exit %d, %q; want 2 and %q", code, stderr, want)
	}
	code, out, _ := run(t, nil, "--dir", dir, "messages", "--thread", "ana:work")
	if code != 0 || !strings.Contains(out, "list_tasks") {
		t.Fatalf("the thread was erased without --yes: %s", out)
	}
}

// TestRunsOfErasedThreadAndUnknownThread: `mnemo runs` lists no run of a
// deleted thread, and `mnemo context` on a thread that does not exist is an
// error (exit 1) that records no run.
func TestRunsOfErasedThreadAndUnknownThread(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", "../../demodata/conversation.jsonl"); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "ana:work", "--run-id", "inspect-1"); code != 0 {
		t.Fatalf("context: %s", stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "delete", "--thread", "ana:work", "--yes"); code != 0 {
		t.Fatalf("delete: %s", stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "context", "--thread", "ana:work", "--resource", "ana", "--run-id", "inspect-2")
	if code != 1 || !strings.Contains(stderr, "thread not found") {
		t.Fatalf("context of an unknown thread: exit %d, %s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "runs", "--json")
	if code != 0 || strings.TrimSpace(out) != `{
  "runs": []
}` {
		t.Fatalf("runs after deleting the only inspected thread: exit %d, %s%s", code, out, stderr)
	}
}

// TestRunsOfThreadShowEveryResources: a run another resource recorded on
// a thread id before its owner created the thread is listed by `mnemo runs
// --thread`, the operator's listing, beside the owner's (it was left out,
// while the operator's GET /v1/runs?threadId= lists it since run56's
// 8711246f); `--resource` of the other resource lists it alone.
func TestRunsOfThreadShowEveryResources(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "a-run", ThreadID: "shared-x", ResourceID: "res-a", Query: "secret"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "shared-x", ResourceID: "res-b", Messages: []engine.Message{{Role: "user", Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "b-run", ThreadID: "shared-x", ResourceID: "res-b"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "runs", "--thread", "shared-x")
	if code != 0 || !strings.Contains(out, "a-run") || !strings.Contains(out, "res-a") || !strings.Contains(out, "b-run") {
		t.Fatalf("runs --thread of B's thread: exit %d, want a-run of res-a and b-run listed\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "runs", "--resource", "res-a")
	if code != 0 || !strings.Contains(out, "a-run") || strings.Contains(out, "b-run") {
		t.Fatalf("runs --resource of A: exit %d\n%s%s", code, out, stderr)
	}
}

// TestDeleteResourceIDInNoFile: what docs/cli.md promises of `mnemo delete
// --resource` on a data directory — the id in no file of the directory,
// not even a piece of it in the unused space of an index page — holds
// right after the delete (which says it rebuilt the indexes), and after
// `mnemo vacuum`.
func TestDeleteResourceIDInNoFile(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 2,000 messages")
	}
	const id = "qz7kw4x9"
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), "in.jsonl")
	var b strings.Builder
	r := rand.New(rand.NewPCG(3, 1)) // seeds 3, 4 and 5 left pieces of the id before the fix; 1, 2 and 6 did not
	words := strings.Fields("train porto lyon hotel river passport renewal weather friday window seat book night museum dinner flight")
	resources := []string{id, "bo", "chen"}
	for i := 0; i < 2000; i++ {
		k := r.IntN(len(resources))
		var text []string
		for j := 0; j < 12; j++ {
			text = append(text, words[r.IntN(len(words))])
		}
		role := []string{"user", "assistant"}[r.IntN(2)]
		fmt.Fprintf(&b, `{"thread":"t%d-%d","resource":%q,"role":%q,"content":%q}`+"\n", k, r.IntN(20), resources[k], role, strings.Join(text, " "))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", path); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	if hits := dirPieces(t, dir, id); len(hits) == 0 {
		t.Fatal("the fixture does not store the id: the scan below would prove nothing")
	}
	code, out, stderr := run(t, nil, "--dir", dir, "delete", "--resource", id, "--yes")
	if code != 0 || !strings.Contains(out, "indexes holding an erased id rebuilt") {
		t.Fatalf("delete: exit %d, %q %s; want the purge to say it rebuilt the indexes", code, out, stderr)
	}
	if hits := dirPieces(t, dir, id); len(hits) > 0 {
		t.Fatalf("after delete --resource, pieces of the id are in %v", hits)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "vacuum"); code != 0 {
		t.Fatalf("vacuum: %d %s", code, stderr)
	}
	if hits := dirPieces(t, dir, id); len(hits) > 0 {
		t.Fatalf("after vacuum, pieces of the id are in %v", hits)
	}
}

// dirPieces returns "file: piece" for every file under dir holding a
// substring of id of 6 bytes or more.
func dirPieces(t *testing.T, dir, id string) []string {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for i := 0; i+6 <= len(id); i++ {
			if bytes.Contains(data, []byte(id[i:i+6])) {
				hits = append(hits, strings.TrimPrefix(p, dir)+": "+id[i:i+6])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// TestDeleteSaysVacuumed: when the purge rewrites the file with VACUUM,
// mnemo delete says so and why, and --json carries "vacuumed"; it said
// nothing before (an erasure of 80,010 messages shrank mnemo.db from 48 MB
// to 184 KB under "purged in 2.258s (deleted rows zeroed, indexes rebuilt,
// index merge, WAL checkpoint)"). A copy of an erased text left in a
// free-list trunk page, where no page says which bytes are live, can only
// be taken out by VACUUM; a text erased from one thread and still stored
// deep in a long message of another is that live row's (its overflow
// chain's payload), which no VACUUM takes out, so that erasure does not
// vacuum (it did until erase70), nor does one of a text stored nowhere
// else.
func TestDeleteSaysVacuumed(t *testing.T) {
	const twice, once = "a sentence two threads both hold, word for word", "a sentence only one thread ever held"
	const left, leftJSON = "a sentence whose copy a free-list page keeps", "another sentence a free-list page keeps"
	long := strings.Repeat("a long message whose end spills to overflow pages. ", 200) + twice
	msg := func(thread, text string) engine.AppendRequest {
		return engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: text}}}
	}
	dir := storedDir(t, engine.Config{}, false, msg("trunk", left), msg("copied", twice), msg("kept", long), msg("alone", once), msg("json", leftJSON))
	for _, tc := range []struct {
		name, thread, plant string // plant: a copy planted in a free-list trunk page first
		json                bool
		want, absent        string
	}{
		{"Residue", "trunk", left, false, "file vacuumed: it still held the start of an erased text where it could not be zeroed in place (a leftover copy where no page says which bytes are live, or in a damaged file)", ""},
		{"CopyInLongMessage", "copied", "", false, "purged in", "vacuumed"},
		{"NoCopy", "alone", "", false, "purged in", "vacuumed"},
		{"JSON", "json", leftJSON, true, `"vacuumed": "residue"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.plant != "" {
				enginetest.PlantInTrunk(t, filepath.Join(dir, engine.DatabaseFile), tc.plant)
			}
			args := []string{"--dir", dir, "delete", "--thread", tc.thread, "--yes"}
			if tc.json {
				args = append(args, "--json")
			}
			code, out, stderr := run(t, nil, args...)
			if code != 0 || !strings.Contains(out, tc.want) || (tc.absent != "" && strings.Contains(out, tc.absent)) {
				t.Fatalf("delete --thread %s: exit %d, want %q without %q:\n%s%s", tc.thread, code, tc.want, tc.absent, out, stderr)
			}
			if tc.plant == "" {
				return
			}
			for _, f := range []string{engine.DatabaseFile, engine.DatabaseFile + "-wal"} {
				if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil && bytes.Contains(b, []byte(tc.plant)) {
					t.Fatalf("%s still holds the copy of the erased text after the VACUUM", f)
				}
			}
		})
	}
}

// TestDeleteThreadWithRunsOnly: `mnemo delete --thread` of a thread id
// that has runs and no stored thread (a context loaded before the first
// append) erases those runs; it exited 1 "thread not found" and `mnemo
// runs --thread` kept listing the run, its query stored. The prompt says
// what it erases; a second delete is "thread not found" again.
func TestDeleteThreadWithRunsOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "ghost-run", ThreadID: "ghost", ResourceID: "alice", Query: "my passport number is ZX9912345"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, nil, "--dir", dir, "delete", "--thread", "ghost")
	if code != 2 || !strings.Contains(stderr, "refusing to erase the runs recorded under thread id ghost, which has no messages (resource alice)") {
		t.Fatalf("delete without --yes: exit %d, %s", code, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "delete", "--thread", "ghost", "--json", "--yes")
	if code != 0 || !strings.Contains(out, `"runs": 1`) {
		t.Fatalf("delete --thread ghost: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "runs", "--json")
	if code != 0 || strings.Contains(out, "ghost-run") {
		t.Fatalf("runs after the delete: exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = run(t, nil, "--dir", dir, "delete", "--thread", "ghost", "--yes")
	if code != 1 || !strings.Contains(stderr, "thread not found") {
		t.Fatalf("delete again: exit %d, %s", code, stderr)
	}
}

// TestDeleteThreadPrintsRuns: `mnemo delete` says how many run records it
// deleted; of a thread id with runs only it printed "erased 0 messages",
// the thread and zero counts, nothing of the 2 runs it erased (--json and
// HTTP said "runs": 2).
func TestDeleteThreadPrintsRuns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"ghost2-run-1", "ghost2-run-2"} {
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "ghost2", ResourceID: "alice", Query: "where is the spare key"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "delete", "--thread", "ghost2", "--yes")
	if code != 0 || !strings.Contains(out, "deleted 2 run records\n") {
		t.Fatalf("delete --thread ghost2: exit %d, want the line \"deleted 2 run records\"\n%s%s", code, out, stderr)
	}
}
