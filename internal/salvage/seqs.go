package salvage

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/mnemo-go/mnemo/journal"
)

// A message's digest covers its text, not its seq, and a seq garbled to
// another positive number reads back as a whole row (valid.go refuses
// only seqs below 1). Copied as it was, such a row took the place of a
// seq lost or erased, or raised its thread's last_seq (6 read as 70: seqs
// 7..69 then recorded as lost, and 70 the thread's next-to-last seq). Two
// things mnemo writes tell where a seq can be:
//
//   - Order. An append gives its messages the thread's next seqs and
//     SQLite's next rowids (pk) in one transaction, and nothing changes
//     either afterwards, so within a thread seq rises with pk. A row that
//     is in no longest rising run of its thread's seqs, taken in pk order,
//     is out of place: 1, 2, 70, 4, 5 drops 70. Where two rows could each
//     be the odd one (1, 2, 9, 4: 9 or 4), neither is dropped. Nor is one
//     whose seq is a hole up to the greatest seq in order (last_seq when
//     the counts below agree), neither erased nor lost (1, 2, 4, 5, 3; 5,
//     1, 2, 3, 4 of last_seq 5): its pk, not its seq, was garbled (a rowid
//     is as exposed as a seq), and its seq is where it belongs. A garbled
//     seq lands on such a hole only when that seq's own row was lost too.
//   - Counts. Every seq 1..last_seq of a thread is stored, erased or lost
//     (journal.ScopeErased, journal.ScopeLost), and message_count counts
//     those stored. When the thread's row read agrees with itself and with
//     what was read (message_count the rows read of the thread, last_seq
//     message_count plus its erased and lost seqs), a row whose seq passes
//     last_seq or is an erased or lost one is out of place: the last
//     message's 4 read as 9 in a thread of last_seq 4. When they do not
//     agree (rows of the thread unreadable, or the thread's row garbled)
//     this rule is not applied: a garbled last_seq must not drop the
//     messages past it.
//
// A seq garbled to one another row of its thread holds is not found: the
// second of the two rows is refused by UNIQUE (thread_id, seq) when it is
// copied (Table.Invalid), and what remains is in order.

// dropMisplaced deletes the messages whose seq is out of place by the
// rules above; their seqs are then recorded as lost like those of
// unreadable rows. It returns how many.
func dropMisplaced(ctx context.Context, tx *sql.Tx) (int64, error) {
	bad, err := misplaced(ctx, tx)
	if err != nil {
		return 0, err
	}
	for _, pk := range bad {
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE pk = ?`, pk); err != nil {
			return 0, fmt.Errorf("salvage: %w", err)
		}
	}
	return int64(len(bad)), nil
}

// threadSeqs is one thread's messages as read, in pk order, with what its
// row and the journal say.
type threadSeqs struct {
	pks, seqs []int64
	row       bool  // the thread's row was read
	lastSeq   int64 // its last_seq and message_count, when row
	count     int64
	gone      map[int64]bool // its erased and lost seqs (journal)
}

// misplaced returns the pks of the messages out of place.
func misplaced(ctx context.Context, tx *sql.Tx) ([]int64, error) {
	threads := map[string]*threadSeqs{}
	get := func(id string) *threadSeqs {
		t := threads[id]
		if t == nil {
			t = &threadSeqs{gone: map[int64]bool{}}
			threads[id] = t
		}
		return t
	}
	err := each(ctx, tx, `SELECT thread_id, pk, seq FROM messages ORDER BY thread_id, pk`, func(id string, a, b int64) {
		t := get(id)
		t.pks, t.seqs = append(t.pks, a), append(t.seqs, b)
	})
	if err == nil {
		err = each(ctx, tx, `SELECT id, last_seq, message_count FROM threads`, func(id string, a, b int64) {
			if t := threads[id]; t != nil {
				t.row, t.lastSeq, t.count = true, a, b
			}
		})
	}
	if err == nil {
		err = each(ctx, tx, `SELECT j.thread_id, `+seqOfKey+`, 0 FROM journal j WHERE j.scope IN ('`+journal.ScopeErased+`', '`+journal.ScopeLost+`')`, func(id string, seq, _ int64) {
			if t := threads[id]; t != nil {
				t.gone[seq] = true
			}
		})
	}
	if err != nil {
		return nil, fmt.Errorf("salvage: seqs: %w", err)
	}
	var bad []int64
	for _, t := range threads {
		bad = append(bad, t.outOfPlace()...)
	}
	slices.Sort(bad)
	return bad, nil
}

// outOfPlace returns the pks of t's messages out of place.
func (t *threadSeqs) outOfPlace() []int64 {
	in := inSomeLongestRise(t.seqs)
	counted := t.row && t.count == int64(len(t.seqs)) && t.lastSeq == t.count+int64(len(t.gone))
	for s := range t.gone {
		counted = counted && s >= 1 && s <= t.lastSeq
	}
	// top is the greatest seq a row can hold: last_seq when counted, else
	// the greatest of the rows in order.
	var top int64
	for i, s := range t.seqs {
		if in[i] {
			top = max(top, s)
		}
	}
	if counted {
		top = t.lastSeq
	}
	var bad []int64
	for i, pk := range t.pks {
		s := t.seqs[i]
		// Out of order, a row whose seq is a hole up to top (no other
		// row holds it: UNIQUE) and neither erased nor lost is a valid
		// message whose pk, not its seq, was garbled: kept.
		misordered := !in[i] && (s > top || t.gone[s])
		if misordered || counted && (s > t.lastSeq || t.gone[s]) {
			bad = append(bad, pk)
		}
	}
	return bad
}

// inSomeLongestRise reports, for each of a, whether it is in some longest
// strictly rising subsequence of a: the length of the longest ending at
// it plus that of the longest starting at it, less one, is the longest's.
func inSomeLongestRise(a []int64) []bool {
	n := len(a)
	ending := risingLengths(a)
	rev := make([]int64, n)
	for i, x := range a {
		rev[n-1-i] = -x // a rise starting at i, read backwards, falls
	}
	starting := risingLengths(rev)
	longest := 0
	for _, l := range ending {
		longest = max(longest, l)
	}
	in := make([]bool, n)
	for i := range a {
		in[i] = ending[i]+starting[n-1-i]-1 == longest
	}
	return in
}

// risingLengths returns, for each of a, the length of the longest strictly
// rising subsequence of a that ends at it (patience sorting, n log n).
func risingLengths(a []int64) []int {
	out := make([]int, len(a))
	var tails []int64 // tails[k]: the least last value of a rise of k+1
	for i, x := range a {
		k, _ := slices.BinarySearch(tails, x)
		if k == len(tails) {
			tails = append(tails, x)
		} else {
			tails[k] = x
		}
		out[i] = k + 1
	}
	return out
}

// each runs q, whose rows are a text and two integers, calling fn on each.
func each(ctx context.Context, tx *sql.Tx, q string, fn func(string, int64, int64)) error {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var a, b int64
		if err := rows.Scan(&s, &a, &b); err != nil {
			return err
		}
		fn(s, a, b)
	}
	return rows.Err()
}
