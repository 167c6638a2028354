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
		{"batch", nil, `"batch" is not name=value`},
		{"=3", nil, `"=3" is not name=value`},
		{"batch=-1", nil, `"batch" wants a whole number of 0 or more, got "-1"`},
		{"batch=1.5", nil, `wants a whole number`},
		{"batch=99999999999999999999", nil, `wants a whole number`},
		{"a=1,a=2", nil, `"a" is given twice`},
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
