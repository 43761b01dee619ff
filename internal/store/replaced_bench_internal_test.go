package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReplacedCheck measures one look at whether an open database's
// file or -wal was replaced (readFile, which each engine runs at most
// every DamageMarkRecheck, 2 s, on its next write or health check) in a
// process holding fds descriptors open besides the database's: a
// server with many connections, or N engines in one process, each
// looking. The database holds its -wal open (one write). Each look
// after the first is timed.
func BenchmarkReplacedCheck(b *testing.B) {
	for _, fds := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("fds=%d", fds), func(b *testing.B) {
			dir := b.TempDir()
			db, err := Open(context.Background(), filepath.Join(dir, "m.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { CloseDB(db) })
			if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
				b.Fatal(err)
			}
			for i := range fds {
				f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%d", i)))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { f.Close() })
			}
			v, _ := damages.Load(db)
			d := v.(*damage)
			d.readFile() // the first look reads every descriptor
			b.ReportAllocs()
			for b.Loop() {
				d.readFile()
			}
			if d.replaced.Load() != nil {
				b.Fatal("found replaced")
			}
		})
	}
}
