package salvage

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/internal/store"
)

// tableDef is a table of the new database: its name and columns, the
// NOT NULL BLOB columns among them, whether one of them is the rowid
// (an INTEGER PRIMARY KEY), and what a value of each must be (record.go).
type tableDef struct {
	name       string
	cols       []string
	blobs      map[string]bool
	rowidAlias bool
	columns    []column
}

// tablesOf lists the tables of the new database (its schema is mnemo's
// at the source's version), by name.
func tablesOf(ctx context.Context, conn *sql.Conn) ([]tableDef, error) {
	rows, err := conn.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("salvage: list tables: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []tableDef
	for _, n := range names {
		cols, pks, err := columnsOf(ctx, conn, n)
		if err != nil {
			return nil, err
		}
		blobs, err := notNullBlobs(ctx, conn, n)
		if err != nil {
			return nil, err
		}
		d := tableDef{name: n, cols: cols, blobs: blobs, rowidAlias: len(pks) == 1 && pks[0]}
		if d.columns, err = shapeOf(ctx, conn, n, d.rowidAlias); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// shapeOf returns the columns of table, in order, with their affinity,
// NOT NULL, whether one aliases the rowid, and their default's value.
func shapeOf(ctx context.Context, conn *sql.Conn, table string, rowidAlias bool) ([]column, error) {
	rows, err := conn.QueryContext(ctx, `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, fmt.Errorf("salvage: columns of %s: %w", table, err)
	}
	var cols []column
	var dflts []sql.NullString
	for rows.Next() {
		var c column
		var typ string
		var dflt sql.NullString
		var pk int
		if err := rows.Scan(&c.name, &typ, &c.notNull, &dflt, &pk); err != nil {
			rows.Close()
			return nil, err
		}
		c.affinity, c.rowid = affinityOf(typ), rowidAlias && pk > 0
		cols, dflts = append(cols, c), append(dflts, dflt)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, d := range dflts {
		if d.Valid {
			if err := conn.QueryRowContext(ctx, `SELECT `+d.String).Scan(&cols[i].dflt); err != nil {
				return nil, fmt.Errorf("salvage: default of %s.%s: %w", table, cols[i].name, err)
			}
		}
	}
	return cols, nil
}

// columnsOf returns table's columns and, for each primary-key column,
// whether it is declared INTEGER (an INTEGER PRIMARY KEY aliases the rowid).
func columnsOf(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, table string) (cols []string, pks []bool, err error) {
	rows, err := q.QueryContext(ctx, `SELECT name, type, pk FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, nil, fmt.Errorf("salvage: columns of %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, typ string
		var pk int
		if err := rows.Scan(&name, &typ, &pk); err != nil {
			return nil, nil, err
		}
		cols = append(cols, name)
		if pk > 0 {
			pks = append(pks, strings.EqualFold(typ, "INTEGER"))
		}
	}
	return cols, pks, rows.Err()
}

// notNullBlobs returns table's NOT NULL BLOB columns: an empty blob reads
// back through database/sql as nil and is written as an empty blob again.
func notNullBlobs(ctx context.Context, conn *sql.Conn, table string) (map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, `SELECT name FROM pragma_table_info(?) WHERE "notnull" AND upper(type) = 'BLOB'`, table)
	if err != nil {
		return nil, fmt.Errorf("salvage: columns of %s: %w", table, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out[n] = true
	}
	return out, rows.Err()
}

// tableCopy copies one table, range by range.
type tableCopy struct {
	ins        *sql.Stmt
	asc, desc  *sql.Stmt // the reads of a rowid range, in either order
	names      []string  // the columns read, after the rowid
	res        *Table
	pages      int64
	maxSeen    int64
	top        int64 // bisection's upper bound, set at the first one (0: not yet)
	withRowid  bool  // the insert names the rowid (no column aliases it)
	unreadable []Range
	sqlRead    []int64   // the rowids SQL returned
	cells      *cellRows // what the leaves that add up hold (stale.go; nil: all)
}

// copyTable copies the readable rows of t from src into tx: by SQL, then
// from its intact leaf pages (lp; nil: none), those SQL did not return.
func copyTable(ctx context.Context, src *sql.DB, tx *sql.Tx, t tableDef, pages int64, lp *leafPages) (Table, error) {
	res := Table{Name: t.name}
	scols, _, err := columnsOf(ctx, src, t.name)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, fmt.Errorf("salvage: the damaged file's schema is unreadable (%w): restore it from a backup", err)
	}
	var cols, vals, names []string
	for _, c := range t.cols {
		if slices.Contains(scols, c) {
			names = append(names, c)
			cols = append(cols, `"`+c+`"`)
			if t.blobs[c] {
				vals = append(vals, `COALESCE(?, x'')`)
			} else {
				vals = append(vals, `?`)
			}
		}
	}
	if len(cols) == 0 {
		res.Missing = true
		return res, nil
	}
	list := strings.Join(cols, ", ")
	c := &tableCopy{res: &res, pages: pages, names: names, withRowid: !t.rowidAlias}
	sel := `SELECT rowid, ` + list + ` FROM "` + t.name + `" NOT INDEXED WHERE rowid BETWEEN ? AND ? ORDER BY rowid`
	if c.asc, err = src.PrepareContext(ctx, sel); err == nil {
		defer c.asc.Close()
		c.desc, err = src.PrepareContext(ctx, sel+` DESC`)
	}
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, fmt.Errorf("salvage: the damaged file's schema is unreadable (%w): restore it from a backup", err)
	}
	defer c.desc.Close()
	insCols, marks := list, strings.Join(vals, ", ")
	if c.withRowid {
		insCols, marks = "rowid, "+list, "?, "+marks
	}
	c.ins, err = tx.PrepareContext(ctx, `INSERT INTO "`+t.name+`" (`+insCols+`) VALUES (`+marks+`)`)
	if err != nil {
		return res, fmt.Errorf("salvage: %s: %w", t.name, err)
	}
	defer c.ins.Close()
	if lp != nil {
		if c.cells, err = lp.cellRows(ctx, t.name); err != nil { // stale.go
			return res, err
		}
	}
	if err := c.scan(ctx, math.MinInt64, math.MaxInt64); err != nil {
		return res, err
	}
	res.Unreadable = mergeRanges(c.unreadable)
	if lp != nil && slices.Equal(scols, t.cols) {
		return res, c.fromPages(ctx, lp, t) // leaf.go
	}
	return res, nil
}

// scan copies the readable rows of rowids lo..hi. A read that fails
// (SQLite cannot read a page on its way) keeps the rows it returned
// first; the range left is then read backwards from hi, and what still
// fails at both ends is split in two until single rowids remain, which
// are recorded as unreadable. A damaged page thus costs the rows it held
// (and, for an interior page, the rows below it), not the rest of the
// table.
func (c *tableCopy) scan(ctx context.Context, lo, hi int64) error {
	for lo <= hi {
		n, last, rerr, err := c.read(ctx, lo, hi, false)
		if err != nil || rerr == nil {
			return err
		}
		if n > 0 {
			if last >= hi {
				return nil
			}
			lo = last + 1
			continue
		}
		n, first, rerr, err := c.read(ctx, lo, hi, true)
		if err != nil || rerr == nil {
			return err
		}
		if n > 0 {
			if first <= lo {
				return nil
			}
			hi = first - 1
		}
		if lo, hi = c.clamp(lo, hi); lo > hi {
			return nil
		}
		if lo == hi {
			c.unreadable = append(c.unreadable, Range{lo, hi})
			return nil
		}
		mid := lo + (hi-lo)/2
		if err := c.scan(ctx, lo, mid); err != nil {
			return err
		}
		lo = mid + 1
	}
	return nil
}

// clamp bounds a range that cannot be read at either end before it is
// bisected: rowids below 1 are never written by mnemo, and past the
// greatest rowid read so far plus a margin (4 rowids per page of the
// file, at least 4096) the rest of the range is recorded as unreadable
// as a whole: the end of the table is damaged.
func (c *tableCopy) clamp(lo, hi int64) (int64, int64) {
	lo = max(lo, 1)
	if c.top == 0 {
		c.top = max(c.maxSeen, 0) + max(4096, 4*c.pages)
	}
	if hi > c.top {
		c.unreadable = append(c.unreadable, Range{max(lo, c.top+1), hi})
		hi = c.top
	}
	return lo, hi
}

// read copies the rows of rowids lo..hi in rowid order (descending when
// desc) until SQLite fails to read one: n rows were read, edge is the
// rowid of the last, rerr the read's error (nil when the range was read
// to its end). err is an error that stops the salvage: ctx's end, or the
// new database failing to take a row for another reason than the
// schema's constraints.
func (c *tableCopy) read(ctx context.Context, lo, hi int64, desc bool) (n int, edge int64, rerr, err error) {
	q := c.asc
	if desc {
		q = c.desc
	}
	rows, qerr := q.QueryContext(ctx, lo, hi)
	if qerr != nil {
		return 0, 0, qerr, c.readErr(ctx, qerr)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, edge, nil, fmt.Errorf("salvage: %s: %w", c.res.Name, err)
		}
		rowid, ok := vals[0].(int64)
		if !ok {
			continue
		}
		if !c.cells.holds(rowid) || !inOrder(rowid, lo, hi, edge, n, desc) {
			continue // read through a stale cell pointer: no row, counted nowhere
		}
		c.sqlRead = append(c.sqlRead, rowid)
		if err := c.insert(ctx, vals); err != nil {
			return n, edge, nil, err
		}
		n, edge, c.maxSeen = n+1, rowid, max(c.maxSeen, rowid)
	}
	if rerr := rows.Err(); rerr != nil {
		return n, edge, rerr, c.readErr(ctx, rerr)
	}
	return n, edge, nil, nil
}

// inOrder reports whether a row of rowid read in rowid order (descending
// when desc) from lo..hi, after n rows the last of which was edge, is
// where a table's b-tree puts it: within the range and past the row
// before. SQLite returns every cell a leaf page's pointer array lists,
// so a page whose cell count was garbled higher (by one bit of its
// count, or 1 or 2) yields cells from the pointers past its true count:
// bytes that are no row of the table, out of order, their rowid often
// out of the range (0: a zero pointer reads the page's header as a
// cell). Such a row was counted invalid or garbled, or kept when it
// fitted; and one below the range read made the scan read from there
// again, and again (a salvage that never ended). It is dropped and
// counted nowhere: it was never a row (a deleted one at most), and no
// row is lost with it. One in rowid order is checked against the pages
// (stale.go).
func inOrder(rowid, lo, hi, edge int64, n int, desc bool) bool {
	switch {
	case rowid < max(lo, 1) || rowid > hi: // clamp: mnemo writes no rowid below 1
		return false
	case n == 0:
		return true
	case desc:
		return rowid < edge
	}
	return rowid > edge
}

// readErr returns nil for an error of SQLite reading a damaged file (the
// caller narrows the range down) and err otherwise.
func (c *tableCopy) readErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if unreadable(err) {
		return nil
	}
	return fmt.Errorf("salvage: read %s: %w", c.res.Name, err)
}

