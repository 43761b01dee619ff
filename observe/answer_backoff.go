package observe

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"
)

// First and last wait of the back-off after failures in a row
// (answerBackoff): after unusable answers none after the first (a model
// may answer better the next time), 1 minute after the second; after a
// refusal of the endpoint (ErrModelRefused) or of a prompt's content
// (ErrContentRefused) 1 minute after the first; doubled at each further
// one, at most 8.
const (
	firstAnswerBackoff = time.Minute
	maxAnswerBackoff   = 8 * time.Minute
)

// Calls a Backoff names.
const (
	// BackoffObserver is a thread's observer backing off.
	BackoffObserver = "observer"
	// BackoffReflector is a thread's reflector backing off.
	BackoffReflector = "reflector"
	// BackoffModel is every call backing off: the endpoint refused the
	// key, the quota or the model (ErrModelRefused).
	BackoffModel = "model"
)

// Backoff is a model call that waits after failures in a row: no call
// before Until (by Config.Now) unless forced (Options.Force).
// Observer.Backoffs lists them; Result.Backoffs lists a thread's after
// each Observe. They live in the Observer: a restart forgets them.
type Backoff struct {
	// Call is BackoffObserver, BackoffReflector or BackoffModel.
	Call string `json:"call"`
	// ThreadID is the thread whose call waits; empty for BackoffModel.
	ThreadID string `json:"threadId,omitempty"`
	// Failures counts the failures in a row.
	Failures int `json:"failures"`
	// Until is when the next call may be made (the retry-after).
	Until time.Time `json:"until"`
	// Err is the last failure's error text.
	Err string `json:"err"`
}

// answerBackoff holds, per thread and per call (observer, reflector), the
// back-off after failures that the same prompt would meet again
// (failureKind: unusable answers, a rejected or too long prompt) twice
// or more in a row, or once for a prompt whose content the endpoint
// refused, and, for every thread at once, the back-off after the
// endpoint refused the key, quota or model. A thread's observer backs
// off on one chunk, the one starting at from: observing that chunk ends
// it (a model answer or the memo's, here or in another process, which
// moves the watermark past it: observerWaiting), another range does not;
// only a model answer ends the endpoint's refusal (a memo entry says
// nothing of the endpoint). At temperature 0 the same
// chunk gets the same answer, so without it a model that always answers
// badly was called at every observation (one call per append with
// Background, per LoadContext with SyncOnLoad), failing the same way
// (obs62); a wrong API key or model name was too (obs64). It lives in the
// Observer: a restart forgets it, and so does Forget, for a thread
// erased. Transient failures (ErrModel without a refusal, ErrCallTimeout)
// do not back off: the next observation tries again, as before.
type answerBackoff struct {
	mu      sync.Mutex
	m       map[backoffKey]answerFailures
	refused answerFailures // the endpoint refusing every call (n 0: not)
}

// answerFailures is one call failing: n failures in a row, the next call
// not before until, the last failure err, on the range starting at seq
// from.
type answerFailures struct {
	n     int
	until time.Time
	err   string
	from  int64
}

// Calls answerBackoff tells apart.
const (
	callObserver  = BackoffObserver
	callReflector = BackoffReflector
)

type backoffKey struct{ call, threadID string }

// failureKind is how a failed call backs off.
type failureKind int

const (
	failTransient failureKind = iota // tried again at the next observation
	failPrompt                       // this prompt fails again: the thread's call backs off from the second in a row
	failContent                      // the endpoint refuses this prompt's content: the thread's call backs off from the first
	failRefused                      // every call fails again: all calls back off from the first
)

// kindOf is err's failureKind: failPrompt for an answer the model would
// give again for the same prompt (ErrMalformedAnswer, ErrEmptyAnswer) and
// a prompt the endpoint would refuse again (ErrInputTooLong,
// ErrRequestRejected); failContent for ErrContentRefused (sending it
// again at once would be refused again, and a flagged request counts
// against the account at some providers); failRefused for
// ErrModelRefused; failTransient for the rest (a failed or timed-out
// call).
func kindOf(err error) failureKind {
	switch {
	case errors.Is(err, ErrModelRefused):
		return failRefused
	case errors.Is(err, ErrContentRefused):
		return failContent
	case errors.Is(err, ErrMalformedAnswer), errors.Is(err, ErrEmptyAnswer),
		errors.Is(err, ErrInputTooLong), errors.Is(err, ErrRequestRejected):
		return failPrompt
	}
	return failTransient
}

// unusableAnswer reports whether err is a failure the same prompt would
// meet again (kindOf: failPrompt).
func unusableAnswer(err error) bool { return kindOf(err) == failPrompt }

