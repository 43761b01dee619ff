package observe

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// EntombThread is erasure's entombing of observation rows: inside the
// caller's transaction tx it replaces thread t with tomb on t's
// observations, and their resource with resourceTomb where it is the
// erased resource (resource; "" when the erasure erases none). When only
// is not empty, just the rows of resource only are touched (t is not
// only's own thread). The rows keep their (already invalidated and
// scrubbed) place, so memctx references stay resolvable.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func EntombThread(ctx context.Context, tx store.Conn, t, tomb, resource, resourceTomb, only string) error {
	if _, err := store.Bound(tx).ExecContext(ctx, `UPDATE observations SET thread_id = ?2, resource_id = CASE WHEN resource_id = ?3 THEN ?4 ELSE resource_id END WHERE thread_id = ?1 AND (?5 = '' OR resource_id = ?5)`,
		t, tomb, resource, resourceTomb, only); err != nil {
		return fmt.Errorf("observe: erase: tombstone thread owner: %w", err)
	}
	return nil
}

// EntombResource replaces, in tx, the erased resource with its tombstone
// as the owner of every observation row. Errors: the database's (ctx's
// when cancelled).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func EntombResource(ctx context.Context, tx store.Conn, resource, tomb string) error {
	if _, err := store.Bound(tx).ExecContext(ctx, `UPDATE observations SET resource_id = ?2 WHERE resource_id = ?1`, resource, tomb); err != nil {
		return fmt.Errorf("observe: erase: tombstone resource owner: %w", err)
	}
	return nil
}
