package inspector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	prompt "github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// Item is one entry of a run's timeline, in prompt order.
type Item struct {
	// Kind is "observation", "working-memory", "hit", "range", "repair",
	// "recent", "unsettled" (the synthetic result of a dispatched call
	// whose outcome was unknown, right after the call's message; Reason is
	// the call's id) or, in RunView.Dropped, "dropped".
	Kind string
	// ThreadID is a turn's or an observation's thread; "" for working
	// memory.
	ThreadID string
	// Seq is a turn's position in its thread; 0 for a system part.
	Seq int64
	// Role is a turn's role (user, assistant, tool); "" for a system part.
	Role string
	// Text is a turn's preview (journal.PreviewChars runes at most) with
	// marker-shaped text quoted as the prompt quotes it (promptPreview:
	// "[quoted: recalled …"), or an observation's id.
	Text string
	// Reason is a recalled or dropped turn's reason as recorded, or an
	// observation's level ("observation", "reflection").
	Reason string
	// Score, Lexical and Vector are a hit's scores (fused, lexical,
	// vector); nil for a channel that gave none.
	Score, Lexical, Vector *float64
	// ScoreBar, LexicalBar and VectorBar are their bars, drawn on the
	// run's scale of the channel (Bar).
	ScoreBar, LexicalBar, VectorBar Bar
	// Size says how big a system part is ("412 chars", "~96 tokens"); the
	// working memory's starts with the version the run rendered ("v2 · 412
	// chars", v0 the initial content) when its record names it.
	Size string
	// FromSeq and ToSeq are an observation's source range.
	FromSeq, ToSeq int64
	// Note is the working memory's workingMemoryNote as recorded: how
	// the run showed the state apart from the rule ("written in schema
	// mode, shown in a template-mode working memory", a cut); "" when
	// it was shown as it is, and for every other kind.
	Note string
}

// RunView is everything the run page shows.
type RunView struct {
	// Rec is the run's memctx record.
	Rec *journal.MemCtx
	// Timeline is the prompt's parts in prompt order: observations,
	// working memory, recalled turns, the recent window.
	Timeline []Item
	// Dropped are the turns the record lists as left out, Kind "dropped".
	Dropped []Item
	// Unlisted is how many dropped turns the record counts but does not
	// list (the oldest left out as unobserved).
	Unlisted int
	// ScoreNote says what the recalled turns' fused score is, by the
	// fusion the record names, what the lexical and vector scores are, and
	// how the bars are drawn; "" when none has a score.
	ScoreNote string
	// Replay is the run replayed with the page's without parameters;
	// BuildRun always sets it.
	Replay *ReplayView
	// Links says whether thread links work (false in a --html file).
	Links bool
}

// ReplayView is a replay as a diff against the recorded run.
type ReplayView struct {
	// Without names what the counterfactual leaves out: "recalled",
	// "observations", "working-memory" (engine.ReplayOptions.LeaveOut's
	// names); empty replays the run unchanged.
	Without []string
	// RecordedHash is the record's promptHash, OriginalHash the rebuilt
	// one (equal when the replay reproduces the run), CounterHash the
	// counterfactual's.
	RecordedHash, OriginalHash, CounterHash string
	// HashOK says OriginalHash equals RecordedHash.
	HashOK bool
	// System is the line diff of the original system part to the
	// counterfactual's.
	System []DiffLine
	// Messages are the original prompt's messages, those the
	// counterfactual leaves out marked Removed.
	Messages []DiffMessage
	// Diverged lists what the store no longer holds (the replay could not
	// be rebuilt); the other fields are then empty.
	Diverged []string
	// TooLarge says why the run was not replayed when its turns pass
	// limits.maxAnswerBytes (engine.ReplayTooLargeError): "its turns pass
	// 16777216 bytes …"; the other fields are then empty.
	TooLarge string
}

