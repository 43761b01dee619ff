package recall

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"sync"
)

// The exchange order rule (Tuning.NoExchangeOrder turns it off), part of
// the hybrid fusion: in a conversation with an AI agent, an exchange is
// the user's turn and the agent's reply right after it. What a memory is
// asked about is the user — their facts, plans, possessions and
// preferences — and the user's turn is where they are stated ("Can you
// tell me the best way to get there from Shinjuku using my Suica card I
// just got?"); the agent's reply repeats the request's subject and
// elaborates it with general content, so it often matches the question
// as well or better (longer, more of its words) while holding none of
// the user's facts. The exchange rule (context.go) already declines to
// lift an agent's reply through the request for the same reason. Here,
// when both turns of an exchange are hybrid candidates, the request takes
// the better of their two fused scores and the reply the other:
//
//	request, reply = max(request, reply), min(request, reply)
//
// Only the order within each exchange changes: no other candidate moves
// relative to the pair, and each thread keeps the same set of scores (a
// session ranks as before). A question that asks what the agent said,
// made or gave ("the list you provided", "the move you made": youSaid)
// wants the reply instead, and gets the reverse (the reply takes the
// better score). A question that names the conversation itself ("our
// previous chat about …", "we discussed …", ourTalk) without saying
// which side spoke leaves each exchange in its fused order. The agent's
// turn is one of role "assistant" with no Name, the user's one of role
// "user"; a named assistant is a person of an imported conversation (LoCoMo's
// second speaker), whose answers are facts as much as the questions are,
// and is left alone. The reply is the request's next turn (Seq + 1 in
// the same thread).
//
// On LongMemEval's single-session-preference questions the question asks
// for a recommendation and the evidence is the user's own statement
// ("Tokyo … helpful tips?": the reply to the evidence ranked first, the
// evidence 11th); its single-session-assistant questions ask for the
// agent's list or move ("you provided", "you made") whose request ranked
// above it (BENCHMARKS.md, issue 16).

// ourTalk matches a question that names the conversation with the agent
// as a shared one: "our (previous) conversation/chat/discussion", "we
// (already) discussed/talked/chatted" (at most two words between), "the
// chat we had".
var ourTalk = regexp.MustCompile(`(?i)\b(?:(?:our|we)(?: \w+){0,2} (?:conversations?|chats?|discussions?|discussed|talked|chatted)|(?:conversations?|chats?|discussions?) we had)\b`)

// exchangeTurn is a user's or the agent's candidate turn: its index in
// cands, its thread and seq, and whether it is the agent's.
type exchangeTurn struct {
	thread string
	seq    int64
	i      int
	agent  bool
}

// exchangeOrder applies the exchange order rule to fused (the scores of
// cands in input order; -Inf is left as it is) for the query text. With
// off, or a query naming the conversation (ourTalk) but not the agent's
// words (youSaid), fused is left unchanged.
func exchangeOrder(c Corpus, cands []candidate, fused []float64, text string, off bool) {
	if off || len(cands) < 2 {
		return
	}
	toReply := youSaid.MatchString(text)
	if !toReply && ourTalk.MatchString(text) {
		return
	}
	buf := exchangeTurnsPool.Get().(*[]exchangeTurn)
	turns := exchangeTurns(c, cands, fused, (*buf)[:0])
	defer func() {
		if cap(turns) <= scratchMapMax {
			clear(turns) // holds no thread id
			*buf = turns[:0]
			exchangeTurnsPool.Put(buf)
		}
	}()
	for k := 1; k < len(turns); k++ {
		req, rep := turns[k-1], turns[k]
		if !rep.agent || req.agent || rep.thread != req.thread || rep.seq != req.seq+1 {
			continue
		}
		hi, lo := req.i, rep.i // the turn that should rank first, the other
		if toReply {
			hi, lo = lo, hi
		}
		if fused[lo] > fused[hi] {
			fused[hi], fused[lo] = fused[lo], fused[hi]
		}
	}
}

// exchangeTurnsPool holds exchangeOrder's lists (*[]exchangeTurn): a
// search allocates none once warm. A list longer than scratchMapMax (a
// filter widening to a whole resource) is dropped, not kept.
var exchangeTurnsPool = sync.Pool{New: func() any { return new([]exchangeTurn) }}

// exchangeTurns appends to out the finite-scored candidates that are the
// user's turns (role "user") or the agent's (role "assistant", no Name),
// and returns it sorted by thread and seq.
func exchangeTurns(c Corpus, cands []candidate, fused []float64, out []exchangeTurn) []exchangeTurn {
	for i, f := range fused {
		if math.IsInf(f, 0) {
			continue
		}
		d := c.Doc(cands[i].ID)
		agent := d.Role == "assistant" && d.Name == ""
		if !agent && d.Role != "user" {
			continue
		}
		out = append(out, exchangeTurn{thread: d.ThreadID, seq: d.Seq, i: i, agent: agent})
	}
	slices.SortFunc(out, func(a, b exchangeTurn) int {
		if c := cmp.Compare(a.thread, b.thread); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return out
}