// waiting reports until when call on threadID is backing off at now, its
// own or every call's; zero when it is not.
func (b *answerBackoff) waiting(call, threadID string, now time.Time) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	until := b.refused.until
	if f, ok := b.m[backoffKey{call, threadID}]; ok && f.until.After(until) {
		until = f.until
	}
	if !now.Before(until) {
		return time.Time{}
	}
	return until
}

// observerWaiting is waiting for threadID's observer whose next chunk
// starts at seq next: its own back-off holds only while next is the
// chunk it failed on; one of another chunk is dropped (the chunk it
// failed on was observed since: by ObserveRange, or by another process,
// which moved the watermark). The endpoint's refusal holds whatever the
// chunk.
func (b *answerBackoff) observerWaiting(threadID string, next int64, now time.Time) time.Time {
	b.mu.Lock()
	k := backoffKey{callObserver, threadID}
	if f, ok := b.m[k]; ok && f.from != next {
		delete(b.m, k)
	}
	b.mu.Unlock()
	return b.waiting(callObserver, threadID, now)
}

// failed records a failure err of kind of call on threadID's range
// starting at seq from at now and returns how long the next call waits,
// and whether this failure started the endpoint's refusal (failRefused
// after none). A failTransient one changes nothing.
func (b *answerBackoff) failed(call, threadID string, from int64, now time.Time, kind failureKind, err error) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch kind {
	case failRefused:
		f := b.refused
		wait := backoffWait(f.n + 1)
		b.refused = answerFailures{n: f.n + 1, until: now.Add(wait), err: err.Error()}
		return wait, f.n == 0
	case failPrompt, failContent:
		if b.m == nil {
			b.m = make(map[backoffKey]answerFailures)
		}
		k := backoffKey{call, threadID}
		f := b.m[k]
		if call == callObserver && f.from != from {
			f = answerFailures{} // another chunk: its own count
		}
		wait := backoffWait(f.n)
		if kind == failContent {
			wait = backoffWait(f.n + 1)
		}
		b.m[k] = answerFailures{n: f.n + 1, until: now.Add(wait), err: err.Error(), from: from}
		return wait, false
	}
	return 0, false
}

// backoffWait is the wait after the failure that follows n waits' worth
// of failures: none for n 0, then firstAnswerBackoff doubled per failure
// after the first, at most maxAnswerBackoff.
func backoffWait(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	wait := firstAnswerBackoff
	for i := 1; i < n && wait < maxAnswerBackoff; i++ {
		wait *= 2
	}
	return min(wait, maxAnswerBackoff)
}

// succeeded forgets the back-off of call on threadID after it succeeded
// on from..to, by a model answer or the memo's: the reflector's always,
// the observer's when from..to holds the first seq of the chunk it
// failed on (that chunk is observed), not for another range.
func (b *answerBackoff) succeeded(call, threadID string, from, to int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := backoffKey{call, threadID}
	if f, ok := b.m[k]; ok && (call == callReflector || (from <= f.from && f.from <= to)) {
		delete(b.m, k)
	}
}

// answered forgets the endpoint's refusal (it answered a call); it
// reports whether there was one.
func (b *answerBackoff) answered() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	was := b.refused.n > 0
	b.refused = answerFailures{}
	return was
}

// forget drops threadID's back-offs.
func (b *answerBackoff) forget(threadID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, backoffKey{callObserver, threadID})
	delete(b.m, backoffKey{callReflector, threadID})
}

// list is the back-offs in force at now: threadID's ("" for every
// thread's), then the endpoint's refusal; each thread's by call, threads
// by id.
func (b *answerBackoff) list(threadID string, now time.Time) []Backoff {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Backoff
	for k, f := range b.m {
		if (threadID == "" || k.threadID == threadID) && now.Before(f.until) {
			out = append(out, Backoff{Call: k.call, ThreadID: k.threadID, Failures: f.n, Until: f.until, Err: f.err})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ThreadID != out[j].ThreadID {
			return out[i].ThreadID < out[j].ThreadID
		}
		return out[i].Call < out[j].Call
	})
	if f := b.refused; now.Before(f.until) {
		out = append(out, Backoff{Call: BackoffModel, Failures: f.n, Until: f.until, Err: f.err})
	}
	return out
}

// Backoffs lists the model calls backing off now (by Config.Now) after
// failures in a row: threadID's observer and reflector ("" for every
// thread's), and, last, every call's when the endpoint refused the key,
// quota or model (Call BackoffModel). Empty when none; a call listed is
// not made before its Until unless forced. It reads no database.
func (o *Observer) Backoffs(threadID string) []Backoff {
	return o.backoff.list(threadID, o.cfg.Now())
}