// DiffMessage is a message of the original prompt, marked when the
// counterfactual leaves it out: its role, name (a tool's), content and
// tool calls as the prompt holds them.
type DiffMessage struct {
	// Role, Name, Text and Reason are the message's role, name (a
	// tool's; "" for none), content, and recall reason ("hit", "range",
	// "repair"; "" for the recent window).
	Role, Name, Text, Reason string
	// ToolCalls are an assistant message's tool calls.
	ToolCalls []engine.ToolCall
	// ThreadID is the thread the message is stored in.
	ThreadID string
	// Seq is its position in that thread.
	Seq int64
	// Removed says the counterfactual leaves it out.
	Removed bool
}

// replayOptions maps the page's "without" parameters to ReplayOptions
// and returns the parts' documented names (engine.ReplayOptions.LeaveOut:
// "working-memory", `mnemo replay --without`'s spelling, or
// "workingMemory"). Errors: a *engine.ValidationError naming "without"
// for another value (?without=foo replayed the run as recorded) and for a
// part given twice, in either spelling (as the API refuses a repeated
// parameter; it was read as given once).
func replayOptions(without []string) (engine.ReplayOptions, []string, error) {
	var o engine.ReplayOptions
	var names []string
	for _, w := range without {
		name, ok := o.LeaveOut(w)
		if !ok {
			return o, nil, &engine.ValidationError{Index: -1, Field: "without", Rule: fmt.Sprintf("must be %s, got %q", engine.ReplayPartNames, w)}
		}
		if slices.Contains(names, name) {
			return o, nil, &engine.ValidationError{Index: -1, Field: "without", Rule: fmt.Sprintf("%q given twice: give each part once", name)}
		}
		names = append(names, name)
	}
	return o, names, nil
}

// BuildRun loads a run of the principal and replays it without the parts
// named in without ("recalled", "observations", "working-memory", also
// spelled "workingMemory"; none: as recorded).
//
// Errors: a *engine.ValidationError naming "without" for another value
// or one given twice; the server's errors for the run (server.ErrNotFound).
func BuildRun(ctx context.Context, t server.Tenant, runID string, without []string) (*RunView, error) {
	opt, without, err := replayOptions(without)
	if err != nil {
		return nil, err
	}
	rec, err := t.Run(ctx, runID)
	if err != nil {
		return nil, err
	}
	v := &RunView{Rec: rec, Links: true}
	v.Timeline = timeline(rec)
	v.ScoreNote = scoreNote(rec)
	for _, r := range rec.Dropped {
		v.Dropped = append(v.Dropped, Item{Kind: "dropped", ThreadID: r.ThreadID, Seq: r.Seq, Role: r.Role, Text: promptPreview(r), Reason: r.Reason})
	}
	v.Unlisted = max(rec.DroppedCount-len(rec.Dropped), 0)
	rv := &ReplayView{Without: without, RecordedHash: rec.PromptHash}
	rp, err := t.Engine.Replay(ctx, runID, opt)
	var de *engine.DivergenceError
	var rt *engine.ReplayTooLargeError
	switch {
	case errors.As(err, &de):
		rv.Diverged = de.Differences
	case errors.As(err, &rt):
		// The record above is shown; only the replay is refused.
		rv.TooLarge = fmt.Sprintf("its turns pass %d bytes (limits.maxAnswerBytes); a larger limits.maxAnswerBytes replays it", rt.Limit)
	case err != nil:
		return nil, err
	default:
		rv.OriginalHash, rv.CounterHash = rp.Original.PromptHash, rp.Counterfactual.PromptHash
		rv.HashOK = rv.OriginalHash == rec.PromptHash
		rv.System = lineDiff(rp.Original.System, rp.Counterfactual.System)
		kept := map[string]bool{}
		for _, m := range rp.Counterfactual.Messages {
			kept[m.MessageID] = true
		}
		for _, m := range rp.Original.Messages {
			rv.Messages = append(rv.Messages, DiffMessage{Role: m.Role, Name: m.Name, Text: m.Content, ToolCalls: m.ToolCalls,
				Reason: m.Reason, ThreadID: m.ThreadID, Seq: m.Seq, Removed: !kept[m.MessageID]})
		}
	}
	v.Replay = rv
	return v, nil
}

