package recall

import "fmt"

// Hit reasons: why a message is in a search's result (Hit.Reason).
const (
	ReasonHit   = "hit"   // ranked by the search
	ReasonRange = "range" // a message-range neighbour of a hit
)

// Channel statuses of a Retrieval. A channel that failed reads
// "unavailable: <cause>"; one that answered over part of the resource's
// messages reads "degraded: <why>".
const (
	// StatusOK: the channel answered over every message.
	StatusOK = "ok"
	// StatusOff: the channel was not asked for (the mode left it out, or
	// recall did not run).
	StatusOff = "off"
	// StatusCatchingUp: the channel answered while messages of the
	// resource still owe its index work: lexical indexing for the lexical
	// channel (Backlog.Pending > 0), indexing for the vector channel
	// (Backlog.Unindexed > 0). The newest messages may be missing from its
	// results (Note says how many at most), while the others are scored as
	// usual.
	StatusCatchingUp = "degraded: index catching up"
)

// Retrieval says how each channel of a search fared: Lexical and Vector are
// a channel status (StatusOK, StatusOff, StatusCatchingUp, "degraded: …",
// "unavailable: …"), Embedder names the embedder of the vector channel when
// it ran, and Note says why recall is degraded (from Query.Backlog), "" when
// it is not.
type Retrieval struct {
	// Lexical is the lexical channel's status (StatusOK, StatusOff, …).
	Lexical string `json:"lexical"`
	// Vector is the vector channel's status (StatusOK, StatusOff, StatusCatchingUp, "degraded: …", "unavailable: …").
	Vector string `json:"vector"`
	// Embedder names the vector channel's embedder when it ran.
	Embedder string `json:"embedder,omitempty"`
	// Note says why recall is degraded; "" when it is not.
	Note string `json:"note,omitempty"`
	// Rerank says how the re-rank stage fared (SearchReranked); nil when
	// the search had none.
	Rerank *RerankStatus `json:"rerank,omitempty"`
}

// Off is the Retrieval of a search that did not run: both channels off.
func Off() Retrieval { return Retrieval{Lexical: StatusOff, Vector: StatusOff} }

// Unavailable is the Retrieval of a search that could not run at all, for
// cause (e.g. "index closed"): both channels "unavailable: <cause>".
func Unavailable(cause string) Retrieval {
	return Retrieval{Lexical: unavailable(cause), Vector: unavailable(cause)}
}

// Backlog is what the caller knows of how far the derived indexes lag
// behind its store when it searches; Search folds it into
// Result.Retrieval. The zero value means caught up.
type Backlog struct {
	// Pending counts the resource's messages that still owe lexical
	// indexing: pending work that could add a hit. A message that owes
	// only its removal (erased) is not counted: removing it cannot add a
	// hit. When positive, a lexical channel that answered reads
	// StatusCatchingUp and the note counts them.
	Pending int64
	// Note says why recall is degraded (e.g. the lexical index was
	// quarantined and is being rebuilt); "" when it is not.
	Note string
	// Unindexed counts those of Pending that no index has seen yet (the
	// drainer indexes and embeds them together); when positive, a vector
	// channel that answered reads StatusCatchingUp. A message embedded or
	// only owing its embedding is counted by the vector channel itself
	// ("degraded: N of M messages not embedded yet").
	Unindexed int64
	// UnindexedIDs, when not nil, lists the messages counted by
	// Unindexed (len(UnindexedIDs) == Unindexed). Index.Search then
	// leaves out of both counts those its resource's in-memory shard
	// already holds (loaded from the store after they were written, e.g.
	// a restored copy's first search): its vector channel answers for
	// them, and so does its lexical channel when it answered from the
	// shard's postings rather than from bleve. An id the search excludes
	// (Query.Exclude) is never taken as held. Only the rest make a
	// channel StatusCatchingUp; with none left the note is dropped too.
	// nil: every message counted is taken as missing (Finish, Postgres).
	UnindexedIDs []string
}

// heldBy returns b less the messages of b.UnindexedIDs that s holds, for
// a search whose lexical channel answered from s's postings when lexShard
// (caller holds s.mu). A message the search left out (exclude,
// Query.Exclude) is not answered for, held or not: the engine excludes one
// stored again while the removal of its erased text is pending, and owes
// it to the answer until then. It looks each id up once (docIndex.get):
// only while messages owe indexing, and as many lookups as rows the
// backlog's query read.
func (b Backlog) heldBy(s *shard, lexShard bool, exclude map[string]bool) Backlog {
	if b.UnindexedIDs == nil {
		return b
	}
	var held int64
	for _, id := range b.UnindexedIDs {
		if !exclude[id] && s.docs.get(id) != nil {
			held++
		}
	}
	b.UnindexedIDs = nil
	if held == 0 {
		return b
	}
	b.Unindexed -= held
	if lexShard {
		b.Pending -= held
		if b.Pending <= 0 {
			return Backlog{} // nothing the answer could miss: not degraded
		}
	}
	return b
}

// apply folds b into r: the note, StatusCatchingUp for a lexical channel
// that answered while messages owe lexical work, and for a vector channel
// that answered "ok" while messages owe indexing (the vector channel never
// saw them, so its own count, vectorStatus, leaves them out: it answered
// "ok" without the message just appended).
func (r *Retrieval) apply(b Backlog) {
	note := b.Note
	if b.Pending > 0 {
		if note != "" {
			note += "; "
		}
		// "up to": a message that owes lexical work may already be in the
		// resource's in-memory index (its first use loaded it from the
		// store), and then a hit carries its lexical score; the others are
		// found once the drainer has indexed them.
		noun := "messages"
		if b.Pending == 1 {
			noun = "message"
		}
		note += fmt.Sprintf("up to %d %s of this resource not indexed yet", b.Pending, noun)
		if r.Lexical == StatusOK {
			r.Lexical = StatusCatchingUp
		}
		if b.Unindexed > 0 && r.Vector == StatusOK {
			r.Vector = StatusCatchingUp
		}
	}
	r.Note = note
}

// status is a channel's status after it ran: StatusOK, or unavailable with
// err's text.
func status(err error) string {
	if err != nil {
		return unavailable(err.Error())
	}
	return StatusOK
}

func unavailable(cause string) string { return "unavailable: " + cause }
