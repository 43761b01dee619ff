package main

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mnemo-go/mnemo/engine"
)

// eventLogBuffer is how many engine events wait for the log before the
// engine counts further ones as dropped (engine.Engine.DroppedEvents).
const eventLogBuffer = 256

// eventLog writes the events of a long-running command's engine (mnemo
// serve, mnemo mcp) to its log, one record each, so that no erasure the
// engine does on its own account (an expiry, a quota's eviction) is
// silent. A record carries the event's reason, resource, thread, count and
// detail, never message text (events carry none).
type eventLog struct {
	ch   chan engine.Event
	log  *slog.Logger
	also atomic.Pointer[func(engine.Event)]
	stop context.CancelFunc
	wg   sync.WaitGroup
	once sync.Once
}

// startEventLog starts logging the events sent to its channel (give it
// to engine.Config.Events) until stop.
func startEventLog(log *slog.Logger) *eventLog {
	ctx, cancel := context.WithCancel(context.Background())
	l := &eventLog{ch: make(chan engine.Event, eventLogBuffer), log: log, stop: cancel}
	l.wg.Add(1)
	go l.run(ctx)
	return l
}

// alsoTo passes each event to fn as well, before logging it (mnemo
// serve's metrics: server.Server.CountEvent), so that an event in the log
// is counted in /metrics already: a client that read the log line and
// then /metrics saw no count (TestServeLogsEviction failed so in CI).
func (l *eventLog) alsoTo(fn func(engine.Event)) { l.also.Store(&fn) }

// Stop logs the events still waiting and stops; call it after the
// engine closed. Idempotent.
func (l *eventLog) Stop() {
	l.once.Do(func() { l.stop(); l.wg.Wait() })
}

func (l *eventLog) run(ctx context.Context) {
	defer l.wg.Done()
	for {
		select {
		case ev := <-l.ch:
			l.write(ev)
		case <-ctx.Done():
			for {
				select {
				case ev := <-l.ch:
					l.write(ev)
				default:
					return
				}
			}
		}
	}
}

// write logs ev: a warning for what erased or set aside data on the
// engine's own account, information otherwise (an erasure a client asked
// for, a rebuild).
func (l *eventLog) write(ev engine.Event) {
	level, msg := eventLevel(ev.Reason)
	attrs := []any{"reason", string(ev.Reason)}
	for _, kv := range [][2]string{{"resource", ev.ResourceID}, {"thread", ev.ThreadID}, {"path", ev.Path}, {"detail", ev.Detail}} {
		if kv[1] != "" {
			attrs = append(attrs, kv[0], kv[1])
		}
	}
	attrs = append(attrs, "count", ev.Count)
	if !ev.Until.IsZero() {
		attrs = append(attrs, "until", ev.Until)
	}
	if fn := l.also.Load(); fn != nil {
		(*fn)(ev) // first: what the log says is counted already
	}
	l.log.Log(context.Background(), level, msg, attrs...)
}

// eventLevel is the level and message of an event of reason r.
func eventLevel(r engine.EventReason) (slog.Level, string) {
	switch r {
	case engine.EventEvictedStoreQuota:
		return slog.LevelWarn, "thread evicted: the store is over its quota (lifecycle.quota); erased"
	case engine.EventEvictedResourceQuota:
		return slog.LevelWarn, "thread evicted: its resource is over its quota (lifecycle.quota); erased"
	case engine.EventExpired:
		return slog.LevelWarn, "thread expired: idle for its lifetime (lifecycle.idleTtl or its own); erased"
	case engine.EventOperator:
		return slog.LevelWarn, "thread expired by the operator; erased"
	case engine.EventQuarantined, engine.EventEraseResumed:
		return slog.LevelWarn, "engine event"
	}
	return slog.LevelInfo, "engine event"
}
