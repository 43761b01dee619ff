package recall_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestTuningValidate: every float64 field of Tuning (found by reflection,
// so a weight added later is covered) is refused as NaN, +Inf and -Inf
// with ErrInvalidOptions naming its JSON name; finite values, negative
// ones ("none") included, are accepted.
func TestTuningValidate(t *testing.T) {
	if err := (recall.Tuning{}).Validate(); err != nil {
		t.Fatalf("zero Tuning: %v", err)
	}
	typ := reflect.TypeFor[recall.Tuning]()
	fields := 0
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type.Kind() != reflect.Float64 {
			continue
		}
		fields++
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0.5} {
			var tu recall.Tuning
			reflect.ValueOf(&tu).Elem().Field(i).SetFloat(v)
			err := tu.Validate()
			finite := !math.IsNaN(v) && !math.IsInf(v, 0)
			switch {
			case finite && err != nil:
				t.Errorf("%s = %v: %v", f.Name, v, err)
			case !finite && (!errors.Is(err, recall.ErrInvalidOptions) || !strings.Contains(err.Error(), name)):
				t.Errorf("%s = %v: err %v, want ErrInvalidOptions naming %q", f.Name, v, err, name)
			}
		}
	}
	if fields < 5 {
		t.Fatalf("found %d float64 fields in Tuning, want at least 5", fields)
	}
}
