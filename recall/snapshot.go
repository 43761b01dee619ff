package recall

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Shard snapshots (issue 14). Building a large resource's shard from the
// Source reads every message and embedding row, analyses every text again
// and encodes every vector: ~3 s for 100,000 messages. A snapshot file per
// resource and embedder, under Config.SnapshotDir, holds the built shard
// (snapshot_format.go: messages, term ids, answer types, BM25 statistics,
// and the vector index's chunks: int8 codes, float32 vectors, sign rows),
// so that the first use maps one file instead: the messages' contents and
// term ids and the vector chunks are used where they lie in the mapping,
// copy-on-write (snapshot_read.go).
//
// A snapshot is a derived index, like the bleve directory:
//
//   - It is checksummed and versioned; a damaged file, or one of another
//     format version, resource, embedder, analyser, answer-type rules or
//     text rules (docTextVersion: a tool call's text), is deleted and the shard built from the Source (and written again):
//     it never fails a load and never serves a wrong message. The
//     messages part is verified before the shard serves, the vector part
//     in the background (snapshot_verify.go says what a search may see
//     meanwhile).
//   - It may be older than the store. Before serving, the loaded snapshot is
//     brought up to date per thread (catchUp): the store's message count and
//     last seq of each thread (SnapshotSource.ThreadMarks; seqs are never
//     reused) tell which threads changed; their messages after the
//     snapshot's last seq are read, and a thread whose count still does not
//     match (a message erased) is read again whole; threads gone are dropped;
//     the vectors of new messages, and of messages that had none, are read.
//     The result is the shard a build from the Source gives (the
//     property tests compare them).
//   - Erasure removes it: Index.Remove deletes the snapshot files of the
//     removed messages' resources (every embedder's) before it returns, and
//     a snapshot being written concurrently is discarded; the background
//     writer writes a new one.
//   - Writes are atomic (a temporary file, fsync, rename); a temporary file
//     a crash left is deleted when the next Index opens the directory.
//
// When: a background goroutine writes the snapshot of a resource once the
// writes to it since its last snapshot reach its size (at least
// SnapshotMin/2, at most snapshotMaxBehind), and Close writes those with at
// least snapshotCloseMin (within snapshotFlush). An unloaded resource is
// loaded into a temporary shard for it (from its snapshot and the store's
// changes) and released. A resource growing from nothing is thus written
// at sizes doubling: to 100k, 9 snapshots of 131k messages in all (5 of
// 127k from a SnapshotMin of 4,096), where writing them at half its size
// took 8 of 202k from 4,096 (TestSnapshotSchedule;
// each message is caught up, analysed again, once either way); its first
// use catches up at most as many messages as its snapshot holds. A
// resource taking a bulk import (busy: snapshotBusy writes within a
// snapshotEvery interval) waits until the import ends, or until it is
// max(its size, snapshotMaxBehind) writes behind (busyThreshold); at
// Close it is written as any other.
// Resources under Tuning.SnapshotMin messages get none: they load from the
// Source quickly enough. Tuning.ExactVectors (the exact reference) never
// uses snapshots.

// SnapshotSource is what a Source offers for shard snapshots to be brought
// up to date (the engine's message store implements it). Without it,
// Config.SnapshotDir is ignored.
type SnapshotSource interface {
	// ThreadMarks calls fn for every thread of resourceID that holds
	// messages or ever did, with its stored message count and the highest
	// seq it ever gave.
	ThreadMarks(ctx context.Context, resourceID string, fn func(ThreadMark) error) error
	// ThreadDocs calls fn, like Source.ResourceDocs, for the stored messages
	// of threadID (of resourceID) whose seq is above afterSeq, in seq order.
	ThreadDocs(ctx context.Context, resourceID, threadID string, afterSeq int64, fn func(*Doc) error) error
	// MessageVectors calls fn, like Source.ResourceVectors, for the stored
	// embeddings by embedder of the messages ids (ids without one are
	// skipped).
	MessageVectors(ctx context.Context, embedder string, ids []string, fn func(messageID string, vec []float32) error) error
}

