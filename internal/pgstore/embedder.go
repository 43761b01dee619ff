package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// HNSW index limits of pgvector 0.8: vector indexes up to 2000 dimensions,
// halfvec (half precision) up to 4000. An embedder with more dimensions is
// searched exactly, without an index.
const (
	MaxVectorIndexDims  = 2000
	MaxHalfvecIndexDims = 4000
)

// Embedder is an embedder registered in the embedders table: its name (as
// stored in embeddings.embedder), its dimensions and the HNSW index that
// serves its cosine searches ("" when it has more than
// MaxHalfvecIndexDims dimensions).
type Embedder struct {
	Name  string
	Dims  int
	Index string
}

// Expr is the SQL expression of an embeddings row's vector in this
// embedder's index: "(vector::vector(N))", or "(vector::halfvec(N))" above
// MaxVectorIndexDims. A cosine search must order by Expr() <=> $q (with
// $q cast to the same type) and filter by Predicate() for the planner to
// use the index.
func (e Embedder) Expr() string {
	return fmt.Sprintf("(vector::%s(%d))", e.vecType(), e.Dims)
}

// Predicate is the partial index's predicate, "embedder = '<name>'", with
// the name as a literal: a partial index is only chosen when the query
// names the same constant (a parameter would let a generic plan skip it).
func (e Embedder) Predicate() string {
	return "embedder = " + quoteLiteral(e.Name)
}

func (e Embedder) vecType() string {
	if e.Dims > MaxVectorIndexDims {
		return "halfvec"
	}
	return "vector"
}

// Beginner starts a transaction: a *pgxpool.Pool or a *pgx.Conn (a pgx.Tx
// too, as a savepoint).
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// EnsureEmbedder registers embedder name with dims dimensions and creates
// its HNSW cosine index, once; a registered embedder is returned as
// stored. db is a *pgxpool.Pool or a *pgx.Conn. A registered embedder is
// read with one statement (its row commits with its index, and rows are
// never deleted); otherwise it runs in its own transaction under an
// advisory lock per name in the current schema, which reads again, so
// concurrent callers create one index. It returns ErrEmbedderDims when name is registered with other
// dimensions and ErrInvalid for an empty name or dims outside 1..16000
// (pgvector's limit). The registration is a write: it reads
// schema_version first (CheckVersion) and returns ErrSchemaMigrated,
// registering nothing, when a newer build migrated the schema.
//
// The index is built with CREATE INDEX (not CONCURRENTLY, which cannot run
// in a transaction): registering a new embedder briefly blocks writes to
// embeddings, which hold no rows of that embedder yet.
func EnsureEmbedder(ctx context.Context, db interface {
	Querier
	Beginner
}, name string, dims int) (Embedder, error) {
	if name == "" || strings.ContainsRune(name, 0) || !utf8.ValidString(name) {
		return Embedder{}, fmt.Errorf("%w: embedder name %q", ErrInvalid, name)
	}
	if dims < 1 || dims > 16000 {
		return Embedder{}, fmt.Errorf("%w: embedder %s dims %d (want 1..16000)", ErrInvalid, name, dims)
	}
	e, err := registered(ctx, db, name, dims)
	if !errors.Is(err, pgx.ErrNoRows) {
		return ensured(e, name, err)
	}
	err = pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('mnemo.pgstore.embedder:' || current_schema() || '/' || $1))`, name); err != nil {
			return err
		}
		got, err := registered(ctx, tx, name, dims)
		if !errors.Is(err, pgx.ErrNoRows) {
			e = got // registered meanwhile
			return err
		}
		if err := checkVersionPgx(ctx, tx); err != nil {
			return err
		}
		e = Embedder{Name: name, Dims: dims}
		if dims <= MaxHalfvecIndexDims {
			e.Index = indexName(name)
			if _, err := tx.Exec(ctx, fmt.Sprintf(`CREATE INDEX %s ON embeddings USING hnsw (%s %s_cosine_ops) WHERE %s`,
				pgx.Identifier{e.Index}.Sanitize(), e.Expr(), e.vecType(), e.Predicate())); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO embedders (name, dims, index_name, created_at)
	VALUES ($1, $2, $3, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)`, e.Name, e.Dims, e.Index)
		return err
	})
	return ensured(e, name, err)
}

// registered reads embedder name as registered: pgx.ErrNoRows when it is
// not, ErrEmbedderDims when it is with other dimensions than dims.
func registered(ctx context.Context, q Querier, name string, dims int) (Embedder, error) {
	var e Embedder
	err := q.QueryRow(ctx, `SELECT name, dims, index_name FROM embedders WHERE name = $1`, name).Scan(&e.Name, &e.Dims, &e.Index)
	if err == nil && e.Dims != dims {
		err = fmt.Errorf("%w: %s has %d, asked %d", ErrEmbedderDims, name, e.Dims, dims)
	}
	return e, err
}

// ensured is EnsureEmbedder's result for name: e, or its error wrapped.
func ensured(e Embedder, name string, err error) (Embedder, error) {
	if err != nil {
		return Embedder{}, fmt.Errorf("pgstore: ensure embedder %s: %w", name, err)
	}
	return e, nil
}

// indexName is the HNSW index of embedder name: a hash, since names may
// hold any character and identifiers stop at 63 bytes.
func indexName(name string) string {
	h := sha256.Sum256([]byte(name))
	return "embeddings_hnsw_" + hex.EncodeToString(h[:8])
}

// quoteLiteral quotes s as an SQL string literal (standard_conforming_strings
// is on in every supported Postgres; s holds no NUL, checked by callers).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// Neighbor is a stored embedding near a query vector: its message and the
// cosine similarity (1 − pgvector's cosine distance).
type Neighbor struct {
	MessageID string
	Cosine    float64
}

// Nearest returns the k embeddings of e in resourceID nearest to vec by
// cosine, nearest first, through e's HNSW index. It runs in its own
// transaction with hnsw.iterative_scan = strict_order: HNSW filters after
// it scans (ef_search = 40 candidates by default), so without iterative
// scans a resource holding 5 % of the embedder's vectors got 1 of its top
// 10 in TestNearest (pgvector's README, "Iterative Index Scans"). On a
// small table the planner searches exactly instead (the resource's btree
// and a sort), as the SQLite backend's chromem-go always does. It returns
// ErrInvalid when len(vec) is not e.Dims or k < 1.
func Nearest(ctx context.Context, db Beginner, e Embedder, resourceID string, vec []float32, k int) ([]Neighbor, error) {
	if len(vec) != e.Dims || k < 1 {
		return nil, fmt.Errorf("%w: nearest of %s: %d dims (want %d), k %d", ErrInvalid, e.Name, len(vec), e.Dims, k)
	}
	dist := fmt.Sprintf("%s <=> $2::vector::%s(%d)", e.Expr(), e.vecType(), e.Dims)
	sql := fmt.Sprintf(`SELECT message_id, 1 - (%[1]s) FROM embeddings WHERE %[2]s AND resource_id = $1 ORDER BY %[1]s LIMIT $3`, dist, e.Predicate())
	var out []Neighbor
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL hnsw.iterative_scan = strict_order`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sql, resourceID, pgvector.NewVector(vec), k)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowToStructByPos[Neighbor])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: nearest of %s in %s: %w", e.Name, resourceID, err)
	}
	return out, nil
}
