package salvage

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
)

// A table's row as its b-tree stores it: a table-leaf cell holds the
// payload's size, the rowid, and the payload's first bytes, the rest on a
// chain of overflow pages (each: the next page's number, 0 on the last,
// then bytes); the payload is a record (fileformat2 2.1): a header of its
// own size and one serial type per value, then the values. A row that
// an ALTER TABLE ADD COLUMN predates has fewer values than the table has
// columns: the others read as their default.

// column is a column of a table of the new database, with what a value
// read for it from a page must be.
type column struct {
	name     string
	affinity byte // 'i' INTEGER, 't' TEXT, 'r' REAL, 'b' BLOB or none, 'n' NUMERIC
	notNull  bool
	rowid    bool // the INTEGER PRIMARY KEY: stored as NULL, read as the rowid
	dflt     any  // the value of its DEFAULT (nil: none, or NULL)
}

// affinityOf is the affinity of a declared column type, by SQLite's rules
// (https://www.sqlite.org/datatype3.html, 3.1).
func affinityOf(typ string) byte {
	t := strings.ToUpper(typ)
	switch {
	case strings.Contains(t, "INT"):
		return 'i'
	case strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"):
		return 't'
	case t == "", strings.Contains(t, "BLOB"):
		return 'b'
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOA"), strings.Contains(t, "DOUB"):
		return 'r'
	}
	return 'n'
}

// fits reports whether rec, a record read from a page, has the shape of
// a row of a table of columns cols: no more values than columns, a NULL
// for the rowid's alias, no NULL where the column forbids it, an integer
// in an INTEGER column and text in a TEXT one (what SQLite stores there
// for everything mnemo writes), and a default for each column it lacks.
func fits(cols []column, rec []any) bool {
	if len(rec) == 0 || len(rec) > len(cols) {
		return false
	}
	for i, c := range cols {
		if i >= len(rec) {
			if c.notNull && c.dflt == nil {
				return false
			}
			continue
		}
		v := rec[i]
		switch {
		case c.rowid:
			if v != nil {
				return false
			}
		case v == nil:
			if c.notNull {
				return false
			}
		case c.affinity == 'i':
			if _, ok := v.(int64); !ok {
				return false
			}
		case c.affinity == 't':
			if _, ok := v.(string); !ok {
				return false
			}
		case c.affinity == 'r':
			if _, ok := v.(string); ok {
				return false
			}
		}
	}
	return true
}

// rowOf returns the row that rec (which fits cols) holds as read by SQL:
// the rowid, then one value per column.
func rowOf(cols []column, rowid int64, rec []any) []any {
	out := make([]any, 1, 1+len(cols))
	out[0] = rowid
	for i, c := range cols {
		switch {
		case c.rowid:
			out = append(out, rowid)
		case i < len(rec):
			out = append(out, rec[i])
		default:
			out = append(out, c.dflt)
		}
	}
	return out
}

// leafRow reads the table-leaf cell at off of page data: its rowid and
// its record's values. ok is false when its overflow chain leaves the
// pages it may use (spare) or does not end with the payload, or when its
// record does not add up.
func (f *pageFile) leafRow(ctx context.Context, data []byte, off int) (rowid int64, rec []any, ok bool, err error) {
	size, n := varint(data[off:f.usable])
	r, k := varint(data[off+n : f.usable])
	if n == 0 || k == 0 || size > uint64(f.count)*uint64(f.usable) {
		return 0, nil, false, nil
	}
	off += n + k
	local, overflows := localPayload(int(size), true, f.usable)
	payload := append([]byte{}, data[off:off+local]...)
	if overflows {
		next := child(data, off+local)
		if payload, ok, err = f.overflow(ctx, payload, int(size), next); !ok || err != nil {
			return 0, nil, false, err
		}
	}
	rec, ok = record(payload)
	return int64(r), rec, ok, nil
}

// overflow appends to payload the bytes of the chain of overflow pages
// from page next until it holds size bytes; ok is false when a page of
// the chain is not spare (f.spare), is met twice, or the chain ends too
// soon or goes on after the payload.
func (f *pageFile) overflow(ctx context.Context, payload []byte, size int, next int64) ([]byte, bool, error) {
	seen := map[int64]bool{}
	for len(payload) < size {
		if next == 0 || seen[next] || !f.spare(next) {
			return nil, false, nil
		}
		seen[next] = true
		data, err := f.page(ctx, next)
		if err != nil || len(data) < f.usable {
			return nil, false, ctx.Err()
		}
		take := min(size-len(payload), f.usable-4)
		payload = append(payload, data[4:4+take]...)
		next = child(data, 0)
	}
	return payload, next == 0, nil
}

// record decodes a record; ok is false when its header and values do not
// fill the payload exactly, or a serial type is one SQLite never writes.
func record(payload []byte) ([]any, bool) {
	hsize, n := varint(payload)
	if n == 0 || hsize < uint64(n) || hsize > uint64(len(payload)) {
		return nil, false
	}
	var types []uint64
	for at := n; at < int(hsize); {
		t, k := varint(payload[at:hsize])
		if k == 0 {
			return nil, false
		}
		types, at = append(types, t), at+k
	}
	body := payload[hsize:]
	vals := make([]any, len(types))
	for i, t := range types {
		size, ok := serialSize(t)
		if !ok || size > len(body) {
			return nil, false
		}
		vals[i], body = value(t, body[:size]), body[size:]
	}
	return vals, len(body) == 0
}

// serialSize is the size in bytes of a value of serial type t.
func serialSize(t uint64) (int, bool) {
	switch {
	case t <= 4:
		return int(t), true
	case t == 5:
		return 6, true
	case t == 6, t == 7:
		return 8, true
	case t == 8, t == 9:
		return 0, true
	case t == 10, t == 11, t > math.MaxInt32:
		return 0, false
	}
	return int(t-12) / 2, true
}

// value decodes the bytes b of a value of serial type t as database/sql
// reads it from SQLite: nil, int64, float64, string or []byte.
func value(t uint64, b []byte) any {
	switch {
	case t == 0:
		return nil
	case t <= 6:
		var v int64
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		shift := 64 - 8*len(b)
		return v << shift >> shift // sign-extended
	case t == 7:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	case t == 8:
		return int64(0)
	case t == 9:
		return int64(1)
	case t%2 == 0:
		return append([]byte{}, b...)
	}
	return string(b)
}
