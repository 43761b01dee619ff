package server

import (
	"fmt"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
)

// answerTooLarge is the 422 answer-too-large problem of an
// *engine.AnswerTooLargeError: its field is the first request field that
// shrinks the answer, and its detail names them all, or, when no field of
// the request does, what does: for a recent window that holds the
// thread's unobserved tail (the observer is behind) the observer catching
// up and the server's observe.maxUnobservedTokens, not recentN (which
// does not shrink it); for a pending turn over the bound, its answer or a
// larger limits.maxAnswerBytes. No field is named then.
func answerTooLarge(at *engine.AnswerTooLargeError) *apiError {
	field := ""
	if len(at.Fields) > 0 {
		field = at.Fields[0]
	}
	lower := strings.Join(at.Fields, " or ")
	behind, observe := "the observer is behind", "the server's observe.background, or mnemo observe"
	switch {
	case at.ObserveDue:
	case at.Observable > 0:
		// The observer waits for observe.threshold: mnemo observe
		// without --force, and the background observer, do nothing.
		behind, observe = "the observer waits until they reach the server's observe.threshold tokens", "mnemo observe --force"
	default:
		// Nor with --force: the server's recent window holds them all.
		behind, observe = "the observer never observes the server's recent window, and it holds them all", "mnemo observe --force --recent N, N below the server's recentN"
	}
	var detail string
	switch {
	case at.Pending > 0:
		detail = fmt.Sprintf("the thread's pending turn (%d messages no assistant answer follows yet, which the recent window always holds) passes %d bytes (the server's limits.maxAnswerBytes); no field of the request shrinks it: append the answer, or a server with a larger limits.maxAnswerBytes loads it",
			at.Pending, at.Limit)
	case at.Unobserved > 0 && field == "":
		detail = fmt.Sprintf("the recent window passes %d bytes (the server's limits.maxAnswerBytes): it holds the %d messages of the thread the observer has not distilled yet, whatever recentN; %s: once it observes the thread (%s) the window shrinks to recentN, and a lower observe.maxUnobservedTokens on the server bounds it",
			at.Limit, at.Unobserved, behind, observe)
	case at.Unobserved > 0:
		detail = fmt.Sprintf("the answer's messages pass %d bytes (the server's limits.maxAnswerBytes); lower %s (the recent window holds the %d messages of the thread the observer has not distilled yet, whatever recentN: %s; %s observes them)",
			at.Limit, lower, at.Unobserved, behind, observe)
	default:
		detail = fmt.Sprintf("the answer's messages pass %d bytes (the server's limits.maxAnswerBytes); lower %s", at.Limit, lower)
	}
	return &apiError{kind: kindAnswerSize, field: field, detail: detail}
}
