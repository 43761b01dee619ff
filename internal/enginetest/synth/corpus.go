package synth

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// Defaults for Config fields left zero.
const (
	// DefaultSeed is the seed used when Config.Seed is 0.
	DefaultSeed = 1
	// DefaultThreadMessages is the mean thread length used when
	// Config.ThreadMessages is 0; thread lengths are uniform in [½, 1½] of it.
	DefaultThreadMessages = 100
	// DefaultMessagesPerResource sets the resource count when
	// Config.Resources is 0: one resource per this many messages (1M
	// messages over 1,000 resources, the shape of issue 8's target).
	DefaultMessagesPerResource = 1000
)

// Start is the creation time of every resource's first thread; later
// threads start one day apart, and turns 20–120 seconds apart. A resource
// of more than SpanDays threads has them spread evenly over SpanDays days
// instead, so that no message is dated after Start + SpanDays (plus its
// last thread's turns): engine.Append refuses a createdAt more than a day
// ahead of the clock (engine.ErrCreatedAtFuture), and one day apart a
// 100k-message resource (~1,000 threads) ran past 2026-12-04.
var Start = time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)

// SpanDays bounds the days between a resource's first and last thread
// starts (see Start): 600, so the corpus ends by 2026-08-29 whatever its
// size. Resources of up to 600 threads (60,000 messages at the default
// thread length) are dated as before, one day apart.
const SpanDays = 600

// Config describes a corpus. The zero value of each field except Messages
// means its default.
type Config struct {
	// Messages is the total number of messages; required, > 0.
	Messages int
	// Resources is the number of resources (users); 0 means
	// max(1, Messages/DefaultMessagesPerResource). Messages are spread
	// evenly over them.
	Resources int
	// ThreadMessages is the mean number of messages per thread; 0 means
	// DefaultThreadMessages.
	ThreadMessages int
	// Seed selects the corpus; 0 means DefaultSeed.
	Seed uint64
}

// Thread is one generated thread with its messages, ready for
// engine.Append (ids and creation times set; seqs are the store's).
type Thread struct {
	ID         string
	ResourceID string
	Messages   []engine.Message
}

// Corpus is a generated corpus: a layout of resources and threads whose
// contents are generated on demand. It is immutable and safe for concurrent
// use.
type Corpus struct {
	cfg       Config
	threads   []threadSpec
	byRes     [][]int // resource -> indexes into threads
	resTopics []topics
}

// threadSpec is one thread of the layout.
type threadSpec struct {
	resource int // resource index
	local    int // thread index within the resource
	size     int // messages
}

// topics are a resource's own words.
type topics struct {
	people, projects, places []string
}

// New lays out the corpus described by cfg. It returns ErrInvalidConfig when
// cfg.Messages <= 0, or when cfg.Resources or cfg.ThreadMessages is negative
// or there are more resources than messages.
func New(cfg Config) (*Corpus, error) {
	if cfg.Messages <= 0 || cfg.Resources < 0 || cfg.ThreadMessages < 0 {
		return nil, fmt.Errorf("%w: messages %d, resources %d, thread messages %d", ErrInvalidConfig, cfg.Messages, cfg.Resources, cfg.ThreadMessages)
	}
	if cfg.Resources == 0 {
		cfg.Resources = max(1, cfg.Messages/DefaultMessagesPerResource)
	}
	if cfg.Resources > cfg.Messages {
		return nil, fmt.Errorf("%w: %d resources for %d messages", ErrInvalidConfig, cfg.Resources, cfg.Messages)
	}
	if cfg.ThreadMessages == 0 {
		cfg.ThreadMessages = DefaultThreadMessages
	}
	if cfg.Seed == 0 {
		cfg.Seed = DefaultSeed
	}
	c := &Corpus{cfg: cfg, byRes: make([][]int, cfg.Resources), resTopics: make([]topics, cfg.Resources)}
	per, extra := cfg.Messages/cfg.Resources, cfg.Messages%cfg.Resources
	mean := cfg.ThreadMessages
	for r := range cfg.Resources {
		n := per
		if r < extra {
			n++
		}
		rng := c.rng(streamLayout, uint64(r))
		c.resTopics[r] = topics{
			people:   pick(rng, firstNames, 3),
			projects: pick(rng, projectWords, 2),
			places:   pick(rng, placeNames, 2),
		}
		for local := 0; n > 0; local++ {
			size := mean/2 + rng.IntN(mean+1)
			if size < 1 {
				size = 1
			}
			if n-size < max(mean/2, 1) {
				size = n // the last thread takes the rest
			}
			c.byRes[r] = append(c.byRes[r], len(c.threads))
			c.threads = append(c.threads, threadSpec{resource: r, local: local, size: size})
			n -= size
		}
	}
	return c, nil
}

