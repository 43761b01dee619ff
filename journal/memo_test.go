package journal_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// memoLo and memoHi bound the byte-order range of the keys under
// "observe|a|" (as observe keys a thread's entries): '}' follows '|' in
// bytes.
const memoLo, memoHi = "observe|a|", "observe|a}"

// memoInside are the memo keys in [memoLo, memoHi); memoOutside the ones
// beside it: another thread whose id begins with "a", the bounds' own
// neighbours, a capital letter and a non-ASCII one (which a linguistic
// collation sorts among the range's keys).
var (
	memoInside  = []string{"observe|a|1|2|v1|m", "observe|a|skipped|1|2", "observe|a|skipretried|1|2|m", "observe|a|ü"}
	memoOutside = []string{"observe|ab|1|2|v1|m", "observe|a-|1", "observe|a.b|1", "observe|A|1", "observe|á|1", "observe|a}", "observe|a"}
)

// seedMemos records every key of memoInside and memoOutside in ScopeMemo
// (output "out:<key>"), and a tool record under each of memoInside's keys,
// which no memo function may read or delete.
func seedMemos(t *testing.T, j *journal.Journal) {
	t.Helper()
	ctx := context.Background()
	for _, k := range append(slices.Clone(memoInside), memoOutside...) {
		if err := j.Set(ctx, journal.ScopeMemo, k, []byte("out:"+k)); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range memoInside {
		if err := j.Set(ctx, journal.ScopeTool, k, []byte("tool")); err != nil {
			t.Fatal(err)
		}
	}
}

// memoKeysLeft returns the recorded memo keys of memoInside and
// memoOutside, and fails t if a tool record seedMemos wrote is gone.
func memoKeysLeft(t *testing.T, j *journal.Journal) []string {
	t.Helper()
	ctx := context.Background()
	var left []string
	for _, k := range append(slices.Clone(memoInside), memoOutside...) {
		if _, err := j.Recorded(ctx, journal.ScopeMemo, k); err == nil {
			left = append(left, k)
		}
		if slices.Contains(memoInside, k) {
			if _, err := j.Recorded(ctx, journal.ScopeTool, k); err != nil {
				t.Errorf("tool record %q: %v, want kept", k, err)
			}
		}
	}
	slices.Sort(left)
	return left
}

// without returns keys without those of drop, sorted.
func without(keys []string, drop ...string) []string {
	out := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return slices.Contains(drop, k) })
	slices.Sort(out)
	return out
}

// TestMemoReads: HasMemo, MemoKeys and Memos read the memo entries of one
// key and of a byte-order range on both backends, with the key column in
// a linguistic collation on Postgres (where '|', '}', 'A' and 'á' sort
// otherwise than in bytes), and never a record of another scope under the
// same key.
func TestMemoReads(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		j, db := b.openErase(t)
		b.Linguistic(t, db, "journal.key")
		seedMemos(t, j)
		if err := j.Set(ctx, journal.ScopeTool, "tool-only", []byte("tool")); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			key  string
			want bool
		}{{memoInside[0], true}, {memoOutside[0], true}, {"observe|a|none", false}, {"tool-only", false}} {
			if got, err := journal.HasMemo(ctx, db, c.key); err != nil || got != c.want {
				t.Errorf("HasMemo(%q) = %v, %v; want %v", c.key, got, err, c.want)
			}
		}
		for _, c := range []struct {
			name, key, lo, hi string
			want              []string
		}{
			{"range and a key outside it", memoOutside[0], memoLo, memoHi, append(slices.Clone(memoInside), memoOutside[0])},
			{"range and a key in it", memoInside[1], memoLo, memoHi, memoInside},
			{"range and a key not recorded", "observe|a|none", memoLo, memoHi, memoInside},
			{"a key, empty range", memoInside[2], "observe|a|skipretried|9|", "observe|a|skipretried|9}", memoInside[2:3]},
			{"the skip retries' range", "observe|a|skipped|1|2", "observe|a|skipretried|1|2|", "observe|a|skipretried|1|2}", memoInside[1:3]},
			{"nothing", "observe|z", "observe|z|", "observe|z}", nil},
		} {
			got, err := journal.MemoKeys(ctx, db, c.key, c.lo, c.hi)
			slices.Sort(got)
			if err != nil || !slices.Equal(got, without(c.want)) || got == nil {
				t.Errorf("MemoKeys, %s: %q, %v; want %q (not nil)", c.name, got, err, without(c.want))
			}
		}
		memos, err := journal.Memos(ctx, db, memoLo, memoHi)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, m := range memos {
			keys = append(keys, m.Key)
			if string(m.Output) != "out:"+m.Key {
				t.Errorf("Memos: %q holds %q, want %q", m.Key, m.Output, "out:"+m.Key)
			}
		}
		if slices.Sort(keys); !slices.Equal(keys, without(memoInside)) {
			t.Errorf("Memos: %q, want %q", keys, without(memoInside))
		}
		if memos, err := journal.Memos(ctx, db, "observe|z|", "observe|z}"); err != nil || memos == nil || len(memos) != 0 {
			t.Errorf("Memos of an empty range: %v, %v; want an empty slice", memos, err)
		}
	})
}

