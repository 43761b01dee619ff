package msgstore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// This file holds the statements about damaged embeddings: stored rows of
// the wrong length (a blob whose length is not 4×dims, or dims other than
// the embedder's), which the engine deletes and embeds again, and on SQLite
// rows of the right length holding a NaN or ±Inf value (NonFiniteEmbeddings:
// bytes changed in the file; no SQL predicate or trigger sees them).
//
// On SQLite the triggers of schema migration 11 mark an embedder in
// embeddings_suspect when a row of it is written damaged, or with dims
// other than another row's, by any statement (the engine's, or another
// program's); DamageSuspected reads the mark, and DropDamaged clears it
// with the rows it deletes; while a trigger is dropped, DamageSuspected is
// always true (the scan at every open, as before the triggers). A damaged
// row the triggers did not see (bytes changed in the file) is not marked:
// recall skips it when it loads the resource and RequeueDamaged repairs it,
// and CountDamaged (mnemo check) reads every row, after which the engine
// marks the embedder (SuspectDamage). On Postgres nothing is
// marked: a vector's column checks its length (pgDamagedWhere).

// damagedWhere selects an embedder's damaged rows (a blob whose length is
// not 4×dims, or dims other than the embedder's); its arguments are the
// embedder id and dimension.
const damagedWhere = `embedder = ? AND (dims != ? OR length(vector) != 4 * dims)`

// derivedDamagedWhere is damagedWhere for a derived embedder (derived.go),
// whose rows keep an empty blob: a full vector stored before is not damaged
// either.
const derivedDamagedWhere = `embedder = ? AND (dims != ? OR length(vector) NOT IN (0, 4 * dims))`

// pgDamagedWhere is damagedWhere on Postgres, where a vector's dimension is
// vector_dims (a CHECK keeps it equal to dims: only dims can be wrong).
const pgDamagedWhere = `embedder = ? AND (dims != ? OR vector_dims(vector) != dims)`

// damaged is damagedWhere in the store's dialect, for embedder's rows of
// dimension dims.
func (s *Store) damaged(embedder string, dims int) string {
	if s.derived(embedder, dims) {
		return derivedDamagedWhere
	}
	return s.dialect.Text(damagedWhere, pgDamagedWhere)
}

