package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/journal"
)

// BoundsSharing is how an engine on Postgres shares its Config.Limits,
// Config.Retention and Config.Lifecycle with the other processes that
// open the database (Config.SharedBounds): a database has no data
// directory, so no mnemo.json every process reads.
type BoundsSharing int

const (
	// BoundsOwn applies the Config's bounds and neither reads nor stores
	// any (the default).
	BoundsOwn BoundsSharing = iota
	// BoundsStore applies the Config's bounds and stores them in the
	// database at Open, replacing those stored, as the bounds every
	// BoundsStored process applies from its Open on (`mnemo serve --config
	// FILE`). A process already open keeps those it opened with.
	BoundsStore
	// BoundsStored applies the database's stored bounds in place of the
	// Config's Limits, Retention and Lifecycle; the Config's when none are
	// stored (every mnemo command on --db but serve --config).
	BoundsStored
)

// Bounds are the limits, retention and lifecycle an engine applies
// (Engine.Bounds): its Config's, or the database's (Config.SharedBounds).
type Bounds struct {
	// Limits is Config.Limits as applied (a zero field: its default).
	Limits Limits
	// Retention is Config.Retention as applied.
	Retention journal.Retention
	// Lifecycle is Config.Lifecycle as applied.
	Lifecycle Lifecycle
	// Stored is set when they are the database's: read from it
	// (BoundsStored) or stored into it (BoundsStore).
	Stored bool
	// StoredAt is when they were stored (zero unless Stored).
	StoredAt time.Time
	// Replaced is, for BoundsStore, the stored bounds its Open replaced
	// with others; nil when none were stored or they were the same.
	Replaced *Bounds
}

// boundsDoc is Bounds as the database keeps them (pgstore.SaveBounds):
// JSON, the durations as Go durations ("24h").
type boundsDoc struct {
	Limits   boundsLimits `json:"limits"`
	KeepRuns int          `json:"keepRuns,omitempty"`
	MaxAge   string       `json:"maxAge,omitempty"`
	IdleTTL  string       `json:"idleTtl,omitempty"`
	Quota    Quota        `json:"quota"`
}

// boundsLimits is Limits with the JSON names of mnemo.json's "limits":
// the same fields in the same order, so that each converts to the other
// (a field added to Limits fails to compile here until it is added).
type boundsLimits struct {
	MaxContentBytes       int `json:"maxContentBytes,omitempty"`
	MaxToolResultBytes    int `json:"maxToolResultBytes,omitempty"`
	ToolResultInlineBytes int `json:"toolResultInlineBytes,omitempty"`
	MaxMetadataBytes      int `json:"maxMetadataBytes,omitempty"`
	MaxMetadataDepth      int `json:"maxMetadataDepth,omitempty"`
	MaxMessagesPerAppend  int `json:"maxMessagesPerAppend,omitempty"`
	MaxToolCalls          int `json:"maxToolCalls,omitempty"`
	MaxQueryBytes         int `json:"maxQueryBytes,omitempty"`
	MaxAnswerBytes        int `json:"maxAnswerBytes,omitempty"`
}

// Bounds returns the limits, retention and lifecycle e applies, and
// whether they are the database's (Config.SharedBounds).
func (e *Engine) Bounds() Bounds {
	b := e.shared
	b.Limits, b.Retention, b.Lifecycle = e.cfg.Limits, e.cfg.Retention, e.cfg.Lifecycle
	return b
}

// checkSharing refuses a Config.SharedBounds other than BoundsOwn on a
// data directory (its bounds are the caller's: mnemo keeps them in the
// directory's mnemo.json) and an unknown one.
func checkSharing(cfg Config) error {
	switch {
	case cfg.SharedBounds < BoundsOwn || cfg.SharedBounds > BoundsStored:
		return invalid(-1, "SharedBounds", "must be BoundsOwn, BoundsStore or BoundsStored, got %d", cfg.SharedBounds)
	case cfg.SharedBounds != BoundsOwn && cfg.Postgres == "":
		return invalid(-1, "SharedBounds", "is for Postgres only: a data directory's processes take the bounds their Config gives (mnemo keeps them in mnemo.json)")
	}
	return nil
}

