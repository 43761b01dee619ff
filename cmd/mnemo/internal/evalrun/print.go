package evalrun

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/evalset"
	"github.com/mnemo-go/mnemo/recall"
)

// PrintSummary writes the overall figures of each mode side by side.
func PrintSummary(w io.Writer, reports []*Report) error {
	fmt.Fprintf(w, "\noverall (%s, embedder %s)\n", reports[0].File, reports[0].Embedder)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	ks := reports[0].ks
	head := "level\tmode\t"
	for _, metric := range []string{"any", "all", "ndcg"} {
		for _, k := range ks {
			head += fmt.Sprintf("%s@%d\t", metric, k)
		}
	}
	fmt.Fprintln(tw, head)
	for _, lv := range []string{"turn", "session"} {
		for _, r := range reports {
			t := r.Turn
			if lv == "session" {
				t = r.Session
			}
			if t == nil {
				continue
			}
			row := lv + "\t" + r.Mode + "\t"
			for _, metric := range []string{"any", "all", "ndcg"} {
				for _, k := range ks {
					mt := t["overall"]["@"+strconv.Itoa(k)]
					row += fmt.Sprintf("%.3f\t", map[string]float64{"any": mt.RecallAny, "all": mt.RecallAll, "ndcg": mt.NDCG}[metric])
				}
			}
			fmt.Fprintln(tw, row)
		}
	}
	return tw.Flush()
}

// PrintReport writes r as tables: its figures, then per level the
// metrics of each category and overall.
func PrintReport(w io.Writer, r *Report) error {
	note := ""
	if r.Embedder == recall.HashID {
		note = " (lexical-level, not semantic)"
	}
	if r.Backend == "postgres" {
		note += " · backend postgres"
	}
	if r.Reranker != "" {
		note += " · re-ranked by " + r.Reranker
	}
	fmt.Fprintf(w, "%s (%s): %s scored, %d skipped · mode %s · range %d,%d · embedder %s%s\n",
		r.File, r.Format, count(r.Questions, "question"), r.Skipped, r.Mode, r.Range.Before, r.Range.After, r.Embedder, note)
	fmt.Fprintf(w, "ingest: %s in %.1f s (appends done at %.1f s; %.0f messages/s with both indexes caught up) · search p50 %.2f ms, p99 %.2f ms (resource loaded)\n",
		count(r.Ingest.Messages, "message"), r.Ingest.Seconds, r.Ingest.ImportSeconds, r.Ingest.PerSecond, r.SearchP50, r.SearchP99)
	levels := []struct {
		name string
		t    map[string]map[string]evalset.Metrics
	}{{"turn", r.Turn}}
	if r.Session != nil {
		levels = append(levels, struct {
			name string
			t    map[string]map[string]evalset.Metrics
		}{"session", r.Session})
	}
	for _, lv := range levels {
		fmt.Fprintf(w, "\n%s level\n", lv.name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "category\tn\t"
		for _, metric := range []string{"any", "all", "ndcg"} {
			for _, k := range r.ks {
				head += fmt.Sprintf("%s@%d\t", metric, k)
			}
		}
		fmt.Fprintln(tw, head)
		cats := make([]string, 0, len(lv.t))
		for c := range lv.t {
			if c != "overall" {
				cats = append(cats, c)
			}
		}
		sort.Strings(cats)
		for _, c := range append(cats, "overall") {
			row := fmt.Sprintf("%s\t%d\t", c, r.Counts[c])
			for _, metric := range []string{"any", "all", "ndcg"} {
				for _, k := range r.ks {
					mt := lv.t[c]["@"+strconv.Itoa(k)]
					v := map[string]float64{"any": mt.RecallAny, "all": mt.RecallAll, "ndcg": mt.NDCG}[metric]
					row += fmt.Sprintf("%.3f\t", v)
				}
			}
			fmt.Fprintln(tw, row)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// count is n and noun, in the plural unless n is 1: "1 question", "304
// questions".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
