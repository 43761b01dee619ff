package observe

import (
	"context"

	"github.com/mnemo-go/mnemo/internal/store"
)

// commit commits btx, begun with ctx. Once ctx is done database/sql rolls
// the transaction back and refuses the commit; store.CommitError makes
// that refusal match ctx.Err() ("context canceled: rolled back, nothing
// committed"), as the engine's writes do.
func commit(ctx context.Context, btx *store.Tx) error {
	return store.CommitError(ctx, btx.Commit())
}
