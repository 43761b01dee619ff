package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/internal/store"
)

// RecentCap is the most entries MemCtx.Recent lists; RecentCount keeps the
// true count (DESIGN.md, "The memctx record").
const RecentCap = 24

// PreviewChars is the length in characters (runes) a preview is cut to.
const PreviewChars = 80

// Reasons a turn was recalled (MemCtx.Recalled[i].Reason).
const (
	ReasonHit    = "hit"    // a recall hit
	ReasonRange  = "range"  // a message-range neighbour of a hit
	ReasonRepair = "repair" // pulled in to complete a tool-call group
)

// Reasons a turn was dropped (MemCtx.Dropped[i].Reason).
const (
	ReasonUnpairedToolCall  = "unpaired-tool-call" // an assistant tool call whose results are missing
	ReasonOrphanToolResult  = "orphan-tool-result" // a tool result whose call is missing
	ReasonBudget            = "budget"             // removed to fit the token budget
	ReasonAlreadyInRecent   = "already-recent"     // a recall hit that the recent window already holds
	ReasonUnobserved        = "unobserved"         // an unobserved turn over the window's bound (engine.ObserveConfig.MaxUnobservedTokens)
	ReasonBelowThreshold    = "below-threshold"    // reserved: hits under the threshold are not listed today
	ReasonRecalledUnchanged = "recalled-unchanged" // reserved for replay reports
)

// ReasonUnsettled marks a dispatched tool call whose outcome is unknown
// (MemCtx.Unsettled): the call was kept and given a synthetic result saying
// so, neither dropped nor shown as a success or a failure.
const ReasonUnsettled = "unsettled"

