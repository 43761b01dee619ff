package jsonkey

import (
	"encoding/json"
	"strconv"
	"strings"
)

// LongArray finds the first array of data, one JSON value, that holds
// more elements than bounds gives its shape, and returns its path
// ("messages[3].toolCalls") and its number of elements; "", 0 when none
// does, and for data that is not valid JSON (its decoder reports that).
// A shape is a path with every array index written "[]": bounds
// {"messages": 1000, "messages[].toolCalls": 128} bounds a request's
// messages and each message's tool calls. Keys are compared after
// unescaping, as encoding/json compares them ("\u006dessages" is
// "messages"), and exactly (not case-folded: a member named in another
// case is refused by its reader anyway).
//
// It is one scan of the bytes, with no value decoded: a server checks a
// body's counts with it before decoding, so that 1,000,000 empty objects
// where at most 1000 messages are taken cost a count, not a million
// decoded structs (29 s of CPU and 0.5 GB for a 3 MB body). Only the
// objects and arrays on a bounded shape's way are tracked; the rest are
// skipped without building their paths.
func LongArray(data []byte, bounds map[string]int) (path string, n int) {
	if len(bounds) == 0 || !json.Valid(data) {
		return "", 0
	}
	s := arrayScan{bounds: bounds, onWay: shapePrefixes(bounds)}
	return s.run(data)
}

// shapePrefixes lists the shapes on the way to a bounded one: "",
// "messages", "messages[]" and "messages[].toolCalls" for
// "messages[].toolCalls".
func shapePrefixes(bounds map[string]int) map[string]bool {
	on := map[string]bool{"": true}
	for shape := range bounds {
		for i := range len(shape) {
			if shape[i] == '.' || shape[i] == '[' {
				on[shape[:i]] = true
			}
		}
		on[shape] = true
	}
	return on
}

// container is an object or array LongArray is in.
type container struct {
	isObj   bool
	wantKey bool   // an object's next string is a key
	want    bool   // an array's next value is a new element
	key     string // the key whose value comes next (tracked objects only)
	n       int    // an array's elements so far
	tracked bool   // on the way to a bounded shape
	shape   string // when tracked
	bound   int    // the shape's bound; -1 for none
	path    string // set once n passed bound
	// elem is the shape of an array's elements once one was opened, and
	// elemOn whether it is on the way (computed once per array).
	elem   string
	elemOn bool
}

type arrayScan struct {
	bounds map[string]int
	onWay  map[string]bool
	stack  []container
}

func (s *arrayScan) run(data []byte) (string, int) {
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case ' ', '\t', '\r', '\n', ':':
			continue
		case ',':
			if top := s.top(); top != nil {
				top.wantKey, top.want = top.isObj, !top.isObj
			}
			continue
		case '}', ']':
			closed := s.stack[len(s.stack)-1]
			s.stack = s.stack[:len(s.stack)-1]
			if closed.path != "" {
				return closed.path, closed.n
			}
			continue
		}
		if top := s.top(); top != nil && top.isObj && top.wantKey && c == '"' {
			end, decode := stringEnd(data, i)
			top.wantKey = false
			if top.tracked {
				top.key = string(keyBytes(data[i:end+1], decode))
			}
			i = end
			continue
		}
		s.element()
		switch c {
		case '{', '[':
			s.open(c == '{')
		case '"':
			i, _ = stringEnd(data, i)
		}
	}
	return "", 0
}

func (s *arrayScan) top() *container {
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

// element counts a value that begins in the array on top, if it is one
// and the value is a new element (a number's later digits are not).
func (s *arrayScan) element() {
	top := s.top()
	if top == nil || top.isObj || !top.want {
		return
	}
	top.want = false
	top.n++
	if top.bound >= 0 && top.n > top.bound && top.path == "" {
		top.path = s.pathOf()
	}
}

// open pushes an object or array, tracked when its parent is and its
// shape is on the way to a bounded one.
func (s *arrayScan) open(isObj bool) {
	c := container{isObj: isObj, wantKey: isObj, want: !isObj, bound: -1}
	switch parent := s.top(); {
	case parent == nil:
		c.tracked = true
	case !parent.tracked:
	case parent.isObj:
		c.shape = Join(parent.shape, parent.key)
		c.tracked = s.onWay[c.shape]
	case parent.path != "":
		// Past its bound: only its elements are counted now, so a
		// million of them cost no shape each.
	default:
		if parent.elem == "" {
			parent.elem = parent.shape + "[]"
			parent.elemOn = s.onWay[parent.elem]
		}
		c.shape, c.tracked = parent.elem, parent.elemOn
	}
	if b, ok := s.bounds[c.shape]; ok && c.tracked && !isObj {
		c.bound = b
	}
	s.stack = append(s.stack, c)
}

// pathOf is the path of the array on top: its keys and its parents'
// element indices.
func (s *arrayScan) pathOf() string {
	var b strings.Builder
	for i := 1; i < len(s.stack); i++ {
		switch parent := s.stack[i-1]; {
		case parent.isObj && b.Len() > 0:
			b.WriteString("." + parent.key)
		case parent.isObj:
			b.WriteString(parent.key)
		default:
			b.WriteString("[" + strconv.Itoa(parent.n-1) + "]")
		}
	}
	return b.String()
}
