package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// This file holds the statements of the embeddings table: the vectors the
// engine's drainer computes, stored per message and embedder, their repair
// (damaged and missing rows) and the directory's predominant embedder.

var (
	_ recall.VectorStore    = (*Store)(nil)
	_ recall.DerivedVectors = (*Store)(nil)
)

// Vectors implements recall.VectorStore: the embeddings stored for ids by
// embedder that decode to dims values (a map with an entry only for those:
// a damaged one is computed and stored again). For a derived embedder
// (derived.go) the map is empty, without a query: computing its vectors
// costs less than reading them.
func (s *Store) Vectors(ctx context.Context, embedder string, dims int, ids []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(ids))
	if s.derived(embedder, dims) {
		return out, nil
	}
	err := store.InChunks(ids, func(in string, args []any) error {
		rs, err := s.conn.QueryContext(ctx, `SELECT message_id, dims, vector FROM embeddings WHERE embedder = ? AND message_id IN `+in,
			append([]any{embedder}, args...)...)
		if err != nil {
			return fmt.Errorf("read embeddings: %w", err)
		}
		defer rs.Close()
		for rs.Next() {
			var id string
			var n int
			cell := vecCell{pg: s.pg()}
			if err := rs.Scan(&id, &n, cell.dest()); err != nil {
				return fmt.Errorf("read embeddings: %w", err)
			}
			if v, err := cell.decode(n); err == nil && len(v) == dims {
				out[id] = v
			}
		}
		if err := rs.Err(); err != nil {
			return fmt.Errorf("read embeddings: %w", err)
		}
		return nil
	})
	return out, err
}

// NewVectors are vectors computed by one embedder, to store.
type NewVectors struct {
	Embedder string
	Dims     int
	IDs      []string    // the messages embedded
	Vectors  [][]float32 // Vectors[i] is the embedding of IDs[i]
	// Sources, when not nil, are what the vectors were computed from, as
	// read with the messages' texts: Vectors[i] is stored only while the
	// message of IDs[i] still has Sources[i]. A message erased and stored
	// again under its id with other text since it was read gets none (its
	// own outbox row embeds the new text), however often that happened
	// (a guard read apart from the text, as the content digest was, lets
	// a message that came back with its first content take the vector of
	// a text erased in between); one with the same source has the same
	// text, and so the same vector. Nil: any message of the id.
	Sources []VectorSource
}

// VectorSource is what an embedding was computed from (the engine's text
// of a message): the message row's name, content (the bounded summary of
// a large tool result, Message.Content) and tool_calls column (""
// when none), exactly as read.
type VectorSource struct {
	Name, Content, ToolCalls string
}

// SourceOf is m's VectorSource.
func SourceOf(m *Message) VectorSource {
	return VectorSource{Name: m.Name, Content: m.Content, ToolCalls: m.ToolCalls}
}

// StoreVectors writes v and deletes the finished outbox rows done in one
// transaction, so that a drained row's vectors are stored exactly when the
// row is gone. A message erased meanwhile gets no embedding row, nor,
// with v.Sources, one stored again under its id with other text: on
// Postgres the message row is locked (FOR KEY SHARE) as the vector is
// written, so an erasure committing at that moment either came first (no
// row to embed) or waits and deletes the vector with the message.
func (s *Store) StoreVectors(ctx context.Context, v NewVectors, done []int64) error {
	return s.Tx(ctx, func(tx *store.Tx) error {
		write := s.storeVectorRows
		if s.pg() {
			write = s.storeVectorsPostgres
		}
		if err := write(ctx, tx, v); err != nil {
			return err
		}
		return deleteOutbox(ctx, s.in(tx), done)
	})
}

// vectorChunk is how many vectors one multi-row statement of
// storeVectorRows writes.
const vectorChunk = 64