// MemCtx is the provenance record of one LoadContext run, stored under
// "<runId>:memctx". Field names and shapes follow DESIGN.md exactly.
//
// Recalled lists only turns that reached the prompt; a recall hit that was
// dropped is in Dropped, never in Recalled.
type MemCtx struct {
	// RunID is the run's id (engine.LoadRequest.RunID).
	RunID string `json:"runId"`
	// ThreadID is the thread the context was loaded for.
	ThreadID string `json:"threadId"`
	// ResourceID is the thread's resource.
	ResourceID string `json:"resourceId"`
	// Query is the recall query text; "" when recall did not run.
	Query string `json:"query"`
	// Options are the composition options the run used.
	Options Options `json:"options"`
	// Recalled are the recalled turns that reached the prompt, in prompt
	// order, one entry a turn, each with its Reason: ReasonHit (a recall
	// hit, with its Score), ReasonRange (a neighbour of a hit that
	// recall.Options.MessageRange pulled in) or ReasonRepair (a turn pulled
	// in to complete a tool-call group of a recalled turn). So
	// len(Recalled) counts turns, not hits: three hits with MessageRange
	// {Before: 1} list up to six entries. The hits are the entries whose
	// Reason is ReasonHit; no field counts them apart. Hits that did not
	// reach the prompt are in Dropped.
	Recalled []Ref `json:"recalled"`
	// RecentCount counts the recent window's turns.
	RecentCount int `json:"recentCount"`
	// Recent are the recent window's turns, oldest first.
	Recent []Ref `json:"recent"`
	// DroppedCount is the true count of Dropped: the turns left out as
	// unobserved are listed up to RecentCap (the newest, next to the
	// window) and all counted.
	DroppedCount int `json:"droppedCount"`
	// Dropped are turns left out (a dropped recall hit; unobserved turns, up to RecentCap), with their reason.
	Dropped []Ref `json:"dropped"`
	// ObservationCount counts the observations and reflections rendered.
	ObservationCount int `json:"observationCount"`
	// Observations name them, in rendering order.
	Observations []ObservationRef `json:"observations"`
	// WorkingMemoryChars is the rendered working memory's length in characters (0: none).
	WorkingMemoryChars int `json:"workingMemoryChars"`
	// WorkingMemoryScope and WorkingMemoryVersion name the working-memory
	// state the run rendered: the memory's scope, "thread" or "resource"
	// (the state's key is "thread:<threadId>" or "resource:<resourceId>"
	// of this record), and the version rendered, 0 for the initial content
	// (a state never written, or one of another owner, not rendered).
	// Replay reads exactly that version. Both are absent when working
	// memory was off, and in records written before they were recorded:
	// replay then reads the version in force at CreatedAt.
	WorkingMemoryScope string `json:"workingMemoryScope,omitempty"`
	// WorkingMemoryVersion is the version rendered (see WorkingMemoryScope).
	WorkingMemoryVersion *int64 `json:"workingMemoryVersion,omitempty"`
	// WorkingMemoryHash is "sha256:<hex>" of the content of the state the
	// run rendered, as stored (the version's JSON or Markdown before it was
	// rendered; the initial content for version 0), recorded with
	// WorkingMemoryVersion. A version's content changes only when an
	// erasure rebuilds it, so replay compares the hash with the version's
	// content now to name a rebuilt version, even one rebuilt with content
	// of the same length. Absent when working memory was off and in
	// records written before it was recorded (replay then compares the
	// rendered length alone).
	WorkingMemoryHash string `json:"workingMemoryHash,omitempty"`
	// WorkingMemoryNote says how the state was shown apart from the rule:
	// "written in schema mode, shown in a template-mode working memory"
	// (or the other way: a state kept before the configuration changed,
	// shown as what it is), "cut to 8000 of 9120 characters" (a state
	// longer than the memory's maxChars, shown cut), both joined by "; ".
	// Absent for a state of the memory's mode within its bound.
	WorkingMemoryNote string `json:"workingMemoryNote,omitempty"`
	// Unsettled lists the dispatched tool calls of the prompt whose outcome
	// was unknown (reason "unsettled"), and the other calls of their
	// messages that had no result: each names the assistant message
	// (MessageID, Seq) and the call (ToolCallID) that got a synthetic result.
	Unsettled []Ref   `json:"unsettled,omitempty"`
	Tokens    *Tokens `json:"tokens,omitempty"` // nil in records written before token figures existed
	// Retrieval says how each recall channel fared.
	Retrieval Retrieval `json:"retrieval"`
	// PromptHash is "sha256:<hex>" over the prompt's system part, messages and tools; Replay must reproduce it.
	PromptHash string `json:"promptHash"`
	// Render names the rendering the prompt was composed with (e.g.
	// "render-v2"); empty for runs recorded before it was recorded. Replay
	// reproduces PromptHash only with the same rendering.
	Render string `json:"render,omitempty"`
	// TimeZone names the zone the prompt's dates were written in (recall
	// markers, observation date spans): "UTC", an IANA name such as
	// "Europe/Paris", or "UTC+02:00". Empty in records written before it was
	// recorded (their dates were UTC).
	TimeZone  string `json:"timeZone,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"` // RFC 3339, UTC
	// QueryAt is the time the query's relative dates ("yesterday", "last
	// week") were resolved against (engine.LoadRequest.At; the run's
	// CreatedAt when the caller gave none), RFC 3339, UTC. Empty in
	// records written before it was recorded: those runs resolved no
	// relative date of their query.
	QueryAt string `json:"queryAt,omitempty"`
	// ThreadSeq is the thread's last seq when the run read its recent
	// window (0 when the thread had no message): the thread's turns of
	// higher seq were appended after the run composed its context. It
	// orders the run against the thread's turns exactly, where CreatedAt
	// (milliseconds) cannot: an erasure uses it to tell which turns the run
	// saw and which assistant message made its tool calls. Nil in records
	// written before it was recorded (the erasure then compares times).
	ThreadSeq *int64 `json:"threadSeq,omitempty"`
	// ContextErased is set by an erasure (ScrubMemCtx) that removed a turn
	// the run's context held: a turn of its recent window, listed in Recent
	// or beyond the RecentCap listed entries, a recalled turn, a turn its
	// query quoted or that quoted it, or a turn under an observation it
	// rendered (the erasure invalidated it: Erased.Held). Such a run writes no
	// working memory back (CheckRunContext). It is a field of its own, not
	// a reading of the previews, since a turn's text may itself be
	// ErasedPreview. False (absent) in records no erasure touched and in
	// records scrubbed before it was recorded.
	ContextErased bool `json:"contextErased,omitempty"`
}

// WorkingMemoryKey is the scope key of the working-memory state the run
// rendered: "thread:<threadId>" or "resource:<resourceId>" of the record
// (tombstones in an entombed record); "" when the record names none
// (working memory off, or a record written before it was recorded).
func (m *MemCtx) WorkingMemoryKey() string {
	switch m.WorkingMemoryScope {
	case "thread":
		return "thread:" + m.ThreadID
	case "resource":
		return "resource:" + m.ResourceID
	}
	return ""
}