// Random streams: each (purpose, index) pair has its own PCG stream, so any
// thread or query is generated without generating the others.
const (
	streamLayout uint64 = iota + 1
	streamThread
	streamQuery
)

func (c *Corpus) rng(stream, index uint64) *rand.Rand {
	return rand.New(rand.NewPCG(c.cfg.Seed, stream<<56|index))
}

func pick(rng *rand.Rand, from []string, n int) []string {
	idx := rng.Perm(len(from))[:n]
	out := make([]string, n)
	for i, j := range idx {
		out[i] = from[j]
	}
	return out
}

// threadGap is the time between the starts of resource r's consecutive
// threads: a day, or SpanDays days over its thread count when it has more
// than SpanDays threads.
func (c *Corpus) threadGap(r int) time.Duration {
	const day = 24 * time.Hour
	if n := len(c.byRes[r]); n > SpanDays {
		return SpanDays * day / time.Duration(n)
	}
	return day
}

// Config returns the configuration with defaults filled in.
func (c *Corpus) Config() Config { return c.cfg }

// Len returns the number of threads.
func (c *Corpus) Len() int { return len(c.threads) }

// Resources returns the number of resources.
func (c *Corpus) Resources() int { return c.cfg.Resources }

// ResourceID returns the id of resource r (0-based): "res00042".
func ResourceID(r int) string { return fmt.Sprintf("res%05d", r) }

// ThreadID returns the id of the local-th thread of resource r.
func ThreadID(r, local int) string { return fmt.Sprintf("%s.t%04d", ResourceID(r), local) }

// ResourceThreads returns the indexes (for Thread) of resource r's threads.
func (c *Corpus) ResourceThreads(r int) []int { return c.byRes[r] }

// All yields every thread in layout order (resource by resource).
func (c *Corpus) All() iter.Seq[Thread] {
	return func(yield func(Thread) bool) {
		for i := range c.threads {
			if !yield(c.Thread(i)) {
				return
			}
		}
	}
}

