package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// LoCoMoSample is one LoCoMo conversation as the importer and the evaluator
// read it.
type LoCoMoSample struct {
	// SampleID is the conversation's id, e.g. "conv-26".
	SampleID string `json:"sample_id"`
	// Conversation holds the speakers ("speaker_a", "speaker_b"), each "session_N" (a list of LoCoMoTurn) and its "session_N_date_time".
	Conversation map[string]json.RawMessage `json:"conversation"`
	// QA are the benchmark's questions on the conversation.
	QA []LoCoMoQA `json:"qa"`
}

// LoCoMoQA is one benchmark question. Category: 1 multi-hop, 2 temporal,
// 3 open-domain, 4 single-hop, 5 adversarial.
type LoCoMoQA struct {
	// Question is the question text.
	Question string `json:"question"`
	// Answer is the gold answer as the file gives it (a string or a number).
	Answer json.RawMessage `json:"answer"`
	// Evidence are the DiaIDs of the turns that hold the answer.
	Evidence []string `json:"evidence"`
	// Category is 1 to 5 (see the type).
	Category int `json:"category"`
}

// LoCoMoTurn is one turn of a LoCoMo session.
type LoCoMoTurn struct {
	// Speaker is the speaker's name.
	Speaker string `json:"speaker"`
	// DiaID names the turn, "D<session>:<turn>" (e.g. "D1:3").
	DiaID string `json:"dia_id"`
	// Text is what the speaker said.
	Text string `json:"text"`
	// BlipCaption describes a shared image; "" for none.
	BlipCaption string `json:"blip_caption"`
}

// LoCoMoDateLayout is the layout of LoCoMo session dates, e.g.
// "1:56 pm on 8 May, 2023".
const LoCoMoDateLayout = "3:04 pm on 2 January, 2006"

// LoCoMoThreadID names the thread of a LoCoMo session: "<sample_id>:session_<N>".
func LoCoMoThreadID(sampleID string, session int) string {
	return fmt.Sprintf("%s:session_%d", sampleID, session)
}

// LoCoMoMessageID names the message of a LoCoMo turn: "<sample_id>:<dia_id>".
func LoCoMoMessageID(sampleID, diaID string) string { return sampleID + ":" + diaID }

// LoCoMoSessions returns the session numbers of a conversation in order,
// taken from the "session_N" keys (not the "*_date_time" keys, which some
// samples have more of).
func LoCoMoSessions(conv map[string]json.RawMessage) []int {
	var ns []int
	for k := range conv {
		if n, ok := strings.CutPrefix(k, "session_"); ok {
			if i, err := strconv.Atoi(n); err == nil {
				ns = append(ns, i)
			}
		}
	}
	sort.Ints(ns)
	return ns
}

// locomo maps each sample to a resource, each session to a thread and each
// turn to a message: speaker_a → user, speaker_b → assistant, the speaker's
// name kept as the message name, an image caption appended as
// "[image: …]", dia_id and speaker in metadata. A turn's created time is the
// session date plus its index in seconds, so turns keep their order in time.
func (w *writer) locomo(r io.Reader) error {
	return eachRecord(w, r, "LoCoMo", w.locomoSample)
}

// locomoSample appends sample i's sessions, each a thread
// (locomoSession), once its id and speakers are there.
func (w *writer) locomoSample(i int, s *LoCoMoSample) error {
	at := fmt.Sprintf("[%d]", i)
	if s.SampleID == "" {
		return w.problem(at+".sample_id", fmt.Errorf("missing"))
	}
	var sp locomoSpeakers
	_ = json.Unmarshal(s.Conversation["speaker_a"], &sp.a)
	_ = json.Unmarshal(s.Conversation["speaker_b"], &sp.b)
	if sp.a == "" || sp.b == "" {
		return w.problem(at+".conversation", fmt.Errorf("speaker_a and speaker_b are required"))
	}
	for _, n := range LoCoMoSessions(s.Conversation) {
		if err := w.locomoSession(at, s, sp, n); err != nil {
			return err
		}
	}
	return nil
}

// locomoSpeakers are a conversation's speaker_a and speaker_b.
type locomoSpeakers struct{ a, b string }

// locomoSession appends session n of s (at: where s is in the file) as
// one thread of its turns (locomoTurn). A session whose turns or date do
// not read is a problem (w.problem): skipped, or the import's end with
// --strict.
func (w *writer) locomoSession(at string, s *LoCoMoSample, sp locomoSpeakers, n int) error {
	key := fmt.Sprintf("session_%d", n)
	where := at + ".conversation." + key
	var turns []LoCoMoTurn
	if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
		return w.problem(where, err)
	}
	var date string
	_ = json.Unmarshal(s.Conversation[key+"_date_time"], &date)
	start, err := time.Parse(LoCoMoDateLayout, strings.TrimSpace(date))
	if err != nil {
		return w.problem(where+"_date_time", fmt.Errorf("date %q: %w", date, err))
	}
	req := engine.AppendRequest{
		ThreadID:   LoCoMoThreadID(s.SampleID, n),
		ResourceID: s.SampleID,
		Title:      fmt.Sprintf("%s & %s, session %d (%s)", sp.a, sp.b, n, start.Format("2 Jan 2006")),
	}
	var wheres []string
	for j, t := range turns {
		tw := fmt.Sprintf("%s[%d]", where, j)
		role, ok, err := w.locomoRole(tw, t, sp)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		req.Messages = append(req.Messages, locomoMessage(s.SampleID, n, t, role, start.Add(time.Duration(j)*time.Second)))
		wheres = append(wheres, tw)
	}
	return w.appendBatch(req, wheres, nil)
}

// locomoRole returns the role of turn t (tw: where it is in the file):
// speaker_a's is the user's, speaker_b's the assistant's. A turn of
// another speaker or without a dia_id is a problem (w.problem): false,
// and the problem's error with --strict.
func (w *writer) locomoRole(tw string, t LoCoMoTurn, sp locomoSpeakers) (string, bool, error) {
	role := engine.RoleUser
	switch t.Speaker {
	case sp.a:
	case sp.b:
		role = engine.RoleAssistant
	default:
		return "", false, w.problem(tw, fmt.Errorf("speaker %q is neither %q nor %q", t.Speaker, sp.a, sp.b))
	}
	if t.DiaID == "" {
		return "", false, w.problem(tw, fmt.Errorf("dia_id is missing"))
	}
	return role, true, nil
}

// locomoMessage is turn t of sample sampleID's session as a message
// created at: its image caption appended as "[image: …]", its dia_id,
// speaker and session in metadata.
func locomoMessage(sampleID string, session int, t LoCoMoTurn, role string, at time.Time) engine.Message {
	content := t.Text
	if c := strings.TrimSpace(t.BlipCaption); c != "" {
		content = strings.TrimSpace(content + " [image: " + c + "]")
	}
	return engine.Message{
		ID:        LoCoMoMessageID(sampleID, t.DiaID),
		Role:      role,
		Name:      t.Speaker,
		Content:   content,
		Metadata:  map[string]any{"dia_id": t.DiaID, "speaker": t.Speaker, "session": session},
		CreatedAt: at,
	}
}