// ThreadMark is what the store says of one thread: how many messages it
// holds and the highest seq it ever gave (seqs are never reused).
type ThreadMark struct {
	// ThreadID is the thread's id.
	ThreadID string
	// Messages counts its stored messages.
	Messages int64
	// LastSeq is the highest seq it ever gave (seqs are never reused).
	LastSeq int64
}

const (
	// DefaultSnapshotMin is Tuning.SnapshotMin's default: resources of fewer
	// messages get no snapshot. The Source builds a resource at ~40-50 µs a
	// message (~1,000 messages: 38-53 ms, the 10k bench's first use when
	// this was 4,096; 4,096 messages ~0.15 s) and its snapshot loads it in
	// ~3 ms, so that from 256 messages the first use of a resource stays
	// near issue 14's first-use target (≤ 10× a warm LoadContext). The
	// cost: the snapshots' writes (the 10k bench's ingest ~5 % more CPU,
	// its directory 14 → 20 MiB), one at Close for each resource of 256+
	// messages with 256+ writes since Open (3-9 ms each at 300 messages,
	// load 6), and warm calls served from mapped files (10k bench: p50
	// -0.03 ms, p95 +0.35 ms, p99 +0.6 ms, medians of 18 pairs; RSS -14
	// MiB). BENCHMARKS.md, "Issue 14: eng1, 2026-12-03".
	DefaultSnapshotMin = 256
	// snapshotCloseMin: Close writes the snapshots of resources with at
	// least this many writes since their last one.
	snapshotCloseMin = 256
	// snapshotFlush bounds the writing at Close; what is left is caught up
	// at the next load.
	snapshotFlush = 60 * time.Second
	// snapshotMaxBehind caps the writes after which a snapshot is due
	// (otherwise the resource's size): a snapshot of a resource of 1M
	// messages is never more than 100k messages behind, which the next
	// load or Close would catch up from the store.
	snapshotMaxBehind = 100_000
	// snapshotEvery is how often the writer looks for due snapshots.
	snapshotEvery = 2 * time.Second
	// snapshotBusy: a resource with this many writes within one
	// snapshotEvery interval (100 a second: a bulk import, never an
	// agent's conversation) is busy; its snapshot waits (busyThreshold).
	// Writes are counted as the drainer indexes them, so the pace is the
	// drainer's: 2,000 (1,000 a second) was missed at load 11 on 2 cores,
	// where the drain of a 100k import ran slower, and the snapshots
	// built meanwhile slowed it further.
	snapshotBusy = 200
)

// snapshotLoads counts the shards filled from a snapshot (for the tests).
var snapshotLoads atomic.Int64

// snapshots is an Index's snapshot directory and its writer.
type snapshots struct {
	dir string
	min int
	emb Embedder

	// fileMu serialises the replacement and removal of snapshot files;
	// gen counts per resource the removals (guarded by fileMu): a
	// snapshot built before one is discarded.
	fileMu sync.Mutex
	gen    map[string]uint64
	genAll uint64

	mu      sync.Mutex
	changes map[string]int // writes since the resource's last snapshot
	sizes   map[string]int // messages at its last load or snapshot
	dropped bool           // DropSnapshots: nothing is written any more
	// recent counts the writes to each resource since the writer's last
	// tick, pace those of the tick interval before: a resource with
	// snapshotBusy of either is taking a bulk import (busy).
	recent, pace map[string]int

	kick chan struct{}
	ctx  context.Context // ends at close
	stop context.CancelFunc
	done chan struct{}
	// verifying counts the background checks of loaded vector parts
	// (snapshot_verify.go); close waits for them.
	verifying sync.WaitGroup
}