// Tokens are the estimated tokens (mnemo's one estimator, about 4 bytes a
// token plus 4 per message) of each part of a run's
// composed context: the recent window's turns, the recalled turns, the
// rendered observations, the rendered working memory and the offered tool
// definitions. Total is their sum. With a token budget, Total may exceed
// Options.TokenBudget only by the recent window, working memory and tools,
// which the budget never removes.
type Tokens struct {
	// Recent is the recent window's turns, in estimated tokens.
	Recent int `json:"recent"`
	// Recalled is the recalled turns'.
	Recalled int `json:"recalled"`
	// Observations is the rendered observations'.
	Observations int `json:"observations"`
	// WorkingMemory is the rendered working memory's.
	WorkingMemory int `json:"workingMemory"`
	// Tools is the offered tool definitions'.
	Tools int `json:"tools"`
	// Total is the sum of the others.
	Total int `json:"total"`
}

// Options are the composition options a run used.
type Options struct {
	// RecentN is the recent window's size in messages.
	RecentN int `json:"recentN"`
	// TopK is the number of recall hits asked for.
	TopK int `json:"topK"`
	// Threshold is recall.Options.Threshold as the run resolved it.
	Threshold    float64         `json:"threshold"`
	MessageRange json.RawMessage `json:"messageRange,omitempty"` // a number, or {"before":B,"after":A}
	// Scope is recall's scope, "thread" or "resource".
	Scope string `json:"scope,omitempty"`
	// Mode is recall's mode: "hybrid", "lexical" or "vector".
	Mode string `json:"mode,omitempty"`
	// Filter is the recall filter as given (JSON); absent for none.
	Filter json.RawMessage `json:"filter,omitempty"`
	// TokenBudget is the token budget of recalled turns, in estimated tokens; 0 for none.
	TokenBudget int `json:"tokenBudget,omitempty"`
	// Fusion names the fusion that gave the recalled hits their score in
	// hybrid mode, "weighted" or "rrf" (recall.FusionWeighted,
	// FusionRRF), and FusionParams its parameters. Both are absent when
	// recall was off or ran one channel (mode lexical or vector: the
	// score is that channel's), and in records written before they were
	// recorded: a reader must then treat the fusion as unknown, not as
	// the default, which a caller's options could have changed.
	Fusion string `json:"fusion,omitempty"`
	// FusionParams are Fusion's parameters.
	FusionParams *FusionParams `json:"fusionParams,omitempty"`
	// Rules are the hybrid rules that ran on the fused scores after the
	// fusion, and their parameters, in hybrid mode (as Fusion). Nil when
	// recall was off or ran one channel, and in records written before
	// they were recorded: a reader must then treat the rules as unknown,
	// not as the defaults, which the engine's tuning or another version
	// could have changed. A record with no rule running has an empty
	// Rules ({}).
	Rules *Rules `json:"rules,omitempty"`
	// Channels is the tuning that shaped the channels' scores and
	// candidates, in every mode recall ran. Nil when recall was off, and
	// in records written before it was recorded: a reader must then treat
	// it as unknown, not as the defaults.
	Channels *Channels `json:"channels,omitempty"`
}

