// Package evalset loads the questions of the recall benchmarks (LoCoMo and
// LongMemEval, ../shared/data/README.md) with their labelled evidence, and
// computes the benchmarks' retrieval metrics: recall_any@k, recall_all@k
// and NDCG@k.
//
// Evidence is expressed in mnemo's ids, as package importer stores the
// benchmarks: LoCoMo turns are messages "<sample_id>:<dia_id>"; LongMemEval
// turns are "<question_id>:s<index>:<turn>" in threads
// "<question_id>:s<index>". Original LongMemEval session ids, which give the
// answer away, are read here only, never stored.
//
// # Imports
//
// It may import importer (format names and detection); only cmd/mnemo and
// cmd/mnemo/internal/evalrun import it.
//
// # Invariants
//
//   - LoCoMo questions of category 5 (adversarial) and LongMemEval
//     abstention questions ("_abs") are skipped: they have no evidence.
//   - Malformed evidence ids are split ("D8:6; D9:17") or, when they name no
//     turn, dropped and counted in Set.SkippedEvidence.
//
// # Concurrency
//
// Sets are read-only after Load; Score is a pure function.
//
// # Errors
//
// Load returns the decoding error of a malformed file (a LongMemEval
// question_date not in the haystack dates' layout included), prefixed
// "evalset:".
package evalset

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/importer"
)

// Question is one benchmark question.
type Question struct {
	ID       string // "<sample_id>#<n>" for LoCoMo, the question_id for LongMemEval
	Resource string // the resource its haystack was ingested into
	Text     string
	Category string // LoCoMo: "1 multi-hop" …; LongMemEval: the question type
	// Turns are the evidence message ids; Sessions the evidence thread ids
	// (LongMemEval only).
	Turns    []string
	Sessions []string
	// At is when the question is asked (LongMemEval's question_date, read
	// as UTC like the haystack dates); zero when the set gives none
	// (LoCoMo). The question's relative dates are resolved against it.
	At time.Time
}

// Set is a loaded benchmark.
type Set struct {
	Format          string // importer.FormatLoCoMo or importer.FormatLongMemEval
	Questions       []Question
	Skipped         int // questions without evidence (category 5, _abs, none left)
	SkippedEvidence int // evidence ids that name no turn
}

// LoCoMoCategories names LoCoMo's categories (from the benchmark's
// evaluation code).
var LoCoMoCategories = map[int]string{1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop", 5: "5 adversarial"}

var diaRE = regexp.MustCompile(`D\d+:\d+`)

// Load reads a LoCoMo or LongMemEval file (format "" detects it).
func Load(path, format string) (*Set, error) {
	if format == "" || format == importer.FormatAuto {
		f, err := importer.Detect(path)
		if err != nil {
			return nil, fmt.Errorf("evalset: %w", err)
		}
		format = f
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("evalset: %w", err)
	}
	switch format {
	case importer.FormatLoCoMo:
		return loadLoCoMo(b)
	case importer.FormatLongMemEval:
		return loadLongMemEval(b)
	}
	return nil, fmt.Errorf("evalset: format %q: want locomo or longmemeval", format)
}

func loadLoCoMo(b []byte) (*Set, error) {
	var samples []importer.LoCoMoSample
	if err := json.Unmarshal(b, &samples); err != nil {
		return nil, fmt.Errorf("evalset: LoCoMo: %w", err)
	}
	set := &Set{Format: importer.FormatLoCoMo}
	for _, s := range samples {
		turns := map[string]bool{}
		for _, n := range importer.LoCoMoSessions(s.Conversation) {
			var ts []importer.LoCoMoTurn
			if json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d", n)], &ts) == nil {
				for _, t := range ts {
					turns[t.DiaID] = true
				}
			}
		}
		for i, qa := range s.QA {
			if qa.Category < 1 || qa.Category > 4 {
				set.Skipped++
				continue
			}
			q := Question{ID: fmt.Sprintf("%s#%d", s.SampleID, i), Resource: s.SampleID, Text: qa.Question, Category: LoCoMoCategories[qa.Category]}
			seen := map[string]bool{}
			for _, ev := range qa.Evidence {
				ids := diaRE.FindAllString(ev, -1)
				if len(ids) == 0 {
					set.SkippedEvidence++
				}
				for _, id := range ids {
					if !turns[id] {
						set.SkippedEvidence++
						continue
					}
					if !seen[id] {
						seen[id] = true
						q.Turns = append(q.Turns, importer.LoCoMoMessageID(s.SampleID, id))
					}
				}
			}
			if len(q.Turns) == 0 {
				set.Skipped++
				continue
			}
			set.Questions = append(set.Questions, q)
		}
	}
	return set, nil
}