// timeline lists a record's parts in prompt order: the system part
// (observations, working memory), the recalled turns, the recent window.
func timeline(rec *journal.MemCtx) []Item {
	var out []Item
	tok := rec.Tokens
	for _, o := range rec.Observations {
		out = append(out, Item{Kind: "observation", ThreadID: o.ThreadID, FromSeq: o.FromSeq, ToSeq: o.ToSeq, Text: o.ID, Reason: o.Level})
	}
	if len(rec.Observations) > 0 && tok != nil {
		out[len(out)-1].Size = sizeTokens(tok.Observations) + " for all observations"
	}
	if rec.WorkingMemoryChars > 0 || rec.WorkingMemoryVersion != nil {
		it := Item{Kind: "working-memory", Size: itoa(rec.WorkingMemoryChars) + " chars", Note: rec.WorkingMemoryNote}
		if v := rec.WorkingMemoryVersion; v != nil {
			// The version the run rendered (0: the initial content).
			it.Size = "v" + strconv.FormatInt(*v, 10) + " · " + it.Size
		}
		if tok != nil {
			it.Size += ", " + sizeTokens(tok.WorkingMemory)
		}
		out = append(out, it)
	}
	var s, l, v scale
	for _, r := range rec.Recalled {
		s.add(r.Score)
		l.add(r.Lexical)
		v.add(r.Vector)
	}
	unsettled := unsettledAfter(rec.Unsettled)
	for _, r := range rec.Recalled {
		out = append(out, Item{Kind: r.Reason, ThreadID: r.ThreadID, Seq: r.Seq, Role: r.Role, Text: promptPreview(r), Reason: r.Reason,
			Score: r.Score, Lexical: r.Lexical, Vector: r.Vector, ScoreBar: s.bar(r.Score), LexicalBar: l.bar(r.Lexical), VectorBar: v.bar(r.Vector)})
		out = unsettled.after(out, r.MessageID)
	}
	for _, r := range rec.Recent {
		out = append(out, Item{Kind: "recent", ThreadID: r.ThreadID, Seq: r.Seq, Role: r.Role, Text: promptPreview(r)})
		out = unsettled.after(out, r.MessageID)
	}
	return unsettled.rest(out)
}

// unsettledItems are a record's unsettled entries (journal.MemCtx.Unsettled,
// the synthetic results the prompt gave dispatched calls whose outcome was
// unknown) by the id of the assistant message making the call, in the
// record's order.
type unsettledItems struct {
	order []string
	by    map[string][]Item
}

// unsettledAfter groups refs by their message as Items of Kind
// "unsettled": the thread and seq of the call's message, Role "tool",
// Text the synthetic result's preview, Reason the call's id.
func unsettledAfter(refs []journal.Ref) *unsettledItems {
	u := &unsettledItems{by: map[string][]Item{}}
	for _, r := range refs {
		if _, ok := u.by[r.MessageID]; !ok {
			u.order = append(u.order, r.MessageID)
		}
		u.by[r.MessageID] = append(u.by[r.MessageID], Item{Kind: journal.ReasonUnsettled, ThreadID: r.ThreadID, Seq: r.Seq,
			Role: "tool", Text: promptPreview(r), Reason: r.ToolCallID})
	}
	return u
}

// after appends, once, the unsettled items of messageID: the prompt gives
// a call's synthetic result right after the message making the call.
func (u *unsettledItems) after(out []Item, messageID string) []Item {
	items, ok := u.by[messageID]
	if !ok {
		return out
	}
	delete(u.by, messageID)
	return append(out, items...)
}

// rest appends the unsettled items of messages the timeline did not list
// (a record that names no message id), in the record's order.
func (u *unsettledItems) rest(out []Item) []Item {
	for _, id := range u.order {
		out = u.after(out, id)
	}
	return out
}

// promptPreview is r's preview as the prompt gives a message's text:
// marker-shaped text quoted as render.Message quotes it ("[recalled ·
// thread …" reads "[quoted: recalled · thread …", as the model got it and
// as the page's Messages table gives it), the characters the prompt
// escapes left for the page to show as boxes ("[U+202E]", bidi.go); a
// dropped turn's as the prompt would have given it. The record keeps the
// preview as stored (replay compares it with the stored turn); shown so,
// the timeline under "The prompt" showed a marker the prompt had quoted
// (readme73 F3).
func promptPreview(r journal.Ref) string { return prompt.Quote(r.Preview) }