// Channels is the tuning that shaped a run's lexical and vector scores and
// its candidates (recall.Tuning.ChannelTuning, whose fields these are),
// as it ran: every setting that ran is written, so a record of a version
// with other defaults reads apart. The lexical settings (k1 to
// bleveMatches) are absent when no lexical channel ran (mode vector), the
// vector ones (exchange, exactVectors) when no vector channel ran (mode
// lexical). Under the defaults a hybrid run's record is
// {"pool":100,"contextWeight":0.5,"turnAfter":true,"exchange":true,
// "k1":1.2,"b":0.75,"dates":true,"answerTypes":true,"compounds":true}.
type Channels struct {
	// Pool is the candidates each channel returned (max(candidate pool,
	// topK)).
	Pool int `json:"pool"`
	// ContextWeight is α of the turn-context rule: each channel scored a
	// turn at least α × the score of the turn before it and, with
	// TurnAfter, of the turn after it; absent when the rule was off.
	ContextWeight float64 `json:"contextWeight,omitempty"`
	// TurnAfter is set when the context rule also compared the turn after.
	TurnAfter bool `json:"turnAfter,omitempty"`
	// Exchange is set when the vector channel's exchange rule ran (a
	// reply scored with the sum of its and its question's vectors).
	Exchange bool `json:"exchange,omitempty"`
	// K1 and B are the textbook BM25's constants the lexical channel
	// scored with; absent with BleveScores, when bleve's own BM25 ranked.
	K1 float64 `json:"k1,omitempty"`
	// B is BM25's length normalisation b (see K1).
	B float64 `json:"b,omitempty"`
	// BleveScores is set when bleve's own BM25 ranked.
	BleveScores bool `json:"bleveScores,omitempty"`
	// Dates, AnswerTypes and Compounds are set when the lexical channel
	// scored the query's dates, the answer types of "How long" and "When"
	// questions, and the compound-identifier bonus.
	Dates bool `json:"dates,omitempty"`
	// AnswerTypes is set when answer types were scored (see Dates).
	AnswerTypes bool `json:"answerTypes,omitempty"`
	// Compounds is set when the compound-identifier bonus was scored (see Dates).
	Compounds bool `json:"compounds,omitempty"`
	// BleveMatches and ExactVectors are the SQLite backend's measuring
	// knobs (bleve enumerated the lexical matches; the vector channel
	// scanned every vector exactly), set when on.
	BleveMatches bool `json:"bleveMatches,omitempty"`
	// ExactVectors is set when the vector channel scanned every vector exactly.
	ExactVectors bool `json:"exactVectors,omitempty"`
}

// Rules are the rules a run's hybrid search applied to the fused scores
// after the fusion (recall.Tuning.HybridRules, whose fields these are, so
// that one converts to the other): each is absent (false or
// 0) when it did not run. A rule that ran may still have changed no
// score: the speaker and date rules raise only turns of a speaker or a
// date the query names, the topic rule needs the query's vector
// (retrieval.vector "ok" or "degraded"), and no rule changes a lone
// candidate's score.
type Rules struct {
	// ExchangeOrder is set when the exchange order rule ran: of a user's
	// turn and the agent's reply after it, the user's turn took the
	// better fused score (the reply did when the query asked what the
	// agent said).
	ExchangeOrder bool `json:"exchangeOrder,omitempty"`
	// SessionWeight is β of the session-evidence rule (a candidate
	// raised by β × the best positive standardised score of the other
	// candidates of its thread) and TopicWeight γ of the session-topic
	// rule (raised by γ × its thread's positive standardised cosine with
	// the query); both run in a resource-wide search only (0.15 by
	// default with a semantic embedder, off with hash-384).
	SessionWeight float64 `json:"sessionWeight,omitempty"`
	// TopicWeight is γ of the session-topic rule (see SessionWeight).
	TopicWeight float64 `json:"topicWeight,omitempty"`
	// SpeakerWeight and DateWeight are δ of the speaker and date rules,
	// in standard deviations of the fused scores (2 by default): a
	// candidate whose speaker, or date, the query names is raised by δ.
	SpeakerWeight float64 `json:"speakerWeight,omitempty"`
	// DateWeight is δ of the date rule (see SpeakerWeight).
	DateWeight float64 `json:"dateWeight,omitempty"`
}

// FusionParams are the parameters of a run's fusion (Options.Fusion), as
// recall applied them (recall.Tuning.Fusion).
type FusionParams struct {
	// VectorWeight is w of the weighted fusion, (1−w)·lexical + w·vector,
	// within [0, 1] (0.15 by default with hash-384, 0.5 with a semantic
	// embedder); absent with rrf.
	VectorWeight *float64 `json:"vectorWeight,omitempty"`
	// Normalise is how the weighted fusion scaled each channel's scores:
	// "standardise" (over the search's candidates: 0 is their mean, below
	// it negative; a lone candidate scores its channels' presence, up to
	// 1) or "max" (BM25 by the highest, cosine min–max: within [0, 1]);
	// absent with rrf.
	Normalise string `json:"normalise,omitempty"`
	// K is the constant k of reciprocal rank fusion, Σ 1/(k + rank) over
	// the channels that ranked the message (60); absent with weighted.
	K int `json:"k,omitempty"`
}

