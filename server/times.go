package server

import (
	"time"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// ParseTime reads the RFC 3339 time value of the body field field (for
// an adapter whose input holds times as strings, such as the MCP tools'
// "at"): nil for "", as an absent field; a malformed value is refused
// with the error POST /v1/search gives for it (a 400 naming field:
// `"at" is malformed: parsing time …`), which names value as given
// (json.Marshal's quoting named "<" as \u003c).
func ParseTime(field, value string) (*time.Time, error) {
	if value == "" {
		return nil, nil
	}
	q, _ := jsonkey.Marshal(value)
	var t time.Time
	if err := t.UnmarshalJSON(q); err != nil {
		return nil, errorf(kindInvalid, field, "%s is malformed: %v", fieldName(field), err)
	}
	return &t, nil
}

// checkTime refuses an explicit zero time in the body field field
// (kindInvalid): 0001-01-01T00:00:00Z is what a client's unset time value
// marshals to, almost surely a bug, where leaving the field out means the
// server clock. nil (absent) passes.
func checkTime(field string, t *time.Time) error {
	if t != nil && t.IsZero() {
		return errorf(kindInvalid, field, "%s is the zero time (0001-01-01T00:00:00Z), which is no time anyone meant: leave it out for the server clock", fieldName(field))
	}
	return nil
}
