package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// FuzzIsolation drives random sequences of Append, LoadContext (recent
// window, recall, token budget), HandleToolCall (updateWorkingMemory,
// recallObservations), Search (SearchMessages, SearchPreviews), Observe and DeleteMessages / DeleteThread /
// DeleteResource over two resources, including one resource naming the
// other's threads, message ids and run ids, and checks after every step:
//
//   - isolation: no context (messages, system part, memctx), search hit,
//     tool result or error of one resource holds the other's text or ids
//     (each resource's text carries a marker word; its ids carry its tag),
//     beyond what the caller itself passed in;
//   - pairing: every context satisfies INV-PAIR, INV-UNIQ and INV-MEMCTX
//     (checkInvariants): an OpenAI-style API accepts it, no message twice,
//     memctx recent/recalled/dropped consistent with the messages.
//
// Two engines take turns (chosen by the first byte): working memory and
// observations scoped per thread, and per resource. The observer model is
// in-process and repeats what it is given, so observations carry the
// resource's markers. Every input runs on each backend of the conformance
// suite available here (enginetest.Available: SQLite, and Postgres when
// $MNEMO_TEST_POSTGRES is set). Seeds: testdata/fuzz/FuzzIsolation. The
// normal test run replays them; to fuzz:
//
//	go test ./engine -run '^$' -fuzz FuzzIsolation -fuzztime 10m
//
// The fuzzing coordinator discards its workers' output; with
// $MNEMO_FUZZ_CRASH_FILE set, a worker that dies of an unrecovered panic in
// any goroutine writes the crash report to that file (one per process id).
func FuzzIsolation(f *testing.F) {
	if path := os.Getenv("MNEMO_FUZZ_CRASH_FILE"); path != "" {
		out, err := os.Create(fmt.Sprintf("%s.%d", path, os.Getpid()))
		if err != nil {
			f.Fatal(err)
		}
		if err := debug.SetCrashOutput(out, debug.CrashOptions{}); err != nil {
			f.Fatal(err)
		}
		out.Close()
	}
	f.Add([]byte{0, 0, 0, 0, 1, 2, 0, 0, 8, 1, 0, 4, 9, 1, 0, 3, 2, 1, 1, 0, 6, 0, 1, 5, 1, 0})
	f.Add([]byte{1, 0, 1, 2, 0, 0, 1, 3, 9, 1, 4, 2, 1, 1, 2, 1, 5, 0, 4, 1, 0, 1, 3, 1, 7})
	// Two engines per available backend (the conformance suite's rows);
	// every input runs on each backend's pair.
	type pair struct {
		backend string
		engines [2]*engine.Engine
	}
	var pairs []pair
	for _, be := range enginetest.Available() {
		pairs = append(pairs, pair{be.Name, [2]*engine.Engine{
			be.MustOpen(f, fuzzConfig(working.ScopeThread, engine.ObserveScopeThread)),
			be.MustOpen(f, fuzzConfig(working.ScopeResource, engine.ObserveScopeResource)),
		}})
	}
	iter := 0
	f.Fuzz(func(t *testing.T, prog []byte) {
		iter++
		for _, pr := range pairs {
			t.Logf("backend %s", pr.backend)
			p := &isoProg{t: t, ctx: context.Background(), prog: prog, iter: iter}
			p.e = pr.engines[int(p.next())%2]
			for step := 0; step < maxSteps && p.pos < len(p.prog); step++ {
				p.step()
			}
		}
	})
}

// maxSteps bounds the operations of one input, and eraseTimeout the wait of
// one erasure for its index purge (which may take up to
// recall.PurgeTimeout): a fuzzing worker gives up on an input that runs for
// ten seconds ("deadlocked!", which its coordinator reports as a crash
// without the message).
const (
	maxSteps     = 12
	eraseTimeout = 2 * time.Second
)

func fuzzConfig(wm working.Scope, obs string) engine.Config {
	return engine.Config{
		WorkingMemory: &working.Config{Schema: json.RawMessage(wmSchema), Scope: wm},
		Observe: &engine.ObserveConfig{Model: echoModel{}, Threshold: 60, ReflectThreshold: 400,
			SyncOnLoad: true, Scope: obs, SearchTool: true},
	}
}

// echoModel is an observer and reflector that repeats what it is given: one
// item per turn ("<role> said: <content>") and one per observation.
type echoModel struct{}

func (echoModel) ID() string { return "echo" }

