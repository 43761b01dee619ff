package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// BenchmarkWriteAlone measures one writer's writes, which pass the write
// gate uncontended (gate.go): a RunTx of one INSERT ("tx") and an
// autocommit INSERT ("exec").
func BenchmarkWriteAlone(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "m.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.CloseDB(db) })
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
		b.Fatal(err)
	}
	b.Run("tx", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := store.RunTx(ctx, db, func(tx *store.Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (?)`, i)
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("exec", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := db.ExecContext(ctx, `INSERT INTO t VALUES (?)`, i); err != nil {
				b.Fatal(err)
			}
		}
	})
}
