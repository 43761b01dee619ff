package bench

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Report is what `mnemo bench` measures; --json prints it as is.
type Report struct {
	// Backend is "sqlite" (a data directory) or "postgres".
	Backend string  `json:"backend"`
	Corpus  Corpus  `json:"corpus"`
	Machine Machine `json:"machine"`
	// Ingest: every message appended in batches, then both indexes caught
	// up (SyncIndexes); messagesPerSec counts until the indexes are caught up.
	Ingest Ingest `json:"ingest"`
	// Append is single-message appends into the filled engine (the latency
	// an agent sees per turn), indexes draining in the background.
	Append Latency `json:"append"`
	// Open is a cold start: Close, then Open of the filled data directory
	// (in-process: the OS page cache is warm).
	OpenMs float64 `json:"openMs"`
	// FirstUse is the first LoadContext on each queried resource, which
	// loads its messages and vectors into memory.
	FirstUse Latency `json:"firstUse"`
	// LoadContext is warm LoadContext with recall on (scope resource,
	// topK 5, range 1, recent 10), memctx written.
	LoadContext Latency `json:"loadContext"`
	// LoadContextCPUMs is the process CPU time per warm LoadContext (all
	// goroutines, background work included): on a shared machine it is
	// steadier than wall-clock latency.
	LoadContextCPUMs float64 `json:"loadContextCpuMs"`
	// LoadContextAllocs is what the warm LoadContext calls allocated on
	// the Go heap (all goroutines, background work included) and the
	// garbage collections they ran into.
	LoadContextAllocs Allocs `json:"loadContextAllocs"`
	// Search holds warm Search latency per channel: lexical, vector, hybrid.
	Search map[string]Latency `json:"search"`
	// TargetRecalled is the share of synthetic queries whose source message
	// reached the prompt (recalled or in the recent window): a sanity check
	// that recall works at this size, not a quality measure.
	TargetRecalled float64 `json:"targetRecalled,omitempty"`
	// PeakRSS is the process's peak resident set (VmHWM) during ingest and
	// during the serving phase (reset after ingest), in bytes.
	PeakRSSIngest int64 `json:"peakRssIngestBytes"`
	PeakRSSServe  int64 `json:"peakRssServeBytes"`
	// Sweep (--sweep) is one search on every resource after the other
	// phases, most of them first uses, and PeakRSSSweep the peak RSS after
	// it: the memory bound when every resource is served.
	Sweep        Latency `json:"sweep,omitempty"`
	PeakRSSSweep int64   `json:"peakRssSweepBytes,omitempty"`
	// Disk sizes after ingest, in bytes.
	Disk Disk `json:"disk"`
	// Exactness is the vector index against the exact scan (--exactness
	// queries; nil when 0).
	Exactness *Exactness `json:"exactness,omitempty"`
	// Ratios compare this run with --baseline (nil without).
	Ratios *Ratios `json:"ratios,omitempty"`
	// Notes qualify the figures.
	Notes []string `json:"notes"`
}

// Corpus describes what was measured: the synthetic corpus (with its
// seed) or an imported file.
type Corpus struct {
	Source    string `json:"source"` // "synthetic" or the imported file
	Messages  int    `json:"messages"`
	Resources int    `json:"resources"`
	Threads   int    `json:"threads"`
	Seed      uint64 `json:"seed,omitempty"`
	Queried   int    `json:"queriedResources"`
}

