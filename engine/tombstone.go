package engine

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// TombstonePrefix starts the opaque id that replaces an erased owner's id
// (a deleted thread's, an erased resource's) wherever a record of it is
// kept: memctx records (and their turn references), run owners,
// observation rows.
const TombstonePrefix = journal.TombstonePrefix

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
// named) with tombstones wherever erasure keeps a record: the memctx
// records of those threads (owner, turn references, query), the owners of
// their runs (the run ids stay claimed, so nobody takes over an erased
// owner's run), their observation rows, and the pending index rows of the
// outbox, all under ts (the erasure's key, which scrubMemCtx already used
// for the references other threads' records keep to the deleted threads'
// turns). It runs after everything else of the erasure transaction has
// deleted what goes whole (rows, tool applications, memo entries, seq
// tombstones, working memory). The engine holds the key and decides whom
// to entomb; each table's owner rewrites its rows (journal.EntombThread,
// observe.EntombThread and the others). owner is the deleted threads'
// resource. A run another resource recorded on one of their ids before it
// existed is that resource's: it stays as it is, thread id and query
// (journal.Entomb.Keep), and runs, lists and expires as a run with no
// stored thread of its resource (ghost.go). It returns the deleted threads
// whose id such runs keep (the residue check does not look for those).
func entombOwners(ctx context.Context, tx *store.Tx, ms *msgstore.Store, ts *tombstones, threads []string, resource, owner string) ([]string, error) {
	if len(threads) == 0 && resource == "" {
		return nil, nil
	}
	en := journal.Entomb{Of: ts.of, Deleted: make(map[string]bool, len(threads)), Resource: resource, Owner: owner}
	for _, t := range threads {
		en.Deleted[t] = true
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
		more, err := journal.NamedThreads(ctx, tx, resource)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		for _, t := range more {
			if t != "" && !slices.Contains(threads, t) && !slices.Contains(foreign, t) {
				foreign = append(foreign, t)
			}
		}
	}
	named := append(append([]string(nil), threads...), foreign...)
	var kept []string
	for _, t := range threads {
		// The thread row and its runs' records are deleted by now: the
		// records left under its id are other resources' (ghostOwners).
		keep, err := ghostOwners(ctx, tx, t, nil)
		if err != nil {
			return nil, err
		}
		keep = slices.DeleteFunc(keep, func(r string) bool { return r == owner || r == resource })
		if len(keep) > 0 {
			kept = append(kept, t)
		}
		en := en
		en.Keep = keep
		if err := entombThread(ctx, tx, en, t, "", named); err != nil {
			return nil, err
		}
	}
	for _, t := range foreign {
		if err := entombThread(ctx, tx, en, t, resource, named); err != nil {
			return nil, err
		}
	}
	if resource == "" {
		return kept, nil
	}
	tomb := ts.of(resource)
	if err := journal.EntombResource(ctx, tx, en); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if err := observe.EntombResource(ctx, tx, resource, tomb); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if err := ms.EntombOutbox(ctx, tx, resource, tomb); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return kept, nil
}

// entombThread entombs thread t in every record erasure keeps of it: the
// memctx records, the run owners, journal rows and observation rows, and
// then the run ids that spell an erased id (one of named, or the erased
// resource). When only is not empty, just the rows recorded under
// resource only are touched (t is not only's own thread).
func entombThread(ctx context.Context, tx *store.Tx, en journal.Entomb, t, only string, named []string) error {
	if err := journal.EntombThread(ctx, tx, en, t, only); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	resourceTomb := en.Resource
	if en.Resource != "" {
		resourceTomb = en.Of(en.Resource)
	}
	if err := observe.EntombThread(ctx, tx, t, en.Of(t), en.Resource, resourceTomb, only); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if err := journal.EntombRunIDs(ctx, tx, en, en.Of(t), named); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	return nil
}
