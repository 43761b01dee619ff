package engine

import (
	"net/url"
	"slices"
	"strings"
)

// decodedEdits returns raw, the edits r found in part (a URL query
// value, at offset at of the text), with the edits r finds in part
// percent-decoded (url.QueryUnescape: ?q=password%3Dhunter2x, %3A for
// ':', '+' for a blank) that rawNamed accepts and that overlap no match
// of raw, each made in the raw text: the bytes the decoded edit changes
// are replaced where their escapes are (?q=password%3D[REDACTED]). A
// value decoded that ends at a blank (%20, '+': hunter%202) takes the
// rest of the query value with it: a URL's query value is one field, its
// blanks are escaped in it, and red58 found ?q=password%3Dhunter%202
// stored ?q=password%3D[REDACTED]%202. Before,
// ?q=password%3Dhunter2x was stored as written: only ?q=password=hunter2x
// was searched. A part holding no '%', or one that does not decode (a
// '%' without two hex digits), gives raw.
func (r *Rule) decodedEdits(part string, at int, raw []edit) []edit {
	if r.rawNamed == nil || !strings.Contains(part, "%") {
		return raw
	}
	dec, err := url.QueryUnescape(part)
	if err != nil {
		return raw
	}
	off := escapedOffsets(part)
	if len(off) != len(dec)+1 {
		return raw // QueryUnescape decodes each escape to one byte
	}
	out := raw
	for _, e := range r.verified(dec, r.Pattern.FindAllStringSubmatchIndex(dec, -1), maxCuts, &quoteScan{}) {
		from, to, with := r.change(dec, e)
		if !r.rawNamed(part[off[e.m[0]]:off[from]]) {
			continue // a name written with escapes (pass%77ord): no trigger for the prefilter
		}
		d := edit{m: []int{at + off[e.m[0]], at + off[e.m[1]]}, from: at + off[from], to: at + off[to], with: with, literal: true}
		if to < len(dec) && dec[to] == ' ' {
			d.m[1], d.to = at+len(part), at+len(part) // the value's encoded blank and the rest
		}
		if !overlapsAny(d, raw) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b edit) int { return a.from - b.from })
	return out
}

// change returns the part of s that e changes, from:to, and what replaces
// it: a literal edit's, or the bytes of the match's replacement that
// differ from the match (its unchanged start and end, the name and the
// quotes around the value, cut off).
func (r *Rule) change(s string, e edit) (from, to int, with string) {
	if e.literal {
		return e.from, e.to, e.with
	}
	match := s[e.m[0]:e.m[1]]
	var rep string
	if r.rewrite != nil {
		rep = r.rewrite(match)
	} else {
		rep = string(r.Pattern.ExpandString(nil, r.Replacement, s, e.m))
	}
	p := 0
	for p < len(match) && p < len(rep) && match[p] == rep[p] {
		p++
	}
	x := 0
	for x < len(match)-p && x < len(rep)-p && match[len(match)-1-x] == rep[len(rep)-1-x] {
		x++
	}
	return e.m[0] + p, e.m[1] - x, rep[p : len(rep)-x]
}

// overlapsAny reports whether d's match overlaps the match of an edit of es.
func overlapsAny(d edit, es []edit) bool {
	for _, e := range es {
		if d.m[0] < e.m[1] && e.m[0] < d.m[1] {
			return true
		}
	}
	return false
}

// escapedOffsets gives, for each byte of url.QueryUnescape(raw) and for
// its end, the offset in raw of what it was decoded from: a %XX escape
// (three bytes) or one byte ('+' for a blank, any other for itself).
// raw must decode (every '%' starts an escape).
func escapedOffsets(raw string) []int {
	off := make([]int, 0, len(raw)+1)
	for i := 0; i < len(raw); {
		off = append(off, i)
		if raw[i] == '%' {
			i += 3
		} else {
			i++
		}
	}
	return append(off, len(raw))
}

// holdsCredentialTrigger reports whether raw holds, ASCII-lowercased, one
// of credentialTriggers: the assignment rule's rawNamed.
func holdsCredentialTrigger(raw string) bool {
	raw = asciiLower(raw)
	for _, t := range credentialTriggers {
		if strings.Contains(raw, t) {
			return true
		}
	}
	return false
}