func (echoModel) Complete(_ context.Context, p observe.Prompt) (string, error) {
	lines := strings.Split(p.User, "\n")
	if len(lines) < 2 {
		return "", nil
	}
	var items []map[string]any
	field := "observations"
	for _, l := range lines[1 : len(lines)-1] {
		var v struct {
			Seq     int64  `json:"seq"`
			Role    string `json:"role"`
			Content string `json:"content"`
			ID      string `json:"id"`
			Text    string `json:"text"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			return "", err
		}
		if v.ID != "" {
			field = "reflection"
			items = append(items, map[string]any{"text": "condensed: " + v.Text, "sources": []string{v.ID}})
		} else if v.Content != "" {
			items = append(items, map[string]any{"text": v.Role + " said: " + v.Content, "seqs": []int64{v.Seq}})
		}
	}
	b, err := json.Marshal(map[string]any{field: items})
	return string(b), err
}

// isoProg interprets one fuzz input.
type isoProg struct {
	t    *testing.T
	ctx  context.Context
	e    *engine.Engine
	prog []byte
	pos  int
	iter int
	n    int // messages appended, for ids
	ids  [2][]string
	// taken are names of the other resource's tag that a resource took as
	// its own (a thread or message id that was free): they are its own now.
	taken [2][]string
}

func (p *isoProg) next() byte {
	if p.pos >= len(p.prog) {
		return 0
	}
	p.pos++
	return p.prog[p.pos-1]
}

// Names of this input's two resources: a tag per resource that every id and
// text of the resource carries.
func (p *isoProg) tag(r int) string            { return fmt.Sprintf("%dx%d", p.iter, r) }
func (p *isoProg) resource(r int) string       { return "u" + p.tag(r) }
func (p *isoProg) marker(r int) string         { return "qq" + p.tag(r) + "qq" }
func (p *isoProg) thread(r, i int) string      { return fmt.Sprintf("u%s-t%d", p.tag(r), i) }
func (p *isoProg) run(i int) string            { return fmt.Sprintf("turn-%d-%d", p.iter, i) } // shared by both resources
func (p *isoProg) text(r int, w string) string { return fmt.Sprintf("%s %s %d", p.marker(r), w, p.n) }

var fuzzWords = []string{"harbour", "lantern", "meadow", "copper", "violet", "glacier"}

// resourceTagRE finds resource tags in any output: markers and ids.
var resourceTagRE = regexp.MustCompile(`(?:qq|u)(\d+x\d)`)

// noLeak fails when out, produced for resource r, names another resource's
// tag; the strings in given (the caller's own input) are ignored.
func (p *isoProg) noLeak(what string, r int, out string, given ...string) {
	p.t.Helper()
	for _, g := range append(given, p.taken[r]...) {
		if g != "" {
			out = strings.ReplaceAll(out, g, "")
		}
	}
	for _, m := range resourceTagRE.FindAllStringSubmatch(out, -1) {
		if m[1] != p.tag(r) {
			p.t.Fatalf("%s for resource %s shows %q of another resource: %s", what, p.resource(r), m[0], out)
		}
	}
}

func (p *isoProg) step() {
	op, r := p.next()%9, int(p.next()%2)
	other := 1 - r
	th := p.thread(r, int(p.next()%2))
	switch op {
	case 0, 1:
		p.appendOp(r, th)
	case 2:
		p.loadOp(r, th)
	case 3:
		p.toolOp(r, th)
	case 4:
		p.searchOp(r, th)
	case 5:
		p.attackOp(r, other)
	case 6:
		if ids := p.ids[r]; len(ids) > 0 {
			id := ids[int(p.next())%len(ids)]
			ctx, cancel := context.WithTimeout(p.ctx, eraseTimeout)
			res, err := p.e.DeleteMessages(ctx, id)
			cancel()
			p.checkErr("DeleteMessages", r, err, id)
			if res != nil {
				b, _ := json.Marshal(res)
				p.noLeak("DeleteMessages", r, string(b), id)
			}
		}
	case 7:
		ctx, cancel := context.WithTimeout(p.ctx, eraseTimeout)
		_, err := p.e.DeleteThread(ctx, th)
		cancel()
		if !errors.Is(err, engine.ErrThreadNotFound) {
			p.checkErr("DeleteThread", r, err, th)
		}
	case 8:
		if p.next()%4 == 0 { // rarer: it empties the resource
			ctx, cancel := context.WithTimeout(p.ctx, eraseTimeout)
			_, err := p.e.DeleteResource(ctx, p.resource(r))
			cancel()
			p.checkErr("DeleteResource", r, err)
		} else {
			_, err := p.e.Observe(p.ctx, th, observe.Options{Force: true})
			if !errors.Is(err, engine.ErrThreadNotFound) {
				p.checkErr("Observe", r, err, th)
			}
		}
	}
}

// checkErr fails on an unexpected error, and on any error naming the other
// resource. Refusals are expected: thread and run ids are global, so the
// other resource may hold one of r's names first.
func (p *isoProg) checkErr(what string, r int, err error, given ...string) (ok bool) {
	p.t.Helper()
	if err == nil {
		return true
	}
	p.noLeak(what+" error", r, err.Error(), given...)
	switch {
	case errors.Is(err, engine.ErrEraseIncomplete), errors.Is(err, context.DeadlineExceeded):
		return true // committed with the purge deferred, or stopped by eraseTimeout
	case errors.Is(err, engine.ErrResourceMismatch), errors.Is(err, engine.ErrThreadNotFound), errors.Is(err, journal.ErrRunOwned):
		return false // a thread id the other resource took first, or a run id it owns
	case what == "Append" && errors.Is(err, engine.ErrCallOpen):
		return false // a reused call id made again while its earlier call is unanswered
	}
	p.t.Fatalf("%s: %v", what, err)
	return false
}

// appendOp appends a batch of tool-call traffic: user and assistant text,
// calls with reused ids and their results, late, missing or repeated.
func (p *isoProg) appendOp(r int, th string) {
	var ms []engine.Message
	for k := int(p.next()%4) + 1; k > 0; k-- {
		p.n++
		w := fuzzWords[int(p.next())%len(fuzzWords)]
		id := fmt.Sprintf("%s-m%d", p.resource(r), p.n)
		call := fmt.Sprintf("call_%d", p.next()%3)
		var m engine.Message
		switch p.next() % 5 {
		case 0, 1:
			m = engine.Message{Role: engine.RoleUser, Content: p.text(r, w)}
		case 2:
			m = engine.Message{Role: engine.RoleAssistant, Content: p.text(r, w)}
		case 3:
			m = engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
				{ID: call, Name: "lookup", Arguments: json.RawMessage(fmt.Sprintf(`{"q":%q}`, p.text(r, w)))}}}
		default:
			m = engine.Message{Role: engine.RoleTool, ToolCallID: call, Name: "lookup", Content: p.text(r, w)}
		}
		m.ID = id
		ms = append(ms, m)
		p.ids[r] = append(p.ids[r], id)
	}
	_, err := p.e.Append(p.ctx, engine.AppendRequest{ThreadID: th, ResourceID: p.resource(r), Messages: ms})
	p.checkErr("Append", r, err, th)
}

func (p *isoProg) loadOp(r int, th string) {
	req := engine.LoadRequest{RunID: p.run(int(p.next() % 4)), ThreadID: th, ResourceID: p.resource(r),
		RecentN: 1 + int(p.next()%8), ReplaceRun: true}
	if b := p.next(); b%3 > 0 {
		req.Recall = &recall.Options{TopK: 1 + int(b%5), MessageRange: recall.Range{Before: int(b/8) % 3, After: int(b/32) % 3},
			Scope: []recall.Scope{recall.ScopeThread, recall.ScopeResource}[b%2]}
		// The query names the other resource's marker now and then: an
		// attacker asking for it gets nothing of it.
		req.Query = fuzzWords[int(b)%len(fuzzWords)] + " " + p.marker(int(b/2)%2)
	}
	if b := p.next(); b%4 == 0 {
		req.TokenBudget = 20 + int(b)
	}
	c, err := p.e.LoadContext(p.ctx, req)
	if errors.Is(err, journal.ErrRunOwned) {
		p.noLeak("LoadContext error", r, err.Error(), req.RunID, th, req.Query)
		return
	}
	if !p.checkErr("LoadContext", r, err, req.RunID, th, req.Query) {
		return
	}
	b, _ := json.Marshal(c)
	p.noLeak("LoadContext", r, string(b)+c.System, req.Query)
	checkInvariants(p.t, p.e, c, req.RecentN)
}

func (p *isoProg) toolOp(r int, th string) {
	run := p.run(int(p.next() % 4))
	call := openaitest.ToolCall(fmt.Sprintf("call_%d", p.next()%3), tools.UpdateWorkingMemoryName,
		fmt.Sprintf(`{"city":%q}`, p.text(r, "city")))
	query := ""
	if p.next()%2 == 0 {
		query = fuzzWords[p.n%len(fuzzWords)] + " said " + p.marker(p.n%2)
		call = openaitest.ToolCall(call.ID, tools.RecallObservationsName, fmt.Sprintf(`{"query":%q}`, query))
	}
	msg, err := p.e.HandleToolCall(p.ctx, run, th, p.resource(r), call)
	if errors.Is(err, engine.ErrThreadNotFound) || errors.Is(err, journal.ErrRunOwned) {
		p.noLeak("HandleToolCall error", r, err.Error(), run, th)
		return
	}
	if !p.checkErr("HandleToolCall", r, err, run, th) {
		return
	}
	p.noLeak("HandleToolCall result", r, msg.Content, call.Function.Arguments, query)
}

func (p *isoProg) searchOp(r int, th string) {
	b := p.next()
	req := engine.SearchRequest{ResourceID: p.resource(r), ThreadID: th, Query: fuzzWords[int(b)%len(fuzzWords)] + " " + p.marker(int(b/2)%2),
		Options: recall.Options{TopK: 5, Scope: []recall.Scope{recall.ScopeThread, recall.ScopeResource}[b%2], MessageRange: recall.Range{Before: 1, After: 1}}}
	res, err := p.e.SearchMessages(p.ctx, req)
	if err != nil {
		if errors.Is(err, recall.ErrInvalidQuery) {
			p.noLeak("Search error", r, err.Error(), th, req.Query)
			return
		}
		p.checkErr("Search", r, err, th, req.Query)
		return
	}
	out, _ := json.Marshal(res)
	p.noLeak("Search", r, string(out), req.Query)
	// The previews `mnemo search` prints, read from message prefixes by id.
	pre, err := p.e.SearchPreviews(p.ctx, req)
	if !p.checkErr("SearchPreviews", r, err, th, req.Query) {
		return
	}
	out, _ = json.Marshal(pre)
	p.noLeak("SearchPreviews", r, string(out), req.Query)
}

// attackOp has resource r name what belongs to the other resource: its
// thread (append, load, tool call), one of its message ids (append), and
// a run id the other may own. Each is refused or stays r's own, and no
// answer shows anything of the other resource but what r passed in.
func (p *isoProg) attackOp(r, other int) {
	th := p.thread(other, int(p.next()%2))
	switch p.next() % 3 {
	case 0:
		_, err := p.e.Append(p.ctx, engine.AppendRequest{ThreadID: th, ResourceID: p.resource(r),
			Messages: []engine.Message{{Role: engine.RoleUser, Content: p.text(r, "intrude")}}})
		if err == nil {
			// Only a thread the other resource never created (or erased)
			// can be taken; it is then r's.
			if got, _ := p.e.GetThread(p.ctx, th); got == nil || got.ResourceID != p.resource(r) {
				p.t.Fatalf("append to %s as %s succeeded but the thread is %+v", th, p.resource(r), got)
			}
			p.taken[r] = append(p.taken[r], th)
			return
		}
		p.noLeak("cross Append error", r, err.Error(), th)
	case 1:
		if ids := p.ids[other]; len(ids) > 0 {
			id := ids[int(p.next())%len(ids)]
			_, err := p.e.Append(p.ctx, engine.AppendRequest{ThreadID: p.thread(r, 0), ResourceID: p.resource(r),
				Messages: []engine.Message{{ID: id, Role: engine.RoleUser, Content: p.text(r, "reuse")}}})
			if err != nil {
				p.noLeak("reused id Append error", r, err.Error(), id)
			} else {
				p.ids[r] = append(p.ids[r], id) // the id was free (erased): now r's
				p.taken[r] = append(p.taken[r], id)
			}
		}
	default:
		run := p.run(int(p.next() % 4))
		_, err := p.e.HandleToolCall(p.ctx, run, th, p.resource(r), openaitest.ToolCall("call_0", tools.UpdateWorkingMemoryName, `{"city":"x"}`))
		if err != nil {
			p.noLeak("cross HandleToolCall error", r, err.Error(), run, th)
		}
		c, err := p.e.LoadContext(p.ctx, engine.LoadRequest{RunID: run, ThreadID: th, ResourceID: p.resource(r), ReplaceRun: true})
		if err != nil {
			p.noLeak("cross LoadContext error", r, err.Error(), run, th)
			return
		}
		b, _ := json.Marshal(c)
		p.noLeak("cross LoadContext", r, string(b)+c.System, run, th)
	}
}
