package engine

import (
	"context"
	"encoding/json"
	"sort"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/recall"
)

// This file builds a run's memctx record (journal.MemCtx), the provenance
// LoadContext stores with every composed context: what went in (recent,
// recalled, observations, working memory), what was left out and why, the
// options that ran, the token estimate of each part and the prompt hash.

// record is LoadContext's last stage: the turns laid out for the prompt,
// the context composed, and its memctx record stored in the journal (old
// runs pruned per Config.Retention).
func (l *load) record(ctx context.Context) (*Context, error) {
	e := l.e
	l.turns = withUnsettled(layout(l.turns, l.req.ThreadID), e.unsettledText())
	loc := e.location(l.req.ResourceID)
	c := compose(l.turns, observe.Render(l.obs, loc), l.wm.text, l.wm.tools, loc)
	c.RunID = l.req.RunID
	rec := l.memctx(c.PromptHash, render.ZoneName(loc))
	if f := e.erasure.composed.Load(); f != nil {
		(*f)()
	}
	if err := e.journal.PutMemCtxChecked(ctx, rec, l.req.ReplaceRun, l.recheckErased); err != nil {
		return nil, err
	}
	if !e.cfg.Retention.IsZero() {
		if _, err := e.journal.Prune(ctx, l.req.ThreadID, e.cfg.Retention); err != nil {
			e.log.WarnContext(ctx, "prune runs", "thread", l.req.ThreadID, "err", err)
		}
	}
	c.MemCtx = rec
	return c, nil
}

// memctx builds the record of the composed load.
func (l *load) memctx(promptHash, zone string) *journal.MemCtx {
	req := l.req
	obsRefs := observe.Refs(l.obs)
	if obsRefs == nil {
		obsRefs = []journal.ObservationRef{}
	}
	recent, recalled := 0, 0
	for _, t := range l.turns {
		switch {
		case t.Reason == journal.ReasonUnsettled:
		case t.Recent:
			recent++
		default:
			recalled++
		}
	}
	rec := &journal.MemCtx{
		RunID:              req.RunID,
		ThreadID:           req.ThreadID,
		ResourceID:         req.ResourceID,
		Query:              l.e.redactor.Redact(req.Query), // an explicit query is caller text: redact before it is stored
		Options:            memctxOptions(l.e.redactor, l.recentN, l.opts, req.TokenBudget, l.e.RecallTuning()),
		Recalled:           make([]journal.Ref, 0, recalled),
		Recent:             make([]journal.Ref, 0, min(recent, journal.RecentCap)),
		Observations:       obsRefs,
		ObservationCount:   len(obsRefs),
		WorkingMemoryChars: l.wm.chars,
		Tokens:             partTokens(l.turns, l.obs, l.wm.text, l.wm.tools),
		Retrieval:          journalRetrieval(l.retrieval),
		PromptHash:         promptHash,
		Render:             RenderVersion,
		TimeZone:           zone,
		CreatedAt:          l.started.Format(journal.TimeLayout),
		QueryAt:            req.At.Format(journal.TimeLayout),
		ThreadSeq:          &l.threadSeq,
		Unsettled:          unsettledRefs(l.turns),
	}
	if l.wm.scope != "" {
		v := l.wm.version
		rec.WorkingMemoryScope, rec.WorkingMemoryVersion = string(l.wm.scope), &v
		rec.WorkingMemoryNote, rec.WorkingMemoryHash = l.wm.note, l.wm.hash
	}
	for _, t := range l.turns {
		if t.Reason == journal.ReasonUnsettled {
			continue // listed in rec.Unsettled: not a stored turn
		}
		if t.Recent {
			rec.RecentCount++
			if len(rec.Recent) < journal.RecentCap {
				rec.Recent = append(rec.Recent, ref(t, ""))
			}
		} else {
			rec.Recalled = append(rec.Recalled, ref(t, t.Reason))
		}
	}
	rec.Dropped = droppedRefs(l.drops, l.obsDrops)
	rec.DroppedCount = len(rec.Dropped) + l.unlisted
	return rec
}

