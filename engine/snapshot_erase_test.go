package engine_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// vectorBytes returns the float32 encoding (little endian, as the shard
// snapshot and SQLite store it) and the int8 codes of text's hash-384
// vector. A hash-384 vector is an integer row (recall/vecexact.go): its
// codes are the smallest integers its values are proportional to (twice
// the features' half-integer weights, divided by their common factor),
// not the 127-scaled codes of other vectors (encode8).
func vectorBytes(t *testing.T, text string) (f32, codes []byte) {
	t.Helper()
	vs, err := recall.HashEmbedder{}.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	v := vs[0]
	lo := math.Inf(1)
	for _, f := range v {
		f32 = binary.LittleEndian.AppendUint32(f32, math.Float32bits(f))
		if a := math.Abs(float64(f)); a > 0 {
			lo = min(lo, a)
		}
	}
	for kmin := 1.0; kmin < 128; kmin++ {
		codes = codes[:0]
		for _, f := range v {
			y := float64(f) * kmin / lo
			if math.Abs(y-math.Round(y)) > 1e-3 {
				break
			}
			codes = append(codes, byte(int8(math.Round(y))))
		}
		if len(codes) == len(v) {
			return f32, codes
		}
	}
	t.Fatalf("%q: no integer codes", text)
	return nil, nil
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEraseRemovesSnapshots: a resource's shard snapshot (recall, issue 14)
// holds its messages' texts and vectors; after DeleteMessages,
// DeleteThread, DeleteResource or Expire no file under the data directory
// holds an erased message's text, its vector's float32 encoding or its int8
// codes, and the snapshot written again afterwards holds none either.
func TestEraseRemovesSnapshots(t *testing.T) {
	ctx := context.Background()
	const secretTurn = "my bank pin is " + secretToken + " keep it safe"
	f32, codes := vectorBytes(t, secretTurn)
	for _, kind := range []string{"messages", "thread", "resource", "expire"} {
		t.Run(kind, func(t *testing.T) {
			clock := newFakeClock()
			e := eraseFixture(t, enginetest.SQLite, engine.Config{Now: clock.Now, Lifecycle: engine.Lifecycle{IdleTTL: 24 * time.Hour},
				RecallTuning: recall.Tuning{SnapshotMin: 1}})
			dir := e.Dir()
			snaps := filepath.Join(dir, engine.SnapshotDir)
			// Proof that the scan below can fail: the snapshot holds the
			// secret turn's text and, once its vector is stored (the drainer
			// embeds after indexing), the vector's bytes.
			waitFor(t, "the snapshot of r with the secret turn's text and vector", func() bool {
				return len(filesContaining(t, snaps, secretToken)) > 0 && len(filesContaining(t, snaps, string(f32))) > 0 &&
					len(filesContaining(t, snaps, string(codes))) > 0
			})
			var err error
			switch kind {
			case "messages":
				_, err = e.DeleteMessages(ctx, "m3", "m5")
			case "thread":
				_, err = e.DeleteThread(ctx, "t")
			case "resource":
				_, err = e.DeleteResource(ctx, "r")
			case "expire":
				clock.Add(25 * time.Hour)
				var r *engine.ExpireResult
				r, err = e.Expire(ctx, engine.ExpireRequest{})
				if err == nil && len(r.Threads) == 0 {
					t.Fatal("nothing expired")
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			scan := func(when string) {
				for name, tok := range map[string]string{"text": secretToken, "float32 vector": string(f32), "int8 codes": string(codes)} {
					if hits := filesContaining(t, dir, tok); len(hits) > 0 {
						t.Fatalf("%s: the erased turn's %s is still in %v", when, name, hits)
					}
				}
			}
			scan("after erasure")
			if kind != "messages" {
				return
			}
			// The resource keeps 6 messages: its snapshot is written again,
			// without the erased ones.
			waitFor(t, "the snapshot written again", func() bool {
				ents, _ := os.ReadDir(snaps)
				for _, d := range ents {
					if filepath.Ext(d.Name()) == ".snap" {
						return true
					}
				}
				return false
			})
			scan("after the snapshot was written again")
		})
	}
}

// TestEraseRewritesSnapshotUnloaded: an erasure in a resource whose shard
// is not loaded (the engine reopened, nothing searched) rewrites its
// snapshot from the file (542177a) instead of deleting it; no file under
// the data directory may then hold an erased message's text, its vector's
// float32 encoding or its int8 codes, as after an erasure of a loaded
// shard (TestEraseRemovesSnapshots).
func TestEraseRewritesSnapshotUnloaded(t *testing.T) {
	ctx := context.Background()
	const secretTurn = "my bank pin is " + secretToken + " keep it safe"
	f32, codes := vectorBytes(t, secretTurn)
	for _, kind := range []string{"messages", "thread"} {
		t.Run(kind, func(t *testing.T) {
			tuning := recall.Tuning{SnapshotMin: 1}
			e := eraseFixture(t, enginetest.SQLite, engine.Config{RecallTuning: tuning})
			dir := e.Dir()
			snaps := filepath.Join(dir, engine.SnapshotDir)
			waitFor(t, "the snapshot of r with the secret turn's text and vector", func() bool {
				return len(filesContaining(t, snaps, secretToken)) > 0 && len(filesContaining(t, snaps, string(f32))) > 0 &&
					len(filesContaining(t, snaps, string(codes))) > 0
			})
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, RecallTuning: tuning})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if kind == "messages" {
				_, err = e.DeleteMessages(ctx, "m3", "m5")
			} else {
				_, err = e.DeleteThread(ctx, "t")
			}
			if err != nil {
				t.Fatal(err)
			}
			if kind == "messages" && len(filesContaining(t, snaps, "lisbon")) == 0 {
				// r keeps 6 messages: its snapshot is rewritten, not deleted,
				// so the scan below reads a rewritten file.
				t.Fatal("no snapshot of r after the erasure: the rewrite did not run")
			}
			for name, tok := range map[string]string{"text": secretToken, "float32 vector": string(f32), "int8 codes": string(codes)} {
				if hits := filesContaining(t, dir, tok); len(hits) > 0 {
					t.Errorf("the erased turn's %s is still in %v", name, hits)
				}
			}
		})
	}
}