// Forget drops what o holds in memory of threadID: its back-offs, its
// mark that its skips under another model were all sent again
// (skipsTried), and its skips in a row (refusedRuns). The engine calls it when the thread, or some of its
// turns, is erased or expires: the turns the failures were met on are
// gone, the erasure forgot the skips from its seq on, and the thread's
// entries would otherwise stay until a restart (a thread erased and
// written again under its id, whose new skips under another model were
// then never sent again).
func (o *Observer) Forget(threadID string) {
	o.backoff.forget(threadID)
	o.skipsTried.Delete(threadID)
	o.refused.forget(threadID)
}

// modelAnswered ends the endpoint's refusal, when there was one, and
// logs that at INFO: complete calls it for each call the model answered.
func (o *Observer) modelAnswered(ctx context.Context) {
	if o.backoff.answered() {
		o.cfg.Logger.InfoContext(ctx, "the model endpoint answers again; the observer's calls resume")
	}
}

// warnFailed logs call's failure err on threadID's range from..to and
// records it (answerBackoff.failed). A transient failure and the first
// failPrompt one in a row are a WARN line each; from the second failPrompt
// one in a row the thread's call backs off, and the line names the cause
// (err), how long it waits (retryIn) and what to change. A refused
// content backs the thread's call off from the first, a WARN line each
// naming the thread (thread). The endpoint's refusal is one WARN line
// when it starts, DEBUG while it lasts.
func (o *Observer) warnFailed(ctx context.Context, call, threadID string, from, to int64, err error) {
	attrs := []any{"thread", threadID, "fromSeq", from, "toSeq", to, "err", err}
	kind := kindOf(err)
	wait, started := o.backoff.failed(call, threadID, from, o.cfg.Now(), kind, err)
	switch {
	case kind == failRefused && started && errors.Is(err, ErrAllContentRefused):
		o.cfg.Logger.WarnContext(ctx, "the model endpoint refuses the content of every prompt: turns sent alone were refused for their content, then a short harmless probe was too (a moderation proxy or content filter that flags everything, or a provider outage); nothing is skipped: no observer or reflector call on any thread before retryIn (1 minute after the first refusal), then the waits double after each further refusal (2, 4, then 8 minutes, 8 from then on) until a call is answered, and the turns are observed then (a forced observation tries at once); check the endpoint's filter (observe.endpoint or OPENAI_BASE_URL) or the provider's status; not logged again until then",
			append(attrs, "call", call, "retryIn", wait.String())...)
	case kind == failRefused && started:
		o.cfg.Logger.WarnContext(ctx, "the model endpoint refuses the observer's calls (its API key, quota or model name: check observe.apiKeyEnv's variable and observe.model); no observer or reflector call on any thread before retryIn (1 minute after the first refusal), then the waits double after each further refusal (2, 4, then 8 minutes, 8 from then on) until one succeeds (a forced observation tries at once); not logged again until then",
			append(attrs, "call", call, "retryIn", wait.String())...)
	case kind == failRefused:
		o.cfg.Logger.DebugContext(ctx, "the model endpoint still refuses the observer's calls", append(attrs, "call", call, "retryIn", wait.String())...)
	case kind == failContent:
		o.cfg.Logger.WarnContext(ctx, "the model endpoint refused the content of one thread's prompt (a content filter or moderation flagged it); only this thread's call backs off: no call before retryIn (1 minute after the first refusal), then the waits double after each further refusal (2, 4, then 8 minutes, 8 from then on) (a forced observation or a restart tries at once), the range stays unobserved (the reflector's: the observations stay live); other threads' calls go on (Observe cuts a refused chunk and skips the refused turns; this call could not be cut: the reflector's input, every live observation of the thread, or a chunk that could not be skipped). Use an endpoint or deployment whose filter takes these turns, or erase the flagged turns",
			append(attrs, "call", call, "retryIn", wait.String())...)
	case wait == 0 && call == callReflector:
		o.cfg.Logger.WarnContext(ctx, "reflector call failed; observations stay live", attrs...)
	case wait == 0:
		o.cfg.Logger.WarnContext(ctx, "observer call failed; will retry later", attrs...)
	case call == callReflector:
		o.cfg.Logger.WarnContext(ctx, "reflector answer unusable again; the thread's reflector backs off: no call before retryIn, the observations stay live (a forced reflection or a restart tries at once): use a model that answers the JSON asked for, within its context (observe.reflectThreshold bounds the reflector's input)",
			append(attrs, "retryIn", wait.String())...)
	default:
		o.cfg.Logger.WarnContext(ctx, "observer answer unusable again; the thread's observer backs off: no call before retryIn, the range stays unobserved (the next usable answer observes all of it; a forced observation or a restart tries at once): use a model that answers the JSON asked for",
			append(attrs, "retryIn", wait.String())...)
	}
}
