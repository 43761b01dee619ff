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
		if got, _ := b.failed(callObserver, "t", now, failPrompt, ErrEmptyAnswer); got != want {
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
	b.succeeded(callObserver, "t")
	if got, _ := b.failed(callObserver, "t", now, failPrompt, ErrEmptyAnswer); got != 0 {
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
		{fmt.Errorf("observe t 1..2: %w (%w): 401", ErrModel, ErrModelRefused), false}, // every thread's: failRefused
	} {
		if got := unusableAnswer(c.err); got != c.want {
			t.Errorf("unusableAnswer(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