// openSnapshots prepares dir (created, in place of a file or a link to
// one; temporary files of a crash removed)
// and starts the writer of ix.
func openSnapshots(ix *Index, dir string) (*snapshots, error) {
	if !littleEndian {
		return nil, nil // the format is the little-endian memory of the index
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		// Something else in the directory's place (a file, a link to
		// one; a link to a directory is used): the snapshots are
		// derived, so it goes rather than stop every open.
		if err := os.Remove(dir); err != nil {
			return nil, fmt.Errorf("recall: snapshot directory: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recall: snapshot directory: %w", err)
	}
	if err := removeMatching(dir, func(name string) bool { return strings.Contains(name, ".tmp-") }); err != nil {
		return nil, fmt.Errorf("recall: snapshot directory: %w", err)
	}
	min := ix.cfg.Tuning.SnapshotMin
	if min == 0 {
		min = DefaultSnapshotMin
	}
	sn := &snapshots{dir: dir, min: min, emb: ix.emb, gen: map[string]uint64{},
		changes: map[string]int{}, sizes: map[string]int{}, recent: map[string]int{}, pace: map[string]int{},
		kick: make(chan struct{}, 1), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	sn.ctx, sn.stop = ctx, cancel
	go sn.run(ctx, ix)
	return sn, nil
}

// removeMatching deletes the files of dir whose name match accepts
// (whatever they are: a directory in a file's place goes with its
// contents, so that it cannot stop an erasure).
func removeMatching(dir string, match func(string) bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if match(e.Name()) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func hashName(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:12])
}

// path returns the snapshot file of resource for the index's embedder:
// <hash of resource>.<hash of embedder>.snap.
func (sn *snapshots) path(resource string) string {
	return filepath.Join(sn.dir, hashName(resource)+"."+hashName(sn.emb.ID())+".snap")
}

// run writes due snapshots until ctx ends.
func (sn *snapshots) run(ctx context.Context, ix *Index) {
	defer close(sn.done)
	t := time.NewTicker(snapshotEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sn.kick:
		case <-t.C:
			sn.tick()
		}
		for _, r := range sn.due(false) {
			if ctx.Err() != nil {
				return
			}
			_ = ix.saveSnapshot(ctx, r) // a failure leaves the writes counted: tried again
		}
	}
}

// close stops the writer and writes the snapshots due at close (none
// after drop) until ctx ends, for at most snapshotFlush.
func (sn *snapshots) close(ctx context.Context, ix *Index) {
	sn.stop()
	<-sn.done
	sn.verifying.Wait()
	sn.mu.Lock()
	dropped := sn.dropped
	sn.mu.Unlock()
	if dropped {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotFlush)
	defer cancel()
	for _, r := range sn.due(true) {
		if ctx.Err() != nil {
			return
		}
		_ = ix.saveSnapshot(ctx, r)
	}
}

// DropSnapshots deletes every snapshot file of the Index's directory and
// stops writing them (for a rebuild of the derived indexes: the next Index
// over the directory starts afresh). Searches go on, building shards from
// the Source. Errors: the file system's, removing a file.
func (ix *Index) DropSnapshots() error {
	sn := ix.snap
	if sn == nil {
		return nil
	}
	sn.mu.Lock()
	sn.dropped = true
	sn.changes = map[string]int{}
	sn.mu.Unlock()
	sn.stop()
	<-sn.done
	return sn.scrub(nil, true)
}

