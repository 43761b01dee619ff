package render

import "errors"

// ErrUnknownZone is returned by ParseZone when a recorded zone name names no
// time zone this machine knows (no tzdata entry, not "UTC" or "UTC±hh:mm").
var ErrUnknownZone = errors.New("render: unknown time zone")
