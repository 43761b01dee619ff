package main

import (
	"bytes"
	"encoding/json"
)

// Bounds of what lineIDScan keeps of an over-long line: a member name
// (with its quotes and escapes) and the raw value of a top-level member.
// An id longer than maxScanValue is not given back (null).
const (
	maxScanKey   = 64
	maxScanValue = 256
)

// lineIDScan finds the top-level "id" and "method" members of a JSON-RPC
// line fed to it in chunks, keeping at most maxScanKey+maxScanValue bytes
// whatever the line's length: `mnemo mcp` reads a line over maxMCPLine to
// its end to skip it, and answers it with the request's id (the TS SDK
// writes "id" last, after params, so the whole line is scanned).
//
// Neither go-json-experiment/json's jsontext nor buger/jsonparser (both in
// go.mod) fits: jsontext's Decoder holds a whole token (a 1 GiB string is
// 1 GiB of memory) and jsonparser reads a []byte held whole. The scanner
// tracks depth and string/escape state only; it does not validate the line
// (an invalid line may yield an id: the answer is an error anyway).
type lineIDScan struct {
	started, done bool // the first non-space byte seen; the top level closed or not an object
	depth         int  // of arrays and objects; 1 inside the top-level object
	inStr, esc    bool
	expectKey     bool // the next string at depth 1 is a member name
	inKey, inVal  bool // reading a member name; a top-level member's value
	key, val      []byte
	keyOver       bool // the name passed maxScanKey
	valOver       bool // the value passed maxScanValue

	hasID, hasMethod bool
	id               json.RawMessage // the last "id" member when a string or number, else nil
}

// feed scans the next chunk of the line.
func (s *lineIDScan) feed(b []byte) {
	for _, c := range b {
		if s.done {
			return
		}
		s.byte(c)
	}
}

func (s *lineIDScan) byte(c byte) {
	if !s.started {
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			return
		}
		s.started, s.done = true, c != '{'
		s.depth, s.expectKey = 1, true
		return
	}
	if s.inStr {
		s.keep(c)
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr, s.inKey = false, false
		}
		return
	}
	switch {
	case c == '"':
		s.inStr = true
		if s.depth == 1 && s.expectKey {
			s.inKey, s.key, s.keyOver = true, s.key[:0], false
		}
		s.keep(c)
	case c == ':' && s.depth == 1:
		s.expectKey, s.inVal, s.val, s.valOver = false, true, s.val[:0], false
	case c == ',' && s.depth == 1:
		s.member()
		s.expectKey = true
	case c == '{' || c == '[':
		s.depth++
		s.keep(c)
	case c == '}' || c == ']':
		s.depth--
		if s.depth == 0 {
			s.member()
			s.done = true
			return
		}
		s.keep(c)
	default:
		s.keep(c)
	}
}

// keep adds c to the member name or value being read, up to their bounds.
func (s *lineIDScan) keep(c byte) {
	switch {
	case s.inKey && len(s.key) < maxScanKey:
		s.key = append(s.key, c)
	case s.inKey:
		s.keyOver = true
	case s.inVal && len(s.val) < maxScanValue:
		s.val = append(s.val, c)
	case s.inVal:
		s.valOver = true
	}
}

// member ends a top-level member's value.
func (s *lineIDScan) member() {
	if !s.inVal {
		return
	}
	s.inVal = false
	var name string
	if s.keyOver || json.Unmarshal(s.key, &name) != nil {
		return
	}
	switch name {
	case "method":
		s.hasMethod = true
	case "id":
		s.hasID, s.id = true, nil
		v := bytes.TrimSpace(s.val)
		if s.valOver || len(v) == 0 || !json.Valid(v) {
			return
		}
		if c := v[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
			s.id = json.RawMessage(bytes.Clone(v))
		}
	}
}

// notification reports whether the line is a JSON-RPC notification: an
// object with a "method" and no "id", which gets no answer.
func (s *lineIDScan) notification() bool {
	return s.started && s.hasMethod && !s.hasID
}