// Thread generates thread i (0 <= i < Len()).
func (c *Corpus) Thread(i int) Thread {
	spec := c.threads[i]
	g := &gen{rng: c.rng(streamThread, uint64(i)), top: &c.resTopics[spec.resource]}
	g.zipf = rand.NewZipf(g.rng, 1.1, 2, uint64(len(commonWords)-1))
	g.theme = make([]string, 6)
	for k := range g.theme {
		g.theme[k] = commonWords[60+g.rng.IntN(len(commonWords)-60)]
	}
	t := Thread{ID: ThreadID(spec.resource, spec.local), ResourceID: ResourceID(spec.resource)}
	t.Messages = make([]engine.Message, 0, spec.size)
	at := Start.Add(c.threadGap(spec.resource) * time.Duration(spec.local))
	add := func(m engine.Message) {
		at = at.Add(time.Duration(20+g.rng.IntN(100)) * time.Second)
		m.ID = fmt.Sprintf("%s.%06d", t.ID, len(t.Messages)+1)
		m.CreatedAt = at
		t.Messages = append(t.Messages, m)
	}
	for len(t.Messages) < spec.size {
		add(engine.Message{Role: engine.RoleUser, Content: g.text(g.length(16, 0.6, 3, 120))})
		left := spec.size - len(t.Messages)
		if left == 0 {
			break
		}
		if k := 1 + g.rng.IntN(2); g.rng.Float64() < 0.2 && left >= 1+k {
			// A tool-call group: the call, then every result right after it.
			seq := len(t.Messages) + 1
			calls := make([]engine.ToolCall, k)
			for j := range calls {
				calls[j] = engine.ToolCall{ID: fmt.Sprintf("call_%d_%d", seq, j), Name: toolNames[g.rng.IntN(len(toolNames))], Arguments: g.args()}
			}
			add(engine.Message{Role: engine.RoleAssistant, Content: g.text(g.length(8, 0.4, 3, 20)), ToolCalls: calls})
			for _, call := range calls {
				add(engine.Message{Role: engine.RoleTool, Name: call.Name, ToolCallID: call.ID, Content: g.toolResult(g.length(40, 0.8, 5, 300))})
			}
			if len(t.Messages) == spec.size {
				break
			}
		}
		add(engine.Message{Role: engine.RoleAssistant, Content: g.text(g.length(45, 0.7, 5, 400))})
	}
	return t
}

// gen generates the text of one thread.
type gen struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	top   *topics
	theme []string // the thread's own frequent content words
}

// length draws a log-normal word count with the given median and sigma,
// clipped to [lo, hi].
func (g *gen) length(median, sigma float64, lo, hi int) int {
	n := int(math.Round(median * math.Exp(sigma*g.rng.NormFloat64())))
	return min(max(n, lo), hi)
}

// word draws one word: mostly common English (Zipf), some thread-theme
// words, resource entities and rare identifiers.
func (g *gen) word() string {
	switch p := g.rng.Float64(); {
	case p < 0.02:
		return g.top.people[g.rng.IntN(len(g.top.people))]
	case p < 0.035:
		return g.top.projects[g.rng.IntN(len(g.top.projects))]
	case p < 0.045:
		return g.top.places[g.rng.IntN(len(g.top.places))]
	case p < 0.055:
		return fmt.Sprintf("%s-%05d", [...]string{"INV", "ORD", "TCK"}[g.rng.IntN(3)], g.rng.IntN(100000))
	case p < 0.17:
		return g.theme[g.rng.IntN(len(g.theme))]
	default:
		return commonWords[g.zipf.Uint64()]
	}
}

// text returns n words as sentences of 5–14 words.
func (g *gen) text(n int) string {
	b := make([]byte, 0, n*7)
	for left := n; left > 0; {
		s := min(left, 5+g.rng.IntN(10))
		for k := range s {
			w := g.word()
			if k == 0 {
				if len(b) > 0 {
					b = append(b, ' ')
				}
				if w[0] >= 'a' && w[0] <= 'z' {
					b = append(b, w[0]-'a'+'A')
					w = w[1:]
				}
			} else {
				b = append(b, ' ')
			}
			b = append(b, w...)
		}
		if g.rng.IntN(5) == 0 {
			b = append(b, '?')
		} else {
			b = append(b, '.')
		}
		left -= s
	}
	return string(b)
}

// args returns a tool call's JSON arguments.
func (g *gen) args() []byte {
	return fmt.Appendf(nil, `{"query":%q,"limit":%d}`, g.text(2+g.rng.IntN(4)), 5+g.rng.IntN(20))
}

// toolResult returns a JSON-looking tool result of about n words.
func (g *gen) toolResult(n int) string {
	return fmt.Sprintf(`{"status":"ok","count":%d,"items":[%q,%q]}`, g.rng.IntN(50), g.text(max(n/2, 1)), g.text(max(n-n/2, 1)))
}
