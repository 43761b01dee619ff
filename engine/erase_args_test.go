package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestErasureZeroesLeftoverArguments: a copy of an erased tool call's
// arguments (the JSON text as the tool_calls column stores it) left in a
// b-tree page's free space leaves the database file with the erasure.
// The residue check looked only for the erased contents' prefixes, and an
// assistant message that only calls tools has none: a planted copy of its
// arguments stayed in the file.
func TestErasureZeroesLeftoverArguments(t *testing.T) {
	ctx := context.Background()
	const args = `{"query":"my erased argument, zq-5521 \"quoted\" <b> & more"}`
	e := enginetest.SQLite.MustOpen(t, engine.Config{})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "gone", ResourceID: "r", Messages: []engine.Message{
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "call_1", Name: "search", Arguments: json.RawMessage(args)}}}}}); err != nil {
		t.Fatal(err)
	}
	appendUser(t, e, "kept", "r", "a turn of another thread, kept")
	var stored string
	if err := engine.DBOf(e).QueryRowContext(ctx, `SELECT tool_calls FROM messages WHERE thread_id = 'gone'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stored, args) {
		t.Fatalf("tool_calls stored as %s, which does not hold the arguments %s as given: the planted copy would not be the row's bytes", stored, args)
	}
	path := filepath.Join(e.Dir(), engine.DatabaseFile)
	enginetest.PlantLeftover(t, path, args)
	if _, err := e.DeleteThread(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if held, err := engine.FileHolds(path, [][]byte{[]byte(args)}); err != nil || held {
		t.Fatalf("%s still holds the erased call's arguments (%v)", engine.DatabaseFile, err)
	}
	if held, err := engine.FileHolds(path, [][]byte{[]byte("a turn of another thread, kept")}); err != nil || !held {
		t.Fatalf("the kept thread's text left the file (%v)", err)
	}
}

// TestEraseThreadsLeavesNoArguments: 1,000 assistant messages of 1 to 4
// tool calls each (40-character call ids, arguments holding a unique
// text) over 40 threads, the threads erased one after another: the
// rebalances of the messages table after each erasure move other threads'
// cells and leave old copies in the pages' free space, where those
// threads' arguments stayed after their own erasure (seed 2: two of them
// from the 32nd erasure on; seeds 3, 6 and 8 of 1 to 8 too). The residue
// check now looks for each erased call's arguments and zeroes them.
func TestEraseThreadsLeavesNoArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("appends 1,000 messages, erases 40 threads")
	}
	ctx := context.Background()
	e := enginetest.SQLite.MustOpen(t, engine.Config{})
	r := rand.New(rand.NewPCG(2, 1))
	rnd := func(n int, alpha string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	}
	const alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	threads := make([]string, 40)
	for i := range threads {
		threads[i] = rnd(8, "ghijklmnopqrstuvwxyz")
	}
	secrets := map[string][]string{} // thread → the texts its calls' arguments hold
	for range 1000 {
		th := threads[r.IntN(len(threads))]
		var calls []engine.ToolCall
		for range 1 + r.IntN(4) {
			secret := "ARG" + rnd(20, alnum)
			secrets[th] = append(secrets[th], secret)
			calls = append(calls, engine.ToolCall{ID: "call_" + rnd(35, alnum), Name: "read_file", Arguments: json.RawMessage(`{"path":"` + secret + `"}`)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th, ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleAssistant, ToolCalls: calls}}}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(e.Dir(), engine.DatabaseFile)
	var erased [][]byte
	for i, th := range threads {
		if _, err := e.DeleteThread(ctx, th); err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets[th] {
			erased = append(erased, []byte(s))
		}
		held, err := engine.FileHolds(path, erased)
		if err != nil {
			t.Fatal(err)
		}
		if held {
			t.Fatalf("after erasing %d threads (the last %s), %s holds an erased call's arguments: %s", i+1, th, engine.DatabaseFile, heldOf(t, path, erased))
		}
	}
}

// heldOf names the texts of pats that the file at path holds.
func heldOf(t *testing.T, path string, pats [][]byte) string {
	t.Helper()
	var out []string
	for _, p := range pats {
		if held, err := engine.FileHolds(path, [][]byte{p}); err != nil || held {
			out = append(out, fmt.Sprintf("%q (%v)", p, err))
		}
	}
	return strings.Join(out, ", ")
}