// Ref names one stored turn in a memctx record.
type Ref struct {
	// ThreadID is the turn's thread.
	ThreadID string `json:"threadId"`
	// Seq is the turn's seq in ThreadID.
	Seq int64 `json:"seq"`
	// MessageID is the turn's message id.
	MessageID string `json:"messageId"`
	// Role is the turn's role.
	Role string `json:"role"`
	// Preview is the start of its content (Preview: at most PreviewChars runes, one line).
	Preview string `json:"preview"`
	// Score is a recall hit's fused score; nil for other turns.
	Score *float64 `json:"score,omitempty"`
	// Lexical is the BM25 score; nil when that channel did not find it.
	Lexical *float64 `json:"lexicalScore,omitempty"`
	// Vector is the cosine similarity; nil when that channel did not find it.
	Vector *float64 `json:"vectorScore,omitempty"`
	// Reason says why it is listed: "hit", "range", "repair", a drop's reason, or ReasonUnsettled.
	Reason string `json:"reason,omitempty"`
	// ToolCallID names the call of an Unsettled entry.
	ToolCallID string `json:"toolCallId,omitempty"`
}

// ObservationRef names an observation or reflection rendered into the
// system part.
type ObservationRef struct {
	// ID is the observation's id.
	ID string `json:"id"`
	// ThreadID is its thread.
	ThreadID string `json:"threadId"`
	// FromSeq is the first seq it covers (inclusive).
	FromSeq int64 `json:"fromSeq"`
	// ToSeq is the last seq it covers (inclusive).
	ToSeq int64 `json:"toSeq"`
	// Level is "observation" or "reflection".
	Level string `json:"level,omitempty"`
	// Untrusted is set when the observation was rendered as untrusted (its
	// sources include tool output).
	Untrusted bool `json:"untrusted,omitempty"`
}

// Retrieval says how each recall channel fared: "ok", "off" (not asked for),
// "degraded: <why>" or "unavailable: <why>"; Embedder names the embedder that
// ran, e.g. "hash-384"; Rerank is set when a re-rank stage ran.
type Retrieval struct {
	// Lexical is the lexical channel's status.
	Lexical string `json:"lexical"`
	// Vector is the vector channel's status.
	Vector string `json:"vector"`
	// Embedder names the embedder that ran, e.g. "hash-384".
	Embedder string `json:"embedder,omitempty"`
	// Note says why recall was degraded; "" when it was not.
	Note string `json:"note,omitempty"`
	// Rerank records the re-rank stage; nil when none ran.
	Rerank *Rerank `json:"rerank,omitempty"`
}

// Rerank records the re-rank stage of a recall: the re-ranker that ran
// (e.g. "rerank:bge-reranker-v2-m3"), its status ("ok", "timeout: fused
// order kept", "unavailable: <why>; fused order kept"), how many fused
// candidates it was sent and how long it took in milliseconds.
type Rerank struct {
	// Reranker names the re-ranker, e.g. "rerank:bge-reranker-v2-m3".
	Reranker string `json:"reranker"`
	// Status is "ok", "timeout: fused order kept" or "unavailable: <why>; fused order kept".
	Status string `json:"status"`
	// Candidates counts the fused candidates sent.
	Candidates int `json:"candidates"`
	// Millis is how long it took, in milliseconds.
	Millis float64 `json:"ms"`
}

// TimeLayout is the layout of MemCtx.CreatedAt: RFC 3339 in UTC with
// milliseconds, the precision of the store's times.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// MemCtxKey is the journal key of run's memctx record.
func MemCtxKey(runID string) string { return runID + ":memctx" }

// PutMemCtx stores rec under "<runId>:memctx". When a record exists it returns
// ErrRunExists unless replace is true. The run id must be rec's thread's
// (ClaimRun): a run of another thread or resource is ErrRunOwned, also with
// replace.
func (j *Journal) PutMemCtx(ctx context.Context, rec *MemCtx, replace bool) error {
	return j.PutMemCtxChecked(ctx, rec, replace, nil)
}

