package msgstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// BenchmarkReadRows reads what a LoadContext reads on SQLite: a recent
// window of 20 rows and 15 rows by id (ordered, and unordered as the recall
// step reads them). Compare B/op and allocs/op (issue 14, BENCHMARKS.md).
func BenchmarkReadRows(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "mnemo.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := msgstore.New(db)
	msgs := make([]msgstore.Message, 60)
	ids := make([]string, 0, 15)
	for i := range msgs {
		msgs[i] = msgstore.Message{ID: fmt.Sprintf("m%02d", i), Role: "user",
			Content: fmt.Sprintf("message %d of the thread, about a couple of hundred bytes of text as turns in a conversation tend to be, "+
				"with a few more words so that the content is not the smallest part of the row", i)}
		if i%4 == 1 {
			ids = append(ids, msgs[i].ID)
		}
	}
	storeThread(b, s, "t1", "r1", msgs)
	for _, bc := range []struct {
		name string
		read func() ([]msgstore.Message, error)
	}{
		{"recent20", func() ([]msgstore.Message, error) { return s.Recent(ctx, "t1", 20) }},
		{"byID15", func() ([]msgstore.Message, error) { return s.MessagesByID(ctx, "r1", ids) }},
		{"byID15unordered", func() ([]msgstore.Message, error) { return s.MessagesByIDUnordered(ctx, "r1", ids) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ms, err := bc.read(); err != nil || len(ms) == 0 {
					b.Fatal(len(ms), err)
				}
			}
		})
	}
}
