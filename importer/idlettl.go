package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// idleTTLNever is the "idle_ttl" of a thread that never expires.
const idleTTLNever = "never"

// IdleTTLSetter is what Import needs of an engine to set the "idle_ttl" a
// JSONL line gives its thread: *engine.Engine is one. With an Appender
// that is not one, the messages are stored and the lifetime is not set.
type IdleTTLSetter interface {
	SetIdleTTL(ctx context.Context, threadID, resourceID string, ttl time.Duration) error
}

var _ IdleTTLSetter = (*engine.Engine)(nil)

// parseIdleTTL reads the "idle_ttl" member of a JSONL record: absent or
// null is 0 (none given), "never" a negative lifetime (never expires), and
// a Go duration ("72h", "1.5s", what mnemo export writes) a positive one.
func parseIdleTTL(raw json.RawMessage) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return 0, fmt.Errorf(`"idle_ttl" must be a string, got %s`, valueKind(raw))
	}
	if s == idleTTLNever {
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf(`"idle_ttl" must be "never" or a positive duration such as "72h" or "30m", got %q`, s)
	}
	if d > engine.MaxIdleTTL { // engine.SetIdleTTL refuses it: the line is skipped, not the import stopped
		return 0, fmt.Errorf(`"idle_ttl" must be at most %q (100 years; "never" never expires), got %q`, engine.MaxIdleTTL.String(), s)
	}
	return d, nil
}

// setIdleTTL sets thread's own idle lifetime to ttl (engine.SetIdleTTL),
// as the line at where gives it, once the batch holding that line is
// appended. A thread the batch did not store (its lines refused, each
// reported already) is left; another error stops the import.
func (w *writer) setIdleTTL(where, thread, resource string, ttl time.Duration) error {
	s, ok := w.e.(IdleTTLSetter)
	if !ok {
		return nil
	}
	err := s.SetIdleTTL(w.ctx, thread, resource, ttl)
	if err == nil || errors.Is(err, engine.ErrThreadNotFound) || errors.Is(err, engine.ErrResourceMismatch) {
		return nil
	}
	w.rep.Error, w.rep.Stopped = err.Error(), where
	return err
}
