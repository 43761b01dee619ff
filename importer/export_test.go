package importer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/working"
)

// TestJSONLTitle: a line's "title" is its thread's, stored by the batch
// that creates the thread (the first title its lines give) and ignored
// for a stored thread, as AppendRequest.Title is; a title that is no
// string, or a member "Title", skips the line naming it; a
// function_call item has none.
func TestJSONLTitle(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	body := strings.Join([]string{
		`{"thread":"a","resource":"r","role":"user","content":"1"}`,
		`{"thread":"a","resource":"r","title":"Trip to Porto","role":"user","content":"2"}`,
		`{"thread":"a","resource":"r","title":"Other","role":"user","content":"3"}`,
		`{"thread":"b","resource":"r","title":"Garden","role":"user","content":"1"}`,
		`{"thread":"a","resource":"r","title":"Too late","role":"user","content":"4"}`,
		`{"thread":"c","resource":"r","title":3,"role":"user","content":"1"}`,
		`{"thread":"c","resource":"r","Title":"x","role":"user","content":"2"}`,
		`{"thread":"c","resource":"r","type":"function_call","title":"x","call_id":"c1","name":"f"}`,
	}, "\n") + "\n"
	rep, err := importer.Import(ctx, e, writeFile(t, "f.jsonl", body), importer.Options{Name: "f.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != 5 || rep.Skipped != 3 {
		t.Fatalf("report %+v, want 5 stored, 3 skipped", rep)
	}
	for _, c := range []struct{ thread, title string }{{"a", "Trip to Porto"}, {"b", "Garden"}} {
		th, err := e.GetThread(ctx, c.thread)
		if err != nil || th.Title != c.title {
			t.Errorf("thread %s: title %q (%v), want %q", c.thread, th.Title, err, c.title)
		}
	}
	for i, want := range []string{
		`"title" must be a string, got a number`,
		`unknown field "Title" (did you mean "title"? names are case-sensitive)`,
		`unknown field "title" (a "function_call" item has thread, resource, id, type, status, call_id, name, arguments, metadata and created_at)`,
	} {
		if got := rep.Problems[i].Reason(); got != want {
			t.Errorf("problem %d: %q, want %q", i, got, want)
		}
	}
}

// exportCorpus stores in e what an export must carry: two resources,
// titles, tool calls with arguments as an object and as a model's text,
// a tool result stored by reference (past the inline bound), names,
// metadata with a number past float64, text HTML would escape and a
// bidirectional control, times to the millisecond; a thread erased
// whole and a message erased from a kept thread; the working-memory
// states of a thread, of a resource with threads and of two resources
// with none (cleo, dan); a thread's own idle lifetime (ana:trip 72 h) and
// a thread that never expires (bob:x).
func exportCorpus(t *testing.T, e *engine.Engine) {
	ctx := context.Background()
	at := time.Date(2026, 3, 2, 9, 0, 0, 123e6, time.UTC)
	big := strings.Repeat("the full tool result, ", 2000) // past DefaultToolResultInlineBytes
	for _, req := range []engine.AppendRequest{
		{ThreadID: "ana:trip", ResourceID: "ana", Title: "Trip to Porto", Messages: []engine.Message{
			{ID: "t1", Role: "user", Content: "a train <Lyon> & Porto \u202e", Metadata: map[string]any{"n": json.Number("12345678901234567890"), "topic": "travel"}, CreatedAt: at},
			{ID: "t2", Role: "assistant", Content: "", CreatedAt: at.Add(time.Second), ToolCalls: []engine.ToolCall{
				{ID: "c1", Name: "search", Arguments: json.RawMessage(`{"from":"Lyon","to":"Porto"}`)},
				{ID: "c2", Name: "note", Arguments: json.RawMessage(`"not json at all"`)}}},
			{ID: "t3", Role: "tool", Name: "search", ToolCallID: "c1", Content: big, CreatedAt: at.Add(2 * time.Second)},
			{ID: "t4", Role: "tool", Name: "note", ToolCallID: "c2", Content: "ok", CreatedAt: at.Add(3 * time.Second)},
			{ID: "t5", Role: "user", Name: "Ana", Content: "erase me", CreatedAt: at.Add(4 * time.Second)},
			{ID: "t6", Role: "assistant", Content: "booked", CreatedAt: at.Add(5 * time.Second)},
		}},
		{ThreadID: "ana:aaa", ResourceID: "ana", Messages: []engine.Message{{ID: "a1", Role: "user", Content: "created after ana:trip", CreatedAt: at}}},
		{ThreadID: "ana:gone", ResourceID: "ana", Messages: []engine.Message{{ID: "g1", Role: "user", Content: "secret", CreatedAt: at}}},
		{ThreadID: "bob:x", ResourceID: "bob", Messages: []engine.Message{{ID: "b1", Role: "user", Content: "hi bob", CreatedAt: at}}},
	} {
		if _, err := e.Append(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []struct {
		key     string
		mode    working.Mode
		content string
	}{
		{working.ThreadKey("ana:trip"), working.ModeTemplate, "# Trip\n- train <TGV> & night \u202e"},
		{working.ThreadKey("ana:gone"), working.ModeTemplate, "# secret plans"},
		{working.ResourceKey("ana"), working.ModeSchema, `{"name":"Ana","n":12345678901234567890}`},
		{working.ResourceKey("dan"), working.ModeTemplate, "# Dan\n- no thread yet"},
		{working.ResourceKey("cleo"), working.ModeSchema, `{"name":"Cleo"}`},
	} {
		setState(t, e, st.key, st.mode, st.content)
	}
	if _, err := e.DeleteThread(ctx, "ana:gone"); err != nil {
		t.Fatal(err)
	}
	for th, ttl := range map[string]time.Duration{"ana:trip": 72 * time.Hour, "bob:x": -1} {
		if err := e.SetIdleTTL(ctx, th, "", ttl); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.DeleteMessages(ctx, "t5"); err != nil {
		t.Fatal(err)
	}
}

// setState sets the working-memory state of key (thread:… or
// resource:…) in mode to content, as mnemo wm set does.
func setState(t *testing.T, e *engine.Engine, key string, mode working.Mode, content string) {
	t.Helper()
	scope, _, err := working.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := working.Config{Scope: scope, Mode: mode}
	if mode == working.ModeSchema {
		cfg.Schema = json.RawMessage(`{"type":"object"}`)
	}
	mem, err := e.OpenWorkingMemory(cfg)
	if err == nil {
		_, err = mem.Set(context.Background(), key, content, working.Origin{})
	}
	if err != nil {
		t.Fatalf("set %s: %v", key, err)
	}
}

// stateOf is the content and mode of key's stored state ("" when none).
func stateOf(t *testing.T, e *engine.Engine, key string) string {
	t.Helper()
	ctx := context.Background()
	mode, ok, err := e.StoredWorkingMode(ctx, key)
	if err != nil || !ok {
		return ""
	}
	scope, _, _ := working.ParseKey(key)
	cfg := working.Config{Scope: scope, Mode: mode}
	if mode == working.ModeSchema {
		cfg.Schema = json.RawMessage(`{"type":"object"}`)
	}
	mem, err := e.OpenWorkingMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := mem.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(mode) + ": " + st.Content
}

// exportTo runs Export of e and returns what it wrote.
func exportTo(t *testing.T, e *engine.Engine, opt importer.ExportOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := importer.Export(context.Background(), e, &buf, opt); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestExportRoundTrip: SQLite → file → each backend → file → SQLite.
// The files hold the same lines byte for byte (sameLines: threads an
// import created within one millisecond may come in id order), every message reads back the same (ids,
// role, content, tool calls, name, metadata, created_at, tokens, the
// reference of the long tool result) but its seq (an erased seq is not
// kept: the thread is numbered from 1 again), titles and threads' own
// idle lifetimes (72 h, never) are kept, and the
// erased thread and message are not exported. Importing a file again
// stores nothing. The Postgres subtest skips without
// MNEMO_TEST_POSTGRES.
func TestExportRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := enginetest.MustOpen(t, engine.Config{})
	exportCorpus(t, src)
	var buf bytes.Buffer
	exported, err := importer.Export(ctx, src, &buf, importer.ExportOptions{PageSize: 2})
	if err != nil || exported.Resources != 4 {
		t.Fatalf("export: %+v, %v; want 4 resources (ana, bob; cleo and dan with a state alone)", exported, err)
	}
	file1 := buf.Bytes()
	if bytes.Contains(file1, []byte("secret")) || bytes.Contains(file1, []byte("gone")) || bytes.Contains(file1, []byte("erase me")) || bytes.Contains(file1, []byte("ana:gone")) {
		t.Fatalf("the export holds erased content:\n%s", file1)
	}
	if !bytes.Contains(file1, []byte(`"title":"Trip to Porto","idle_ttl":"72h0m0s","id":"t1"`)) || !bytes.Contains(file1, []byte(`"resource":"bob","idle_ttl":"never","id":"b1"`)) {
		t.Fatalf("the idle lifetimes are not on the threads' first lines:\n%s", file1)
	}
	if got := bytes.Count(file1, []byte("\n")); got != 11 {
		t.Fatalf("%d lines, want 11 (7 messages, 4 states):\n%s", got, file1)
	}
	// The states of the resources with no thread come last, in id order
	// (paged by 2: ana, cleo; then dan).
	if lines := strings.Split(strings.TrimSuffix(string(file1), "\n"), "\n"); !strings.Contains(lines[9], `"resource":"cleo"`) || !strings.Contains(lines[10], `"resource":"dan"`) {
		t.Fatalf("the lone states: %s\n%s", lines[9], lines[10])
	}
	path := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(path, file1, 0o600); err != nil {
		t.Fatal(err)
	}
	enginetest.ForEachBackend(t, func(t *testing.T, b enginetest.Backend) {
		mid := enginetest.MustOpen(t, b.Config(t, engine.Config{}))
		rep, err := importer.Import(ctx, mid, path, importer.Options{Strict: true})
		// The resources counted as the export counted them (walk39 #8:
		// 2, cleo's and dan's lone states not counted).
		if err != nil || rep.Messages != 7 || rep.Threads != 3 || rep.Resources != exported.Resources || rep.WorkingMemory != 4 {
			t.Fatalf("import: %+v, %v; want 7 messages, 3 threads, %d resources, 4 states", rep, err, exported.Resources)
		}
		file2 := exportTo(t, mid, importer.ExportOptions{})
		if !sameLines(file2, file1) {
			t.Fatalf("the export of the import differs:\n%s\nwant\n%s", file2, file1)
		}
		path2 := filepath.Join(t.TempDir(), "export.jsonl")
		if err := os.WriteFile(path2, file2, 0o600); err != nil {
			t.Fatal(err)
		}
		last := enginetest.MustOpen(t, engine.Config{})
		if _, err := importer.Import(ctx, last, path2, importer.Options{Strict: true}); err != nil {
			t.Fatal(err)
		}
		if file3 := exportTo(t, last, importer.ExportOptions{}); !sameLines(file3, file1) {
			t.Fatalf("the third export differs:\n%s\nwant\n%s", file3, file1)
		}
		for _, th := range []string{"ana:trip", "ana:aaa", "bob:x"} {
			want, got := threadMessages(t, src, th), threadMessages(t, last, th)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("thread %s:\n got %+v\nwant %+v", th, got, want)
			}
			if a, z := threadOf(t, src, th), threadOf(t, last, th); a.Title != z.Title || a.ResourceID != z.ResourceID || a.Bytes != z.Bytes || a.IdleTTL != z.IdleTTL {
				t.Errorf("thread %s: %+v, want %+v", th, z, a)
			}
		}
		for _, key := range []string{working.ThreadKey("ana:trip"), working.ResourceKey("ana"), working.ResourceKey("cleo"), working.ResourceKey("dan")} {
			if a, z := stateOf(t, src, key), stateOf(t, last, key); a != z || a == "" {
				t.Errorf("working memory %s: %q, want %q", key, z, a)
			}
		}
		if _, err := last.GetThread(ctx, "ana:gone"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Errorf("the erased thread: %v, want ErrThreadNotFound", err)
		}
		again, err := importer.Import(ctx, mid, path, importer.Options{Strict: true})
		if err != nil || again.Messages != 0 || again.Duplicates != 7 || again.WorkingMemory != 0 || again.WorkingMemorySame != 4 || again.Resources != exported.Resources {
			t.Errorf("import again: %+v, %v; want 0 stored, 7 already stored, 4 states as given, %d resources", again, err, exported.Resources)
		}
	})
}

// sameLines reports whether the exports a and b hold the same lines,
// byte for byte, in any order of threads: an import creates threads in
// the file's order, but those it creates within one millisecond are
// listed by id (ListThreads), and so exported again. Each thread's lines
// stay together and in seq order (threadMessages compares them).
func sameLines(a, b []byte) bool {
	la, lb := bytes.SplitAfter(a, []byte("\n")), bytes.SplitAfter(b, []byte("\n"))
	slices.SortFunc(la, bytes.Compare)
	slices.SortFunc(lb, bytes.Compare)
	return slices.EqualFunc(la, lb, bytes.Equal)
}

// threadMessages is thread's messages with their seqs renumbered from 1
// (an import closes erased seqs' gaps) and the full text of a result
// stored by reference.
func threadMessages(t *testing.T, e *engine.Engine, thread string) []engine.Message {
	t.Helper()
	ctx := context.Background()
	ms, err := e.Messages(ctx, thread, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ms {
		ms[i].Seq = int64(i + 1)
		if ms[i].Truncated {
			if ms[i].Content, err = e.FullContent(ctx, ms[i].ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ms
}

func threadOf(t *testing.T, e *engine.Engine, id string) *engine.Thread {
	t.Helper()
	th, err := e.GetThread(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// TestExportChoose: --resource and --thread choose what is written (a
// resource with a state and no thread: that state, counted as a
// resource); a thread of another resource than the one named is refused.
func TestExportChoose(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	exportCorpus(t, e)
	if got := exportTo(t, e, importer.ExportOptions{Resource: "bob"}); string(got) != `{"thread":"bob:x","resource":"bob","idle_ttl":"never","id":"b1","role":"user","content":"hi bob","created_at":"2026-03-02T09:00:00.123Z"}`+"\n" {
		t.Errorf("--resource bob: %s", got)
	}
	var buf bytes.Buffer
	rep, err := importer.Export(ctx, e, &buf, importer.ExportOptions{Resource: "cleo"})
	if err != nil || rep.Resources != 1 || rep.Threads != 0 || rep.WorkingMemory != 1 || buf.String() != `{"type":"working_memory","resource":"cleo","mode":"schema","content":"{\"name\":\"Cleo\"}"}`+"\n" {
		t.Errorf("--resource cleo (a state, no thread): %+v, %v\n%s", rep, err, buf.String())
	}
	buf.Reset()
	if rep, err := importer.Export(ctx, e, &buf, importer.ExportOptions{}); err != nil || rep.Resources != 4 || rep.WorkingMemory != 4 {
		t.Errorf("full export: %+v, %v; want 4 resources (ana, bob, cleo, dan), 4 states", rep, err)
	}
	buf.Reset()
	rep, err = importer.Export(ctx, e, &buf, importer.ExportOptions{Thread: "ana:trip"})
	if err != nil || rep.Threads != 1 || rep.Messages != 5 || rep.Resources != 1 || rep.WorkingMemory != 1 || !strings.HasPrefix(buf.String(), `{"thread":"ana:trip","resource":"ana","title":"Trip to Porto",`) {
		t.Errorf("--thread ana:trip: %+v, %v\n%s", rep, err, buf.String())
	}
	if _, err := importer.Export(ctx, e, &buf, importer.ExportOptions{Thread: "ana:trip", Resource: "bob"}); !errors.Is(err, engine.ErrResourceMismatch) {
		t.Errorf("--thread of another resource: %v, want ErrResourceMismatch", err)
	}
	if _, err := importer.Export(ctx, e, &buf, importer.ExportOptions{Thread: "ana:gone"}); !errors.Is(err, engine.ErrThreadNotFound) {
		t.Errorf("--thread erased: %v, want ErrThreadNotFound", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := importer.Export(cancelled, e, &buf, importer.ExportOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// TestJSONLWorkingMemory: a "working_memory" line sets its thread's (or
// resource's) state as mnemo wm set does, after the messages before it
// are stored; a line the working memory cannot store whole is skipped
// naming why: no resource, a mode or content of the wrong kind, a thread
// not stored, another resource's thread, a schema-mode content that is no
// object, a resource id no new
// resource can have (what it breaks said as the server says it: "got
// …"), a misspelt member.
func TestJSONLWorkingMemory(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	lines := []struct{ line, reason string }{
		{`{"thread":"t","resource":"r","role":"user","content":"hi"}`, ""},
		{`{"type":"working_memory","thread":"t","resource":"r","mode":"template","content":"# plan"}`, ""},
		{`{"type":"working_memory","resource":"r","mode":"schema","content":"{\"a\":1}"}`, ""},
		// The other mode than the stored state's replaces it (walk39 #2;
		// it was skipped, "stored state has another mode"), and back.
		{`{"type":"working_memory","resource":"r","mode":"template","content":"# prefs"}`, ""},
		{`{"type":"working_memory","resource":"r","mode":"schema","content":"{\"a\":1}"}`, ""},
		{`{"type":"working_memory","thread":"t","mode":"template","content":"x"}`, `"resource" is required in a "working_memory" line`},
		{`{"type":"working_memory","resource":"r","mode":"markdown","content":"x"}`, `"mode" must be "schema" or "template", got "markdown"`},
		{`{"type":"working_memory","resource":"r","mode":"schema","content":{"a":1}}`, `"content" of a "working_memory" line must be a string, got an object`},
		{`{"type":"working_memory","thread":"nope","resource":"r","mode":"template","content":"x"}`, `thread not found`},
		{`{"type":"working_memory","thread":"t","resource":"other","mode":"template","content":"x"}`, `belongs to another resource`},
		{`{"type":"working_memory","resource":"r","mode":"schema","content":"[1]"}`, `must be a JSON object`},
		{`{"type":"working_memory","resource":"erased-x","mode":"template","content":"x"}`, `not beginning with "erased-" (reserved for erased owners); got "erased-x", which begins with the reserved prefix "erased-"`},
		{`{"type":"working_memory","resource":"r","Mode":"schema","content":"{}"}`, `unknown field "Mode" (did you mean "mode"? names are case-sensitive)`},
		{`{"type":"working_memory","resource":"r","mode":"schema","content":"{}","role":"user"}`, `unknown field "role" (a "working_memory" item has type, thread, resource, mode and content)`},
		{`{"type":"working_memori","resource":"r","mode":"schema","content":"{}"}`, `unknown item type "working_memori" (did you mean "working_memory"?)`},
	}
	var body strings.Builder
	var want []string
	for i, l := range lines {
		body.WriteString(l.line + "\n")
		if l.reason != "" {
			want = append(want, fmt.Sprintf("line %d: %s", i+1, l.reason))
		}
	}
	rep, err := importer.Import(ctx, e, writeFile(t, "wm.jsonl", body.String()), importer.Options{})
	if err != nil || rep.Messages != 1 || rep.WorkingMemory != 4 || rep.Skipped != len(want) {
		t.Fatalf("report %+v, %v; want 1 message, 4 states, %d skipped", rep, err, len(want))
	}
	for i, p := range rep.Problems {
		if got := p.Where + ": " + p.Reason(); !strings.HasPrefix(got, want[i][:strings.Index(want[i], ": ")+2]) || !strings.Contains(got, want[i][strings.Index(want[i], ": ")+2:]) {
			t.Errorf("problem %d: %q, want %q", i, got, want[i])
		}
	}
	if got := stateOf(t, e, working.ThreadKey("t")); got != "template: # plan" {
		t.Errorf("thread state %q", got)
	}
	if got := stateOf(t, e, working.ResourceKey("r")); got != `schema: {"a":1}` {
		t.Errorf("resource state %q", got)
	}
}

// TestJSONLWorkingMemoryOnly: a file whose stored lines are all
// working-memory states (a resource's, which needs no thread) imports:
// its refused line is skipped, not the whole file ErrNothingImported, as
// when every line is refused. Before, a state set beside a skipped line
// was reported as "nothing imported" (exit 1). The state's resource is
// counted, as export counts it (it was "0 resources", walk39 #8).
func TestJSONLWorkingMemoryOnly(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	body := `{"type":"working_memory","resource":"r","mode":"template","content":"# prefs"}` + "\n" +
		`{"type":"working_memory","resource":"r","mode":"markdown","content":"x"}` + "\n"
	rep, err := importer.Import(ctx, e, writeFile(t, "wm.jsonl", body), importer.Options{})
	if err != nil || rep.WorkingMemory != 1 || rep.Skipped != 1 || rep.Resources != 1 {
		t.Fatalf("report %+v, %v; want 1 state set, 1 skipped, 1 resource, no error", rep, err)
	}
	rep, err = importer.Import(ctx, e, writeFile(t, "wm.jsonl", body), importer.Options{})
	if err != nil || rep.WorkingMemorySame != 1 || rep.Resources != 1 {
		t.Fatalf("again: %+v, %v; want 1 state as given, 1 resource, no error", rep, err)
	}
	if got := stateOf(t, e, working.ResourceKey("r")); got != "template: # prefs" {
		t.Errorf("state %q", got)
	}
	_, err = importer.Import(ctx, e, writeFile(t, "bad.jsonl", `{"type":"working_memory","resource":"r","mode":"x","content":"x"}`+"\n"), importer.Options{})
	if !errors.Is(err, importer.ErrNothingImported) {
		t.Errorf("every line refused: %v, want ErrNothingImported", err)
	}
}

// TestJSONLIdleTTL: "idle_ttl" on a line sets its thread's own idle
// lifetime once the line's batch is stored ("never": never expires), on
// a thread stored before too; one that is no positive duration skips its
// line, naming what it got.
func TestJSONLIdleTTL(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	lines := []struct{ line, reason string }{
		{`{"thread":"t","resource":"r","idle_ttl":"30m","role":"user","content":"hi"}`, ""},
		{`{"thread":"u","resource":"r","idle_ttl":"never","role":"user","content":"hi"}`, ""},
		{`{"thread":"v","resource":"r","idle_ttl":"0s","role":"user","content":"hi"}`, `"idle_ttl" must be "never" or a positive duration such as "72h" or "30m", got "0s"`},
		{`{"thread":"v","resource":"r","idle_ttl":5,"role":"user","content":"hi"}`, `"idle_ttl" must be a string, got a number`},
		{`{"thread":"v","resource":"r","idle_ttl":"2562047h47m16.854775807s","role":"user","content":"hi"}`, `"idle_ttl" must be at most "876000h0m0s"`},
	}
	var body strings.Builder
	for _, l := range lines {
		body.WriteString(l.line + "\n")
	}
	rep, err := importer.Import(ctx, e, writeFile(t, "ttl.jsonl", body.String()), importer.Options{})
	if err != nil || rep.Messages != 2 || rep.Skipped != 3 {
		t.Fatalf("report %+v, %v; want 2 messages, 3 skipped", rep, err)
	}
	for i, p := range rep.Problems {
		if want := lines[i+2].reason; !strings.Contains(p.Reason(), want) {
			t.Errorf("problem %d: %q, want %q", i, p.Reason(), want)
		}
	}
	if a, b := threadOf(t, e, "t").IdleTTL, threadOf(t, e, "u").IdleTTL; a != 30*time.Minute || b >= 0 {
		t.Errorf("idle lifetimes: t %v, u %v; want 30m0s and negative", a, b)
	}
	again := `{"thread":"t","resource":"r","idle_ttl":"2h","role":"user","content":"later"}` + "\n"
	if _, err := importer.Import(ctx, e, writeFile(t, "again.jsonl", again), importer.Options{Strict: true}); err != nil {
		t.Fatal(err)
	}
	if got := threadOf(t, e, "t").IdleTTL; got != 2*time.Hour {
		t.Errorf("a stored thread's lifetime: %v, want 2h0m0s", got)
	}
}
