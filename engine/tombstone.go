package engine

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-go/mnemo/journal"
)

// TombstonePrefix starts the opaque id that replaces an erased owner's id
// (a deleted thread's, an erased resource's) wherever a record of it is
// kept: memctx records (and their turn references), run owners,
// observation rows.
const TombstonePrefix = "erased-"

// tombstones maps the ids of erased owners to opaque tombstones: a keyed
// hash (HMAC-SHA-256) under a random key that is never stored, so the same
// id maps to the same tombstone within one erasure (a run's references stay
// consistent) and nothing in the data directory leads back to the id, not
// even a guess checked against the hash.
type tombstones struct {
	key []byte
}

func newTombstones() (*tombstones, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("engine: erase: tombstone key: %w", err)
	}
	return &tombstones{key: key}, nil
}

// of returns the tombstone of id: TombstonePrefix and 20 hex digits.
func (t *tombstones) of(id string) string {
	mac := hmac.New(sha256.New, t.key)
	mac.Write([]byte(id))
	return TombstonePrefix + hex.EncodeToString(mac.Sum(nil)[:10])
}

// entombOwners replaces, in tx, the ids of the deleted threads (and of the
// erased resource, when resource is not empty, with every thread its runs
// named) with tombstones wherever
// erasure keeps a record: the memctx records of those threads (owner, turn
// references, query), the owners of their runs (the run ids stay claimed, so
// nobody takes over an erased owner's run), their observation rows, and
// the pending index rows of the outbox. It runs after everything else of
// the erasure transaction has deleted what goes whole (rows, tool
// applications, memo entries, seq tombstones, working memory).
func entombOwners(ctx context.Context, tx *sql.Tx, threads []string, resource string) error {
	if len(threads) == 0 && resource == "" {
		return nil
	}
	ts, err := newTombstones()
	if err != nil {
		return err
	}
	// foreign: threads the erased resource named (runs, records,
	// observations) but did not own — a thread that never got a message, or
	// one another resource created since. Only the resource's own rows of
	// those threads are entombed: another owner's runs, records and seq
	// tombstones on the same thread id stay as they are.
	var foreign []string
	if resource != "" {
		// Runs of the resource on threads that never got a message
		// (LoadContext accepts them) are not in the threads table.
		more, err := selectStrings(ctx, tx, `SELECT thread_id FROM runs WHERE resource_id = ?1
			UNION SELECT thread_id FROM journal WHERE scope = ?2 AND resource_id = ?1
			UNION SELECT thread_id FROM observations WHERE resource_id = ?1`, resource, journal.ScopeMemCtx)
		if err != nil {
			return err
		}
		for _, t := range more {
			if t != "" && !contains(threads, t) && !contains(foreign, t) {
				foreign = append(foreign, t)
			}
		}
	}
	deleted := make(map[string]bool, len(threads))
	for _, t := range threads {
		deleted[t] = true
	}
	res := func(current string) string {
		if resource != "" && current == resource {
			return ts.of(resource)
		}
		return current
	}
	named := append(append([]string(nil), threads...), foreign...)
	for _, t := range threads {
		if err := entombThread(ctx, tx, ts, t, "", deleted, res, named, resource); err != nil {
			return err
		}
	}
	for _, t := range foreign {
		if err := entombThread(ctx, tx, ts, t, resource, deleted, res, named, resource); err != nil {
			return err
		}
	}
	if resource == "" {
		return nil
	}
	for _, q := range []string{
		`UPDATE runs SET resource_id = ?2 WHERE resource_id = ?1`,
		`UPDATE observations SET resource_id = ?2 WHERE resource_id = ?1`,
		`UPDATE journal SET resource_id = ?2 WHERE resource_id = ?1`,
		// Index rows of erased messages are no-ops whenever they run; their
		// resource only picked a vector collection. Delete rows keep it
		// until the purge applies and removes them.
		`UPDATE outbox SET resource_id = ?2 WHERE resource_id = ?1 AND op <> '` + opDel + `'`,
	} {
		if _, err := tx.ExecContext(ctx, q, resource, ts.of(resource)); err != nil {
			return fmt.Errorf("engine: erase: tombstone resource owner: %w", err)
		}
	}
	return nil
}

