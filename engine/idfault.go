package engine

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// IDFault says what id breaks of ValidNewID's rule, in words a refusal
// ends with after "; got ": `an empty id`, `an id of 129 bytes`,
// `".."`, `" " at byte 1` (the first character outside the rule, quoted
// with Go's escapes: a control or bidirectional character as \u202e),
// `0xff at byte 0, which is not UTF-8`, `"erased-x", which begins with
// the reserved prefix "erased-"` (TombstonePrefix, once its characters are
// within the rule). An id within the rule is given quoted. The id is the caller's own: a refusal may carry it.
func IDFault(id string) string {
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
		case !ValidID(id[i : i+n]):
			return fmt.Sprintf("%s at byte %d", strconv.Quote(id[i:i+n]), i)
		}
		i += n
	}
	if strings.HasPrefix(id, TombstonePrefix) {
		return fmt.Sprintf("%s, which begins with the reserved prefix %s", strconv.Quote(id), strconv.Quote(TombstonePrefix))
	}
	return strconv.Quote(id)
}

// badID is the *ValidationError of id, refused in field (of message
// index, -1 for the request): the rule of a stored id (IDRule, ValidID)
// or, when isNew, of a new one (NewIDRule, ValidNewID), and what id broke
// (Got: IDFault). The server words it as its own ids' refusals:
// `FIELD must be …; got …`.
func badID(index int, field, id string, isNew bool) *ValidationError {
	rule := IDRule
	if isNew {
		rule = NewIDRule
	}
	return &ValidationError{Index: index, Field: field, Rule: rule, Got: IDFault(id)}
}
