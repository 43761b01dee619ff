package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/working"
)

// ErrWorkingMemoryErased is returned by Replay, inside a *DivergenceError
// (which also matches ErrReplayDiverged), when the working-memory version
// the run rendered (memctx workingMemoryVersion) is no longer in the
// state's history: an erasure (DeleteMessages, DeleteThread) removed it
// with the turns it was derived from. Without that content the run's
// prompt cannot be rebuilt, so its hash cannot be checked, and Replay
// returns no counterfactual either, even one without working memory:
// nothing would show that the rest of the rebuilt prompt is the run's.
var ErrWorkingMemoryErased = errors.New("engine: the run's working memory version was erased")

// replayWorkingMemory renders the working memory the run rendered and the
// tools the context offers now. A record naming its version
// (workingMemoryVersion) is replayed with exactly that version; an older
// record with the newest version written at or before its createdAt. A
// version erased since, a scope changed since, a content that differs
// from the record's workingMemoryHash (a version an erasure rebuilt) or a
// size that differs from its workingMemoryChars is a divergence.
func (e *Engine) replayWorkingMemory(ctx context.Context, rec *journal.MemCtx, div *DivergenceError) (string, []openai.Tool, error) {
	if rec.WorkingMemoryVersion == nil {
		return e.replayWorkingMemoryAt(ctx, rec, div)
	}
	n := *rec.WorkingMemoryVersion
	key := rec.WorkingMemoryKey()
	mem, err := e.WorkingMemory()
	switch {
	case errors.Is(err, ErrNoWorkingMemory):
		div.Differences = append(div.Differences, fmt.Sprintf("the run rendered working memory v%d of %s; working memory is not configured now", n, key))
		return "", nil, nil
	case err != nil:
		return "", nil, err
	case string(mem.Scope()) != rec.WorkingMemoryScope:
		div.Differences = append(div.Differences, fmt.Sprintf("the run rendered working memory v%d of %s; working memory is %s-scoped now", n, key, mem.Scope()))
		return "", nil, nil
	}
	p, err := e.workingMemoryPart(ctx, rec.ThreadID, rec.ResourceID, wmRead{version: &n})
	if errors.Is(err, working.ErrVersionGone) {
		div.Differences = append(div.Differences, e.erasedVersion(ctx, mem, key, n))
		div.causes = append(div.causes, ErrWorkingMemoryErased)
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	if d := wmDifference(rec, n, key, p); d != "" {
		div.Differences = append(div.Differences, d)
	}
	return p.text, p.tools, nil
}

// wmDifference is the divergence of version n of key, rendered now as p,
// from the one rec's run rendered; "" when none shows. A record with
// workingMemoryHash tells a version whose content changed (an erasure
// rebuilt it: the one way a version's content changes; for version 0,
// the initial content, the configuration) from one rendered otherwise
// (the configuration); an older record compares the length alone.
func wmDifference(rec *journal.MemCtx, n int64, key string, p wmPart) string {
	size := fmt.Sprintf("it renders to %d characters, recorded %d", p.chars, rec.WorkingMemoryChars)
	if p.chars == rec.WorkingMemoryChars {
		size = fmt.Sprintf("it renders to the same length, %d characters", p.chars)
	}
	switch {
	case rec.WorkingMemoryHash == "":
		if p.chars != rec.WorkingMemoryChars {
			return fmt.Sprintf("working memory v%d of %s renders to %d characters, recorded %d (an erasure rebuilt the version since the run, or the working memory's configuration changed)", n, key, p.chars, rec.WorkingMemoryChars)
		}
	case p.hash != rec.WorkingMemoryHash && n == 0:
		return fmt.Sprintf("working memory v0 of %s, the initial content, is not the one the run rendered (%s): the working memory's configuration changed since the run", key, size)
	case p.hash != rec.WorkingMemoryHash:
		return fmt.Sprintf("working memory v%d of %s was rebuilt by an erasure since the run: its content is not the one the run rendered (%s)", n, key, size)
	case p.chars != rec.WorkingMemoryChars:
		return fmt.Sprintf("working memory v%d of %s holds the content the run rendered but renders to %d characters, recorded %d: the working memory's configuration changed since the run", n, key, p.chars, rec.WorkingMemoryChars)
	}
	return ""
}

// erasedVersion is the divergence of a run whose working-memory version n
// of key was erased, naming the state's version now.
func (e *Engine) erasedVersion(ctx context.Context, mem *working.Memory, key string, n int64) string {
	now := ""
	if st, err := mem.Get(ctx, key); err == nil && st.Version > n {
		now = fmt.Sprintf(", the state is v%d now", st.Version)
	}
	return fmt.Sprintf("working memory v%d of %s was erased (an erasure removed it with the turns it was derived from%s); the run's context cannot be reproduced", n, key, now)
}

// replayWorkingMemoryAt replays the working memory of a record written
// before records named their version: the newest version written at or
// before the record's createdAt. A size that differs from the record's
// workingMemoryChars is a divergence (a version written in the same
// millisecond as the run, or one an erasure removed).
func (e *Engine) replayWorkingMemoryAt(ctx context.Context, rec *journal.MemCtx, div *DivergenceError) (string, []openai.Tool, error) {
	at, err := time.Parse(time.RFC3339Nano, rec.CreatedAt)
	if err != nil {
		div.Differences = append(div.Differences, fmt.Sprintf("the record's createdAt %q is not a time", rec.CreatedAt))
		return "", nil, nil
	}
	p, err := e.workingMemoryPart(ctx, rec.ThreadID, rec.ResourceID, wmRead{at: at})
	if err != nil {
		return "", nil, err
	}
	if p.chars != rec.WorkingMemoryChars {
		div.Differences = append(div.Differences, fmt.Sprintf("working memory renders to %d characters as of %s, recorded %d", p.chars, rec.CreatedAt, rec.WorkingMemoryChars))
	}
	return p.text, p.tools, nil
}
