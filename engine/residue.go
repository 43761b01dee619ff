package engine

import (
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// The residue check (vacuumResidue, purge.go): what it looks for after
// erasures, bounded whatever their size (residue), and its file scan.

// Vacuum says why an erasure's purge rewrote the SQLite file with VACUUM
// (EraseResult.Vacuumed): the residue check's three ways to vacuum.
type Vacuum string

const (
	// VacuumResidue: the file still held the first 64 bytes of
	// an erased text or id where the check cannot tell live bytes from
	// free ones (a free-list trunk page, an overflow page no live cell's
	// chain reaches as SQLite reads it, or across two pages), or its free
	// list does not hold together. A copy in a b-tree page's free space
	// or past a live overflow chain's payload is zeroed in place, and one
	// in a live cell or its chain's payload left, without a VACUUM.
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
// (a message's content, a tool call's arguments and its metadata as
// stored; and each erased thread or resource id) of residueMin bytes or more, in
// memory until the purge finishes. Past residueMaxPatterns such texts it
// drops them and is over: the purge then rewrites the file with VACUUM
// instead of searching it (a search is a read of the whole file; VACUUM
// writes it).
//
// The check's guarantee, the same either way: once the purge returned nil,
// the database file holds the first residuePrefix bytes of no erased text
// of residueMin bytes or more outside the live rows (another row may hold
// the same bytes, as it may after VACUUM), because the search found none,
// zeroed the free space that held them (clearResidue) or VACUUM rewrote
// the file from the live rows alone. Shorter texts, and a copy of a
// text's later bytes without its start, are not looked for. The zero
// residue looks for nothing.
//
// A prefix added twice is kept once (the same metadata on every message
// of a thread, the same arguments in many calls), so repeats count
// against residueMaxPatterns once.
type residue struct {
	pats  [][]byte            // the prefixes, copied (no erased text stays alive); nil when over
	ids   [][]byte            // the same of erased ids, which a stored run id may spell (a live copy, left); nil when over
	seen  map[string]struct{} // the prefixes of pats and ids; nil when over or none
	texts int                 // the texts of residueMin bytes or more added
	over  bool                // more than residueMaxPatterns distinct prefixes: vacuum, do not search
}

// add adds texts (erased contents, tool call arguments, metadata).
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

// added returns to with t's prefix appended when t is long enough, r
// holds no such prefix yet and r is not over its bound; past the bound r
// is over, its patterns dropped.
func (r *residue) added(to [][]byte, t string) [][]byte {
	if len(t) < residueMin {
		return to
	}
	r.texts++
	if r.over {
		return nil
	}
	p := t[:min(len(t), residuePrefix)]
	if _, ok := r.seen[p]; ok {
		return to
	}
	if len(r.pats)+len(r.ids) == residueMaxPatterns {
		r.pats, r.ids, r.seen, r.over = nil, nil, nil, true
		return nil
	}
	if r.seen == nil {
		r.seen = map[string]struct{}{}
	}
	p = strings.Clone(p) // no erased text stays alive through the key
	r.seen[p] = struct{}{}
	return append(to, []byte(p))
}

// merge adds q's texts to r's, each distinct prefix once.
func (r *residue) merge(q residue) {
	texts := r.texts + q.texts
	switch {
	case r.over || q.over:
		r.pats, r.ids, r.seen, r.over = nil, nil, nil, true
	default:
		for _, p := range q.pats {
			r.pats = r.added(r.pats, string(p))
		}
		for _, id := range q.ids {
			r.ids = r.added(r.ids, string(id))
		}
	}
	r.texts = texts
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
	found := false
	err := scanFile(ctx, path, pats, 1<<20, func(int64, int64) bool {
		found = true
		return false
	})
	return found, err
}

// pagesHolding returns, in file order, the numbers (1-based) of the pages
// of pageSize bytes of the file at path that contain one of pats (none
// empty) and for whose image mayHold reports true, and whether a match
// straddles two pages (it then stops: the pages do not say where all the
// matches are). It reads the file in chunks of whole pages, about 1 MiB,
// and stops with ctx's error between chunks.
func pagesHolding(ctx context.Context, path string, pageSize int, pats [][]byte, mayHold func(pg int64, page []byte) bool) (pages []int64, straddles bool, err error) {
	long := 0
	for _, p := range pats {
		long = max(long, len(p))
	}
	each := matchesOf(pats)
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	buf := make([]byte, max(1, (1<<20)/pageSize)*pageSize)
	var prev []byte // the last long-1 bytes of the chunk before
	for off := int64(0); ; off += int64(len(buf)) {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		n, err := io.ReadFull(f, buf)
		b := buf[:n]
		if acrossChunks(each, prev, b, long) {
			return pages, true, nil
		}
		var in []int // the pages of b holding a match, by index in b
		each(b, func(i, j int) bool {
			p := i / pageSize
			if (j-1)/pageSize != p {
				straddles = true
				return false
			}
			if !slices.Contains(in, p) {
				in = append(in, p)
			}
			return true
		})
		if straddles {
			return pages, true, nil
		}
		slices.Sort(in)
		for _, p := range in {
			pg := off/int64(pageSize) + int64(p) + 1
			if end := (p + 1) * pageSize; end > n || mayHold(pg, b[p*pageSize:end]) {
				pages = append(pages, pg)
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return pages, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		prev = append(prev[:0], b[len(b)-min(long-1, len(b)):]...)
	}
}

// acrossChunks reports whether a match runs from prev, the end of one
// chunk, into b, the next.
func acrossChunks(each func([]byte, func(i, j int) bool), prev, b []byte, long int) bool {
	if len(prev) == 0 || len(b) == 0 {
		return false
	}
	w := append(append([]byte(nil), prev...), b[:min(long-1, len(b))]...)
	across := false
	each(w, func(i, j int) bool {
		across = i < len(prev) && j > len(prev)
		return !across
	})
	return across
}

// scanFile calls found with the file offsets [start, end) of matches of
// pats (none empty) in the file at path, in file order, until found
// returns false; it reads chunk bytes at a time (plus the longest
// pattern's length less one of the chunk before, so a match across two
// chunks is found). A match within those overlapping bytes may be
// reported twice. It stops with ctx's error between chunks.
func scanFile(ctx context.Context, path string, pats [][]byte, chunk int, found func(start, end int64) bool) error {
	if len(pats) == 0 {
		return nil
	}
	long := 0
	for _, p := range pats {
		long = max(long, len(p))
	}
	each := matchesOf(pats)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, chunk+long)
	keep, off := 0, int64(0) // off: the file offset of buf[0]
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := io.ReadFull(f, buf[keep:])
		b := buf[:keep+n]
		more := true
		each(b, func(i, j int) bool {
			more = found(off+int64(i), off+int64(j))
			return more
		})
		if !more || err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
		keep = min(long-1, len(b))
		off += int64(len(b) - keep)
		copy(buf, b[len(b)-keep:])
	}
}

// containsAny returns a function reporting whether a buffer contains any
// of pats (none empty). A pattern that starts in a buffer but runs past
// its end is not found there: fileHolds's overlap finds it in the next.
func containsAny(pats [][]byte) func([]byte) bool {
	each := matchesOf(pats)
	return func(b []byte) bool {
		found := false
		each(b, func(int, int) bool {
			found = true
			return false
		})
		return found
	}
}

// matchesOf returns a function that calls found with the bounds [i, j)
// of the matches of pats (none empty) in a buffer, in the order of i,
// until found returns false: by bytes.Index per pattern up to fewPatterns
// patterns (a vectorised search; their matches then come pattern by
// pattern, not in buffer order), in one hashed pass beyond.
func matchesOf(pats [][]byte) func(b []byte, found func(i, j int) bool) {
	if len(pats) > fewPatterns {
		return newPatternSet(pats).each
	}
	return func(b []byte, found func(i, j int) bool) {
		for _, p := range pats {
			for i := 0; ; i++ {
				k := bytes.Index(b[i:], p)
				if k < 0 {
					break
				}
				i += k
				if !found(i, i+len(p)) {
					return
				}
			}
		}
	}
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

// each calls found with the bounds [i, j) of the matches of the set's
// patterns in b, in the order of i, until found returns false.
func (s *patternSet) each(b []byte, found func(i, j int) bool) {
	if len(b) < s.w {
		return
	}
	h := windowHash(b[:s.w])
	for i := 0; ; i++ {
		if bit := filterBit(h); s.filter[bit/64]&(1<<(bit%64)) != 0 {
			for _, p := range s.byHash[h] {
				if i+len(p) <= len(b) && bytes.Equal(b[i:i+len(p)], p) && !found(i, i+len(p)) {
					return
				}
			}
		}
		if i+s.w >= len(b) {
			return
		}
		h = (h-uint64(b[i])*s.pow)*rollBase + uint64(b[i+s.w])
	}
}