// unreadable reports whether err is SQLite's report of a page it cannot
// read: corrupt (SQLITE_CORRUPT, SQLITE_NOTADB), short (SQLITE_IOERR, a
// truncated file) or so garbled that a size in it exhausts memory
// (SQLITE_NOMEM, SQLITE_TOOBIG).
func unreadable(err error) bool {
	switch store.ResultCode(err) {
	case 7, 10, 11, 18, 26:
		return true
	}
	return false
}

// insert writes one row read (vals: the rowid, then the columns) to the
// new database; a row garbled (valid.go) is dropped and counted, one the
// schema refuses is counted as invalid.
func (c *tableCopy) insert(ctx context.Context, vals []any) error {
	if garbledRow(c.res.Name, c.names, vals[1:]) { // valid.go
		c.res.Garbled++
		return nil
	}
	args := vals
	if !c.withRowid {
		args = vals[1:]
	}
	_, err := c.ins.ExecContext(ctx, args...)
	switch code := store.ResultCode(err); {
	case err == nil:
		c.res.Kept++
	case code == 19 || code == 20: // SQLITE_CONSTRAINT, SQLITE_MISMATCH
		c.res.Invalid++
	default:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("salvage: write %s: %w", c.res.Name, err)
	}
	return nil
}

// mergeRanges sorts rs and joins the ranges that touch or overlap.
func mergeRanges(rs []Range) []Range {
	slices.SortFunc(rs, func(a, b Range) int {
		switch {
		case a.From < b.From:
			return -1
		case a.From > b.From:
			return 1
		}
		return 0
	})
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && (out[n-1].To == math.MaxInt64 || r.From <= out[n-1].To+1) {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out
}
