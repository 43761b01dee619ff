package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/working"
)

// The steps of an erasure transaction (eraseTx, erase.go), in their order.

// selectErasure reads, in tx, what an erasure of kind erases.
func selectErasure(ctx context.Context, tx *store.Tx, ms *msgstore.Store, kind eraseKind, targets []string, now time.Time) (*erasure, error) {
	ts, err := newTombstones()
	if err != nil {
		return nil, err
	}
	er := &erasure{ms: ms, kind: kind, now: now, res: &EraseResult{}, deleted: map[string]bool{}, ghosts: map[string]bool{}, ts: ts}
	switch kind {
	case eraseMessages:
		er.msgs, err = ms.ErasedByID(ctx, tx, targets)
		stored := map[string]bool{}
		for _, m := range er.msgs {
			stored[m.ID] = true
		}
		for _, id := range targets {
			if !stored[id] {
				stored[id] = true // report a repeated id once
				er.res.NotFound = append(er.res.NotFound, id)
			}
		}
	case eraseThread:
		if err := er.selectThread(ctx, tx, targets[0], targets[1:]); err != nil {
			return nil, err
		}
	case eraseResource:
		er.target, er.resources = targets[0], targets
		er.threads, er.msgs, err = ms.ErasedOfResource(ctx, tx, er.target)
		if err == nil {
			// The resource's runs on thread ids with no stored thread
			// (ghost.go) go with it, as its threads' runs do.
			var ghosts []string
			ghosts, err = ghostThreads(ctx, tx, er.target)
			for _, g := range ghosts {
				er.threads, er.ghosts[g] = append(er.threads, g), true
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	// The messages were read without their texts (the first
	// msgstore.ErasedPrefix bytes of each, of each tool call's
	// arguments and of the metadata, for the residue check): the
	// steps that compare texts read them a page at a time through
	// er.texts, before deleteRows deletes the rows.
	er.texts = journal.Erased{IDs: make(map[string]bool, len(er.msgs))}
	er.minSeq = map[string]int64{}
	for _, m := range er.msgs {
		er.texts.IDs[m.ID] = true
		er.res.Messages = append(er.res.Messages, m.ID)
		er.res.residue.add(m.Content)
		// A call's arguments hold the model's (and so the user's) text
		// too; a rebalance leaves copies of them as of the content. The
		// function name does not: 1-64 of [A-Za-z0-9_-] (validate.go),
		// the tool's, shared by every call of it.
		er.res.residue.add(m.CallArgs...)
		// So does the metadata, free JSON (Message.Metadata): a copy of
		// the row holds it as stored, escapes included; "{}" is too short
		// to be looked for (residueMin).
		er.res.residue.add(m.Metadata)
		if kind == eraseMessages && !slices.Contains(er.resources, m.ResourceID) {
			er.resources = append(er.resources, m.ResourceID)
		}
		if s, ok := er.minSeq[m.ThreadID]; !ok || m.Seq < s {
			er.minSeq[m.ThreadID] = m.Seq
		}
	}
	ids := er.res.Messages
	er.texts.Texts = func(ctx context.Context, fn func(string) bool) error {
		return ms.ErasedTexts(ctx, tx, ids, fn)
	}
	for _, t := range er.threads {
		er.deleted[t] = true
		if !er.ghosts[t] {
			// A ghost id has no observations of the runs' resource; it may
			// be another resource's stored thread, whose stay (ghost.go).
			er.minSeq[t] = 1
		}
	}
	return er, nil
}

// selectThread selects, in tx, the erasure of thread (of a resource of
// only, when it is not empty): its messages and its resource, or, when no
// thread of only's is stored, the resources (of only) whose runs are
// recorded under its id with no stored thread of theirs (ghost.go): also
// when another resource's thread holds the id, which stays.
// ErrThreadNotFound when there is neither.
func (er *erasure) selectThread(ctx context.Context, tx *store.Tx, thread string, only []string) error {
	er.target, er.threads = thread, []string{thread}
	rid, msgs, err := er.ms.ErasedOfThread(ctx, tx, thread)
	switch {
	case errors.Is(err, msgstore.ErrNotFound), err == nil && len(only) > 0 && !slices.Contains(only, rid):
		if er.resources, err = ghostOwners(ctx, tx, thread, only); err != nil {
			return err
		}
		if len(er.resources) == 0 {
			return fmt.Errorf("%w: %s", ErrThreadNotFound, thread)
		}
		er.ghosts[thread] = true
	case err != nil:
		return fmt.Errorf("engine: %w", err)
	default:
		er.msgs, er.resources = msgs, []string{rid}
	}
	return nil
}

// deleteRows deletes the erased messages' rows, full results, embeddings
// and, in the threads it keeps, dispatches (those a plain tool message
// answered too: dispatch_answered.go) leaving their tombstones, and queues
// the index removals.
func (er *erasure) deleteRows(ctx context.Context, tx *store.Tx) error {
	// A kept thread's erased dispatches leave a tombstone (ErrDispatchErased);
	// a deleted thread's go with it (deleteThreads).
	var kept []string
	for _, m := range er.msgs {
		if !er.deleted[m.ThreadID] {
			kept = append(kept, m.ID)
		}
	}
	if err := er.eraseAnswered(ctx, tx); err != nil {
		return err
	}
	if err := journal.DeleteDispatches(ctx, tx, kept, er.now); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	n, err := er.ms.EraseMessages(ctx, tx, er.msgs, er.now)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	er.res.Embeddings = n
	return nil
}

// forgetSeqs updates the counters of the threads that are kept and
// tombstones their erased seqs (seqs are never reused).
func (er *erasure) forgetSeqs(ctx context.Context, tx *store.Tx) error {
	perThread := map[string]int{}
	for _, m := range er.msgs {
		perThread[m.ThreadID]++
	}
	for t, n := range perThread {
		if er.deleted[t] {
			continue
		}
		if err := er.ms.ShrinkThread(ctx, tx, t, n); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
	}
	for _, m := range er.msgs {
		if er.deleted[m.ThreadID] {
			continue
		}
		if err := journal.TombstoneSeq(ctx, tx, m.ThreadID, m.ResourceID, m.Seq, er.now); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
	}
	return nil
}

// invalidateObservations invalidates the observations, reflections and
// memo entries of every touched thread (observe.Invalidate) from its lowest
// erased seq (er.minSeq, 1 for a deleted thread).
func (er *erasure) invalidateObservations(ctx context.Context, tx *store.Tx) error {
	touched := make([]string, 0, len(er.minSeq))
	for t := range er.minSeq {
		touched = append(touched, t)
	}
	sort.Strings(touched)
	er.res.touched = touched
	for _, t := range touched {
		inv, err := observe.Invalidate(ctx, tx, t, er.minSeq[t], er.now)
		if err != nil {
			return fmt.Errorf("engine: erase: %w", err)
		}
		er.res.Invalidated = append(er.res.Invalidated, inv...)
	}
	sort.Strings(er.res.Invalidated)
	return nil
}

// forgetRecalled deletes the recorded results of recallObservations calls
// that returned an observation or reflection invalidateObservations
// invalidated (journal.ForgetToolResults: by the ids the schema linked to
// each result as it was recorded), under any run and thread of the
// touched resources: handled again, such a call searches anew instead of
// answering the erased text from its memo. An erased resource's go with
// its threads (deleteThreads).
func (er *erasure) forgetRecalled(ctx context.Context, tx *store.Tx) error {
	if len(er.res.Invalidated) == 0 || er.kind == eraseResource {
		return nil
	}
	for _, r := range er.resources {
		if _, err := journal.ForgetToolResults(ctx, tx, r, er.res.Invalidated); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
	}
	return nil
}

// scrubMemCtx scrubs the memctx records of the touched resources
// (journal.ScrubMemCtx: a reference to a deleted thread's turn becomes a
// tombstone, under the key entomb uses later), marks those whose run held
// an erased turn, named in the record or not (unnamedTurns: it runs after
// invalidateObservations), and collects the runs of the deleted threads.
func (er *erasure) scrubMemCtx(ctx context.Context, tx *store.Tx) error {
	en := journal.Entomb{Of: er.ts.of, Deleted: er.deleted}
	erased := er.texts
	erased.Held = er.unnamed().held
	for _, r := range er.resources {
		n, runs, err := journal.ScrubMemCtx(ctx, tx, r, erased, en)
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		er.res.MemCtxScrubbed += n
		er.runs = append(er.runs, runs...)
	}
	return nil
}

// deleteThreads deletes the deleted threads: the row, dispatches, seq
// tombstones, tool applications, working memory (scope thread), and their
// runs' tool applications and memctx records (an erased thread leaves no
// run listing; the run ids stay claimed by a tombstone, tombstone.go), and,
// for an erased resource, its runs on any other thread id.
func (er *erasure) deleteThreads(ctx context.Context, tx *store.Tx) error {
	for _, t := range er.threads {
		if er.ghosts[t] {
			continue // no thread stored: its runs only (below); other resources' rows on the id are theirs
		}
		if err := er.ms.DeleteThread(ctx, tx, t); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		if err := journal.DeleteThreadDispatches(ctx, tx, t); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		if err := journal.DeleteThread(ctx, tx, t); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		k, err := working.Delete(ctx, tx, working.ThreadKey(t))
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		er.res.WorkingMemory += k
	}
	er.res.Threads = er.threads
	for _, run := range er.runs {
		if err := journal.ForgetRunTools(ctx, tx, run); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
	}
	for _, t := range er.threads {
		// The deleted threads are all er.resources[0]'s (an erasure of a
		// thread or of a resource), but a thread id with no stored thread,
		// whose runs may be several resources' (ghost.go).
		for _, r := range er.resources {
			n, err := journal.DeleteRuns(ctx, tx, t, r)
			if err != nil {
				return fmt.Errorf("engine: %w", err)
			}
			er.res.Runs += n
		}
	}
	if er.kind == eraseResource {
		// Its runs on thread ids another resource holds (its LoadContext
		// before that resource created the thread) go too.
		n, err := journal.DeleteResourceRuns(ctx, tx, er.target)
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		er.res.Runs += n
	}
	return nil
}

// deleteResource deletes every working-memory state an erased resource
// owns: its scope-resource state and every state bound to it, whatever
// its key (working.Config.OwnerOf).
func (er *erasure) deleteResource(ctx context.Context, tx *store.Tx) error {
	if er.kind != eraseResource {
		return nil
	}
	k, err := working.Delete(ctx, tx, working.ResourceKey(er.target))
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	n, err := working.DeleteOwned(ctx, tx, er.target)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	er.res.WorkingMemory += k + n
	return nil
}

// entomb replaces the erased owners' ids with opaque tombstones wherever a
// record is kept (entombOwners, tombstone.go); the residue check looks for
// those ids too (addIDResidue).
func (er *erasure) entomb(ctx context.Context, tx *store.Tx) error {
	resource := ""
	if er.kind == eraseResource {
		resource = er.target
	}
	owner := ""
	if len(er.threads) > 0 && len(er.resources) == 1 { // an erasure of a thread or a resource: one owner (a ghost thread may have several: ghost.go)
		owner = er.resources[0]
	}
	// A ghost thread's id is entombed only in its erased owners' rows
	// (entombOwners does it for an erased resource's, as a foreign
	// thread's): another resource's runs on the id are that resource's,
	// and the id stays in them, so the residue check does not look for it.
	var stored []string
	for _, t := range er.threads {
		if !er.ghosts[t] {
			stored = append(stored, t)
		}
	}
	kept, err := entombOwners(ctx, tx, er.ms, er.ts, stored, resource, owner)
	if err != nil {
		return err
	}
	for t := range er.ghosts {
		for _, r := range er.resources {
			en := journal.Entomb{Of: er.ts.of, Deleted: map[string]bool{t: true}, Owner: r}
			if resource == "" {
				if err := entombThread(ctx, tx, en, t, r, []string{t}); err != nil {
					return err
				}
			}
		}
	}
	// A deleted thread's id that another resource's runs keep (their
	// LoadContext on it before the thread existed) is theirs too, as a
	// ghost thread's is: the residue check does not look for it.
	ids := slices.DeleteFunc(slices.Clone(stored), func(t string) bool { return slices.Contains(kept, t) })
	if resource != "" {
		ids = append([]string{resource}, ids...)
	}
	er.addIDResidue(ids)
	// The index check looks for the ghost threads' ids too: the erased
	// owners' index entries that named them are gone (another resource's
	// runs on the id keep it, and have its indexes rebuilt for nothing).
	er.res.owners = append(append(append(er.res.owners, ids...), kept...), slices.Sorted(maps.Keys(er.ghosts))...)
	return nil
}

// addIDResidue has the residue check look for the erased ids ids (one a
// stored run id spells is in a live row: the check leaves it, clearResidue).
func (er *erasure) addIDResidue(ids []string) {
	er.res.residue.addIDs(ids...)
}