// droppedRefs lists the dropped turns by thread and seq, then the dropped
// observations; never nil.
func droppedRefs(drops []dropped, obsDrops []journal.Ref) []journal.Ref {
	sort.SliceStable(drops, func(i, j int) bool {
		if drops[i].ThreadID != drops[j].ThreadID {
			return drops[i].ThreadID < drops[j].ThreadID
		}
		return drops[i].Seq < drops[j].Seq
	})
	out := make([]journal.Ref, 0, len(drops)+len(obsDrops))
	for _, d := range drops {
		out = append(out, ref(d.turn, d.why))
	}
	return append(out, obsDrops...)
}

// partTokens estimates each part of a composed context with the one
// estimator (internal/tokens): turns by their stored estimates (content,
// name and tool calls), observations as the budget counts them, the
// rendered working memory and the tool definitions as text.
func partTokens(turns []turn, obs []observe.Observation, wmText string, defs []openai.Tool) *journal.Tokens {
	t := &journal.Tokens{Observations: observationTokens(obs), WorkingMemory: tokens.Text(wmText)}
	for _, m := range turns {
		if m.Recent {
			t.Recent += m.Tokens
		} else {
			t.Recalled += m.Tokens
		}
	}
	if len(defs) > 0 {
		b, _ := json.Marshal(defs)
		t.Tools = tokens.Text(string(b))
	}
	t.Total = t.Recent + t.Recalled + t.Observations + t.WorkingMemory + t.Tools
	return t
}

// ref is the memctx entry of a turn.
func ref(t turn, reason string) journal.Ref {
	return journal.Ref{
		ThreadID: t.ThreadID, Seq: t.Seq, MessageID: t.ID, Role: t.Role,
		Preview: Preview(t.Message), Score: t.Score, Lexical: t.Lexical, Vector: t.Vector, Reason: reason,
	}
}

// memctxOptions is the record of the options that ran: o is the resolved
// value recall ran with (recall.Options.Resolve), nil when recall is off, so
// the record names the defaults that ran, not the zero values that chose
// them; t is the resolved tuning recall ran with (Engine.RecallTuning),
// whose channel tuning is recorded in every mode, and its fusion
// parameters and hybrid rules in hybrid mode. The filter is redacted by r.
func memctxOptions(r Redactor, recentN int, o *recall.Options, budget int, t recall.Tuning) journal.Options {
	out := journal.Options{RecentN: recentN, TokenBudget: budget}
	if o == nil {
		return out
	}
	out.TopK, out.Threshold, out.Scope, out.Mode = o.TopK, o.Threshold, string(o.Scope), string(o.Mode)
	ch := journal.Channels(t.ChannelTuning(o.Mode, o.TopK))
	out.Channels = &ch
	if o.Mode == recall.ModeHybrid {
		out.Fusion, out.FusionParams = fusionParams(t.Fusion(o.Fusion))
		rules := journal.Rules(t.HybridRules(o.Scope))
		out.Rules = &rules
	}
	if b, err := json.Marshal(o.MessageRange); err == nil {
		out.MessageRange = b
	}
	if len(o.Filter) > 0 {
		// The filter's values are caller text, stored with the record:
		// redacted like every stored text.
		out.Filter = redactJSON(r, append(json.RawMessage(nil), o.Filter...))
	}
	return out
}

// fusionParams is the record of fusion p (journal.Options.Fusion and
// FusionParams).
func fusionParams(p recall.FusionParams) (string, *journal.FusionParams) {
	if p.Name == recall.FusionRRF {
		return p.Name, &journal.FusionParams{K: p.K}
	}
	w := p.VectorWeight
	return p.Name, &journal.FusionParams{VectorWeight: &w, Normalise: p.Normalise}
}

// journalRetrieval is recall's retrieval status as the journal records it
// (memctx.retrieval) and the search API reports it.
func journalRetrieval(r recall.Retrieval) journal.Retrieval {
	out := journal.Retrieval{Lexical: r.Lexical, Vector: r.Vector, Embedder: r.Embedder, Note: r.Note}
	if rr := r.Rerank; rr != nil {
		out.Rerank = &journal.Rerank{Reranker: rr.Reranker, Status: rr.Status, Candidates: rr.Candidates, Millis: rr.Millis}
	}
	return out
}

// memctxReason is the memctx reason of a recall hit reason.
func memctxReason(reason string) string {
	switch reason {
	case recall.ReasonHit:
		return journal.ReasonHit
	case recall.ReasonRange:
		return journal.ReasonRange
	}
	return reason
}