// storeVectorRows writes v on SQLite, one multi-row statement per chunk of
// vectorChunk instead of one statement per vector (the drainer stores
// every message's vector): the rows in v's order (CROSS JOIN keeps the
// VALUES list as the outer loop), for the stored messages only. A derived
// embedder's rows get an empty blob (derived.go): the readers compute the
// vector from the message.
func (s *Store) storeVectorRows(ctx context.Context, tx *store.Tx, v NewVectors) error {
	derived := s.derived(v.Embedder, v.Dims)
	cols, vector := 2, "v.column2"
	if derived {
		cols, vector = 1, "x''"
	}
	on := "m.id = v.column1"
	if v.Sources != nil { // three more columns (NewVectors.Sources)
		on += fmt.Sprintf(" AND m.name = v.column%d AND m.content = v.column%d AND IFNULL(m.tool_calls, '') = v.column%d", cols+1, cols+2, cols+3)
		cols += 3
	}
	for from := 0; from < len(v.IDs); from += vectorChunk {
		to := min(from+vectorChunk, len(v.IDs))
		st, err := s.stmts.InTx(ctx, tx.Tx, `INSERT OR REPLACE INTO embeddings (message_id, embedder, resource_id, dims, vector)
			SELECT m.id, ?, m.resource_id, ?, `+vector+` FROM (VALUES `+rowsOf(to-from, cols)+`) AS v
			CROSS JOIN messages m ON `+on)
		if err != nil {
			return fmt.Errorf("store embeddings: %w", err)
		}
		args := make([]any, 0, 2+cols*(to-from))
		args = append(args, v.Embedder, v.Dims)
		for i := from; i < to; i++ {
			args = append(args, v.IDs[i])
			if !derived {
				args = append(args, s.vectorArg(v.Vectors[i]))
			}
			if v.Sources != nil {
				src := &v.Sources[i]
				args = append(args, src.Name, src.Content, src.ToolCalls)
			}
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("store embeddings of %s…: %w", v.IDs[from], err)
		}
	}
	return nil
}

// storeVectorsPostgres writes v on Postgres, one statement per vector,
// each message row locked FOR KEY SHARE (see StoreVectors).
func (s *Store) storeVectorsPostgres(ctx context.Context, tx *store.Tx, v NewVectors) error {
	// $5 (NewVectors.Sources) is false when not given: any message of the id.
	st, err := tx.PrepareContext(ctx, `INSERT INTO embeddings (message_id, embedder, resource_id, dims, vector)
			SELECT id, $1::text, resource_id, $2::integer, $3::vector FROM messages
			WHERE id = $4 AND (NOT $5::boolean OR (name = $6::text AND content = $7::text AND COALESCE(tool_calls, '') = $8::text)) FOR KEY SHARE
			ON CONFLICT (message_id, embedder) DO UPDATE
			SET resource_id = excluded.resource_id, dims = excluded.dims, vector = excluded.vector`)
	if err != nil {
		return fmt.Errorf("store embeddings: %w", err)
	}
	defer st.Close()
	for i, id := range v.IDs {
		var src VectorSource
		if v.Sources != nil {
			src = v.Sources[i]
		}
		if _, err := st.ExecContext(ctx, v.Embedder, v.Dims, s.vectorArg(v.Vectors[i]), id, v.Sources != nil, src.Name, src.Content, src.ToolCalls); err != nil {
			return fmt.Errorf("store embedding of %s: %w", id, err)
		}
	}
	return nil
}

// PutVectors implements recall.VectorStore: StoreVectors with no outbox
// row to delete.
func (s *Store) PutVectors(ctx context.Context, embedder string, dims int, ids []string, vecs [][]float32) error {
	return s.StoreVectors(ctx, NewVectors{Embedder: embedder, Dims: dims, IDs: ids, Vectors: vecs}, nil)
}

// DeleteEmbeddings deletes every embedding stored by embedder.
func (s *Store) DeleteEmbeddings(ctx context.Context, embedder string) error {
	_, err := s.conn.ExecContext(ctx, `DELETE FROM embeddings WHERE embedder = ?`, embedder)
	return err
}

// EmbeddedIDs returns the ids of the messages with an embedding stored by
// embedder.
func (s *Store) EmbeddedIDs(ctx context.Context, embedder string) (map[string]bool, error) {
	return s.idSet(ctx, `SELECT message_id FROM embeddings WHERE embedder = ?`, embedder)
}