// Machine is where the figures were taken.
type Machine struct {
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"goVersion"`
	Embedder  string `json:"embedder"`
}

// Ingest is the ingest phase: every message appended in batches, then
// both indexes caught up.
type Ingest struct {
	Messages       int     `json:"messages"`
	Batch          int     `json:"batch"`
	Seconds        float64 `json:"seconds"`
	AppendSeconds  float64 `json:"appendSeconds"` // until the last Append returned
	CPUSeconds     float64 `json:"cpuSeconds"`    // process CPU time (user+system) until caught up
	MessagesPerSec float64 `json:"messagesPerSec"`
	AppendCall     Latency `json:"appendCall"` // per Append call of one batch
}

// Disk holds the data directory's sizes after ingest, in bytes.
type Disk struct {
	SQLite  int64 `json:"sqliteBytes"`  // mnemo.db with its -wal and -shm
	Lexical int64 `json:"lexicalBytes"` // the bleve index directory
	// Postgres is the schema's tables with their indexes and TOAST.
	Postgres int64 `json:"postgresBytes,omitempty"`
	Total    int64 `json:"totalBytes"`
}

// Latency summarises durations in milliseconds.
type Latency struct {
	N    int     `json:"n"`
	Mean float64 `json:"meanMs"`
	P50  float64 `json:"p50Ms"`
	P95  float64 `json:"p95Ms"`
	P99  float64 `json:"p99Ms"`
	Max  float64 `json:"maxMs"`
}

// summarize returns the nearest-rank percentiles of ds.
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	pct := func(p float64) float64 {
		i := int(float64(len(s))*p+0.999999) - 1
		return ms(s[min(max(i, 0), len(s)-1)])
	}
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Latency{N: len(s), Mean: ms(sum / time.Duration(len(s))), P50: pct(0.50), P95: pct(0.95), P99: pct(0.99), Max: ms(s[len(s)-1])}
}

// procStatus reads a "kB" field of /proc/self/status in bytes (0 when the
// file or field is missing, e.g. not on Linux).
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// resetPeakRSS resets VmHWM to the current RSS (Linux ≥ 4.0); it reports
// whether that worked.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// dirSize is the total size of the regular files under path.
func dirSize(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// machine describes this process's platform, measured with embedder.
func machine(embedder string) Machine {
	return Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), Embedder: embedder}
}

// batch names the ingest batching.
func (r *Report) batch() string {
	if r.Ingest.Batch == 0 {
		return "importer batches"
	}
	return fmt.Sprintf("batch %d", r.Ingest.Batch)
}

// mib formats b bytes in MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// PrintTable writes the report as a table.
func (r *Report) PrintTable(w io.Writer) {
	fmt.Fprintf(w, "mnemo bench: %s corpus, %d messages, %d resources, %d threads; %d CPUs, %s, embedder %s, backend %s\n",
		r.Corpus.Source, r.Corpus.Messages, r.Corpus.Resources, r.Corpus.Threads, r.Machine.CPUs, r.Machine.GoVersion, r.Machine.Embedder, cmp.Or(r.Backend, "sqlite"))
	fmt.Fprintln(w)
	if r.Ingest.Messages > 0 {
		fmt.Fprintf(w, "%-34s %s\n", "ingest (both indexes caught up)", fmt.Sprintf("%.0f msgs/s (%d messages in %.1f s; appends done at %.1f s; %s)",
			r.Ingest.MessagesPerSec, r.Ingest.Messages, r.Ingest.Seconds, r.Ingest.AppendSeconds, r.batch()))
	}
	if r.Ingest.CPUSeconds > 0 {
		fmt.Fprintf(w, "%-34s %s\n", "ingest CPU", fmt.Sprintf("%.1f s (%.0f µs per message); LoadContext CPU %.2f ms per call",
			r.Ingest.CPUSeconds, r.Ingest.CPUSeconds*1e6/float64(max(r.Ingest.Messages, 1)), r.LoadContextCPUMs))
	} else if r.LoadContextCPUMs > 0 { // --reuse: no ingest
		fmt.Fprintf(w, "%-34s %.2f ms per call\n", "LoadContext CPU", r.LoadContextCPUMs)
	}
	if a := r.LoadContextAllocs; a.Calls > 0 {
		fmt.Fprintf(w, "%-34s %.1f KiB, %.0f objects per call; %d GCs in %d calls\n", "LoadContext allocations", a.BytesPerCall/1024, a.ObjectsPerCall, a.GCs, a.Calls)
		if a.PageFaultsPerCall > 0 {
			fmt.Fprintf(w, "%-34s %.1f per call\n", "LoadContext page faults (minor)", a.PageFaultsPerCall)
		}
	}
	fmt.Fprintf(w, "%-34s %s\n", "open (cold start)", fmt.Sprintf("%.1f ms", r.OpenMs))
	fmt.Fprintf(w, "%-34s %s\n", "peak RSS ingest / serve", fmt.Sprintf("%s / %s", mib(r.PeakRSSIngest), mib(r.PeakRSSServe)))
	if r.Sweep.N > 0 {
		fmt.Fprintf(w, "%-34s %s\n", "peak RSS after the sweep", mib(r.PeakRSSSweep))
	}
	if r.Backend == "postgres" {
		fmt.Fprintf(w, "%-34s %s\n", "disk postgres (tables+indexes)", mib(r.Disk.Postgres))
	} else {
		fmt.Fprintf(w, "%-34s %s\n", "disk sqlite / lexical / total", fmt.Sprintf("%s / %s / %s", mib(r.Disk.SQLite), mib(r.Disk.Lexical), mib(r.Disk.Total)))
	}
	if r.TargetRecalled > 0 {
		fmt.Fprintf(w, "%-34s %.2f\n", "source message in prompt (sanity)", r.TargetRecalled)
	}
	fmt.Fprintf(w, "\n%-34s %6s %8s %8s %8s %8s %8s\n", "latency (ms)", "n", "mean", "p50", "p95", "p99", "max")
	row := func(name string, l Latency) {
		fmt.Fprintf(w, "%-34s %6d %8.2f %8.2f %8.2f %8.2f %8.2f\n", name, l.N, l.Mean, l.P50, l.P95, l.P99, l.Max)
	}
	if r.Ingest.AppendCall.N > 0 {
		row("append call ("+r.batch()+", ingest)", r.Ingest.AppendCall)
	}
	row("append (1 message, filled engine)", r.Append)
	row("first use of a resource", r.FirstUse)
	row("LoadContext (recall on)", r.LoadContext)
	for _, ch := range []string{"lexical", "vector", "hybrid"} {
		if l, ok := r.Search[ch]; ok {
			row("search "+ch, l)
		}
	}
	if r.Sweep.N > 0 {
		row("sweep: search every resource", r.Sweep)
	}
	if r.Exactness != nil || r.Ratios != nil {
		fmt.Fprintln(w)
		r.printScale(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nnote: %s", n)
	}
	fmt.Fprintln(w)
}
