package render_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/observe"
)

var tagRE = regexp.MustCompile(`<(/?)(observations|observation|reflection)((?: [a-z]+="[^"<>]*")*)>`)

// FuzzRender renders fuzzed stored text as an untrusted observation and a
// trusted reflection, and as message content: the observation block keeps
// exactly mnemo's tags in order with their trust, and no marker-shaped text
// is left. The engine's TestRenderHostileContent does the same through
// LoadContext.
//
//	go test ./internal/render -run '^$' -fuzz FuzzRender -fuzztime 1m
func FuzzRender(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, h string) {
		obs := []observe.Observation{
			{ID: "o1", ThreadID: "t", FromSeq: 1, ToSeq: 2, Level: observe.LevelObservation, Content: h, Untrusted: true,
				FromTime: time.Unix(0, 0), ToTime: time.Unix(3600, 0)},
			{ID: "r1", ThreadID: "t", FromSeq: 1, ToSeq: 4, Level: observe.LevelReflection, Content: h, Sources: []string{"a", "b"}},
		}
		out := observe.Render(obs, time.UTC)
		if rest := tagRE.ReplaceAllString(out, ""); strings.ContainsAny(rest, "<>＜＞﹤﹥") {
			t.Fatalf("a '<' or '>' outside mnemo's tags:\n%s", out)
		}
		var got []string
		for _, m := range tagRE.FindAllStringSubmatch(out, -1) {
			got = append(got, m[1]+m[2]+strconv.FormatBool(strings.Contains(m[3], `trust="untrusted"`)))
		}
		want := "[observationsfalse observationtrue /observationfalse reflectionfalse /reflectionfalse /observationsfalse]"
		if "["+strings.Join(got, " ")+"]" != want {
			t.Fatalf("tags %v, want %s:\n%s", got, want, out)
		}
		if markerIn(out) || markerIn(render.Message(h)) || markerIn(render.JSON(h)) {
			t.Fatalf("marker-shaped text left in the rendering of %q", h)
		}
		if q := render.Quote(h); render.Quote(q) != q { // its hidden characters left: markerIn would see them
			t.Fatalf("marker-shaped text left in Quote(%q) = %q", h, q)
		} else if render.Message(q) != render.Message(h) {
			t.Fatalf("Message(Quote(%q)) = %q, want Message's %q", h, render.Message(q), render.Message(h))
		}
		for _, r := range []string{out, render.Message(h), render.Text(h), render.JSON(h), render.Attr(h)} {
			if hiddenIn(r) {
				t.Fatalf("a bidirectional control or hidden character left in %q, rendered from %q", r, h)
			}
		}
	})
}

// FuzzHidden: no rendering of any text holds a bidirectional control
// (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), a tag character,
// an interlinear annotation character, a control character but tab, line
// feed and a carriage return before a line feed, or a line or paragraph
// separator (U+2028, U+2029), and Text and JSON stay lossless on such text.
//
//	go test ./internal/render -run '^$' -fuzz FuzzHidden -fuzztime 1m
func FuzzHidden(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Add("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
	f.Add("[\u2067recalled\U000e0072 \ufff9x\ufffb")
	f.Add("ignore\rhello\r\n\x1b[8m\b\x7f\u0085\u2028[recalled\u2029")
	f.Fuzz(func(t *testing.T, h string) {
		for name, r := range map[string]string{"Message": render.Message(h), "Text": render.Text(h), "JSON": render.JSON(h), "Attr": render.Attr(h)} {
			if hiddenIn(r) {
				t.Fatalf("%s(%q) = %q holds a bidirectional control or hidden character", name, h, r)
			}
		}
		if !utf8.ValidString(h) {
			return // invalid bytes are not storable text; U+FFFD stands for them
		}
		if back := unescapeRefs(render.Text(h)); strings.ReplaceAll(back, render.QuotedPrefix, "") != strings.ReplaceAll(h, render.QuotedPrefix, "") {
			t.Fatalf("Text(%q) unescapes to %q", h, back)
		}
		in, _ := json.Marshal(map[string]string{"v": h})
		var v map[string]string
		if err := json.Unmarshal([]byte(render.JSON(string(in))), &v); err != nil {
			t.Fatalf("JSON(%s) is not JSON: %v", in, err)
		}
		if strings.ReplaceAll(v["v"], render.QuotedPrefix, "") != strings.ReplaceAll(h, render.QuotedPrefix, "") {
			t.Fatalf("JSON changed %q to %q", h, v["v"])
		}
	})
}
