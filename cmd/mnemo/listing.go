package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/mnemo-go/mnemo/engine"
)

// listPage is how many messages a listing reads at a time
// (engine.MessagesPage) and how many threads it prints at a time (read by
// engine.EachThread): a listing holds one page in memory, never the whole
// thread or store. Tests lower it.
var listPage = engine.MaxPageLimit

// eachMessage calls fn for the messages of thread with from <= seq <= to
// (to 0: to the end) in seq order, reading them a page at a time. It stops
// at fn's first error and returns it; engine.ErrThreadNotFound for an
// unknown thread.
func eachMessage(ctx context.Context, e *engine.Engine, thread string, from, to int64, fn func(engine.Message) error) error {
	req := engine.PageRequest{FromSeq: from, ToSeq: to, Limit: listPage}
	for {
		p, err := e.MessagesPage(ctx, thread, req)
		if err != nil {
			return err
		}
		for _, m := range p.Messages {
			if err := fn(m); err != nil {
				return err
			}
		}
		if p.NextFromSeq == 0 {
			return nil
		}
		req.FromSeq = p.NextFromSeq
	}
}

// eachThreadPage calls fn with each page of the threads of resource (every
// thread when empty), in engine.ListThreads' order, the first page even
// when empty. It reads them in one query (engine.EachThread: one snapshot,
// one pass) and gives them a page at a time. Pages of the deprecated
// ListThreadsPage read every thread before the page again (by offset; they
// also sorted them all until the index threads_by_order, d83aec9: 60,000
// threads listed in 7-8.5 s where one query took 1.2-1.8 s) and may list
// a thread twice or skip one when threads are created or erased meanwhile;
// ThreadsPage's cursor pages would list each thread once, but each page
// is a query of its own.
func eachThreadPage(ctx context.Context, e *engine.Engine, resource string, fn func([]engine.Thread) error) error {
	page, pages := make([]engine.Thread, 0, listPage), 0
	err := e.EachThread(ctx, resource, func(t engine.Thread) error {
		if page = append(page, t); len(page) < listPage {
			return nil
		}
		pages++
		err := fn(page)
		page = page[:0]
		return err
	})
	if err != nil || (len(page) == 0 && pages > 0) {
		return err
	}
	return fn(page)
}

// jsonArray writes a JSON array one element at a time, byte for byte as
// printJSON writes the whole slice (two-space indent, HTML not escaped,
// "[]" when empty), so a listing streams without holding its elements.
// Close writes the closing bracket.
type jsonArray struct {
	w   io.Writer
	n   int
	buf bytes.Buffer
	enc *json.Encoder
}

func newJSONArray(w io.Writer) *jsonArray {
	a := &jsonArray{w: w}
	a.enc = json.NewEncoder(&a.buf)
	a.enc.SetIndent("  ", "  ")
	a.enc.SetEscapeHTML(false)
	return a
}

// Add writes v as the array's next element.
func (a *jsonArray) Add(v any) error {
	a.buf.Reset()
	sep := ",\n  "
	if a.n == 0 {
		sep = "[\n  "
	}
	a.buf.WriteString(sep)
	if err := a.enc.Encode(v); err != nil {
		return err
	}
	a.n++
	_, err := a.w.Write(bytes.TrimSuffix(a.buf.Bytes(), []byte("\n")))
	return err
}

// Close ends the array.
func (a *jsonArray) Close() error {
	end := "\n]\n"
	if a.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(a.w, end)
	return err
}