func loadLongMemEval(b []byte) (*Set, error) {
	var qs []importer.LongMemEvalQuestion
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("evalset: LongMemEval: %w", err)
	}
	set := &Set{Format: importer.FormatLongMemEval}
	for _, lq := range qs {
		if strings.HasSuffix(lq.QuestionID, "_abs") || len(lq.AnswerSessionIDs) == 0 {
			set.Skipped++
			continue
		}
		answer := map[string]bool{}
		for _, id := range lq.AnswerSessionIDs {
			answer[id] = true
		}
		q := Question{ID: lq.QuestionID, Resource: lq.QuestionID, Text: lq.Question, Category: lq.QuestionType}
		if d := strings.TrimSpace(lq.QuestionDate); d != "" {
			at, err := time.Parse(importer.LongMemEvalDateLayout, d)
			if err != nil {
				return nil, fmt.Errorf("evalset: LongMemEval question %s: question_date: %w", lq.QuestionID, err)
			}
			q.At = at
		}
		for i, sess := range lq.HaystackSessions {
			thread := importer.LongMemEvalThreadID(lq.QuestionID, i)
			if i < len(lq.HaystackSessionIDs) && answer[lq.HaystackSessionIDs[i]] {
				q.Sessions = append(q.Sessions, thread)
			}
			for j, t := range sess {
				if t.HasAnswer {
					q.Turns = append(q.Turns, fmt.Sprintf("%s:%d", thread, j))
				}
			}
		}
		set.Questions = append(set.Questions, q)
	}
	return set, nil
}

// Metrics are the retrieval metrics of one ranked list at one cutoff k.
type Metrics struct {
	RecallAny float64 `json:"recall_any"`
	RecallAll float64 `json:"recall_all"`
	NDCG      float64 `json:"ndcg"`
}

// Score computes the metrics at k of a ranked list of retrieved ids against
// the relevant ids, as LongMemEval's evaluation defines them: recall_any is
// 1 when any relevant id is among the first k, recall_all when all are;
// NDCG@k uses binary gains, DCG = Σ rel_i / log2(i+1) over positions
// i = 1…k, normalised by the DCG of min(|relevant|, k) relevant ids first.
// Repeated ids count once, at their first position.
func Score(ranked []string, relevant []string, k int) Metrics {
	rel := map[string]bool{}
	for _, r := range relevant {
		rel[r] = true
	}
	if len(rel) == 0 {
		return Metrics{}
	}
	seen := map[string]bool{}
	found := 0
	var dcg float64
	pos := 0
	for _, id := range ranked {
		if seen[id] {
			continue
		}
		seen[id] = true
		pos++
		if pos > k {
			break
		}
		if rel[id] {
			found++
			dcg += 1 / math.Log2(float64(pos)+1)
		}
	}
	var idcg float64
	for i := 1; i <= min(len(rel), k); i++ {
		idcg += 1 / math.Log2(float64(i)+1)
	}
	m := Metrics{NDCG: dcg / idcg}
	if found > 0 {
		m.RecallAny = 1
	}
	if found == len(rel) {
		m.RecallAll = 1
	}
	return m
}