// putMemCtx is PutMemCtxChecked (memctx_recheck.go).
func (j *Journal) putMemCtx(ctx context.Context, rec *MemCtx, replace bool, recheck Recheck) error {
	if rec.CreatedAt == "" {
		rec.CreatedAt = j.now().UTC().Format(TimeLayout)
	}
	verb, upsert := "INSERT", ""
	if replace {
		// Postgres has no INSERT OR REPLACE: the conflicting row is
		// rewritten whole (input_hash to its default, as a replaced row
		// gets on SQLite).
		verb = j.dialect.Text("INSERT OR REPLACE", "INSERT")
		upsert = j.dialect.Text("", `
		ON CONFLICT (scope, key) DO UPDATE SET thread_id = excluded.thread_id, resource_id = excluded.resource_id,
		output = excluded.output, input_hash = '', created_at = excluded.created_at`)
	}
	// Only while the run is still the record's (an erasure may have given
	// the claim an opaque owner since).
	put := verb + ` INTO journal (scope, key, thread_id, resource_id, output, created_at)
		SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE id = ? AND thread_id = ? AND resource_id = ?)` + upsert
	n, err := j.claimAndPut(ctx, rec, put, recheck)
	if err != nil {
		if !replace && isUniqueViolation(err) {
			return fmt.Errorf("%w: %s", ErrRunExists, rec.RunID)
		}
		return err
	}
	if n == 0 {
		if err := j.CheckRun(ctx, rec.RunID, rec.ThreadID, rec.ResourceID); err != nil {
			return err // ErrRunErased when the claim's owner was erased
		}
		return fmt.Errorf("%w: %s", ErrRunOwned, rec.RunID)
	}
	return nil
}

