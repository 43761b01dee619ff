package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// rebuildQueueWindow is how long after the quarantine of the lexical index
// its rebuild may have queued the messages (engine: the index is reopened
// empty, then every stored message is queued; well under a second).
const rebuildQueueWindow = time.Minute

// quarantineStamp is the layout of the names of the directories the engine
// quarantines into (<data>/quarantine/<UTC time>/, engine/recall.go).
const quarantineStamp = "20060102T150405.000000000Z"

// backlogCause says why the outbox holds st.OutboxPending rows when a
// command finds them on opening data directory dir (indexQueued): the
// rebuild of a lexical index the engine quarantined (a search that read a
// damaged segment, an Open that found the index corrupt), when the oldest
// pending row (now less st.IndexLag) was queued within rebuildQueueWindow
// after a quarantine of dir that holds the lexical index, as the rebuild
// queues every message at once; else the rebuilds the command's own open
// began (rebuilds: the details of its engine-wide engine.EventRebuild
// events, such as a lexical index an older mnemo built with another
// analyzer, or an embedder switched); else a process stopped before it
// indexed them, or an outage (always on Postgres without rebuilds: dir is
// "", no index is quarantined). Before, a backlog a search's quarantine
// left was said to be the latter (walk30), and so was the rebuild of an
// index built with an older analyzer. That rebuild leaves no trace a
// later process can read (the stale index is removed, not quarantined,
// and the store records no cause), so a backlog it left when its
// process stopped is said to be a stopped process's, which it is.
func backlogCause(dir string, st engine.Stats, now time.Time, rebuilds []string) string {
	if dir != "" && st.IndexLag > 0 {
		if q, at, ok := lexicalQuarantineBefore(dir, now.Add(-st.IndexLag)); ok {
			return "the rebuild from " + engine.DatabaseFile + " of the lexical index that was found damaged and moved to " + q + " at " + at.Format("15:04:05") + " UTC"
		}
	}
	if len(rebuilds) > 0 {
		return "the rebuild this open began: " + strings.Join(rebuilds, "; ")
	}
	return "messages stored but not yet in both indexes: a process stopped before it indexed them, or an outage"
}

// lexicalQuarantineBefore returns the lexical index directory of the
// newest quarantine of dir made at most a second after oldest (stamps are
// in nanoseconds, the outbox's times in milliseconds) and when it was made
// (UTC), if that quarantine holds one and was made less than
// rebuildQueueWindow before oldest.
func lexicalQuarantineBefore(dir string, oldest time.Time) (string, time.Time, bool) {
	entries, err := os.ReadDir(filepath.Join(dir, engine.QuarantineDir))
	for i := len(entries) - 1; err == nil && i >= 0; i-- { // names sort by time
		at, perr := time.Parse(quarantineStamp, entries[i].Name())
		if perr != nil || !entries[i].IsDir() || at.After(oldest.Add(time.Second)) {
			continue
		}
		q := filepath.Join(dir, engine.QuarantineDir, entries[i].Name(), filepath.Base(engine.LexicalDir))
		if fi, err := os.Stat(q); err == nil && fi.IsDir() && oldest.Sub(at) < rebuildQueueWindow {
			return q, at, true
		}
		break
	}
	return "", time.Time{}, false
}
