package server

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/mnemo-go/mnemo/engine"
)

// metricsSet holds one server's metrics (a private set, not the package's
// global one, so two servers in one process do not mix). The library is
// VictoriaMetrics/metrics: three small dependencies, the Prometheus text
// format, Prometheus-style histograms (le buckets).
type metricsSet struct {
	set *metrics.Set
	e   *engine.Engine
}

func newMetrics(e *engine.Engine) *metricsSet {
	return &metricsSet{set: metrics.NewSet(), e: e}
}

// request counts a finished request by route pattern and status and records
// its latency.
func (m *metricsSet) request(route string, status int, d time.Duration) {
	m.set.GetOrCreateCounter(fmt.Sprintf(`mnemo_http_requests_total{route=%q,code="%s"}`, route, strconv.Itoa(status))).Inc()
	m.set.GetOrCreatePrometheusHistogram(fmt.Sprintf(`mnemo_http_request_duration_seconds{route=%q}`, route)).Update(d.Seconds())
}

// serveMetrics writes the Prometheus text format: request counters and
// latency histograms, the engine's sizes, outbox depth and index lag, the
// observer's back-offs (mnemo_observe_backoffs: threads' calls waiting;
// mnemo_observe_model_refused: 1 while the endpoint refuses every call),
// and
// the process's (RSS, CPU, file descriptors, Go runtime).
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request, p *Principal) {
	if !p.All {
		writeProblem(w, r, s.log, errorf(kindForbidden, "", "metrics need an operator token (resources [\"*\"])"))
		return
	}
	st, err := s.cfg.Engine.Stats(r.Context())
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff") // as every other answer
	s.metrics.set.WritePrometheus(w)
	metrics.WriteGaugeUint64(w, "mnemo_messages", uint64(st.Messages))
	metrics.WriteGaugeUint64(w, "mnemo_threads", uint64(st.Threads))
	metrics.WriteGaugeUint64(w, "mnemo_outbox_pending", uint64(st.OutboxPending))
	metrics.WriteGaugeFloat64(w, "mnemo_index_lag_seconds", st.IndexLag.Seconds())
	metrics.WriteGaugeUint64(w, "mnemo_observe_backoffs", uint64(st.ObserveBackoffs))
	refused := uint64(0)
	if st.ObserveRefused != nil {
		refused = 1
	}
	metrics.WriteGaugeUint64(w, "mnemo_observe_model_refused", refused)
	if l := s.cfg.AuthLimiter; l != nil {
		metrics.WriteCounterUint64(w, "mnemo_auth_failures_total", l.Failures())
		metrics.WriteCounterUint64(w, "mnemo_auth_refused_total", l.Refused())
		metrics.WriteGaugeUint64(w, "mnemo_auth_limited_addresses", uint64(l.Addresses()))
	}
	metrics.WriteProcessMetrics(w)
}

// CountEvent counts an event the engine published (engine.Config.Events;
// mnemo serve drains them) in /metrics: mnemo_engine_events_total by
// reason, and, for an erasure (reasons erased, expired,
// evicted-resource-quota, evicted-store-quota, operator), the messages it
// erased in mnemo_erased_messages_total by reason. Safe for concurrent use.
func (s *Server) CountEvent(ev engine.Event) {
	s.metrics.set.GetOrCreateCounter(fmt.Sprintf(`mnemo_engine_events_total{reason=%q}`, ev.Reason)).Inc()
	switch ev.Reason {
	case engine.EventErased, engine.EventExpired, engine.EventEvictedResourceQuota, engine.EventEvictedStoreQuota, engine.EventOperator:
		s.metrics.set.GetOrCreateCounter(fmt.Sprintf(`mnemo_erased_messages_total{reason=%q}`, ev.Reason)).Add(ev.Count)
	}
}
