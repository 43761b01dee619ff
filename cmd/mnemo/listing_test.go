package main

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestJSONArrayAsPrintJSON: a jsonArray fed element by element writes the
// bytes printJSON writes for the whole slice (empty, one, several, nested
// values, HTML characters).
func TestJSONArrayAsPrintJSON(t *testing.T) {
	for _, v := range [][]any{
		{},
		{1},
		{map[string]any{"a": []any{1, map[string]any{"b": "<&>"}}, "c": ""}, "x", nil, []int{}},
		{engine.Message{ID: "m1", Role: "user", Content: "a\nb <tag>", Metadata: map[string]any{"k": []any{1.5}}}, engine.Thread{ID: "t"}},
	} {
		var want, got bytes.Buffer
		if err := (&Main{Stdout: &want}).printJSON(v); err != nil {
			t.Fatal(err)
		}
		arr := newJSONArray(&got)
		for _, x := range v {
			if err := arr.Add(x); err != nil {
				t.Fatal(err)
			}
		}
		if err := arr.Close(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("streamed:\n%s\nwant:\n%s", got.String(), want.String())
		}
	}
}

// liveHeap is a Stdout that records the largest live heap it sees at its
// writes (after a collection, at every 10th write) and counts the bytes.
type liveHeap struct {
	writes int
	n      int64
	max    uint64
}

func (h *liveHeap) Write(b []byte) (int, error) {
	if h.writes%10 == 0 {
		h.max = max(h.max, heapNow())
	}
	h.writes++
	h.n += int64(len(b))
	return len(b), nil
}

// heapNow returns the live heap after a full collection.
func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMessagesListingBounded: `mnemo messages` (text and --json) reads a
// thread a page at a time, so its live heap stays far below the thread's
// size. It loaded the whole thread before (engine.Messages): 25 MB of
// content live while the first line was written.
func TestMessagesListingBounded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	const n, size = 400, 64 << 10 // 25.6 MB of content
	body := strings.Repeat("porto ", size/6)
	for i := 0; i < n; i += 40 {
		var ms []engine.Message
		for j := range 40 {
			ms = append(ms, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("%d %s", i+j, body)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "big", ResourceID: "r", Messages: ms}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil { // no catch-up in the listing's process
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	defer func(p int) { listPage = p }(listPage)
	listPage = 20
	for _, args := range [][]string{{"messages", "--thread", "big"}, {"messages", "--thread", "big", "--json"}} {
		out := &liveHeap{}
		before := heapNow()
		m := &Main{Stdin: strings.NewReader(""), Stdout: out, Stderr: &bytes.Buffer{},
			Getenv: func(k string) string { return map[string]string{"MNEMO_EMBEDDER": "hash-384"}[k] }}
		if code := m.Run(ctx, append([]string{"--dir", dir}, args...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, m.Stderr)
		}
		if out.writes < n {
			t.Fatalf("%v: %d writes, want at least one a message", args, out.writes)
		}
		grew, most := int64(out.max)-int64(before), int64(n*size/4)
		t.Logf("%v: the live heap grew by %d bytes", args, grew)
		if grew > most {
			t.Errorf("%v: the live heap grew by %d bytes while listing %d bytes of messages (%d written), want at most %d", args, grew, n*size, out.n, most)
		}
	}
}

// TestListingsAcrossPages: with pages of 2, `mnemo messages` and `mnemo
// threads` print, text and --json, what one page holding everything
// printed, and `mnemo delete --resource` counts every thread.
func TestListingsAcrossPages(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", i), ResourceID: "r", Title: "title",
			Messages: []engine.Message{{Role: engine.RoleUser, Content: "one"}, {Role: engine.RoleAssistant, Content: "two"}, {Role: engine.RoleUser, Content: "three"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"messages", "--thread", "t1"}, {"messages", "--thread", "t1", "--json"}, {"messages", "--thread", "t1", "--from", "2", "--json"},
		{"threads"}, {"threads", "--json"}, {"threads", "--resource", "r", "--json"},
	} {
		args = append([]string{"--dir", dir}, args...)
		listPage = engine.MaxPageLimit
		_, want, _ := run(t, nil, args...)
		listPage = 2
		code, got, stderr := run(t, nil, args...)
		listPage = engine.MaxPageLimit
		if code != 0 || got != want || len(want) < 20 {
			t.Errorf("%v in pages of 2: exit %d %s\n%s\nwant\n%s", args, code, stderr, got, want)
		}
	}
	// delete --resource counts the threads and messages it would erase.
	listPage = 2
	code, _, stderr := run(t, nil, "--dir", dir, "delete", "--resource", "r")
	listPage = engine.MaxPageLimit
	if want := "resource r (5 threads, 15 messages, and its working memory)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("delete --resource without --yes in pages of 2: exit %d, %q, want 2 and %q", code, stderr, want)
	}
}

// TestColumnsAsTabwriter: one page of columns prints as the tabwriter the
// listing used before (widths in runes, the last cell unpadded, an empty
// last cell leaving the padding of the one before); a later page's wider
// cell widens its column from then on.
func TestColumnsAsTabwriter(t *testing.T) {
	rows := [][]string{{"THREAD", "RESOURCE", "TITLE"}, {"t-long-id", "é", ""}, {"t", "resource", "a title"}, {"", "", "x"}}
	var want, got bytes.Buffer
	tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	c := &columns{w: &got}
	if err := c.Page(rows); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("columns:\n%q\nwant:\n%q", got.String(), want.String())
	}
	got.Reset()
	if err := c.Page([][]string{{"t2", "r", "x"}, {"a-much-longer-id", "r", "y"}}); err != nil {
		t.Fatal(err)
	}
	if want := "t2                r         x\na-much-longer-id  r         y\n"; got.String() != want {
		t.Errorf("second page:\n%q\nwant:\n%q", got.String(), want)
	}
}

// TestThreadListingOneSnapshot: the threads' listing reads one snapshot
// in one query (engine.EachThread), so a thread created while it prints
// (here before every listed one, in resource "a") neither repeats a listed
// thread nor skips one. With pages by offset, page 2 listed t1 again.
func TestThreadListingOneSnapshot(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var want []string
	for i := range 5 {
		id := fmt.Sprintf("t%d", i)
		want = append(want, id)
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: id, ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "hi"}}}); err != nil {
			t.Fatal(err)
		}
	}
	defer func(p int) { listPage = p }(listPage)
	listPage = 2
	var got []string
	err = eachThreadPage(ctx, e, "", func(ts []engine.Thread) error {
		if len(got) == 0 {
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "a0", ResourceID: "a", Messages: []engine.Message{{Role: engine.RoleUser, Content: "new"}}}); err != nil {
				return err
			}
		}
		for _, th := range ts {
			got = append(got, th.ID)
		}
		return nil
	})
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("listed %v (%v), want %v", got, err, want)
	}
}