func sizeTokens(n int) string { return "~" + itoa(n) + " tokens" }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// ThreadView is everything the thread page shows.
type ThreadView struct {
	// Thread is the thread shown.
	Thread *engine.Thread
	// Messages is a page of the thread's messages: the latest
	// engine.DefaultPageLimit, or those before the page's beforeSeq.
	Messages []engine.Message
	// OlderBeforeSeq is the beforeSeq of the page of older messages; 0
	// when there are none.
	OlderBeforeSeq int64
	// Paged says the page is not the newest (beforeSeq was asked).
	Paged bool
	// Observations are all of the thread's observations and reflections,
	// retired and invalidated ones included.
	Observations []observe.Observation
	// Backoffs are the thread's observer and reflector calls backing off
	// in this process, and every call's when the endpoint refused the
	// key, quota or model (engine.Engine.ObserveBackoffs); nil when none.
	Backoffs []observe.Backoff
	// Skips are the thread's ranges the observer skipped, their content
	// refused by the model endpoint (engine.Engine.ObserveSkips).
	Skips []observe.Skip
	// Runs are the thread's runs with a memctx record, newest first, 50
	// at most.
	Runs []journal.RunInfo
	// Dispatches are the thread's dispatches (BeginDispatch), pending,
	// settled or answered, by run id then call id, maxThreadDispatches at
	// most; MoreDispatches says the thread has more.
	Dispatches []DispatchRow
	// MoreDispatches reports dispatches past Dispatches.
	MoreDispatches bool
	// calls are the dispatches of the calls Messages make, by message
	// and call id (CallDispatch), whatever their rank in Dispatches.
	calls map[callKey]*DispatchRow
	// WMKey is the working-memory key ("" when working memory is off);
	// Versions are its versions, newest first, each with its diff from the
	// one before.
	WMKey string
	// Versions are WMKey's versions, newest first (20 at most), each with
	// its diff from the one before; nil when working memory is off.
	Versions []WMVersion
	// WMOff says how to turn working memory on when it is off (the HTTP
	// API's working-memory-off detail); "" when it is on.
	WMOff string
	// WMBroken says why working memory is unavailable when the
	// configuration stored in the database does not build
	// (engine.ErrStoredWorkingMemory); "" otherwise.
	WMBroken string
}

// WMVersion is a working-memory version and its diff from the previous.
type WMVersion struct {
	working.Version
	// Diff is the line diff from the previous version's content (JSON
	// indented by field) to this one's; the oldest is diffed from "".
	Diff []DiffLine
}

// BuildThread loads a thread of the principal with a page of its messages
// (the latest engine.DefaultPageLimit with seq < beforeSeq; 0: the
// newest), its observations, runs, dispatches and working-memory versions. Errors:
// those of the tenant's reads (server.Tenant.Thread: a thread of another
// resource is not found), ctx's.
func BuildThread(ctx context.Context, t server.Tenant, threadID string, beforeSeq int64) (*ThreadView, error) {
	th, err := t.Thread(ctx, threadID)
	if err != nil {
		return nil, err
	}
	v := &ThreadView{Thread: th, Paged: beforeSeq != 0}
	if beforeSeq == 0 {
		beforeSeq = 1<<63 - 1
	}
	pg, err := t.Engine.MessagesPage(ctx, th.ID, engine.PageRequest{BeforeSeq: beforeSeq})
	if err != nil {
		return nil, err
	}
	v.Messages, v.OlderBeforeSeq = pg.Messages, pg.NextBeforeSeq
	v.Backoffs = t.Engine.ObserveBackoffs(th.ID)
	if v.Skips, err = t.Engine.ObserveSkips(ctx, th.ID); err != nil {
		return nil, err
	}
	if v.Observations, err = t.Engine.Observations(ctx, observe.Filter{ThreadID: th.ID, All: true}); err != nil {
		return nil, err
	}
	if v.Runs, err = t.Engine.Journal().ListRuns(ctx, journal.RunFilter{ThreadID: th.ID, Limit: 50}); err != nil {
		return nil, err
	}
	if err = v.threadDispatches(ctx, t); err != nil {
		return nil, err
	}
	mem, err := t.Engine.WorkingMemory()
	if errors.Is(err, engine.ErrNoWorkingMemory) {
		v.WMOff = server.WorkingMemoryOffDetail
		return v, nil
	}
	if errors.Is(err, engine.ErrStoredWorkingMemory) { // the rest of the page stays readable
		v.WMBroken = strings.TrimPrefix(err.Error(), "engine: ")
		return v, nil
	}
	if err != nil {
		return nil, err
	}
	if v.WMKey, err = mem.Key(th.ID, th.ResourceID); err != nil {
		return nil, err
	}
	hist, err := mem.History(ctx, v.WMKey, 20)
	if err != nil {
		return nil, err
	}
	for i, h := range hist {
		prev := ""
		if i+1 < len(hist) {
			prev = pretty(hist[i+1].Content)
		}
		v.Versions = append(v.Versions, WMVersion{Version: h, Diff: lineDiff(prev, pretty(h.Content))})
	}
	return v, nil
}

