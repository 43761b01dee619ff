package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// LongMemEvalQuestion is one LongMemEval record. The evaluator reads
// HaystackSessionIDs and HasAnswer from the file itself; the importer never
// stores them.
type LongMemEvalQuestion struct {
	// QuestionID is the record's id.
	QuestionID string `json:"question_id"`
	// QuestionType is LongMemEval's category, e.g. "temporal-reasoning".
	QuestionType string `json:"question_type"`
	// Question is the question text.
	Question string `json:"question"`
	// QuestionDate is when the question is asked, in LongMemEval's date layout.
	QuestionDate string `json:"question_date"`
	// HaystackSessionIDs name the haystack sessions, index for index.
	HaystackSessionIDs []string `json:"haystack_session_ids"`
	// HaystackDates are the sessions' dates, index for index.
	HaystackDates []string `json:"haystack_dates"`
	// HaystackSessions are the sessions' turns, oldest session first.
	HaystackSessions [][]LongMemEvalTurn `json:"haystack_sessions"`
	// AnswerSessionIDs name the sessions that hold the answer.
	AnswerSessionIDs []string `json:"answer_session_ids"`
	// Answer is the gold answer as the file gives it (a string or a number).
	Answer json.RawMessage `json:"answer"`
}

// LongMemEvalTurn is one turn of a haystack session.
type LongMemEvalTurn struct {
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Content is the turn's text.
	Content string `json:"content"`
	// HasAnswer marks a turn that holds the answer (read by the evaluator only).
	HasAnswer bool `json:"has_answer"`
}

// LongMemEvalDateLayout is the layout of haystack dates, e.g.
// "2023/05/20 (Sat) 02:21".
const LongMemEvalDateLayout = "2006/01/02 (Mon) 15:04"

// LongMemEvalThreadID names the thread of the index-th haystack session
// (0-based): "<question_id>:s<index>". Threads are named by position, never
// by the original session id, which gives the answer away.
func LongMemEvalThreadID(questionID string, index int) string {
	return fmt.Sprintf("%s:s%d", questionID, index)
}

// longmemeval maps each question to a resource, each haystack session to a
// thread and each turn to a message (message id "<thread>:<turn>"), with the
// created time taken from haystack_dates plus the turn index in seconds.
func (w *writer) longmemeval(r io.Reader) error {
	return eachRecord(w, r, "LongMemEval", w.longmemevalQuestion)
}

func (w *writer) longmemevalQuestion(i int, q *LongMemEvalQuestion) error {
	at := fmt.Sprintf("[%d]", i)
	if q.QuestionID == "" {
		return w.problem(at+".question_id", fmt.Errorf("missing"))
	}
	for s, turns := range q.HaystackSessions {
		where := fmt.Sprintf("%s.haystack_sessions[%d]", at, s)
		var start time.Time
		if s < len(q.HaystackDates) {
			t, err := time.Parse(LongMemEvalDateLayout, strings.TrimSpace(q.HaystackDates[s]))
			if err != nil {
				if perr := w.problem(fmt.Sprintf("%s.haystack_dates[%d]", at, s), err); perr != nil {
					return perr
				}
				continue
			}
			start = t
		} else if perr := w.problem(fmt.Sprintf("%s.haystack_dates[%d]", at, s), fmt.Errorf("missing")); perr != nil {
			return perr
		} else {
			continue
		}
		thread := LongMemEvalThreadID(q.QuestionID, s)
		req := engine.AppendRequest{ThreadID: thread, ResourceID: q.QuestionID, Title: fmt.Sprintf("session %d (%s)", s, start.Format("2 Jan 2006"))}
		var wheres []string
		for j, t := range turns {
			req.Messages = append(req.Messages, engine.Message{
				ID:        fmt.Sprintf("%s:%d", thread, j),
				Role:      t.Role,
				Content:   t.Content,
				CreatedAt: start.Add(time.Duration(j) * time.Second),
			})
			wheres = append(wheres, fmt.Sprintf("%s[%d]", where, j))
		}
		if err := w.appendBatch(req, wheres, nil); err != nil {
			return err
		}
	}
	return nil
}
