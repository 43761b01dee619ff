package engine

import (
	"bytes"
	"context"
	"io"
	"os"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// The residue check (vacuumResidue, purge.go): what it looks for after
// erasures, bounded whatever their size (residue), and its file scan.

// Vacuum says why an erasure's purge rewrote the SQLite file with VACUUM
// (EraseResult.Vacuumed): the residue check's three ways to vacuum.
type Vacuum string

const (
	// VacuumResidue: the file still held the first 64 bytes of
	// an erased text or id: a copy a page rebalance left in free space, or
	// a live row that begins the same way (another message with the same
	// text), which the check cannot tell from a leftover.
	VacuumResidue Vacuum = "residue"
	// VacuumTooLarge: the purge's erasures erased more than
	// 65,536 texts and ids, too many to keep and search for,
	// so the file was rewritten without searching it.
	VacuumTooLarge Vacuum = "too-large"
	// VacuumTextsUnknown: the purge completed an erasure whose texts are
	// no longer known (one a crash cut short, completed at Open).
	VacuumTextsUnknown Vacuum = "texts-unknown"
)

// residuePrefix is how much of an erased text the residue check looks
// for: what the erasure reads of each text (msgstore.ErasedPrefix); texts
// shorter than residueMin are not searched (too common to tell residue
// from other data).
const (
	residuePrefix = msgstore.ErasedPrefix
	residueMin    = 12
)

// residueMaxPatterns bounds the prefixes a residue holds: 65,536 of at
// most residuePrefix bytes (about 5.5 MiB with their slice headers),
// whatever the number of texts erased. The whole texts were kept before,
// from the erasure transaction until its purge finished, and for good in
// the engine's owed purges when it did not.
const residueMaxPatterns = 1 << 16

// residue is what the residue check searches the database file for after
// erasures: a copy of the first residuePrefix bytes of each erased text
// (and each erased thread or resource id) of residueMin bytes or more, in
// memory until the purge finishes. Past residueMaxPatterns such texts it
// drops them and is over: the purge then rewrites the file with VACUUM
// instead of searching it (a search is a read of the whole file; VACUUM
// writes it).
//
// The check's guarantee, the same either way: once the purge returned nil,
// the database file holds the first residuePrefix bytes of no erased text
// of residueMin bytes or more, because the search found none or VACUUM
// rewrote the file from the live rows alone. Shorter texts, and a copy of
// a text's later bytes without its start, are not looked for. The zero
// residue looks for nothing.
type residue struct {
	pats  [][]byte // the prefixes, copied (no erased text stays alive); nil when over
	ids   [][]byte // the same of erased ids, which a stored run id may spell (spelledIDs); nil when over
	texts int      // the texts of residueMin bytes or more added
	over  bool     // more than residueMaxPatterns texts: vacuum, do not search
}

// add adds texts (erased contents).
func (r *residue) add(texts ...string) {
	for _, t := range texts {
		r.pats = r.added(r.pats, t)
	}
}

// addIDs adds erased thread and resource ids.
func (r *residue) addIDs(ids ...string) {
	for _, id := range ids {
		r.ids = r.added(r.ids, id)
	}
}

// added returns to with t's prefix appended when t is long enough and r
// is not over its bound; past the bound r is over, its patterns dropped.
func (r *residue) added(to [][]byte, t string) [][]byte {
	if len(t) < residueMin {
		return to
	}
	r.texts++
	switch {
	case r.over:
		return nil
	case len(r.pats)+len(r.ids) == residueMaxPatterns:
		r.pats, r.ids, r.over = nil, nil, true
		return nil
	}
	return append(to, []byte(t[:min(len(t), residuePrefix)]))
}

// merge adds q's texts to r's.
func (r *residue) merge(q residue) {
	r.texts += q.texts
	if r.over || q.over || len(r.pats)+len(r.ids)+len(q.pats)+len(q.ids) > residueMaxPatterns {
		r.pats, r.ids, r.over = nil, nil, true
		return
	}
	r.pats, r.ids = append(r.pats, q.pats...), append(r.ids, q.ids...)
}

// all returns the texts' and the ids' prefixes but for those of skip.
func (r *residue) all(skip map[string]bool) [][]byte {
	out := make([][]byte, 0, len(r.pats)+len(r.ids))
	out = append(out, r.pats...)
	for _, id := range r.ids {
		if !skip[string(id)] {
			out = append(out, id)
		}
	}
	return out
}

// The file scan: does a file
// hold any of the erased texts' prefixes? A sweep (sweep.go) checks the
// texts of every thread it erased at once, thousands of patterns over a
// file of hundreds of MiB, so beyond a few patterns the scan is one pass
// whatever their number: a rolling hash of a window as long as the
// shortest pattern, filtered through a bitset, and the patterns whose
// window hash matches compared in full (Rabin-Karp over a set). The
// Aho-Corasick package tried first (github.com/coregx/ahocorasick v0.3.1)
// took 47.6 s CPU for 100 erased texts over a 261 MiB file, this 0.55 s.

// fewPatterns is the number of patterns up to which bytes.Contains per
// pattern (a vectorised search) is faster than the hashed pass.
const fewPatterns = 4

// fileHolds reports whether the file at path contains any of pats (none
// empty), reading it in 1 MiB chunks that overlap by the longest pattern.
// It stops with ctx's error between chunks (the file can be gigabytes).
func fileHolds(ctx context.Context, path string, pats [][]byte) (bool, error) {
	if len(pats) == 0 {
		return false, nil
	}
	long := 0
	for _, p := range pats {
		long = max(long, len(p))
	}
	holds := containsAny(pats)
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20+long)
	keep := 0
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		n, err := io.ReadFull(f, buf[keep:])
		chunk := buf[:keep+n]
		if holds(chunk) {
			return true, nil
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		keep = min(long-1, len(chunk))
		copy(buf, chunk[len(chunk)-keep:])
	}
}

