package observe

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Levels of an observation row.
const (
	LevelObservation = "observation" // distilled by the observer from turns
	LevelReflection  = "reflection"  // condensed by the reflector from observations
)

// Observation is one stored observation or reflection.
type Observation struct {
	// ID is a ULID, unique in the store.
	ID string `json:"id"`
	// ThreadID is the thread whose turns it covers (a reflection: the thread of its sources).
	ThreadID string `json:"threadId"`
	// ResourceID is ThreadID's resource.
	ResourceID string `json:"resourceId"`
	FromSeq    int64  `json:"fromSeq"` // first seq of the range it covers (inclusive)
	ToSeq      int64  `json:"toSeq"`   // last seq (inclusive)
	Level      string `json:"level"`   // LevelObservation or LevelReflection
	// Content is the rendered items, one "- " line each; every item of an
	// untrusted observation starts with UntrustedMark. It is empty for an
	// invalidated row, for an observation of a range the observer found
	// nothing worth keeping in (its answer an empty list), and for a range
	// it skipped, its content refused by the endpoint (Skip): that row
	// moves the watermark past the range and is never rendered, reflected
	// or searched (List leaves it out unless Filter.All).
	Content string `json:"content"`
	// Sources lists, for a reflection, the ids of the observations it
	// condensed; empty for an observation.
	Sources []string `json:"sources,omitempty"`
	// Untrusted is set when the sources hold untrusted content: a tool
	// result in the range of an observation, an untrusted source of a
	// reflection.
	Untrusted bool `json:"untrusted"`
	// MemoKey is the journal key the content was recorded under. It is not
	// stored in the row; it is set by the call that produced it.
	MemoKey string `json:"memoKey,omitempty"`
	// FromTime and ToTime are the date span of the sources: the oldest and
	// newest created_at of the turns an observation was distilled from, the
	// widest span of a reflection's sources. Zero when unknown (an
	// observation whose turns are gone).
	FromTime time.Time `json:"fromTime,omitzero"`
	// ToTime is the newest source turn's created_at; zero when unknown.
	ToTime time.Time `json:"toTime,omitzero"`
	// CreatedAt is when it was stored (the engine's clock, UTC).
	CreatedAt     time.Time  `json:"createdAt"`
	RetiredAt     *time.Time `json:"retiredAt,omitempty"`     // set when condensed into a reflection
	InvalidatedAt *time.Time `json:"invalidatedAt,omitempty"` // set by erasure
}

// Live reports whether o is neither retired nor invalidated.
func (o *Observation) Live() bool { return o.RetiredAt == nil && o.InvalidatedAt == nil }

// UntrustedMark starts every rendered item of an untrusted observation or
// reflection.
const UntrustedMark = "[untrusted: from tool output] "

// renderItems turns items into Content.
func renderItems(items []Item) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- ")
		if it.Untrusted {
			b.WriteString(UntrustedMark)
		}
		b.WriteString(it.Text)
	}
	return b.String()
}

// Filter selects observations for List. ThreadID or ResourceID must be set.
type Filter struct {
	ThreadID   string // this thread's observations
	ResourceID string // every thread of this resource (when ThreadID is empty; with it, Engine.Observations refuses another resource's thread)
	// All includes retired and invalidated rows, and the empty
	// observations of ranges the observer found nothing worth keeping in;
	// the default lists live ones with content.
	All bool
	// IDs, when not empty, lists only the observations of these ids (of
	// the thread or resource; with All, also a retired or invalidated
	// one): replay reads the ones its record names, not the thread's whole
	// history.
	IDs []string
}

const obsColumns = `id, thread_id, resource_id, from_seq, to_seq, level, content, sources, untrusted, created_at, retired_at, invalidated_at, from_time, to_time`

// List returns observations ordered by thread, then fromSeq, then level
// (observations before reflections), then creation (ids in byte order, as
// SQLite's BINARY collation: on Postgres whatever the database's
// collation). db is SQLite or Postgres. A filter naming neither a thread
// nor a resource is a *FilterError on "Filter" (ErrInvalidFilter), and
// nothing is read; the ids are not checked (Engine.Observations checks
// them first).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it; engine.Engine.Observations is the library's way.
func List(ctx context.Context, db *sql.DB, f Filter) ([]Observation, error) {
	q := `SELECT ` + obsColumns + ` FROM observations WHERE `
	var args []any
	switch {
	case f.ThreadID != "":
		q += `thread_id = ?`
		args = append(args, f.ThreadID)
	case f.ResourceID != "":
		q += `resource_id = ?`
		args = append(args, f.ResourceID)
	default:
		return nil, &FilterError{Field: "Filter", Rule: "needs a ThreadID or a ResourceID"}
	}
	if !f.All {
		q += ` AND retired_at IS NULL AND invalidated_at IS NULL AND content <> ''`
	}
	if len(f.IDs) > 0 {
		q += ` AND id IN (?` + strings.Repeat(`, ?`, len(f.IDs)-1) + `)`
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	c := store.Bound(db)
	q += store.DialectOfConn(c).Text(` ORDER BY thread_id, from_seq, level, created_at, id`,
		` ORDER BY thread_id COLLATE "C", from_seq, level, created_at, id COLLATE "C"`)
	return query(ctx, c, q, args...)
}

type queryer interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// query runs q (bound to its database's dialect: store.Bound) and reads
// the observations it selects (obsColumns).
func query(ctx context.Context, db queryer, q string, args ...any) ([]Observation, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("observe: list observations: %w", err)
	}
	defer rows.Close()
	var out []Observation
	for rows.Next() {
		var o Observation
		var sources string
		var created int64
		var retired, invalidated, fromTime, toTime sql.NullInt64
		// untrusted is an INTEGER 0/1 in SQLite, a BOOLEAN in Postgres:
		// database/sql scans either into a bool.
		if err := rows.Scan(&o.ID, &o.ThreadID, &o.ResourceID, &o.FromSeq, &o.ToSeq, &o.Level, &o.Content,
			&sources, &o.Untrusted, &created, &retired, &invalidated, &fromTime, &toTime); err != nil {
			return nil, fmt.Errorf("observe: list observations: %w", err)
		}
		if err := json.Unmarshal([]byte(sources), &o.Sources); err != nil {
			return nil, fmt.Errorf("observe: observation %s: sources: %w", o.ID, err)
		}
		o.Content = tidyContent(o.Content) // old rows' list debris, read-time only
		o.CreatedAt = time.UnixMilli(created).UTC()
		o.RetiredAt = msTime(retired)
		o.InvalidatedAt = msTime(invalidated)
		if fromTime.Valid && toTime.Valid {
			o.FromTime, o.ToTime = *msTime(fromTime), *msTime(toTime)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

func msTime(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := time.UnixMilli(v.Int64).UTC()
	return &t
}

// Watermark returns the observed watermark of threadID: the highest toSeq of
// its non-invalidated observations and reflections, 0 when none. Turns with
// seq <= Watermark are covered by observations. db is SQLite or Postgres.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func Watermark(ctx context.Context, db *sql.DB, threadID string) (int64, error) {
	var wm int64
	err := store.Bound(db).QueryRowContext(ctx,
		`SELECT COALESCE(MAX(to_seq), 0) FROM observations WHERE thread_id = ? AND invalidated_at IS NULL`,
		threadID).Scan(&wm)
	if err != nil {
		return 0, fmt.Errorf("observe: watermark of %s: %w", threadID, err)
	}
	return wm, nil
}
