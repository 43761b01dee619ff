package main

import "github.com/mnemo-go/mnemo/engine"

// checkReport is `mnemo check --json`'s answer, one document: exit 0 when
// OK, 1 with the report when not (the advice is text on standard error,
// as without --json). Lists are [] when empty, never null.
type checkReport struct {
	// OK is true when the check found nothing.
	OK bool `json:"ok"`
	// Full is --full: SQLite's integrity_check and the messages' digests
	// instead of quick_check (on Postgres, the digests).
	Full bool `json:"full"`
	// Action is what to do: "none" (passed, or what was found was
	// repaired by the check itself: nothing is lost), "reindex" (the
	// indexes disagree with a sound database: mnemo reindex), "restore"
	// (the database itself is damaged: restore it from a backup, or mnemo
	// salvage on SQLite; then reindex; or commits of a damaged write-ahead
	// log were not applied: restore from a backup or accept the loss),
	// "config" (the store passed, or what was found was repaired, but the
	// stored mnemo.json cannot be read or applied: fix it, replace it with
	// mnemo serve --config, or move it away), "check-full" (a quick check
	// found nothing, but the record of damage remains: DamageRecord).
	Action string `json:"action"`
	// DamageRecord is what became of the record of damage beside mnemo.db
	// (mnemo.db.damage-seen, which makes every process refuse new data):
	// "remains" when it is there after the check, "removed" when the
	// check removed it (a full check that found the file sound); absent
	// when there was none (and on Postgres). A check that passed with the
	// record remaining (a quick one) is not ok: OK false, Action
	// "check-full", exit 1, since writes are still refused.
	DamageRecord string `json:"damageRecord,omitempty"`
	// Problems are the findings in the order the text lists them.
	Problems []checkProblem `json:"problems"`
	// DatabaseCapped is true when the database checks stopped at their
	// cap (engine.CheckError.DatabaseCapped): there may be more findings.
	DatabaseCapped bool `json:"databaseCapped"`
	// Rebuilt is where a damaged lexical index was quarantined before
	// it was rebuilt from the database; absent when none was.
	Rebuilt string `json:"rebuilt,omitempty"`
	// RebuiltIndexes says what the open or the check rebuilt from the
	// database before verifying, one entry per rebuild (engine.EventRebuild's
	// detail, e.g. "lexical index behind the store (0 of 10500 messages)":
	// a restored backup has no index); [] when nothing was. The text says
	// it on one line after "ok:".
	RebuiltIndexes []string `json:"rebuiltIndexes"`
	// DeletedSnapshots names the damaged shard snapshot files the check
	// deleted (each resource's next load builds its shard again).
	DeletedSnapshots []string `json:"deletedSnapshots"`
	// Reembedding are the Problems lines of damaged stored embeddings the
	// check handed back for embedding again (the next serve, mcp or check
	// embeds them).
	Reembedding []string `json:"reembedding"`
	// KnownLosses are the messages a salvage recorded as lost (their seqs
	// stay unused); absent when they could not be read (the database file
	// failed its check before the engine could open it, or a damaged
	// database failed the read).
	KnownLosses *[]engine.LostRange `json:"knownLosses,omitempty"`
	// KeptDamaged names the copies of a damaged database a salvage kept
	// beside mnemo.db (each followed by its kept -wal and -shm), then those of damaged write-ahead logs an open kept
	// (mnemo.db-wal.damaged-*), each with its -shm copy
	// (mnemo.db-shm.damaged-*): engine.KeptDamaged (SQLite; [] on
	// Postgres).
	KeptDamaged []string `json:"keptDamaged"`
	// StrayLogs names the files of the data directory that begin as a
	// SQLite write-ahead log but are neither mnemo.db-wal nor a kept copy
	// (engine.StrayLogs: a mnemo.db-wal moved or copied by hand); they may
	// hold message text no erasure reaches. [] when none, and on Postgres.
	StrayLogs []string `json:"strayLogs"`
	// DotIDs are the threads, resources, messages and runs stored under
	// "." or ".." before such ids were refused for new data (the note of
	// the text): readable and erasable by the commands and path-as-is
	// clients, out of a browser's reach, closed to new data. [] when none,
	// or when the check found problems (they are not looked up then).
	DotIDs []dotID `json:"dotIds"`
	// ReservedIDs are the threads and resources stored under an id
	// beginning with "erased-" before such ids were reserved for erased
	// owners (the note of the text), as [{kind, id}], kind thread or
	// resource: readable and erasable, closed to new data. [] when none,
	// or when the check found problems.
	ReservedIDs []dotID `json:"reservedIds"`
}

