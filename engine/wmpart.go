package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/working"
)

// wmPart is the working memory a context renders: the rendered state, the
// tools the context offers and which state it rendered (memctx
// workingMemoryChars, workingMemoryScope, workingMemoryVersion and
// workingMemoryHash).
// Working memory is off until configured: then all but tools are zero.
type wmPart struct {
	text    string        // the rendered state, trimmed
	tools   []openai.Tool // the tool definitions the context offers
	chars   int           // text's length in characters
	scope   working.Scope // the memory's scope; "" when working memory is off
	key     string        // the state's scope key; "" when working memory is off
	version int64         // the version rendered; 0 for the initial content
	hash    string        // contentHash of the state rendered; "" when working memory is off
	// note says how the state was shown apart from the rule (memctx
	// workingMemoryNote, working.Memory.RenderNote): written in the other
	// mode, cut to maxChars; "" for neither.
	note string
}

// wmRead chooses the state a wmPart renders. The zero value reads the
// current state (LoadContext).
type wmRead struct {
	// at, when set, reads the state in force at that time (working.GetAt):
	// replay of a record that names no version.
	at time.Time
	// version, when set, reads that version (working.GetVersion): replay
	// of a record that names the version its run rendered.
	version *int64
}

// workingMemoryPart renders the working memory of the thread (or its
// resource) as read chooses, for the system part. Errors: a
// *ValidationError when the scope key cannot be built from the ids; the
// working memory's (working.ErrVersionGone for a version an erasure
// removed, wrapped).
func (e *Engine) workingMemoryPart(ctx context.Context, threadID, resourceID string, read wmRead) (wmPart, error) {
	reg, err := e.tools(ctx, threadID, resourceID)
	if err != nil {
		return wmPart{}, err
	}
	mem, err := e.WorkingMemory()
	if errors.Is(err, ErrNoWorkingMemory) {
		return wmPart{tools: reg.Definitions()}, nil
	}
	if err != nil {
		return wmPart{}, err
	}
	key, err := mem.Key(threadID, resourceID)
	if err != nil {
		return wmPart{}, invalid(-1, scopeField(mem), "working memory: %v", err)
	}
	var st working.State
	switch {
	case read.version != nil:
		st, err = mem.GetVersion(ctx, key, *read.version)
	case !read.at.IsZero():
		st, err = mem.GetAt(ctx, key, read.at)
	default:
		st, err = mem.Get(ctx, key)
	}
	if err != nil {
		return wmPart{}, fmt.Errorf("engine: working memory: %w", err)
	}
	if st.Version > 0 && st.ResourceID != resourceID {
		// Written for another owner (never by this engine's writes, which
		// bind states to the thread's resource): it is not this thread's,
		// and the context renders the initial content, version 0.
		e.log.WarnContext(ctx, "working memory state of another owner not rendered", "key", key)
		st = working.State{Key: key, Mode: mem.Mode(), Content: mem.Initial()}
	}
	text := strings.TrimSpace(mem.RenderState(st))
	return wmPart{text: text, tools: reg.Definitions(), chars: utf8.RuneCountInString(text),
		scope: mem.Scope(), key: key, version: st.Version, hash: contentHash(st.Content), note: mem.RenderNote(st)}, nil
}

// contentHash is memctx workingMemoryHash: "sha256:<hex>" of the content
// of the state rendered, as stored (the version's, or the initial content
// for version 0).
func contentHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "sha256:" + hex.EncodeToString(sum[:])
}