// containsAny returns a function reporting whether a buffer contains any
// of pats (none empty). A pattern that starts in a buffer but runs past
// its end is not found there: fileHolds's overlap finds it in the next.
func containsAny(pats [][]byte) func([]byte) bool {
	if len(pats) <= fewPatterns {
		return func(b []byte) bool {
			for _, p := range pats {
				if bytes.Contains(b, p) {
					return true
				}
			}
			return false
		}
	}
	s := newPatternSet(pats)
	return s.in
}

// rollBase is the rolling hash's multiplier (odd; arithmetic mod 2^64).
const rollBase = 0x100000001b3

// bitsetBits is log2 of the filter's size in bits (128 KiB: it stays in
// the cache).
const bitsetBits = 20

// patternSet finds any of many patterns in one pass.
type patternSet struct {
	w      int                 // the window: the shortest pattern's length
	pow    uint64              // rollBase^(w-1)
	filter []uint64            // bitset of the windows' hashes (mixed)
	byHash map[uint64][][]byte // window hash → the patterns starting so
}

func newPatternSet(pats [][]byte) *patternSet {
	s := &patternSet{w: len(pats[0]), pow: 1, filter: make([]uint64, 1<<bitsetBits/64), byHash: map[uint64][][]byte{}}
	for _, p := range pats {
		s.w = min(s.w, len(p))
	}
	for range s.w - 1 {
		s.pow *= rollBase
	}
	for _, p := range pats {
		h := windowHash(p[:s.w])
		s.byHash[h] = append(s.byHash[h], p)
		b := filterBit(h)
		s.filter[b/64] |= 1 << (b % 64)
	}
	return s
}

func windowHash(b []byte) uint64 {
	var h uint64
	for _, c := range b {
		h = h*rollBase + uint64(c)
	}
	return h
}

func filterBit(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> (64 - bitsetBits) }

// in reports whether b contains one of the set's patterns.
func (s *patternSet) in(b []byte) bool {
	if len(b) < s.w {
		return false
	}
	h := windowHash(b[:s.w])
	for i := 0; ; i++ {
		if bit := filterBit(h); s.filter[bit/64]&(1<<(bit%64)) != 0 {
			for _, p := range s.byHash[h] {
				if i+len(p) <= len(b) && bytes.Equal(b[i:i+len(p)], p) {
					return true
				}
			}
		}
		if i+s.w >= len(b) {
			return false
		}
		h = (h-uint64(b[i])*s.pow)*rollBase + uint64(b[i+s.w])
	}
}