// due returns the resources whose snapshot is due: writes since the last
// reach the resource's size (and SnapshotMin/2), or, at close,
// snapshotCloseMin. The size of a resource not loaded since Open is read
// from its snapshot file's header when SnapshotMin/2 writes have come
// (fileMessages): without it, 128 writes after a restart rewrote the
// snapshot of a resource of any size, and kept rewriting it every 128
// until the resource was loaded. At close, a resource of unknown size (not loaded
// since Open) with fewer than SnapshotMin writes and no snapshot file is
// left out: it cannot have reached SnapshotMin without a snapshot (one is
// due at SnapshotMin/2 writes), and building it only to find it too small
// cost 3.65 s of CPU at Close after `mnemo bench --size 100k` (100
// resources of 1,000 messages).
func (sn *snapshots) due(closing bool) []string {
	sn.mu.Lock()
	var out, unknown []string
	unsized := map[string]int{}
	for r, n := range sn.changes {
		size := sn.sizes[r]
		switch {
		case n <= 0 || sn.dropped:
		case size > 0 && size+n < sn.min:
			// too small for a snapshot
		case !closing && sn.busy(r) && n < busyThreshold(size):
			// a bulk import: written when it ends (or at Close)
		case !closing && size == 0 && n >= sn.threshold(0):
			unsized[r] = n // its snapshot file's size decides
		case n >= sn.threshold(size):
			out = append(out, r)
		case closing && n >= snapshotCloseMin && size == 0 && n < sn.min:
			unknown = append(unknown, r)
		case closing && n >= snapshotCloseMin:
			out = append(out, r)
		}
	}
	sn.mu.Unlock()
	for _, r := range unknown {
		if _, err := os.Lstat(sn.path(r)); err == nil {
			out = append(out, r) // catch its snapshot up
		}
	}
	for r, n := range unsized {
		if size := sn.fileMessages(r); size == 0 || n >= sn.threshold(size) {
			out = append(out, r)
		} else {
			sn.sized(r, size)
		}
	}
	return out
}

// sized records size as resource's messages unless a load or a snapshot
// has recorded them meanwhile.
func (sn *snapshots) sized(resource string, size int) {
	sn.mu.Lock()
	if sn.sizes[resource] == 0 {
		sn.sizes[resource] = size
	}
	sn.mu.Unlock()
}

// threshold is how many writes make the snapshot of a resource of size
// messages due: its size, at least SnapshotMin/2, at most
// snapshotMaxBehind.
func (sn *snapshots) threshold(size int) int {
	return max(sn.min/2, min(size, snapshotMaxBehind))
}

// busyThreshold is how many writes make the snapshot of a busy resource
// of size messages due: its size, at least snapshotMaxBehind. A snapshot
// built during a bulk import is soon behind, and each build reads and
// analyses every message of the resource again (and holds a temporary
// shard) while the import runs: `mnemo bench --size 100k --resources 1`
// built 5 (127k messages read again, 29 % of the ingest's CPU). With it
// the import builds none under 100k messages, and its snapshots are at
// most half the resource behind.
func busyThreshold(size int) int {
	return max(size, snapshotMaxBehind)
}

// busy reports whether resource takes a bulk import: snapshotBusy writes
// since the last tick, or in the interval before (caller holds mu).
func (sn *snapshots) busy(resource string) bool {
	return sn.recent[resource] >= snapshotBusy || sn.pace[resource] >= snapshotBusy
}

// tick starts a new interval of the write pace.
func (sn *snapshots) tick() {
	sn.mu.Lock()
	sn.pace, sn.recent = sn.recent, map[string]int{}
	sn.mu.Unlock()
}

// wrote counts n writes to resource made now (the pace of busy, then
// changed).
func (sn *snapshots) wrote(resource string, n int) {
	if sn == nil || n == 0 {
		return
	}
	sn.mu.Lock()
	sn.recent[resource] += n
	sn.mu.Unlock()
	sn.changed(resource, n)
}

// changed counts n writes to resource and wakes the writer when a
// snapshot falls due.
func (sn *snapshots) changed(resource string, n int) {
	if sn == nil || n == 0 {
		return
	}
	sn.mu.Lock()
	sn.changes[resource] += n
	c, size := sn.changes[resource], sn.sizes[resource]
	want := sn.threshold(size)
	if sn.busy(resource) {
		want = max(want, busyThreshold(size))
	}
	sn.mu.Unlock()
	if c >= want {
		select {
		case sn.kick <- struct{}{}:
		default:
		}
	}
}

