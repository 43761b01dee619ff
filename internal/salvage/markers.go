package salvage

import (
	"context"
	"database/sql"
	"time"

	"github.com/mnemo-go/mnemo/journal"
)

// An erased seq leaves only its tombstone in the journal
// (journal.ScopeErased), a seq lost to an earlier salvage its record
// (journal.ScopeLost): every seq 1..last_seq of a thread is stored or
// one of them. When the journal's rows on a damaged page are lost, so
// are those markers, and the seqs read as missing: they were recorded as
// lost to this salvage, which listed messages erased on purpose as lost
// (readme71 F4: 10 messages erased, the journal's leaf garbled, "10
// messages lost").
//
// When the messages table was read whole (no rowid unreadable, no row
// refused or dropped as garbled or out of place), no message was lost:
// each seq missing is one whose marker was lost. They are marked erased
// again (their marker was more likely a tombstone; a seq lost to an
// earlier salvage reads as erased after) and reported as MarkersLost, not
// Lost. When messages were lost too, a lost marker's seq cannot be told
// from a lost message's (a message's rowid is not its seq, and an erased
// message leaves no rowid behind): every missing seq is recorded as lost,
// as before.

// recordMissing records the seqs of every thread that are neither
// stored, erased nor already lost, at now: as erased when only markers
// can have been lost (above: rep.MarkersLost), else as lost (rep.Lost).
func recordMissing(ctx context.Context, tx *sql.Tx, now time.Time, rep *Report) error {
	missing, err := missingSeqs(ctx, tx, now)
	if err != nil {
		return err
	}
	if rep.markersOnly() {
		rep.MarkersLost = missing
		return markEach(ctx, tx, missing, now, journal.TombstoneSeq)
	}
	rep.Lost = missing
	return markEach(ctx, tx, missing, now, journal.RecordLost)
}

// markersOnly reports whether the journal lost rows while the messages
// table was read whole and kept whole: a missing seq is then one whose
// marker was lost, not a lost message.
func (r *Report) markersOnly() bool {
	j, m := r.table("journal"), r.table("messages")
	if j == nil || m == nil || !j.Missing && len(j.Unreadable) == 0 {
		return false
	}
	return !m.Missing && len(m.Unreadable) == 0 && m.Invalid == 0 && m.Garbled == 0
}
