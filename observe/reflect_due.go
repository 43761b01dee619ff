package observe

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/tokens"
)

// reflectDueSQL counts a thread's live observations with content and sums
// their estimated tokens (tokens.Text of each: its bytes over
// tokens.BytesPerToken, rounded up), which Reflect compares with
// ReflectThreshold. It reads the thread's range of observations_by_thread.
var reflectDueSQL = fmt.Sprintf(`SELECT COUNT(*), COALESCE(SUM((%%s + %d) / %d), 0) FROM observations
	WHERE thread_id = ? AND retired_at IS NULL AND invalidated_at IS NULL AND content <> ''`,
	tokens.BytesPerToken-1, tokens.BytesPerToken)

// ReflectDue reports whether Reflect without force would call the
// reflector on threadID now: two or more live observations with content
// holding at least ReflectThreshold estimated tokens. It counts them in
// SQL (one seek of the thread's observations) instead of reading them, so
// a walk over every thread can ask it cheaply; Reflect decides again.
// Errors: the database's (ctx's when cancelled).
func (o *Observer) ReflectDue(ctx context.Context, threadID string) (bool, error) {
	c := store.Bound(o.cfg.DB)
	var n, total int64
	if err := c.QueryRowContext(ctx, reflectDueQuery(store.DialectOfConn(c)), threadID).Scan(&n, &total); err != nil {
		return false, fmt.Errorf("observe: live observations of %s: %w", threadID, err)
	}
	return o.reflectDue(n, total), nil
}

// minReflected is the fewest live observations a reflection condenses.
const minReflected = 2

// reflectDue is Reflect's rule without force, for n live observations
// holding total estimated tokens: at least minReflected of them and at
// least ReflectThreshold tokens. Reflect and ReflectDue both decide by it.
func (o *Observer) reflectDue(n, total int64) bool {
	return n >= minReflected && total >= int64(o.cfg.ReflectThreshold)
}

// reflectDueQuery is reflectDueSQL in dialect d (bytes of the content:
// SQLite's LENGTH counts characters of a text).
func reflectDueQuery(d store.Dialect) string {
	return fmt.Sprintf(reflectDueSQL, d.Text(`LENGTH(CAST(content AS BLOB))`, `octet_length(content)`))
}
