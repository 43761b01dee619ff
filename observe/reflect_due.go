package observe

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/tokens"
)

// reflectDueSQL counts a thread's live observations with content and sums
// their estimated tokens (tokens.Text of each: its bytes over
// tokens.BytesPerToken, rounded up), of all of them and of those that are
// not reflections, which Reflect compares with ReflectThreshold and
// reflectGrowth. It reads the thread's range of observations_by_thread.
// Its %[1]s is the content's bytes in the dialect (reflectDueQuery).
var reflectDueSQL = fmt.Sprintf(`SELECT COUNT(*), COALESCE(SUM((%%[1]s + %[1]d) / %[2]d), 0),
	COALESCE(SUM(CASE WHEN level = '%[3]s' THEN 0 ELSE (%%[1]s + %[1]d) / %[2]d END), 0) FROM observations
	WHERE thread_id = ? AND retired_at IS NULL AND invalidated_at IS NULL AND content <> ''`,
	tokens.BytesPerToken-1, tokens.BytesPerToken, LevelReflection)

// ReflectDue reports whether Reflect without force would call the
// reflector on threadID now (reflectDue: two or more live observations with
// content holding at least ReflectThreshold estimated tokens, of which
// reflectGrowth are not reflections), and the thread's reflector is not
// backing off (Backoffs; it was said due then, one wasted read of the
// observations per walk, obs64). It counts them in
// SQL (one seek of the thread's observations) instead of reading them, so
// a walk over every thread can ask it cheaply; Reflect decides by it too
// (the stored bytes: a pre-obs60 row with list debris counts as stored,
// a few bytes a line more than List reads it), so the two agree.
// Errors: the database's (ctx's when cancelled).
func (o *Observer) ReflectDue(ctx context.Context, threadID string) (bool, error) {
	if !o.backoff.waiting(callReflector, threadID, o.cfg.Now()).IsZero() {
		return false, nil // Reflect would not call it either
	}
	c := store.Bound(o.cfg.DB)
	var n, total, fresh int64
	if err := c.QueryRowContext(ctx, reflectDueQuery(store.DialectOfConn(c)), threadID).Scan(&n, &total, &fresh); err != nil {
		return false, fmt.Errorf("observe: live observations of %s: %w", threadID, err)
	}
	return o.reflectDue(n, total, fresh), nil
}

// minReflected is the fewest live observations a reflection condenses.
const minReflected = 2

// reflectDue is Reflect's rule without force, for n live observations
// holding total estimated tokens, fresh of them in observations that are
// not reflections: at least minReflected of them, at least
// ReflectThreshold tokens, and at least reflectGrowth tokens fresh.
// Reflect and ReflectDue both decide by it.
//
// The last condition is the back-off of a reflector that cannot condense
// (obs62): its reflection alone holds about the threshold, and without it
// every new observation made the reflection due again, one model call
// each. It is read from the stored rows (the live reflection's size), so
// it holds across restarts and needs no state of its own; a reflector
// that condensed to ReflectThreshold - reflectGrowth or less never meets
// it (the threshold alone decides).
func (o *Observer) reflectDue(n, total, fresh int64) bool {
	return n >= minReflected && total >= int64(o.cfg.ReflectThreshold) &&
		fresh >= int64(reflectGrowth(o.cfg.ReflectThreshold))
}

// reflectGrowth is how many tokens of observations newer than the live
// reflection make the reflection due again when that reflection holds
// about threshold tokens itself: a quarter of threshold, rounded up.
func reflectGrowth(threshold int) int { return (threshold + 3) / 4 }

// reflectDueQuery is reflectDueSQL in dialect d (bytes of the content:
// SQLite's LENGTH counts characters of a text).
func reflectDueQuery(d store.Dialect) string {
	return fmt.Sprintf(reflectDueSQL, d.Text(`LENGTH(CAST(content AS BLOB))`, `octet_length(content)`))
}
