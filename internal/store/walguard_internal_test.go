package store

import (
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGuardWALOffHeap: the guard's scan of a sound 16 MiB log written by
// SQLite adds less than a quarter of the log's size to the Go heap's
// allocations. It read the whole log with os.ReadFile (the log's size: a
// 600 MB log made an open take 5 s at a 654 MB peak); the log is mapped
// now (~263 KB allocated for 64 MiB). 16 MiB, not 64: writing the log
// through the transpiled SQLite took 131 s under -race.
func TestGuardWALOffHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 16 MiB log")
	}
	path := filepath.Join(t.TempDir(), "m.db")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + url.Values{
		"_pragma": {"journal_mode(WAL)", "wal_autocheckpoint(0)", "synchronous(OFF)"},
	}.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (v BLOB)`); err != nil {
		t.Fatal(err)
	}
	const size = 16 << 20
	for {
		if _, err := db.Exec(`INSERT INTO t SELECT randomblob(3000) FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4)`); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path + "-wal"); err != nil {
			t.Fatal(err)
		} else if fi.Size() >= size {
			break
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := guardWAL(path)
	runtime.ReadMemStats(&after)
	if err != nil || d != nil {
		t.Fatalf("guardWAL of a sound log = %+v, %v; want nil, nil", d, err)
	}
	added := after.TotalAlloc - before.TotalAlloc
	t.Logf("guard of a %d MiB log: %d bytes allocated", size>>20, added)
	if added >= size/4 {
		t.Errorf("the guard's scan of a %d MiB log allocated %d bytes on the heap; want < %d MiB", size>>20, added, size>>22)
	}
}

// sink keeps the test's read of a byte from being compiled away.
var sink byte

// TestWithLogShrunk: a log truncated by another process while mapped
// faults on the pages past its new end; withLog returns an error naming
// the log instead of letting SIGBUS kill the process.
func TestWithLogShrunk(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.db-wal")
	if err := os.WriteFile(name, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	var read bool
	err := withLog(name, true, func(b []byte) error {
		if err := os.Truncate(name, 0); err != nil {
			t.Fatal(err)
		}
		sink = b[len(b)-1] // faults when b is a mapping
		read = true
		return nil
	})
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		if err != nil || !read {
			t.Fatalf("withLog of a read log = %v (read %v)", err, read)
		}
		return
	}
	if err == nil || read || !strings.Contains(err.Error(), name) {
		t.Fatalf("withLog of a log truncated while mapped = %v (read on: %v); want an error naming %s", err, read, name)
	}
	t.Log(err)
}