// entombThread entombs thread t in every record erasure keeps of it: the
// memctx records, the run owners, observation rows and journal rows, and
// then the run ids that spell an erased id. When only is not empty, just
// the rows recorded under resource only are touched (t is not only's own
// thread).
func entombThread(ctx context.Context, tx *sql.Tx, ts *tombstones, t, only string, deleted map[string]bool, res func(string) string, named []string, resource string) error {
	if err := entombRecords(ctx, tx, ts, t, only, deleted, res); err != nil {
		return err
	}
	for _, q := range []string{
		`UPDATE runs SET thread_id = ?2, resource_id = CASE WHEN resource_id = ?3 THEN ?4 ELSE resource_id END WHERE thread_id = ?1 AND (?5 = '' OR resource_id = ?5)`,
		`UPDATE observations SET thread_id = ?2, resource_id = CASE WHEN resource_id = ?3 THEN ?4 ELSE resource_id END WHERE thread_id = ?1 AND (?5 = '' OR resource_id = ?5)`,
		`UPDATE journal SET thread_id = ?2, resource_id = CASE WHEN resource_id = ?3 THEN ?4 ELSE resource_id END WHERE thread_id = ?1 AND (?5 = '' OR resource_id = ?5)`,
	} {
		if _, err := tx.ExecContext(ctx, q, t, ts.of(t), resource, res(resource), only); err != nil {
			return fmt.Errorf("engine: erase: tombstone thread owner: %w", err)
		}
	}
	return entombRunIDs(ctx, tx, ts, ts.of(t), named, resource)
}

// entombRunIDs replaces the run ids of the runs now owned by tomb (an
// entombed thread) that contain an erased id — a deleted thread's or the
// erased resource's, as "ana@example.com:turn-1" does — with their own
// tombstones: the id kept nowhere includes the run ids that spell it. Such
// a run id is then no longer claimed under its old spelling. The erasure
// has already deleted the records keyed by these run ids (memctx records,
// tool applications).
func entombRunIDs(ctx context.Context, tx *sql.Tx, ts *tombstones, tomb string, threads []string, resource string) error {
	ids, err := selectStrings(ctx, tx, `SELECT id FROM runs WHERE thread_id = ?`, tomb)
	if err != nil {
		return err
	}
	for _, id := range ids {
		spells := resource != "" && strings.Contains(id, resource)
		for _, t := range threads {
			spells = spells || strings.Contains(id, t)
		}
		if !spells {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET id = ? WHERE id = ?`, ts.of(id), id); err != nil {
			return fmt.Errorf("engine: erase: tombstone run id: %w", err)
		}
	}
	return nil
}

// entombRecords rewrites the memctx records of thread t (only those
// recorded under resource only, when it is not empty): its
// thread and resource become tombstones, and so do the thread and message
// ids of every reference to a deleted thread's turn (replay reports them as
// no longer stored); the query goes (it was about the erased conversation).
// A record that cannot be decoded is deleted.
func entombRecords(ctx context.Context, tx *sql.Tx, ts *tombstones, t, only string, deleted map[string]bool, res func(string) string) error {
	rows, err := tx.QueryContext(ctx, `SELECT key, output FROM journal WHERE scope = ?1 AND thread_id = ?2 AND (?3 = '' OR resource_id = ?3)`, journal.ScopeMemCtx, t, only)
	if err != nil {
		return fmt.Errorf("engine: erase: read memctx records: %w", err)
	}
	type upd struct {
		key string
		out []byte
	}
	var updates []upd
	for rows.Next() {
		var key string
		var out []byte
		if err := rows.Scan(&key, &out); err != nil {
			rows.Close()
			return fmt.Errorf("engine: erase: read memctx records: %w", err)
		}
		var rec journal.MemCtx
		if json.Unmarshal(out, &rec) != nil {
			updates = append(updates, upd{key, nil})
			continue
		}
		rec.ThreadID, rec.ResourceID = ts.of(rec.ThreadID), res(rec.ResourceID)
		if rec.Query != "" {
			rec.Query = ErasedPreview
		}
		for _, list := range [][]journal.Ref{rec.Recalled, rec.Recent, rec.Dropped} {
			for i := range list {
				if deleted[list[i].ThreadID] {
					list[i].ThreadID, list[i].MessageID, list[i].Preview = ts.of(list[i].ThreadID), ts.of(list[i].MessageID), ErasedPreview
				}
			}
		}
		for i := range rec.Observations {
			if deleted[rec.Observations[i].ThreadID] {
				rec.Observations[i].ThreadID = ts.of(rec.Observations[i].ThreadID)
			}
		}
		b, err := json.Marshal(&rec)
		if err != nil {
			rows.Close()
			return fmt.Errorf("engine: erase: encode memctx %s: %w", key, err)
		}
		updates = append(updates, upd{key, b})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("engine: erase: read memctx records: %w", err)
	}
	for _, u := range updates {
		q, args := `UPDATE journal SET output = ? WHERE scope = ? AND key = ?`, []any{u.out, journal.ScopeMemCtx, u.key}
		if u.out == nil {
			q, args = `DELETE FROM journal WHERE scope = ? AND key = ?`, args[1:]
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("engine: erase: tombstone memctx %s: %w", u.key, err)
		}
	}
	return nil
}
