package synth

import "errors"

// ErrInvalidConfig is returned by New when Config asks for no messages, a
// negative count, or more resources than messages.
var ErrInvalidConfig = errors.New("synth: invalid config")
