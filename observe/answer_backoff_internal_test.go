package observe

import (
	"fmt"
	"testing"
	"time"
)

// TestAnswerBackoffSchedule: the waits after unusable answers in a row:
// none after the first, then doubling from firstAnswerBackoff up to
// maxAnswerBackoff, per thread and call; a usable answer forgets them.
func TestAnswerBackoffSchedule(t *testing.T) {
	var b answerBackoff
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	for i, want := range []time.Duration{0, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 8 * time.Minute} {
		if got, _ := b.failed(callObserver, "t", 1, now, failPrompt, ErrEmptyAnswer); got != want {
			t.Fatalf("failure %d: wait %v, want %v", i+1, got, want)
		}
	}
	if b.waiting(callObserver, "t", now.Add(8*time.Minute-time.Nanosecond)).IsZero() {
		t.Fatal("not waiting within the back-off")
	}
	if !b.waiting(callObserver, "t", now.Add(8*time.Minute)).IsZero() {
		t.Fatal("waiting once the back-off passed")
	}
	if !b.waiting(callReflector, "t", now).IsZero() {
		t.Fatal("the observer's back-off held the reflector")
	}
	if !b.waiting(callObserver, "u", now).IsZero() {
		t.Fatal("thread t's back-off held thread u")
	}
	b.succeeded(callObserver, "t", 1, 10)
	if got, _ := b.failed(callObserver, "t", 1, now, failPrompt, ErrEmptyAnswer); got != 0 {
		t.Fatalf("after a usable answer: wait %v, want none", got)
	}
}

// TestUnusableAnswer: which failures back off. A failed or timed-out call
// is tried again at the next observation.
func TestUnusableAnswer(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("observe t 1..2: %w: tool calls", ErrMalformedAnswer), true},
		{fmt.Errorf("observe t 1..2: %w", ErrEmptyAnswer), true},
		{fmt.Errorf("observe t 1..2: %w: 503", ErrModel), false},
		{fmt.Errorf("observe t 1..2: %w", ErrCallTimeout), false},
		{fmt.Errorf("observe t 1..2: %w (%w): 400", ErrModel, ErrInputTooLong), true},
		{fmt.Errorf("observe t 1..2: %w (%w): 422", ErrModel, ErrRequestRejected), true},
		{fmt.Errorf("observe t 1..2: %w (%w): 401", ErrModel, ErrModelRefused), false},   // every thread's: failRefused
		{fmt.Errorf("observe t 1..2: %w (%w): 403", ErrModel, ErrContentRefused), false}, // the thread's from the first: failContent
	} {
		if got := unusableAnswer(c.err); got != c.want {
			t.Errorf("unusableAnswer(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestContentBackoffSchedule: a refused content backs the thread's call
// off from the first failure (1, 2, 4, 8 minutes), the thread's only.
func TestContentBackoffSchedule(t *testing.T) {
	var b answerBackoff
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	for i, want := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 8 * time.Minute} {
		if got, started := b.failed(callObserver, "t", 1, now, failContent, ErrContentRefused); got != want || started {
			t.Fatalf("failure %d: wait %v (the endpoint's refusal started: %v), want %v", i+1, got, started, want)
		}
	}
	if !b.waiting(callObserver, "u", now).IsZero() || !b.refused.until.IsZero() {
		t.Fatal("thread t's refused content held thread u")
	}
}

// TestObserverBackoffIsTheChunks: a thread's observer backs off on the
// chunk it failed on: a success over another range keeps it, one over
// that chunk ends it, and a next chunk that starts elsewhere (observed
// by another process) drops it.
func TestObserverBackoffIsTheChunks(t *testing.T) {
	var b answerBackoff
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	b.failed(callObserver, "t", 11, now, failContent, ErrContentRefused)
	b.succeeded(callObserver, "t", 1, 10)
	if b.observerWaiting("t", 11, now).IsZero() {
		t.Fatal("a success over 1..10 ended the back-off on the chunk from 11")
	}
	b.succeeded(callObserver, "t", 11, 20)
	if !b.observerWaiting("t", 11, now).IsZero() {
		t.Fatal("the chunk from 11 observed, and still backing off")
	}
	b.failed(callObserver, "t", 11, now, failContent, ErrContentRefused)
	if !b.observerWaiting("t", 21, now).IsZero() || len(b.list("t", now)) != 0 {
		t.Fatal("the next chunk starts at 21, and still backing off on the one from 11")
	}
}
