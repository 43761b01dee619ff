package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// The tests of this file are SQLite only: Backup copies a data directory
// (on Postgres it refuses: TestBackupRefuses).

// appendOne appends one user message to thread of resource r.
func appendOne(ctx context.Context, e *engine.Engine, r, thread, text string) error {
	_, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: r,
		Messages: []engine.Message{{Role: "user", Content: text}}})
	return err
}

// TestBackupWhileAppending takes a backup while another goroutine appends
// to four threads of the same open engine without pause: the backup holds,
// for every thread, a prefix of the acknowledged messages with no gap (seqs
// 1..last_seq, at least those acknowledged before the backup began), passes
// Check once opened (which rebuilds the indexes it lacks) and answers a
// search.
func TestBackupWhileAppending(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	threads := []string{"t0", "t1", "t2", "t3"}
	var acked [4]atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			i := n % len(threads)
			if err := appendOne(ctx, e, "ana", threads[i], fmt.Sprintf("night train to porto, turn %d", n)); err != nil {
				t.Errorf("append: %v", err)
				return
			}
			acked[i].Add(1)
		}
	}()
	for acked[3].Load() < 50 { // every thread has turns before the backup
		if t.Failed() {
			t.FailNow()
		}
		runtime.Gosched()
	}
	var before [4]int64
	for i := range before {
		before[i] = acked[i].Load()
	}
	dest := filepath.Join(t.TempDir(), "backup")
	res, err := engine.Backup(ctx, engine.Config{Dir: e.Dir()}, dest, engine.BackupOptions{})
	var after [4]int64
	for i := range after {
		after[i] = acked[i].Load()
	}
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("backup: %v", err)
	}
	t.Logf("acknowledged per thread before the backup %v, after %v", before, after)
	b := enginetest.MustOpen(t, engine.Config{Dir: dest}) // its cleanup runs Check
	var total int64
	for i, th := range threads {
		msgs, err := b.Messages(ctx, th, 1, 0)
		if err != nil {
			t.Fatalf("messages of %s: %v", th, err)
		}
		n := int64(len(msgs))
		// One append may be committed, and so in the backup, but not yet
		// acknowledged when after is read: the one appender's next, on one
		// thread (the sum is checked below).
		if n < before[i] || n > after[i]+1 {
			t.Errorf("%s: %d messages in the backup, want %d..%d (acknowledged before and after it, and one in flight)", th, n, before[i], after[i]+1)
		}
		for k, m := range msgs {
			if m.Seq != int64(k+1) {
				t.Fatalf("%s: message %d has seq %d, want %d (a gap)", th, k, m.Seq, k+1)
			}
		}
		thr, err := b.GetThread(ctx, th)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := thr.LastSeq, n; got != want {
			t.Errorf("%s: last_seq=%d, want %d", th, got, want)
		}
		total += n
	}
	if sumAfter := after[0] + after[1] + after[2] + after[3]; total > sumAfter+1 {
		t.Errorf("%d messages in the backup, want at most %d (acknowledged after it, and the one in flight)", total, sumAfter+1)
	}
	if got, want := res.Messages, total; got != want {
		t.Errorf("BackupResult.Messages=%d, want %d", got, want)
	}
	if err := b.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	hits, err := b.Search(ctx, engine.SearchRequest{ResourceID: "ana", Query: "porto train",
		Options: recall.Options{Scope: recall.ScopeResource}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits.Hits) == 0 {
		t.Errorf("a search of the opened backup found nothing")
	}
}