// loaded records that resource loaded with size messages, of which
// changes were not in its snapshot.
func (sn *snapshots) loaded(resource string, size, changes int) {
	if sn == nil {
		return
	}
	sn.mu.Lock()
	sn.sizes[resource] = size
	sn.mu.Unlock()
	sn.changed(resource, changes)
}

// generation returns the count of removals that concern resource.
func (sn *snapshots) generation(resource string) uint64 {
	sn.fileMu.Lock()
	defer sn.fileMu.Unlock()
	return sn.gen[resource] + sn.genAll
}

// scrub deletes the snapshot files (every embedder's, and any being
// written) of resources, or of every resource when all is set, and makes
// the snapshots being built of them be discarded. The writer builds new
// ones.
func (sn *snapshots) scrub(resources []string, all bool) error {
	if sn == nil {
		return nil
	}
	sn.fileMu.Lock()
	defer sn.fileMu.Unlock()
	if all {
		sn.genAll++
		return removeMatching(sn.dir, func(string) bool { return true })
	}
	prefix := map[string]string{}
	for _, r := range resources {
		sn.gen[r]++
		prefix[hashName(r)+"."] = r
	}
	var gone []string
	err := removeMatching(sn.dir, func(name string) bool {
		i := strings.IndexByte(name, '.')
		if i < 0 {
			return false
		}
		r, ok := prefix[name[:i+1]]
		if ok && strings.HasSuffix(name, ".snap") {
			gone = append(gone, r)
		}
		return ok
	})
	sn.mu.Lock()
	for _, r := range gone {
		sn.changes[r] += max(sn.min, sn.sizes[r]) // due again
	}
	sn.mu.Unlock()
	return err
}

// take resets resource's write count and returns it.
func (sn *snapshots) take(resource string) int {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	n := sn.changes[resource]
	delete(sn.changes, resource)
	return n
}

// saveSnapshot writes resource's snapshot from its loaded shard, or from a
// temporary one, unless it is under SnapshotMin messages or a removal
// concerned it meanwhile.
func (ix *Index) saveSnapshot(ctx context.Context, resource string) (err error) {
	sn := ix.snap
	gen := sn.generation(resource)
	taken := sn.take(resource)
	f, err := os.CreateTemp(sn.dir, hashName(resource)+".tmp-*")
	if err != nil {
		sn.changed(resource, taken)
		return fmt.Errorf("recall: write snapshot: %w", err)
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
			os.Remove(f.Name())
		}
		if err != nil {
			sn.changed(resource, taken)
		}
	}()
	size, err := ix.encodeShard(ctx, resource, f)
	if err == nil {
		sn.mu.Lock()
		sn.sizes[resource] = size
		sn.mu.Unlock()
	}
	if err != nil || size < sn.min {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("recall: write snapshot: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("recall: write snapshot: %w", err)
	}
	sn.fileMu.Lock()
	defer sn.fileMu.Unlock()
	if sn.gen[resource]+sn.genAll != gen {
		sn.changed(resource, taken) // a removal came after the shard was read: again
		return nil
	}
	if err := os.Rename(f.Name(), sn.path(resource)); err != nil {
		return fmt.Errorf("recall: write snapshot: %w", err)
	}
	keep = true
	syncDir(sn.dir)
	return nil
}

// syncDir makes a rename in dir durable (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// errUnverified: the loaded shard's snapshot is still being verified
// (snapshot_verify.go); its snapshot is written later.
var errUnverified = errors.New("recall: shard snapshot not verified yet")

