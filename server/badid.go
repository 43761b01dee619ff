package server

import (
	"github.com/mnemo-go/mnemo/engine"
)

// badID is the one problem for an id given in field (a path's "thread",
// "run" or "message", a member or parameter's "resourceId") that the API
// refuses: the field as subject, the rule (engine.IDRule, or
// engine.NewIDRule when the id names something new), and what the id
// given broke, so that each id error, on any route, is one sentence of
// one form:
//
//	thread must be 1-128 characters of [A-Za-z0-9_.:@-]; got 0xff at byte 0, which is not UTF-8
//	thread must be 1-128 characters of [A-Za-z0-9_.:@-], and not "." or ".." (which URLs read as dot segments); got ".."
//
// (A GET of /v1/threads/%ff said "the thread id must be …" where an
// append to it said "thread must be …, and not …", and neither said what
// was wrong with the id.) The id is the caller's own; a character is
// quoted with Go's escapes (strconv.Quote: a control or bidirectional
// character as \u202e), and a byte that is not UTF-8 is given in hex.
//
// An id the engine refuses (a *engine.ValidationError with Got: a body's
// runId, messages[i].id, …) is worded the same by classify (idProblem).
func badID(field, id string, isNew bool) *apiError {
	rule := engine.IDRule
	if isNew {
		rule = engine.NewIDRule
	}
	return errorf(kindInvalid, field, "%s %s; got %s", field, rule, engine.IDFault(id))
}

// idProblem words ve, an engine's refusal of the id in field (ve.Got set)
// as badID words the server's own: `FIELD RULE; got GOT`, where the
// engine's error says `invalid FIELD: RULE; got GOT`.
func idProblem(field string, ve *engine.ValidationError) *apiError {
	return errorf(kindInvalid, field, "%s %s; got %s", field, ve.Rule, ve.Got)
}
