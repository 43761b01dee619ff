package importer_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// TestImportArrayEnd: a LoCoMo or LongMemEval file is one JSON array and
// nothing after it but whitespace. Its records are read one by one, and
// the reading stopped where encoding/json's Decoder.More turned false:
// before a "}" or "]" and at the end of the file, so a stray bracket
// after the array, a second array and a file cut short after a record
// (no closing "]") were each imported without a word. Now the import
// says so, after storing the records before it (as a record that does
// not decode is reported after those before it), and the report counts
// them.
func TestImportArrayEnd(t *testing.T) {
	ctx := context.Background()
	for _, f := range []struct{ format, seed string }{
		{importer.FormatLoCoMo, "testdata/seed/locomo.json"},
		{importer.FormatLongMemEval, "testdata/seed/longmemeval.json"},
	} {
		b, err := os.ReadFile(f.seed)
		if err != nil {
			t.Fatal(err)
		}
		seed := strings.TrimSpace(string(b))
		n := len(seed)
		for _, c := range []struct{ name, body, want string }{
			{"OK", seed + "\n \t\r\n", ""},
			{"ErrBracket", seed + "]", "unexpected data after the JSON value at byte " + strconv.Itoa(n)},
			{"ErrBracketAfterNewline", seed + "\n]\n", "unexpected data after the JSON value at byte " + strconv.Itoa(n+1)},
			{"ErrBrace", seed + "}", "unexpected data after the JSON value at byte " + strconv.Itoa(n)},
			{"ErrSecondArray", seed + "\n" + seed, "unexpected data after the JSON value at byte " + strconv.Itoa(n+1)},
			{"ErrNoClose", seed[:n-1], `the JSON array has no closing "]" (is the file cut short?)`},
			{"ErrBraceForBracket", seed[:n-1] + "}", `invalid character '}' after array element`},
		} {
			t.Run(f.format+"/"+c.name, func(t *testing.T) {
				e := enginetest.MustOpen(t, engine.Config{})
				rep, err := importer.Import(ctx, e, writeFile(t, "in.json", c.body), importer.Options{Format: f.format})
				switch {
				case c.want == "" && err != nil:
					t.Fatalf("err %v, want none", err)
				case c.want != "" && (err == nil || !strings.HasSuffix(err.Error(), c.want)):
					t.Fatalf("err %v, want it to end %q", err, c.want)
				}
				if rep == nil || rep.Messages == 0 {
					t.Fatalf("report %+v: the records before the fault are stored and counted", rep)
				}
			})
		}
	}
}

// TestImportArrayByteOrderMark: a LoCoMo or LongMemEval file named with
// --format (no detection) that begins with a UTF-8 byte-order mark is
// refused naming the mark, nothing stored. encoding/json refused the mark
// as "invalid character 'ï'", reported as "must be a JSON array".
func TestImportArrayByteOrderMark(t *testing.T) {
	ctx := context.Background()
	for _, f := range []struct{ format, seed string }{
		{importer.FormatLoCoMo, "testdata/seed/locomo.json"},
		{importer.FormatLongMemEval, "testdata/seed/longmemeval.json"},
	} {
		b, err := os.ReadFile(f.seed)
		if err != nil {
			t.Fatal(err)
		}
		p := writeFile(t, "bom.json", "\uFEFF"+string(b))
		e := enginetest.MustOpen(t, engine.Config{})
		rep, err := importer.Import(ctx, e, p, importer.Options{Format: f.format, Name: "bom.json"})
		want := "importer: bom.json: the file begins with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow: save it as UTF-8 without one"
		var te *jsonkey.TextError
		if err == nil || err.Error() != want || !errors.As(err, &te) || !te.BOM {
			t.Errorf("%s: err %v\nwant %s", f.format, err, want)
		}
		if rep != nil && rep.Messages != 0 {
			t.Errorf("%s: %d messages stored", f.format, rep.Messages)
		}
	}
}