// pretty indents a JSON object state so that its diff is by field.
func pretty(s string) string {
	var b bytes.Buffer
	if strings.HasPrefix(s, "{") && json.Indent(&b, []byte(s), "", "  ") == nil {
		return b.String()
	}
	return s
}

// IndexView lists a page of the principal's threads by resource.
type IndexView struct {
	// Resources are the page's threads grouped by resource.
	Resources []ResourceThreads
	// NextCursor, when not "", is the cursor of the next page.
	NextCursor string
	// Paged says the page is not the first (a cursor or offset was asked).
	Paged bool
	// Limit is the page's limit when one was asked, kept in the links; 0:
	// engine.DefaultPageLimit.
	Limit int
}

// ResourceThreads is one resource's threads.
type ResourceThreads struct {
	// ResourceID is the resource.
	ResourceID string
	// Threads are its threads on the page.
	Threads []engine.Thread
}

// BuildIndex lists a page of the threads the principal may see, by
// resource, in engine.ListThreads' order: at most limit (1 to
// engine.MaxPageLimit; 0: engine.DefaultPageLimit) after the cursor (an
// IndexView.NextCursor; "" for the first page), as engine.ThreadsPage.
// An offset (> 0; the links of earlier versions) skips that many threads
// instead, as the deprecated engine.ListThreadsPage; the page's next link
// is a cursor all the same. Given both, the cursor is used: the index
// handler refuses both, and an empty ?cursor=, before it calls BuildIndex
// (server.PageCursor, as GET /v1/threads).
//
// Errors: a *engine.ValidationError naming "limit", "cursor" (not a
// NextCursor, or another tenant's place) or "offset" for a value out of
// range.
func BuildIndex(ctx context.Context, t server.Tenant, limit int, cursor string, offset int) (*IndexView, error) {
	var names []string // none: every resource's
	if !t.Principal.All {
		for r := range t.Principal.Resources {
			names = append(names, r)
		}
		sort.Strings(names)
	}
	v := &IndexView{Paged: cursor != "" || offset != 0, Limit: limit}
	if !t.Principal.All && len(names) == 0 {
		return v, nil
	}
	var ts []engine.Thread
	if offset != 0 && cursor == "" {
		page, more, err := t.Engine.ListThreadsPage(ctx, names, limit, offset)
		if err != nil {
			return nil, err
		}
		if ts = page; more {
			v.NextCursor = engine.ThreadCursor(ts[len(ts)-1])
		}
	} else {
		pg, err := t.Engine.ThreadsPage(ctx, engine.ThreadsRequest{Resources: names, Limit: limit, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		ts, v.NextCursor = pg.Threads, pg.NextCursor
	}
	for _, th := range ts {
		if n := len(v.Resources); n == 0 || v.Resources[n-1].ResourceID != th.ResourceID {
			v.Resources = append(v.Resources, ResourceThreads{ResourceID: th.ResourceID})
		}
		r := &v.Resources[len(v.Resources)-1]
		r.Threads = append(r.Threads, th)
	}
	return v, nil
}
