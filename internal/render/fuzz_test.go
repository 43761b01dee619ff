package render_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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
	})
}