// DamageSuspected reports whether embedder's stored embeddings may hold a
// damaged one for dimension dims, without reading them: on SQLite, when
// embedder is marked in embeddings_suspect, when its first stored row
// (in index order) has other dims (the triggers keep every row of an
// unmarked embedder at one dims, so the first row's are all of them'),
// or when a trigger is missing (dropped: nothing marks). It reads two
// index entries, one row and the schema SQLite keeps in memory. On Postgres it is always true:
// only a scan can tell (the engine skips it when the embedder's HNSW
// index makes damage impossible).
func (s *Store) DamageSuspected(ctx context.Context, embedder string, dims int) (bool, error) {
	if s.pg() {
		return true, nil
	}
	var suspect bool
	err := s.conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM embeddings_suspect WHERE embedder = ?1)
		OR COALESCE((SELECT dims FROM embeddings WHERE embedder = ?1 LIMIT 1) != ?2, 0)
		OR (SELECT COUNT(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'embeddings'
			AND name IN ('embeddings_insert_suspect', 'embeddings_update_suspect')) != 2`, embedder, dims).Scan(&suspect)
	return suspect, err
}

// SuspectDamage marks embedder in embeddings_suspect (SQLite), so that
// DamageSuspected reports true until DropDamaged: for damaged rows the
// triggers did not see, found by CountDamaged. A no-op on Postgres.
func (s *Store) SuspectDamage(ctx context.Context, embedder string) error {
	if s.pg() {
		return nil
	}
	_, err := s.conn.ExecContext(ctx, `INSERT INTO embeddings_suspect (embedder) SELECT ?1
		WHERE NOT EXISTS (SELECT 1 FROM embeddings_suspect WHERE embedder = ?1)`, embedder)
	return err
}

// RequeueDamaged deletes the embeddings by embedder of ids and queues every
// message of ids for embedding (OpEmbed rows created at now, unless one is
// queued already), in one transaction; the caller passes the ids it found
// damaged (recall's load: a vector of the wrong length, or with a NaN or
// ±Inf value, which no SQL predicate here can see). A row embedded again
// since is deleted too and embedded once more: the queued row owes it. It
// returns how many embeddings it deleted. It leaves embedder's mark
// (DamageSuspected) as it is: other rows may be damaged.
func (s *Store) RequeueDamaged(ctx context.Context, embedder string, ids []string, now time.Time) (int64, error) {
	var n int64
	err := s.Tx(ctx, func(tx *store.Tx) error {
		return store.InChunks(ids, func(in string, args []any) error {
			res, err := s.in(tx).ExecContext(ctx, `DELETE FROM embeddings WHERE embedder = ? AND message_id IN `+in,
				append([]any{embedder}, args...)...)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += k
			_, err = s.in(tx).ExecContext(ctx, s.dialect.Text(`INSERT INTO outbox (op, message_id, resource_id, created_at)
				SELECT ?, m.id, m.resource_id, ? FROM messages m WHERE m.id IN `+in+`
				AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.message_id = m.id)`,
				`INSERT INTO outbox (op, message_id, resource_id, created_at)
				SELECT ?::text, m.id, m.resource_id, ?::bigint FROM messages m WHERE m.id IN `+in+`
				AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.message_id = m.id)`),
				append([]any{OpEmbed, now.UnixMilli()}, args...)...)
			return err
		})
	})
	return n, err
}

// DropDamaged deletes every damaged embedding by embedder (of dimension
// dims) and returns how many. It reads every stored row of embedder. On
// SQLite it clears embedder's mark in the same transaction: every row
// left has dims values, as the triggers then assume.
func (s *Store) DropDamaged(ctx context.Context, embedder string, dims int) (int64, error) {
	var n int64
	err := s.Tx(ctx, func(tx *store.Tx) error {
		res, err := s.in(tx).ExecContext(ctx, `DELETE FROM embeddings WHERE `+s.damaged(embedder, dims), embedder, dims)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		if s.pg() {
			return nil
		}
		_, err = s.in(tx).ExecContext(ctx, `DELETE FROM embeddings_suspect WHERE embedder = ?`, embedder)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// CountDamaged counts the damaged embeddings by embedder (of dimension
// dims) and names one of their messages (the least id; "" when none). It
// reads every stored row of embedder, marked or not.
func (s *Store) CountDamaged(ctx context.Context, embedder string, dims int) (n int64, example string, err error) {
	var ex sql.NullString
	err = s.conn.QueryRowContext(ctx, `SELECT COUNT(*), MIN(message_id) FROM embeddings WHERE `+s.damaged(embedder, dims), embedder, dims).Scan(&n, &ex)
	return n, ex.String, err
}

// NonFiniteEmbeddings returns the message ids of embedder's stored
// embeddings of dims values that hold a NaN or ±Inf value: bytes damaged
// in the file, which no SQL predicate here sees (the triggers and
// DropDamaged look at lengths), so it reads every stored row of embedder
// (4 bytes a dimension). recall's load skips such a vector as damaged; this
// is for Check, which otherwise passes while a snapshot serves the
// message. Nil on Postgres: pgvector refuses NaN and Inf.
func (s *Store) NonFiniteEmbeddings(ctx context.Context, embedder string, dims int) ([]string, error) {
	if s.pg() {
		return nil, nil
	}
	rows, err := s.conn.QueryContext(ctx, `SELECT message_id, vector FROM embeddings
		WHERE embedder = ? AND dims = ? AND length(vector) = ?`, embedder, dims, 4*dims)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		var b sql.RawBytes
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		if !finiteBlob(b) {
			ids = append(ids, id)
		}
	}
	return ids, rows.Err()
}

// finiteBlob reports whether every little-endian float32 of b is finite:
// NaN and ±Inf are the values whose 8 exponent bits are all set (IEEE 754).
func finiteBlob(b []byte) bool {
	for i := 0; i+4 <= len(b); i += 4 {
		if binary.LittleEndian.Uint32(b[i:])>>23&0xff == 0xff {
			return false
		}
	}
	return true
}
