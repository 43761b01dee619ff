package observe

import (
	"errors"
	"fmt"
)

// ErrModel is returned by Observe, Reflect and OpenAIModel.Complete when the
// model call failed after its retries (transport error, HTTP error status).
// The wrapped error carries the cause.
var ErrModel = errors.New("observe: model call failed")

// ErrEmptyAnswer is returned by Observe and Reflect when the model answered
// nothing usable: an empty text, a null list, a list whose every item was
// dropped (no text, restating the instructions, citing only seqs outside
// the chunk), or an empty reflection. Nothing is stored or memoized. The
// observer's explicit empty list ({"observations": []}, the chunk held
// nothing worth keeping) is not an error: it is recorded, and stored as an
// empty observation that moves the watermark past the chunk.
var ErrEmptyAnswer = errors.New("observe: model returned an empty answer")

// ErrPartial is matched, besides its cause, by the error Observe returns
// when it stored observations (or a reflection) before failing: the
// Result returned with it lists them, and they stay stored.
var ErrPartial = errors.New("observe: stopped after storing part of the work")

// partialError is Observe's error after it stored something: it matches
// ErrPartial and its cause.
type partialError struct {
	stored int
	err    error
}

// Error names what was stored, then the cause.
func (e *partialError) Error() string {
	return fmt.Sprintf("observe: %d observation(s) stored, then: %v", e.stored, e.err)
}

// Unwrap gives ErrPartial and the cause, for errors.Is and errors.As.
func (e *partialError) Unwrap() []error { return []error{ErrPartial, e.err} }

// Partial returns the error of a run of several Observe calls that
// stored stored observations and skips in all before it stopped on err:
// it matches ErrPartial and err's cause (errors.Is), and its text counts
// stored ("observe: 73 observation(s) stored, then: context canceled").
// When err is Observe's own partial error, which counts one call's, its
// cause is kept and its count replaced.
func Partial(stored int, err error) error {
	if p, ok := err.(*partialError); ok {
		err = p.err
	}
	return &partialError{stored: stored, err: err}
}

// ErrMalformedAnswer is returned by Observe and Reflect when the model's answer
// is not the JSON shape the prompt asks for. Nothing is stored or memoized.
var ErrMalformedAnswer = errors.New("observe: model returned a malformed answer")

// ErrConfig is returned by New when a required Config field is missing or a
// value is out of range; the message names the field.
var ErrConfig = errors.New("observe: invalid config")

// ErrInvalidFilter is matched (through a *FilterError) by the error List
// and Search return for a Filter they cannot answer: one naming neither a
// thread nor a resource. Nothing is read. (It was ErrConfig, a
// configuration error, for bad input.)
var ErrInvalidFilter = errors.New("observe: invalid filter")

// FilterError says which field of a Filter breaks which rule;
// errors.Is(err, ErrInvalidFilter) holds for every *FilterError. Branch on
// Field, never on the text.
type FilterError struct {
	// Field is the Filter field at fault by its Go name: "Filter" for the
	// filter as a whole (neither ThreadID nor ResourceID set).
	Field string
	// Rule says what Field must be: "needs a ThreadID or a ResourceID".
	Rule string
}

// Error implements error: "observe: invalid filter: " and the Rule.
func (e *FilterError) Error() string { return ErrInvalidFilter.Error() + ": " + e.Field + " " + e.Rule }

// Is reports ErrInvalidFilter as matching every FilterError.
func (e *FilterError) Is(target error) bool { return target == ErrInvalidFilter }

// ErrSourcesChanged is returned by Reflect when the observations it condensed
// were retired or invalidated by someone else before the reflection was
// stored. Nothing is stored; the next call starts over.
var ErrSourcesChanged = errors.New("observe: reflection sources changed")

// ErrTurnsErased is returned by Observe and ObserveRange when an erasure in
// the thread committed while the observer ran (another process's, which
// the engine's in-process fence does not reach): a turn the answer was
// distilled from is gone from the Source, or Invalidate forgot the
// thread's memo entries after the observer read its answer. The answer
// may hold erased turns: nothing is stored; the next call reads the turns
// again.
var ErrTurnsErased = errors.New("observe: turns erased while the observer ran")

// ErrCallTimeout is matched by the error Observe and Reflect return when
// one model call ran out of Config.CallTimeout while the caller's context
// was still live. Its text names the bound: "observe: the model call did
// not answer within 2m0s (the observer's call bound: observe.callTimeout
// in mnemo.json, Config.CallTimeout in Go): " and the model's error, which
// it wraps too (for OpenAIModel, ErrModel and context.DeadlineExceeded).
var ErrCallTimeout = errors.New("observe: the model call did not answer")

// ErrThreadBusy is matched by the error Observe returns with
// Options.NoWait when another process is observing the thread (on
// Postgres; lockAcross). Nothing was done; that process observes the
// thread.
var ErrThreadBusy = errors.New("observe: another process is observing the thread")

