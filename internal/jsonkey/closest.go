package jsonkey

import (
	"fmt"
	"strings"
)

// Closest returns the one name of known that a misspelt key most likely
// meant, for an "unknown field" error's "did you mean": "contnet" →
// "content", "Role" → "role", "text" → "" (no name is close).
// A name equal to key but for case wins; else the name at the smallest
// edit distance (insertions, deletions, substitutions and transpositions
// of adjacent bytes, compared case-insensitively), at most 2 and less than
// half of key's length, when no other name is as close. It returns "" when
// no name qualifies.
func Closest(key string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	best, bestD, tie := "", 3, false
	lower := strings.ToLower(key)
	for _, k := range known {
		d := distance(lower, strings.ToLower(k))
		switch {
		case d < bestD:
			best, bestD, tie = k, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie || best == "" || 2*bestD >= len(key) {
		return ""
	}
	return best
}

// distance is the optimal string alignment distance of a and b, in bytes:
// Levenshtein's edits plus the transposition of two adjacent bytes.
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// UnknownDetail words the unknown member name (a bare name, "contnet", or
// a path, "messages[1].contnet") with near, the name it most likely meant
// (Closest's answer; "" when none is close), as the HTTP API, the JSONL
// import, mnemo.json and --queries lines all word it: `unknown field
// "messages[1].contnet" (did you mean "content"?)`, `unknown field "Role"
// (did you mean "role"? names are case-sensitive)` when near differs from
// the name's last member only in case, `unknown field "x"` when near is "".
func UnknownDetail(name, near string) string {
	last := name[strings.LastIndexByte(name, '.')+1:]
	switch {
	case near == "":
		return fmt.Sprintf("unknown field %q", name)
	case strings.EqualFold(last, near):
		return fmt.Sprintf("unknown field %q (did you mean %q? names are case-sensitive)", name, near)
	}
	return fmt.Sprintf("unknown field %q (did you mean %q?)", name, near)
}