// claimAndPut runs PutMemCtx's claim (claimSQL) and its insert put of
// the encoded record in one write transaction, and returns how many
// rows put wrote. The claim's owner is checked by put itself (its WHERE
// EXISTS): a run of another thread or resource inserts no row. One
// transaction rather than two statements of their own: on Postgres each
// of those was a transaction of its own after the schema version check
// (store.WriteCheck), BEGIN, check and COMMIT twice. A record that
// exists (put's unique violation, returned as it is) rolls the claim
// back with it: the run was claimed when that record was stored. With
// recheck, on Postgres, the claim also takes the run-context lock of
// rec's resource shared (claimLockedSQL: no round trip of its own), and
// recheck runs after it, under the lock, in statements of their own
// (each of which sees what committed before the lock was granted); it may
// change rec, which is encoded after it, and its error is returned as it
// is.
func (j *Journal) claimAndPut(ctx context.Context, rec *MemCtx, put string, recheck Recheck) (int64, error) {
	var n int64
	var refused error
	err := store.RunTx(ctx, j.db, func(tx *store.Tx) error {
		locked := recheck != nil && tx.Dialect == store.Postgres
		q, args := claimSQL, []any{rec.RunID, rec.ThreadID, rec.ResourceID, j.now().UnixMilli()}
		if locked {
			q, args = claimLockedSQL, append(args, RunContextLockClass, rec.ResourceID)
		}
		claim, err := j.stmts.InTx(ctx, tx.Tx, q)
		if err == nil {
			_, err = claim.ExecContext(ctx, args...)
		}
		if err != nil {
			return fmt.Errorf("claim run: %w", err)
		}
		if locked {
			if refused = recheck(ctx, store.Bound(tx), rec); refused != nil {
				return refused
			}
		}
		buf, b, err := encodeMemCtx(rec)
		if err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		defer memctxBufs.Put(buf) // the drivers copy b when they bind it
		st, err := j.stmts.InTx(ctx, tx.Tx, put)
		if err != nil {
			return err
		}
		res, err := st.ExecContext(ctx, ScopeMemCtx, MemCtxKey(rec.RunID), rec.ThreadID, rec.ResourceID, b, j.now().UnixMilli(),
			rec.RunID, rec.ThreadID, rec.ResourceID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if refused != nil && errors.Is(err, refused) {
		return 0, refused // recheck's, as it is
	}
	if err != nil {
		return 0, fmt.Errorf("journal: store memctx %s: %w", rec.RunID, err)
	}
	return n, nil
}

// memctxBufs holds PutMemCtx's encoding buffers: a record is encoded and
// stored on every LoadContext, and json.Marshal's copy of it was a few KiB
// of each call's allocations (issue 14, BENCHMARKS.md).
var memctxBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encodeMemCtx returns marshalRecord(rec)'s bytes, b, written in buf, a
// buffer of memctxBufs that the caller puts back when done with b.
func encodeMemCtx(rec *MemCtx) (buf *bytes.Buffer, b []byte, err error) {
	buf = memctxBufs.Get().(*bytes.Buffer)
	if buf.Cap() > 1<<20 {
		buf = new(bytes.Buffer) // an outsized record's buffer is not kept
	}
	buf.Reset()
	if err := recordEncoder(buf).Encode(rec); err != nil {
		return buf, nil, err
	}
	return buf, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// marshalRecord is the JSON text of a record (a memctx record, its
// recall filter) as the journal stores it: jsonkey.Marshal's, without
// HTML escaping, so a filter's "R&D" is stored as given, not as
// "R\u0026D" (which a json.RawMessage, the filter, kept when read back).
func marshalRecord(v any) ([]byte, error) { return jsonkey.Marshal(v) }

// recordEncoder writes records as marshalRecord does, to w (encodeMemCtx's
// pooled buffer).
func recordEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// MemCtx returns the record of runID, or an ErrNotFound naming the run
// (`journal: run not found: "ID"`): a *RunPrunedError when the id is
// still claimed by an owner not erased (retention pruned the record, or
// the run only dispatched tool calls), a *RunErasedError when its owner
// was erased.
func (j *Journal) MemCtx(ctx context.Context, runID string) (*MemCtx, error) {
	b, err := j.Recorded(ctx, ScopeMemCtx, MemCtxKey(runID))
	if errors.Is(err, ErrNotFound) {
		return nil, j.runNotFound(ctx, runID)
	}
	if err != nil {
		return nil, err
	}
	var rec MemCtx
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("journal: decode memctx %s: %w", runID, err)
	}
	return &rec, nil
}

// RawMemCtx returns the stored bytes of runID's record, or an ErrNotFound
// naming the run, as MemCtx does.
func (j *Journal) RawMemCtx(ctx context.Context, runID string) ([]byte, error) {
	b, err := j.Recorded(ctx, ScopeMemCtx, MemCtxKey(runID))
	if errors.Is(err, ErrNotFound) {
		return nil, j.runNotFound(ctx, runID)
	}
	return b, err
}

// runNotFound is the ErrNotFound of runID, which has no memctx record: a
// *RunErasedError when its claim's owner is a tombstone, a
// *RunPrunedError (with the run's dispatches) when it is not, else (no
// claim, or the claim unreadable) the plain one. A failure to list the
// dispatches leaves them out, unless ctx is done (ctx's error).
func (j *Journal) runNotFound(ctx context.Context, runID string) error {
	var thread, resource string
	err := j.stmts.QueryRow(ctx, `SELECT thread_id, resource_id FROM runs WHERE id = ?`, runID).Scan(&thread, &resource)
	switch {
	case err != nil:
		return &runNotFoundError{runID}
	case isTombstone(resource):
		return &RunErasedError{RunID: runID}
	case isTombstone(thread):
		return &RunErasedError{RunID: runID, ResourceID: resource}
	}
	pe := &RunPrunedError{RunID: runID, ThreadID: thread, ResourceID: resource}
	ds, err := RunDispatches(ctx, j.conn, runID, MaxRunDispatchesNamed+1)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if len(ds) > MaxRunDispatchesNamed {
		ds, pe.MoreDispatches = ds[:MaxRunDispatchesNamed], true
	}
	pe.Dispatches = ds
	return pe
}

// MaxRunsLimit is the largest page of runs GET /v1/runs?limit= and mnemo
// runs --limit take: they refuse more (ListRuns itself takes any Limit).
const MaxRunsLimit = 1000

// RunFilter selects runs for ListRuns. The zero value lists every run, newest
// first, 100 at a time.
type RunFilter struct {
	ThreadID   string // only this thread's runs when set: of the thread's owner, or of ResourceID when set, or of every resource with EveryResource
	ResourceID string // only this resource's runs when set
	// EveryResource, with ThreadID and no ResourceID, lists every
	// resource's runs on the thread id (an operator's view): also those
	// another resource recorded on it before the thread's owner created
	// it, which are that resource's.
	EveryResource bool
	Limit         int // page size; 0 means 100
	// Before, when set, lists only the runs after it in the listing's
	// order (newest first): the next page after a page whose last run
	// had this key (RunInfo.Key). It reads about a page of rows wherever
	// it starts, and a run recorded or erased meanwhile moves no other.
	Before *RunKey
	Offset int // runs to skip (after Before): reads every run skipped
}

// RunKey is a run's place in ListRuns' order: its record's creation time
// (Unix milliseconds), then its record's key (MemCtxKey of the id) in
// byte order, newer and greater first.
type RunKey struct {
	// CreatedAt is the record's creation time, Unix milliseconds.
	CreatedAt int64
	// RunID is the run's id.
	RunID string
}

// Key returns r's place in ListRuns' order.
func (r RunInfo) Key() RunKey { return RunKey{CreatedAt: r.CreatedAt, RunID: r.RunID} }

// RunInfo summarises one run for listings.
type RunInfo struct {
	// RunID is the run's id.
	RunID string `json:"runId"`
	// ThreadID is the run's thread.
	ThreadID string `json:"threadId"`
	// ResourceID is the thread's resource.
	ResourceID string `json:"resourceId"`
	CreatedAt  int64  `json:"createdAtMs"` // Unix milliseconds
}

// ListRuns lists runs with a memctx record, newest first (runs of one
// millisecond by run id, in descending byte order on both backends), a
// page of f.Limit after f.Before (journal_memctx_by_time, or the index by
// resource or thread, holds the order).
//
// With ThreadID set and the thread existing, only runs recorded under the
// thread's owning resource are listed: thread ids are global, so another
// resource may have loaded context on the id before the thread was created
// (a first turn it never appended), and its run, recorded under its own
// resource, must not be shown to the owner. Such a run is still listed by
// its resource, and by the thread id with ResourceID set to its resource
// (the filter then lists that resource's runs on the id alone, whoever
// owns the thread), and with EveryResource. A thread that does not exist
// has no owner to check against.
func (j *Journal) ListRuns(ctx context.Context, f RunFilter) ([]RunInfo, error) {
	q, args := j.runsQuery(f)
	rows, err := j.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("journal: list runs: %w", err)
	}
	defer rows.Close()
	var out []RunInfo
	for rows.Next() {
		var r RunInfo
		var key string
		if err := rows.Scan(&key, &r.ThreadID, &r.ResourceID, &r.CreatedAt); err != nil {
			return nil, fmt.Errorf("journal: list runs: %w", err)
		}
		r.RunID = key[:len(key)-len(":memctx")]
		out = append(out, r)
	}
	return out, rows.Err()
}

// runsQuery is ListRuns' statement and arguments.
func (j *Journal) runsQuery(f RunFilter) (string, []any) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	// The scope is written, not bound: a partial index serves only a
	// condition that names its scope. Without statistics (mnemo runs no
	// ANALYZE on SQLite) SQLite prefers the primary key's equality on
	// scope and sorts every record: the listing of every run names its
	// index.
	from := ` FROM journal`
	if f.ThreadID == "" && f.ResourceID == "" {
		from += j.dialect.Text(` INDEXED BY journal_memctx_by_time`, ``)
	}
	q := `SELECT key, thread_id, resource_id, created_at` + from + ` WHERE scope = '` + ScopeMemCtx + `'`
	var args []any
	if b := f.Before; b != nil {
		// created_at <= ? first: the range the indexes by time walk.
		q += ` AND created_at <= ? AND (created_at < ? OR key` + j.dialect.Text(``, ` COLLATE "C"`) + ` < ?)`
		args = append(args, b.CreatedAt, b.CreatedAt, MemCtxKey(b.RunID))
	}
	switch {
	case f.ThreadID != "" && (f.ResourceID != "" || f.EveryResource):
		q += ` AND thread_id = ?` // that resource's runs, or every one's: no other's to hide
		args = append(args, f.ThreadID)
	case f.ThreadID != "":
		q += ` AND thread_id = ? AND resource_id = COALESCE((SELECT t.resource_id FROM threads t WHERE t.id = ?), resource_id)`
		args = append(args, f.ThreadID, f.ThreadID)
	}
	if f.ResourceID != "" {
		q += ` AND resource_id = ?`
		args = append(args, f.ResourceID)
	}
	return q + j.newestFirst() + ` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)
}

// isUniqueViolation reports whether err is a primary key or unique
// constraint violation, from SQLite (modernc's error code) or Postgres
// (pgx's *pgconn.PgError, matched by its SQLSTATE method so that the
// journal does not link pgx).
func isUniqueViolation(err error) bool {
	var e interface{ Code() int }
	if errors.As(err, &e) {
		return e.Code() == 1555 || e.Code() == 2067 // SQLITE_CONSTRAINT_PRIMARYKEY, _UNIQUE
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		return pg.SQLState() == "23505" // unique_violation
	}
	return false
}
