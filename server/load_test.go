package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// The load test is off in the normal test run:
//
//	go test ./server/ -run TestLoadContext -load -load.duration 30s -load.clients 32 -load.messages 10000 -v
var (
	load         = flag.Bool("load", false, "run TestLoadContext (POST /v1/context under concurrent clients)")
	loadDuration = flag.Duration("load.duration", 30*time.Second, "how long the clients send")
	loadClients  = flag.Int("load.clients", 32, "concurrent clients")
	loadMessages = flag.Int("load.messages", 10000, "messages in the corpus")
)

// TestLoadContext drives POST /v1/context over a real loopback listener
// with concurrent clients (each request a new run id, a synthetic query of
// the thread's resource, recall on) and reports p50/p99 latency,
// throughput, errors and the process's RSS before, during and after.
func TestLoadContext(t *testing.T) {
	if !*load {
		t.Skip("load test: run with -load (see the comment above)")
	}
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Recall: &recall.Options{TopK: 5, MessageRange: recall.Range{Before: 1, After: 1}}})
	corpus, err := synth.New(synth.Config{Messages: *loadMessages})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for th := range corpus.All() {
		for i := 0; i < len(th.Messages); i += 100 {
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th.ID, ResourceID: th.ResourceID, Messages: th.Messages[i:min(i+100, len(th.Messages))]}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("corpus: %d messages, %d threads, %d resources, stored and indexed in %v", *loadMessages, corpus.Len(), corpus.Resources(), time.Since(start).Round(time.Millisecond))

	srv, err := server.New(server.Config{Engine: e, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *loadClients}}

	rssBefore := rssKB(t)
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      atomic.Int64
		firstErr  atomic.Value
		seq       atomic.Int64
		rssPeak   atomic.Int64
	)
	deadline := time.Now().Add(*loadDuration)
	stopRSS := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopRSS:
				return
			case <-time.After(time.Second):
				if r := rssKB(t); r > rssPeak.Load() {
					rssPeak.Store(r)
				}
			}
		}
	}()
	var wg sync.WaitGroup
	began := time.Now()
	for c := range *loadClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				n := seq.Add(1)
				q := corpus.Query(int(n), 0)
				body, _ := json.Marshal(map[string]any{"threadId": q.ThreadID, "query": q.Text, "runId": fmt.Sprintf("load-%d-%d", c, n)})
				t0 := time.Now()
				res, err := client.Post(ts.URL+"/v1/context", "application/json", bytes.NewReader(body))
				if err == nil {
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if err == nil && res.StatusCode != 200 {
						err = fmt.Errorf("status %d", res.StatusCode)
					}
				}
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	close(stopRSS)
	rssAfter := rssKB(t)
	slices.Sort(latencies)
	q := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[int(p*float64(len(latencies)-1))]
	}
	t.Logf("POST /v1/context, %d clients, %v: %d ok, %d errors; %.0f req/s; p50 %v, p90 %v, p99 %v, max %v",
		*loadClients, elapsed.Round(time.Millisecond), len(latencies), errs.Load(), float64(len(latencies))/elapsed.Seconds(),
		q(0.50).Round(10*time.Microsecond), q(0.90).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond), q(1).Round(10*time.Microsecond))
	t.Logf("RSS (test process: server, engine and clients): before %d MiB, peak %d MiB, after %d MiB", rssBefore/1024, max(rssPeak.Load(), rssAfter)/1024, rssAfter/1024)
	if n := errs.Load(); n > 0 {
		t.Fatalf("%d errors, first: %v", n, firstErr.Load())
	}
}

// rssKB reads this process's resident set size (Linux; 0 elsewhere).
func rssKB(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb
		}
	}
	return 0
}