// TestBackupFiles: the directory and its files are private (0700, 0600),
// the named files travel and a missing one is skipped, the indexes are not
// copied, and the source directory (an idle one) opens and checks as before.
func TestBackupFiles(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	e := enginetest.MustOpen(t, engine.Config{Dir: src})
	if err := appendOne(ctx, e, "ana", "t1", "hello"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "mnemo.json"), []byte(`{"recentN": 7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "a", "b") // parents created
	res, err := engine.Backup(ctx, engine.Config{Dir: src}, dest, engine.BackupOptions{Files: []string{"mnemo.json", "absent.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(res.Files, ","), "mnemo.json"; got != want {
		t.Errorf("Files=%q, want %q", got, want)
	}
	ents, err := os.ReadDir(dest)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range ents {
		fi, _ := de.Info()
		names = append(names, de.Name())
		if got, want := fi.Mode().Perm(), os.FileMode(0o600); got != want {
			t.Errorf("%s: mode %v, want %v", de.Name(), got, want)
		}
	}
	if got, want := strings.Join(names, ","), "mnemo.db,mnemo.json"; got != want {
		t.Errorf("backup holds %s, want %s", got, want)
	}
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("backup directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "mnemo.json")); string(b) != `{"recentN": 7}` {
		t.Errorf("mnemo.json copied as %q", b)
	}
	enginetest.MustOpen(t, engine.Config{Dir: dest})
	enginetest.MustOpen(t, engine.Config{Dir: src})
}

// TestBackupConfigLink: a mnemo.json that is a symbolic link is refused,
// naming the link, and its target is not copied into a backup (before,
// os.Stat and os.Open followed the link and the backup held the target's
// contents); no destination is left.
func TestBackupConfigLink(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	e := enginetest.MustOpen(t, engine.Config{Dir: src})
	if err := appendOne(ctx, e, "ana", "t1", "hello"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	secret := filepath.Join(base, "secret")
	if err := os.WriteFile(secret, []byte(`{"secret": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(src, "mnemo.json")); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(base, "bk")
	res, err := engine.Backup(ctx, engine.Config{Dir: src}, dest, engine.BackupOptions{Files: []string{"mnemo.json"}})
	if err == nil || !strings.Contains(err.Error(), "mnemo.json is a symbolic link, not a regular file") {
		t.Fatalf("Backup with mnemo.json a link = %+v, %v; want the link refused", res, err)
	}
	if _, err := os.Lstat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused backup left %s: %v", dest, err)
	}
	assertNoStaging(t, base)
}