// encodeShard writes resource's snapshot into f and returns the messages
// it holds: from the loaded shard (read-locked meanwhile), else from a
// temporary shard (its snapshot's vector part verified first). It writes
// nothing for a shard under SnapshotMin.
func (ix *Index) encodeShard(ctx context.Context, resource string, f *os.File) (n int, err error) {
	t := newShard(resource, ix.location(resource), false)
	defer t.unload()
	defer ix.guardFaults(&err, t)()
	if s := ix.loadedShard(resource); s != nil && ix.checkedShard(s) != nil {
		s.mu.RLock()
		if s.loaded {
			defer s.mu.RUnlock()
			if s.unverified.Load() {
				return 0, errUnverified
			}
			return ix.encodeLocked(s, f)
		}
		s.mu.RUnlock()
	}
	sf, err := ix.fillTemp(ctx, t)
	if err != nil {
		return 0, err
	}
	if sf != nil && !ix.verifyNow(t, sf) {
		return 0, fmt.Errorf("%w: vector part damaged", errSnapshot)
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	return ix.encodeLocked(t, f)
}

// fillTemp fills the temporary shard t and returns the snapshot file whose
// vector part is still to verify, if any (loadMu released on a panic too:
// a fault reading the mapping, snapshot_fault.go).
func (ix *Index) fillTemp(ctx context.Context, t *shard) (*snapFile, error) {
	t.loadMu.Lock()
	defer t.loadMu.Unlock()
	_, err := ix.fill(ctx, t, nil)
	sf := t.pending
	t.pending = nil
	return sf, err
}

func (ix *Index) encodeLocked(s *shard, f *os.File) (int, error) {
	n := s.docs.len()
	ix.snap.mu.Lock()
	ix.snap.sizes[s.resource] = n
	ix.snap.mu.Unlock()
	if n < ix.snap.min {
		return n, nil
	}
	if err := s.writeSnapshot(f, ix.emb.ID()); err != nil {
		return 0, fmt.Errorf("recall: write snapshot of %s: %w", s.resource, err)
	}
	return n, nil
}

// fill loads s (caller holds loadMu) from its snapshot brought up to date,
// or else from the Source, and returns how many of its messages were not
// in a snapshot.
func (ix *Index) fill(ctx context.Context, s *shard, qv []float32) (int, error) {
	src, ok := ix.cfg.Source.(SnapshotSource)
	if ix.snap == nil || !ok || s.exact {
		return 0, s.load(ctx, ix.cfg.Source, ix.emb, ix.cfg.Lexical)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := ix.fromSnapshot(ctx, s, src, qv)
	if err == nil {
		s.loaded = true
		snapshotLoads.Add(1)
		return n, nil
	}
	if !errors.Is(err, errSnapshot) && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	if errors.Is(err, errSnapshot) {
		_ = os.RemoveAll(ix.snap.path(s.resource)) // written again from the Source's build (a directory in its place goes too)
		if f := ix.cfg.SnapshotDropped; f != nil {
			f(s.resource, dropReason(err))
		}
	}
	if err := s.loadLocked(ctx, ix.cfg.Source, ix.emb, ix.cfg.Lexical); err != nil {
		return 0, err
	}
	return s.docs.len(), nil
}

// fromSnapshot fills s (reset, caller holds mu) from its snapshot file and
// the store's changes since; it returns the changes applied. The file's
// vector part is verified afterwards, in the background (verifyVectors).
func (ix *Index) fromSnapshot(ctx context.Context, s *shard, src SnapshotSource, qv []float32) (int, error) {
	sf, err := openSnapFile(ix.snap.path(s.resource))
	if err != nil {
		return 0, err
	}
	if err := s.reset(); err != nil {
		sf.close()
		return 0, err
	}
	if s.stamp, err = stampOf(sf); err != nil {
		sf.close()
		return 0, err
	}
	loadMark("open")
	marks := s.readMarks(ctx, src) // beside the decoding
	vectorless, err := s.readSnapshotFile(sf, ix.emb, qv)
	if err == nil {
		var n int
		tm := <-marks
		loadMark("thread marks waited")
		n, err = s.catchUp(ctx, src, ix.emb, ix.cfg.Lexical, tm, vectorless)
		loadMark("catch up")
		if err == nil {
			s.pending = sf
			s.unverified.Store(true)
			return n, nil
		}
	}
	sf.close()
	if rerr := s.reset(); rerr != nil {
		return 0, rerr
	}
	return 0, err
}