// ErrModelRefused is matched, besides ErrModel, by the error
// OpenAIModel.Complete returns when the endpoint refused the call for
// what it is rather than for its prompt (HTTP 401, 402 or 404, and a 403
// whose body does not speak of the content: an API key it does not take,
// a quota used up, a model it does not serve), and
// by the error Observe and Reflect return then. Every call would fail the
// same way: the Observer backs off every thread's calls at once (1, 2,
// 4, then at most 8 minutes), with one WARN line when it starts
// (Observer.Backoffs lists it with Call BackoffModel).
var ErrModelRefused = errors.New("observe: the model endpoint refused the call (its API key, quota or model name)")

// ErrInputTooLong is matched, besides ErrModel, by the error
// OpenAIModel.Complete returns when the endpoint said the prompt is over
// the model's context length (HTTP 413, or an HTTP 400 whose code is
// context_length_exceeded or whose message speaks of the context length
// or size). The observer then sends a smaller chunk at once, and keeps
// its chunks below half the failed one's tokens from then on; a chunk
// that cannot be cut (one tool-call group) and the reflector's input back
// off as an unusable answer does.
var ErrInputTooLong = errors.New("observe: the prompt is longer than the model's context")

// ErrRequestRejected is matched, besides ErrModel, by the error
// OpenAIModel.Complete returns for another HTTP 4xx status that is not
// retried (400, 422, …; 408, 409 and 429 are retried): the endpoint
// refuses this request and would refuse it again. Observe and Reflect
// back off as after an unusable answer.
var ErrRequestRejected = errors.New("observe: the model endpoint rejected the request")

// ErrContentRefused is matched, besides ErrModel, by the error
// OpenAIModel.Complete returns when the endpoint refused this request for
// its content: a content filter or moderation flagged the prompt (an HTTP
// 4xx but 401, 402, 404 whose error code, type or Azure inner code is
// content_filter, content_policy_violation, invalid_prompt or
// ResponsibleAIPolicyViolation, or whose message speaks of a flagged
// input, moderation, a content filter or policy, or a guardrail: Azure's
// 400, OpenAI's 400, OpenRouter's 403). Another prompt may pass, so it
// concerns the refused call alone; other threads' calls go on:
//   - Observe's chunk refused is cut in two and sent again at once until
//     the refused turns are alone (one message, or one tool-call group);
//     those are then skipped (Skip: Result.Skipped, Skips), the thread
//     observed past them, and Observe returns no error for them; but
//     only once the endpoint answered a short harmless probe (one
//     answered within the last minute stands for up to 8 skips); after
//     two skips in a row the thread's next turns go one at a time until
//     one is answered. The probe
//     refused for its content too is ErrAllContentRefused (every call
//     backs off); the probe failing otherwise (a timeout, a 5xx) skips
//     nothing: Observe returns this error and the thread's observer backs
//     off on those turns (1, 2, 4, then at most 8 minutes).
//   - ObserveRange's range refused is returned, with a WARN line; nothing
//     is skipped and nothing backs off.
//   - A skip sent again under another model (Skip.Model, retrySkips)
//     refused again is recorded, once the endpoint answered the probe,
//     and not sent again under that model; the skip stays, and Observe
//     returns no error for it.
//   - The reflector's prompt refused is returned by Observe and Reflect
//     and backs that thread's reflector off from the first refusal (1, 2,
//     4, then at most 8 minutes), a WARN line each; the observer goes on.
//
// Before, a 403 of moderation was ErrModelRefused and held every thread's
// calls, and an observer chunk refused backed the thread's observer off
// and was sent again every 8 minutes for ever.
var ErrContentRefused = errors.New("observe: the model endpoint refused the request's content (a content filter or moderation)")

// ErrAllContentRefused is matched, besides ErrContentRefused and
// ErrModelRefused, by the error Observe returns when the endpoint refused
// turns sent alone for their content and then refused a short harmless
// probe for its content too: it refuses every prompt (a moderation proxy
// or content filter that flags everything, a provider outage answering
// 400 content_filter to all). Nothing is skipped (a skip is for good):
// every thread's calls back off as after ErrModelRefused (1, 2, 4, then at
// most 8 minutes, Observer.Backoffs lists it with Call BackoffModel), with
// one WARN line when it starts, until a call is answered; the turns are
// observed then.
var ErrAllContentRefused error = allContentRefused{}

// allContentRefused is ErrAllContentRefused: a type so that it matches
// ErrModelRefused too (its Is), every call backing off.
type allContentRefused struct{}

// Error says what the endpoint does and what may cause it.
func (allContentRefused) Error() string {
	return "observe: the model endpoint refuses the content of every prompt, a short harmless probe's too (a moderation proxy or content filter that flags everything, or a provider outage)"
}

// Is reports ErrModelRefused as matching: every call backs off.
func (allContentRefused) Is(target error) bool { return target == ErrModelRefused }