// TestBackupRefuses: a destination that exists and is not an empty
// directory is refused and left as it was; an empty one is used; a
// directory without a database, a bad file name, a destination that is the
// data directory (said so, not "not empty") or inside it (reindex deleted
// one under index/) and Postgres are refused.
func TestBackupRefuses(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	e := enginetest.MustOpen(t, engine.Config{Dir: src})
	if err := appendOne(ctx, e, "ana", "t1", "hello"); err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	full := filepath.Join(base, "full")
	os.Mkdir(full, 0o700)
	os.WriteFile(filepath.Join(full, "keep"), []byte("mine"), 0o600)
	file := filepath.Join(base, "file")
	os.WriteFile(file, []byte("mine"), 0o600)
	empty := filepath.Join(base, "empty")
	os.Mkdir(empty, 0o700)
	link := filepath.Join(base, "link")
	os.Symlink(empty, link)
	srcLink := filepath.Join(base, "srclink")
	os.Symlink(src, srcLink)
	cfg := engine.Config{Dir: src}
	for _, tc := range []struct {
		name string
		cfg  engine.Config
		dest string
		opts engine.BackupOptions
		want error
	}{
		{"ErrBackupExists/NotEmpty", cfg, full, engine.BackupOptions{}, engine.ErrBackupExists},
		{"ErrBackupExists/File", cfg, file, engine.BackupOptions{}, engine.ErrBackupExists},
		{"ErrBackupExists/Link", cfg, link, engine.BackupOptions{}, engine.ErrBackupExists},
		{"ErrInvalid/Source", cfg, src, engine.BackupOptions{}, engine.ErrInvalidInput},
		{"ErrInvalid/SourceThroughLink", cfg, srcLink, engine.BackupOptions{}, engine.ErrInvalidInput},
		{"ErrNotDataDir", engine.Config{Dir: base}, filepath.Join(base, "new1"), engine.BackupOptions{}, engine.ErrNotDataDir},
		{"ErrInvalid/Files", cfg, filepath.Join(base, "new2"), engine.BackupOptions{Files: []string{"../x"}}, engine.ErrInvalidInput},
		{"ErrInvalid/Dest", cfg, "", engine.BackupOptions{}, engine.ErrInvalidInput},
		{"ErrInvalid/Inside", cfg, filepath.Join(src, "bk"), engine.BackupOptions{}, engine.ErrInvalidInput},
		{"ErrInvalid/InsideIndex", cfg, filepath.Join(src, "index", "snapshots", "bk"), engine.BackupOptions{}, engine.ErrInvalidInput},
		{"ErrInvalid/InsideThroughLink", cfg, filepath.Join(srcLink, "new", "bk"), engine.BackupOptions{}, engine.ErrInvalidInput},
		{"ErrBackupPostgres", engine.Config{Postgres: "postgres://localhost/x"}, filepath.Join(base, "new3"), engine.BackupOptions{}, engine.ErrBackupPostgres},
		{"OK/Empty", cfg, empty, engine.BackupOptions{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engine.Backup(ctx, tc.cfg, tc.dest, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Backup(%s) = %v, want %v", tc.dest, err, tc.want)
			}
		})
	}
	for _, d := range []string{src, srcLink} { // before: "not empty (it holds LOCK)", "is a symbolic link"
		_, err := engine.Backup(ctx, cfg, d, engine.BackupOptions{})
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || ve.Field != "dest" || !strings.Contains(err.Error(), "is the data directory itself") {
			t.Errorf("Backup into the data directory %s = %v, want a *ValidationError on dest saying it is the data directory", d, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(full, "keep")); err != nil || string(b) != "mine" {
		t.Errorf("the refused directory's file: %q, %v", b, err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "mine" {
		t.Errorf("the refused file: %q, %v", b, err)
	}
	for _, n := range []string{"new1", "new2", "new3", "srclink/new", "srclink/bk", "srclink/index/snapshots/bk"} {
		if _, err := os.Lstat(filepath.Join(base, n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused backup left %s: %v", n, err)
		}
	}
	assertNoStaging(t, src)
	if _, err := os.Stat(filepath.Join(empty, engine.DatabaseFile)); err != nil {
		t.Errorf("the backup into an empty directory: %v", err)
	}
	assertNoStaging(t, base)
}

// assertNoStaging fails when parent holds a backup's staging directory.
func assertNoStaging(t *testing.T, parent string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(parent, ".*.backup-*"))
	if len(left) > 0 {
		t.Errorf("staging directories left: %v", left)
	}
}

// cancelOnStaging is a context canceled as soon as a backup's staging
// directory exists in parent, looked for at each call of Done or Err: the
// backup is canceled in the middle, deterministically.
type cancelOnStaging struct {
	context.Context
	cancel context.CancelFunc
	parent string
	seen   atomic.Bool
}

func (c *cancelOnStaging) poll() {
	if left, _ := filepath.Glob(filepath.Join(c.parent, ".*.backup-*", engine.DatabaseFile)); len(left) > 0 {
		c.seen.Store(true)
		c.cancel()
	}
}

func (c *cancelOnStaging) Done() <-chan struct{} { c.poll(); return c.Context.Done() }
func (c *cancelOnStaging) Err() error            { c.poll(); return c.Context.Err() }

// TestBackupCanceled: a backup whose context ends once its copy has begun
// returns the context's error and leaves neither the destination nor its
// staging directory.
func TestBackupCanceled(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	for i := range 20 {
		if err := appendOne(context.Background(), e, "ana", "t1", fmt.Sprintf("turn %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	parent := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cctx := &cancelOnStaging{Context: ctx, cancel: cancel, parent: parent}
	dest := filepath.Join(parent, "backup")
	_, err := engine.Backup(cctx, engine.Config{Dir: e.Dir()}, dest, engine.BackupOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Backup = %v, want context.Canceled", err)
	}
	if !cctx.seen.Load() {
		t.Fatal("the staging database was never seen")
	}
	if _, err := os.Lstat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a canceled backup left %s: %v", dest, err)
	}
	assertNoStaging(t, parent)
}

// TestBackupLeavesErasedText: text erased before the backup is in no byte
// of it (the copy has no free page), while text kept is.
func TestBackupLeavesErasedText(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	secret := "zebra-backup-secret-" + strings.Repeat("q", 40)
	for i := range 30 {
		if err := appendOne(ctx, e, "ana", "gone", fmt.Sprintf("%s %d", secret, i)); err != nil {
			t.Fatal(err)
		}
		if err := appendOne(ctx, e, "ana", "kept", fmt.Sprintf("ordinary kept text %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.DeleteThread(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "backup")
	if _, err := engine.Backup(ctx, engine.Config{Dir: e.Dir()}, dest, engine.BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dest, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("zebra-backup-secret")) {
		t.Errorf("the backup holds erased text")
	}
	if !bytes.Contains(b, []byte("ordinary kept text")) {
		t.Errorf("the backup lacks the kept text (the grep would prove nothing)")
	}
}
