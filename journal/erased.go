package journal

import (
	"bytes"
	"context"
	"strings"
)

// Erased is what an erasure removes, as the journal's scrubs (ScrubMemCtx)
// and the engine's working-memory check need it: the erased messages' ids
// in memory, their texts read on demand. The zero Erased erases nothing.
// It is for mnemo's own packages, as ScrubMemCtx is.
type Erased struct {
	// IDs holds the erased messages' ids.
	IDs map[string]bool
	// Texts calls fn with the content of each erased message, in any
	// order, until fn returns false, and returns the read's error; nil
	// when there is no text to read. The engine reads them a page at a
	// time from their rows, before it deletes them, so an erasure does not
	// hold every text it erases.
	Texts func(ctx context.Context, fn func(content string) bool) error
	// Held, when set, reports whether a record's run held an erased turn
	// the record does not name (a turn of its recent window beyond the
	// listed entries, an observation the erasure invalidated, its own
	// thread deleted); ScrubMemCtx asks it of every record it reads, before
	// it scrubs it, and marks the record's ContextErased when it answers
	// true. Nil: only what the record names counts.
	Held func(rec *MemCtx) bool
}

// ErasedTexts is the Erased of texts held in memory: message id → content.
func ErasedTexts(texts map[string]string) Erased {
	e := Erased{IDs: make(map[string]bool, len(texts))}
	for id := range texts {
		e.IDs[id] = true
	}
	e.Texts = func(_ context.Context, fn func(string) bool) error {
		for _, c := range texts {
			if !fn(c) {
				return nil
			}
		}
		return nil
	}
	return e
}

// QuotedBy reports whether query q (a run's query) quotes an erased turn
// or is quoted by one: once both are trimmed of white space, q holds a
// non-blank erased content or one holds q. A blank query and ErasedPreview
// quote nothing. Errors are the texts' read's.
func (e Erased) QuotedBy(ctx context.Context, q string) (bool, error) {
	quoted, _, err := e.Quotes(ctx, []string{q}, nil)
	return quoted[q], err
}

// Quoted reports whether raw bytes hold an erased message's id or (non
// blank) content, as stored. Errors are the texts' read's.
func (e Erased) Quoted(ctx context.Context, raw []byte) (bool, error) {
	_, quoted, err := e.Quotes(ctx, nil, [][]byte{raw})
	return quoted[0], err
}

// Quotes answers QuotedBy for each of queries (quotedBy[q], false when
// absent) and Quoted for each of raws (quoted[i]), reading the texts once
// at most, and not at all when the ids answer every question. Its cost is
// the read plus, for each text, one comparison with every question not
// yet answered. err is Texts' error (ctx's when cancelled).
func (e Erased) Quotes(ctx context.Context, queries []string, raws [][]byte) (quotedBy map[string]bool, quoted []bool, err error) {
	quotedBy, quoted = map[string]bool{}, make([]bool, len(raws))
	type open struct {
		q   string // the query as asked (the key in quotedBy), or "" for a raw
		t   string // the trimmed query, or the raw record
		raw int    // the raw's index, -1 for a query
	}
	var ask []open
	seen := map[string]bool{}
	for _, q := range queries {
		t := strings.TrimSpace(q)
		if t == "" || t == ErasedPreview || seen[q] {
			continue
		}
		seen[q] = true
		ask = append(ask, open{q: q, t: t, raw: -1})
	}
	for i, raw := range raws {
		for id := range e.IDs {
			if bytes.Contains(raw, []byte(id)) {
				quoted[i] = true
				break
			}
		}
		if !quoted[i] {
			ask = append(ask, open{t: string(raw), raw: i})
		}
	}
	if len(ask) == 0 || e.Texts == nil {
		return quotedBy, quoted, nil
	}
	err = e.Texts(ctx, func(content string) bool {
		c := strings.TrimSpace(content)
		if c == "" {
			return true
		}
		for i := 0; i < len(ask); {
			a := ask[i]
			hit := false
			if a.raw < 0 {
				hit = strings.Contains(c, a.t) || strings.Contains(a.t, c)
			} else {
				hit = strings.Contains(a.t, content) // the content as stored, untrimmed
			}
			if !hit {
				i++
				continue
			}
			if a.raw < 0 {
				quotedBy[a.q] = true
			} else {
				quoted[a.raw] = true
			}
			ask[i] = ask[len(ask)-1]
			ask = ask[:len(ask)-1]
		}
		return len(ask) > 0
	})
	return quotedBy, quoted, err
}