// MessageIDs returns the ids of every stored message.
func (s *Store) MessageIDs(ctx context.Context) (map[string]bool, error) {
	return s.idSet(ctx, `SELECT id FROM messages`)
}

func (s *Store) idSet(ctx context.Context, q string, args ...any) (map[string]bool, error) {
	rows, err := s.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// PredominantEmbedder returns the embedder most stored vectors come from;
// ok is false when none is stored.
func (s *Store) PredominantEmbedder(ctx context.Context) (id string, ok bool, err error) {
	err = s.conn.QueryRowContext(ctx, `SELECT embedder FROM embeddings GROUP BY embedder ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return id, true, nil
}

// EmbeddingCounts returns how many messages are stored, how many
// embeddings embedder stored, and how many stored messages without one
// have an outbox row owing it (OpIndex or OpEmbed): a cheap test before
// QueueMissingEmbeddings, which has work exactly when vectors + pending <
// messages. A row of a message erased since, a second row of one
// message, or a row of a message embedded already does not count:
// counted, it hid a message that owes a vector and has no row from the
// test, which then queued none (and on Postgres a search's vector status
// reads "ok" where no row is owed: pgrecall's statusSQL).
func (s *Store) EmbeddingCounts(ctx context.Context, embedder string) (messages, vectors, pending int64, err error) {
	err = s.conn.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM messages), (SELECT COUNT(*) FROM embeddings WHERE embedder = ?),
		(SELECT COUNT(DISTINCT o.message_id) FROM outbox o JOIN messages m ON m.id = o.message_id
		 WHERE o.op IN (?, ?) AND NOT EXISTS (SELECT 1 FROM embeddings x WHERE x.message_id = o.message_id AND x.embedder = ?))`,
		embedder, OpIndex, OpEmbed, embedder).Scan(&messages, &vectors, &pending)
	return messages, vectors, pending, err
}

// QueueMissingEmbeddings queues an OpEmbed row (created at now) for every
// message without an embedding by embedder and without a pending outbox
// row, in the order stored, and returns how many.
func (s *Store) QueueMissingEmbeddings(ctx context.Context, embedder string, now time.Time) (int64, error) {
	return s.queueMissingEmbeddings(ctx, s.conn, embedder, now)
}

// ReembedAll deletes every embedding stored by embedder and queues an
// OpEmbed row (created at now) for every message left without one and
// without a pending outbox row, in one transaction, and returns how many
// it queued (mnemo reindex --vectors). No reader sees the vectors gone
// while nothing owes them: in two steps, a search between them read its
// vector channel "ok" on Postgres (pgrecall's status counts unembedded
// messages only while a row owes one) and found no vector.
func (s *Store) ReembedAll(ctx context.Context, embedder string, now time.Time) (queued int64, err error) {
	err = s.Tx(ctx, func(tx *store.Tx) error {
		c := s.in(tx)
		if _, err := c.ExecContext(ctx, `DELETE FROM embeddings WHERE embedder = ?`, embedder); err != nil {
			return err
		}
		queued, err = s.queueMissingEmbeddings(ctx, c, embedder, now)
		return err
	})
	return queued, err
}

// queueMissingEmbeddings is QueueMissingEmbeddings on c (the store's
// connection, or a transaction).
func (s *Store) queueMissingEmbeddings(ctx context.Context, c execer, embedder string, now time.Time) (int64, error) {
	res, err := c.ExecContext(ctx, s.dialect.Text(`INSERT INTO outbox (op, message_id, resource_id, created_at)
		SELECT ?, m.id, m.resource_id, ? FROM messages m
		WHERE NOT EXISTS (SELECT 1 FROM embeddings x WHERE x.message_id = m.id AND x.embedder = ?)
		  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.message_id = m.id)
		ORDER BY m.pk`, `INSERT INTO outbox (op, message_id, resource_id, created_at)
		SELECT ?::text, m.id, m.resource_id, ?::bigint FROM messages m
		WHERE NOT EXISTS (SELECT 1 FROM embeddings x WHERE x.message_id = m.id AND x.embedder = ?)
		  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.message_id = m.id)
		ORDER BY m.pk`), OpEmbed, now.UnixMilli(), embedder)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}
