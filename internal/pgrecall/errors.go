package pgrecall

import "errors"

// ErrConfig is returned by New for an unusable Config (the message names
// the field).
var ErrConfig = errors.New("pgrecall: invalid config")