// TestMemoForget: ForgetMemo and ForgetMemos delete, in the caller's
// transaction, one memo entry and a byte-order range of them but the kept
// keys, on both backends (a linguistic key collation on Postgres), and
// nothing else: no key beside the range, no record of another scope.
func TestMemoForget(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		j, db := b.openErase(t)
		b.Linguistic(t, db, "journal.key")
		all := append(slices.Clone(memoInside), memoOutside...)
		for _, c := range []struct {
			name string
			op   func(tx store.Conn) error
			left []string
		}{
			{"one key", func(tx store.Conn) error { return journal.ForgetMemo(ctx, tx, memoInside[0]) }, without(all, memoInside[0])},
			{"a key not recorded", func(tx store.Conn) error { return journal.ForgetMemo(ctx, tx, "observe|a|none") }, without(all)},
			{"the range", func(tx store.Conn) error { return journal.ForgetMemos(ctx, tx, memoLo, memoHi, nil) }, without(memoOutside)},
			{"the range but one", func(tx store.Conn) error {
				return journal.ForgetMemos(ctx, tx, memoLo, memoHi, memoInside[1:2])
			}, without(all, memoInside[0], memoInside[2], memoInside[3])},
			{"the range but two, and a key outside kept anyway", func(tx store.Conn) error {
				return journal.ForgetMemos(ctx, tx, memoLo, memoHi, []string{memoInside[1], memoInside[2], memoOutside[0]})
			}, without(all, memoInside[0], memoInside[3])},
			{"an empty range", func(tx store.Conn) error { return journal.ForgetMemos(ctx, tx, "observe|z|", "observe|z}", nil) }, without(all)},
		} {
			seedMemos(t, j)
			inTx(t, db, func(tx *store.Tx) error { return c.op(tx) })
			if got := memoKeysLeft(t, j); !slices.Equal(got, c.left) {
				t.Errorf("%s: left %q, want %q", c.name, got, c.left)
			}
		}
	})
}

// TestMemoRangePlans: the range reads and the delete of memo entries read
// a byte-order range of an index, not every memo entry: on SQLite the
// primary key's (scope=? AND key>? AND key<?), on Postgres
// journal_memo_key_bytes (migration 11), with the key column in a
// linguistic collation.
func TestMemoRangePlans(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		_, db := b.openErase(t)
		b.Linguistic(t, db, "journal.key")
		var rows []string
		for i := range 3000 {
			rows = append(rows, fmt.Sprintf(`('memo', 'observe|t-%d|%d|%d|v1|m', 't-%d', 'r', %s, 1)`,
				i%100, i, i, i%100, b.Dialect.Text(`x''`, `''::bytea`)))
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES `+strings.Join(rows, ", ")); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
			t.Fatal(err)
		}
		want := b.Dialect.Text("(scope=? AND key>? AND key<?)", "journal_memo_key_bytes")
		for _, p := range journal.MemoRangeSQL(b.Dialect, "observe|t-17|", "observe|t-17}") {
			if plan := b.Plan(t, store.Bound(db), p.Query, p.Args...); !strings.Contains(plan, want) || strings.Contains(plan, "Seq Scan") {
				t.Errorf("%s reads every memo entry: %s; want %s", p.Name, plan, want)
			}
		}
	})
}
