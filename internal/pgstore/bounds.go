package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SaveBounds stores doc, a JSON document of the limits, retention and
// lifecycle every process opening the database applies (the engine's
// Config.SharedBounds; pgstore reads nothing inside it), as the database's,
// replacing the one stored, with now (Unix milliseconds) as its time. It
// returns the document it replaced ("" when none was stored) and whether
// the stored one changed: storing the document already stored writes
// nothing. Errors: the database's (ctx's when cancelled).
func SaveBounds(ctx context.Context, q Querier, doc string, now int64) (prev string, changed bool, err error) {
	// The WITH reads the row as it was before the statement (one
	// snapshot); RETURNING gives no row when nothing changed.
	var old *string
	err = q.QueryRow(ctx, `WITH prev AS (SELECT bounds FROM shared_bounds WHERE id = 1)
INSERT INTO shared_bounds (id, bounds, updated_at) VALUES (1, $1, $2)
ON CONFLICT (id) DO UPDATE SET bounds = excluded.bounds, updated_at = excluded.updated_at
	WHERE shared_bounds.bounds <> excluded.bounds
RETURNING (SELECT bounds FROM prev)`, doc, now).Scan(&old)
	if errors.Is(err, pgx.ErrNoRows) {
		return doc, false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("pgstore: store the shared bounds: %w", err)
	}
	if old != nil {
		prev = *old
	}
	return prev, true, nil
}

// LoadBounds returns the document SaveBounds stored, its time (Unix
// milliseconds) and true; false when none is stored. Errors: the
// database's.
func LoadBounds(ctx context.Context, q Querier) (doc string, at int64, ok bool, err error) {
	err = q.QueryRow(ctx, `SELECT bounds, updated_at FROM shared_bounds WHERE id = 1`).Scan(&doc, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, fmt.Errorf("pgstore: read the shared bounds: %w", err)
	}
	return doc, at, true, nil
}