// storedBounds sets cfg's Limits, Retention and Lifecycle from the
// database's stored bounds when cfg.SharedBounds is BoundsStored and some
// are stored, and returns what Engine.Bounds reports of them. Stored
// bounds that do not read or that Open would refuse are an error naming
// them, not the defaults in silence.
func storedBounds(ctx context.Context, pool *pgxpool.Pool, cfg *Config) (Bounds, error) {
	if cfg.SharedBounds != BoundsStored {
		return Bounds{}, nil
	}
	doc, at, ok, err := pgstore.LoadBounds(ctx, pool)
	if err != nil || !ok {
		return Bounds{}, err
	}
	b, err := parseBounds(doc)
	if err == nil {
		c := *cfg
		c.Limits, c.Retention, c.Lifecycle = b.Limits, b.Retention, b.Lifecycle
		if err = checkSizes(c); err == nil {
			err = checkLimits(c.Limits.withDefaults())
		}
		*cfg = c
	}
	if err != nil {
		return Bounds{}, fmt.Errorf("%w: the database's shared bounds (stored %s by a mnemo serve --config) cannot be applied: %w; store good ones (mnemo serve --config FILE)",
			ErrInvalidBounds, time.UnixMilli(at).UTC().Format(time.RFC3339), err)
	}
	return Bounds{Stored: true, StoredAt: time.UnixMilli(at)}, nil
}

// ErrInvalidBounds: the bounds stored in a Postgres database cannot be
// applied (Config.SharedBounds BoundsStored): not JSON this build reads
// (a member it does not know, from a later build), or a bound Open
// refuses. Nothing was opened.
var ErrInvalidBounds = errors.New("engine: invalid shared bounds")

// storeBounds stores e's bounds as the database's when
// Config.SharedBounds is BoundsStore, recording in e.shared the ones
// they replaced.
func (e *Engine) storeBounds(ctx context.Context) error {
	if e.cfg.SharedBounds != BoundsStore {
		return nil
	}
	b := e.Bounds()
	at := e.now()
	prev, changed, err := pgstore.SaveBounds(ctx, e.pool, formatBounds(b), at.UnixMilli())
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	e.shared = Bounds{Stored: true, StoredAt: at}
	if changed && prev != "" {
		if old, err := parseBounds(prev); err == nil {
			e.shared.Replaced = &old
		} else {
			e.shared.Replaced = &Bounds{} // unreadable: replaced all the same
		}
	}
	return nil
}

// formatBounds is b as the database keeps it (boundsDoc).
func formatBounds(b Bounds) string {
	d := boundsDoc{Limits: boundsLimits(b.Limits), KeepRuns: b.Retention.KeepRuns, Quota: b.Lifecycle.Quota}
	if b.Retention.MaxAge > 0 {
		d.MaxAge = b.Retention.MaxAge.String()
	}
	if b.Lifecycle.IdleTTL > 0 {
		d.IdleTTL = b.Lifecycle.IdleTTL.String()
	}
	out, _ := json.Marshal(d) // ints, strings and a bool: cannot fail
	return string(out)
}

// parseBounds reads a document formatBounds wrote; a member it does not
// know (a later build's) is an error, not a bound dropped.
func parseBounds(doc string) (Bounds, error) {
	var d boundsDoc
	dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return Bounds{}, err
	}
	b := Bounds{Limits: Limits(d.Limits), Retention: journal.Retention{KeepRuns: d.KeepRuns}, Lifecycle: Lifecycle{Quota: d.Quota}}
	var err error
	if d.MaxAge != "" {
		if b.Retention.MaxAge, err = time.ParseDuration(d.MaxAge); err != nil {
			return Bounds{}, fmt.Errorf("maxAge: %w", err)
		}
	}
	if d.IdleTTL != "" {
		if b.Lifecycle.IdleTTL, err = time.ParseDuration(d.IdleTTL); err != nil {
			return Bounds{}, fmt.Errorf("idleTtl: %w", err)
		}
	}
	return b, nil
}