// checkProblem is one finding: Kind "config" (the stored mnemo.json cannot
// be read or applied: the check ran with the defaults; Detail names the
// file and the byte or member at fault), "workingMemory" (the
// working-memory configuration stored in the database does not build:
// engine.ErrStoredWorkingMemory's text), "database" (SQLite's integrity
// check, or a message that does not match its stored digest), "wal" (a
// kept copy of a damaged write-ahead log whose commits were not applied:
// engine.CheckError.WAL) or "index" (the indexes or a derived file
// disagree with the database, or a store invariant such as gap-free seqs
// broke); Detail says it as the text does.
type checkProblem struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// report is r as `mnemo check --json` prints it, for a check with --full
// as full.
func (r *checkResult) report(full bool) *checkReport {
	rep := &checkReport{OK: !r.failed() && r.recordAfter == nil, Full: full, Action: "none", Problems: []checkProblem{},
		DeletedSnapshots: []string{}, Reembedding: []string{}, KeptDamaged: append([]string{}, r.kept...),
		StrayLogs:      append([]string{}, r.stray...),
		RebuiltIndexes: append([]string{}, r.rebuilt...), DotIDs: append([]dotID{}, r.dotIDs...),
		ReservedIDs: append([]dotID{}, r.reservedIDs...)}
	rep.DamageRecord = recordFate(r.record, r.recordAfter) // damage_record.go
	if r.recordAfter != nil && !r.failed() {
		rep.Action = "check-full"
	}
	if r.lostRead {
		lost := append([]engine.LostRange{}, r.lost...)
		rep.KnownLosses = &lost
	}
	if r.config != nil {
		rep.Problems = append(rep.Problems, checkProblem{"config", r.config.Err.Error()})
		rep.Action = "config"
	}
	if r.working != nil {
		rep.Problems = append(rep.Problems, checkProblem{"workingMemory", withoutPackages(r.working.Error())})
		rep.Action = "config"
	}
	ce := r.found
	if ce == nil {
		return rep
	}
	for _, d := range ce.Database {
		rep.Problems = append(rep.Problems, checkProblem{"database", d})
	}
	for _, d := range ce.WAL {
		rep.Problems = append(rep.Problems, checkProblem{"wal", d})
	}
	for _, p := range ce.Problems {
		rep.Problems = append(rep.Problems, checkProblem{"index", p})
	}
	rep.Rebuilt, rep.DatabaseCapped = ce.Rebuilt, ce.DatabaseCapped()
	rep.DeletedSnapshots = append(rep.DeletedSnapshots, ce.Snapshots...)
	rep.Reembedding = append(rep.Reembedding, ce.Reembedding...)
	if a := checkAction(ce); a != "none" || r.otherProblems() == 0 {
		rep.Action = a // the store's action comes first
	}
	return rep
}

// checkAction is the advice for ce as one word (printAdvice says it): "restore"
// when the database is damaged, "none" when every problem is one the check
// repaired (a quarantined lexical index rebuilt, damaged snapshots
// deleted, damaged embeddings handed back for embedding again), else
// "reindex".
func checkAction(ce *engine.CheckError) string {
	repaired := 0 // Problems lines of what the check repaired itself
	if ce.Rebuilt != "" {
		repaired++
	}
	if len(ce.Snapshots) > 0 {
		repaired++
	}
	repaired += len(ce.Reembedding)
	switch {
	case len(ce.Database) > 0 || len(ce.WAL) > 0:
		return "restore"
	case len(ce.Problems) > 0 && len(ce.Problems) > repaired:
		return "reindex"
	}
	return "none"
}
