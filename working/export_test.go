package working

import "github.com/mnemo-go/mnemo/internal/store"

// SetBeforeCommit makes f run between each update's last statement and
// its commit.
func SetBeforeCommit(m *Memory, f func(*store.Tx)) { m.beforeCommit = f }

// StoredResourcesSQL is StoredResources' statement in a dialect.
var StoredResourcesSQL = storedResourcesSQL
