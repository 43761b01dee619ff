package server

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
)

// idRule is the rule of an id that a read, an erasure or a lookup takes
// (engine.ValidID).
const idRule = "must be 1-128 characters of [A-Za-z0-9_.:@-]"

// dotClause is what an id that names something new must also be
// (engine.ValidNewID).
const dotClause = `, and not "." or ".." (which URLs read as dot segments)`

// badID is the one problem for an id given in field (a path's "thread",
// "run" or "message", a member or parameter's "resourceId") that the API
// refuses: the field as subject, the rule (with dotClause when the id
// names something new), and what the id given broke, so that each id
// error, on any route, is one sentence of one form:
//
//	thread must be 1-128 characters of [A-Za-z0-9_.:@-]; got 0xff at byte 0, which is not UTF-8
//	thread must be 1-128 characters of [A-Za-z0-9_.:@-], and not "." or ".." (which URLs read as dot segments); got ".."
//
// (A GET of /v1/threads/%ff said "the thread id must be …" where an
// append to it said "thread must be …, and not …", and neither said what
// was wrong with the id.) The id is the caller's own; a character is
// quoted with Go's escapes (strconv.Quote: a control or bidirectional
// character as \u202e), and a byte that is not UTF-8 is given in hex.
func badID(field, id string, isNew bool) *apiError {
	rule := idRule
	if isNew {
		rule += dotClause
	}
	return errorf(kindInvalid, field, "%s %s; got %s", field, rule, idFault(id))
}

// idFault says what id breaks of engine.ValidNewID's rule, for badID.
func idFault(id string) string {
	switch {
	case id == "":
		return "an empty id"
	case len(id) > 128:
		return fmt.Sprintf("an id of %d bytes", len(id))
	case id == "." || id == "..":
		return strconv.Quote(id)
	}
	for i := 0; i < len(id); {
		r, n := utf8.DecodeRuneInString(id[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return fmt.Sprintf("0x%02x at byte %d, which is not UTF-8", id[i], i)
		case !engine.ValidID(id[i : i+n]):
			return fmt.Sprintf("%s at byte %d", strconv.Quote(id[i:i+n]), i)
		}
		i += n
	}
	return strconv.Quote(id)
}
