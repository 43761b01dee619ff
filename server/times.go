package server

import (
	"encoding/json"
	"time"
)

// ParseTime reads the RFC 3339 time value of the body field field (for
// an adapter whose input holds times as strings, such as the MCP tools'
// "at"): nil for "", as an absent field; a malformed value is refused
// with the error POST /v1/search gives for it (kindInvalid naming field:
// `"at" is malformed: parsing time …`).
func ParseTime(field, value string) (*time.Time, error) {
	if value == "" {
		return nil, nil
	}
	q, _ := json.Marshal(value)
	var t time.Time
	if err := t.UnmarshalJSON(q); err != nil {
		return nil, errorf(kindInvalid, field, "%s is malformed: %v", fieldName(field), err)
	}
	return &t, nil
}
