package planner

import (
	"maps"
	"strings"
	"testing"
)

func TestParseSymbols(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]int64
		wantErr string
	}{
		{"", map[string]int64{}, ""},
		{"batch=8", map[string]int64{"batch": 8}, ""},
		{"batch=8, seq=256", map[string]int64{"batch": 8, "seq": 256}, ""},
		{" p2o.DynamicDimension.0=1\tseq=0 ", map[string]int64{"p2o.DynamicDimension.0": 1, "seq": 0}, ""},
		{"big=9007199254740993", map[string]int64{"big": 9007199254740993}, ""}, // 2^53+1: exact, unlike a JS number
		{"total=past+seq, past=4095, seq=1", map[string]int64{"total": 4096, "past": 4095, "seq": 1}, ""},
		{"batch", nil, `column 1: "batch" is not name=value`},
		{"=3", nil, `column 1: want a symbol name`},
		{"batch=-1", nil, `batch=-1 is -1: a symbol's value is a whole number of 0 or more`},
		{"batch=1.5", nil, `column 7: "1.5" is neither a number nor a name`},
		{"batch=99999999999999999999", nil, `column 7: 99999999999999999999 is past int64`},
		{"a=1,a=2", nil, `column 5: a is given twice`},
		{"total=past+1", nil, `total=past+1 uses past, which has no value`},
	}
	for _, tc := range tests {
		got, err := ParseSymbols(tc.in)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.wantErr)
			}
		case err != nil || !maps.Equal(got, tc.want):
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
