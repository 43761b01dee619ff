package main

import (
	"io"
	"strings"
	"unicode/utf8"
)

// columns aligns rows of cells as text/tabwriter.NewWriter(w, 0, 4, 2,
// ' ', 0) aligns tab-separated ones (each cell but a row's last padded
// with spaces to its column's widest cell plus two), but a page of rows at
// a time, so a listing streams: a column is as wide as its widest cell so
// far, and a wider cell on a later page widens it from that page on. One
// page prints exactly as tabwriter prints it.
type columns struct {
	w      io.Writer
	widths []int // each column's width so far, padding included
}

// Page prints rows, widening the columns to their cells first.
func (c *columns) Page(rows [][]string) error {
	for _, r := range rows {
		for j, cell := range r[:max(len(r)-1, 0)] {
			if j == len(c.widths) {
				c.widths = append(c.widths, 0)
			}
			c.widths[j] = max(c.widths[j], utf8.RuneCountInString(cell)+2)
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for j, cell := range r {
			b.WriteString(cell)
			if j < len(r)-1 {
				b.WriteString(strings.Repeat(" ", c.widths[j]-utf8.RuneCountInString(cell)))
			}
		}
		b.WriteByte('\n')
		if _, err := io.WriteString(c.w, b.String()); err != nil {
			return err
		}
	}
	return nil
}
