package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Scratch is a schema a Postgres run fills: created empty by NewScratch,
// dropped by Drop (with everything in it) unless the run keeps it.
type Scratch struct {
	Name string // the schema, mnemo_bench_<12 hex digits>
	DSN  string // the user's DSN with search_path set to Name first
	base string // the user's DSN
}

// NewScratch creates an empty schema in the database of dsn (a postgres://
// URL) and returns it with a DSN whose search_path is that schema, then the
// connection's own search_path (where pgvector's types are found). pgvector
// is created in the database's default schema first when it is missing, so
// that dropping the scratch schema never drops the extension.
func NewScratch(ctx context.Context, dsn string) (*Scratch, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("bench: connect: %w", err) // pgx redacts the password
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
		return nil, fmt.Errorf("bench: pgvector: %w", err)
	}
	var path string
	if err := conn.QueryRow(ctx, `SHOW search_path`).Scan(&path); err != nil {
		return nil, fmt.Errorf("bench: search_path: %w", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	s := &Scratch{Name: "mnemo_bench_" + hex.EncodeToString(b[:]), base: dsn}
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+s.Name); err != nil {
		return nil, fmt.Errorf("bench: create schema: %w", err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, fmt.Errorf("bench: the DSN is not a URL")
	}
	q := u.Query()
	// pgx reads a + in the query as itself, not as a space: no spaces.
	q.Set("search_path", s.Name+","+strings.ReplaceAll(path, ", ", ","))
	u.RawQuery = q.Encode()
	s.DSN = u.String()
	return s, nil
}

// Drop drops the schema and everything in it.
func (s *Scratch) Drop(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.base)
	if err != nil {
		return fmt.Errorf("bench: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `DROP SCHEMA `+s.Name+` CASCADE`); err != nil {
		return fmt.Errorf("bench: drop schema %s: %w", s.Name, err)
	}
	return nil
}

// Bytes is the size on disk of the schema's tables with their indexes and
// TOAST (pg_total_relation_size), in bytes.
func (s *Scratch) Bytes(ctx context.Context) (int64, error) {
	conn, err := pgx.Connect(ctx, s.base)
	if err != nil {
		return 0, fmt.Errorf("bench: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var n int64
	err = conn.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = $1 AND c.relkind IN ('r', 'm')`, s.Name).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("bench: schema size: %w", err)
	}
	return n, nil
}
