package ir

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestResolveSymbols: text in, values or the error out, every field of
// the error that applies checked.
func TestResolveSymbols(t *testing.T) {
	type want = map[string]int64
	tests := []struct {
		name  string
		text  string
		fixed map[string]int64
		want  want
		// The error: its message contains msg, and its fields are these.
		msg     string
		column  int
		symbol  string
		unknown string
		cycle   []string
		over    bool
		neg     bool
	}{
		{name: "empty", text: "", want: want{}},
		{name: "separators only", text: " , ,\t\n", want: want{}},
		{name: "plain values", text: "batch=8, seq=256", want: want{"batch": 8, "seq": 256}},
		{name: "spaces separate", text: "batch=8 seq=256", want: want{"batch": 8, "seq": 256}},
		{name: "the decoder's case", text: "total_sequence_length=past_sequence_length+sequence_length, past_sequence_length=4095, sequence_length=1",
			want: want{"total_sequence_length": 4096, "past_sequence_length": 4095, "sequence_length": 1}},
		{name: "spaces everywhere", text: "  total = past + seq\tpast =4095\n seq= 1 ", want: want{"total": 4096, "past": 4095, "seq": 1}},
		{name: "used before defined", text: "a=b*2, b=c+1, c=3", want: want{"a": 8, "b": 4, "c": 3}},
		{name: "times before plus", text: "a=2+3*4", want: want{"a": 14}},
		{name: "times before minus", text: "a=20-3*4-1", want: want{"a": 7}},
		{name: "minus is left to right", text: "a=10-4-3", want: want{"a": 3}},
		{name: "parentheses first", text: "a=(2+3)*4", want: want{"a": 20}},
		{name: "nested parentheses", text: "a=((1+2)*(3+(4-1)))", want: want{"a": 18}},
		{name: "leading minus", text: "a=-2*-3", want: want{"a": 6}},
		{name: "negative on the way is fine", text: "a=1-5+10", want: want{"a": 6}},
		{name: "names with digits, _ and .", text: "x.1=2, _y2=x.1*3", want: want{"x.1": 2, "_y2": 6}},
		{name: "unicode names", text: "länge=3, doppelt=länge*2", want: want{"länge": 3, "doppelt": 6}},
		{name: "largest value", text: "a=9223372036854775807", want: want{"a": math.MaxInt64}},
		{name: "fixed value over a definition", text: "past=4095, total=past+1", fixed: want{"past": 7}, want: want{"past": 7, "total": 8}},
		{name: "fixed value for an undefined name", text: "total=past+1", fixed: want{"past": 3}, want: want{"past": 3, "total": 4}},

		{name: "unknown name", text: "total=past+seq, seq=1", msg: "total=past+seq uses past, which has no value", symbol: "total", unknown: "past"},
		{name: "unknown name through another", text: "a=b, b=c*2", msg: "b=c*2 uses c, which has no value", symbol: "b", unknown: "c"},
		{name: "self", text: "a=a+1", msg: "a=a+1 uses itself", symbol: "a", cycle: []string{"a", "a"}},
		{name: "two-cycle", text: "a=b+1, b=a", msg: "symbols defined by each other: a=b+1, b=a", symbol: "a", cycle: []string{"a", "b", "a"}},
		{name: "three-cycle behind a symbol", text: "x=a, a=b, b=c, c=a*2", msg: "symbols defined by each other: a=b, b=c, c=a*2", symbol: "a", cycle: []string{"a", "b", "c", "a"}},
		{name: "fixed value breaks the cycle", text: "a=b+1, b=a", fixed: want{"b": 1}, want: want{"a": 2, "b": 1}},
		{name: "overflow in a sum", text: "a=9223372036854775807+1", msg: "a=9223372036854775807+1 overflows: 9223372036854775807 + 1 is past int64", symbol: "a", over: true},
		{name: "overflow in a product", text: "big=4294967296, a=big*big", msg: "a=big*big overflows: 4294967296 * 4294967296 is past int64", symbol: "a", over: true},
		{name: "overflow below", text: "a=-9223372036854775807-2", symbol: "a", over: true, msg: "is past int64"},
		{name: "overflow negating", text: "a=-(-9223372036854775807-1)", symbol: "a", over: true, msg: "is past int64"},
		{name: "literal past int64", text: "batch=99999999999999999999", column: 7, symbol: "batch", over: true, msg: "99999999999999999999 is past int64"},
		{name: "negative", text: "a=1, b=a-4", msg: "b=a-4 is -3: a symbol's value is a whole number of 0 or more", symbol: "b", neg: true},
		{name: "negative literal", text: "batch=-1", msg: "batch=-1 is -1", symbol: "batch", neg: true},
		{name: "given twice", text: "a=1, a=2", column: 6, symbol: "a", msg: "a is given twice"},

		{name: "no =", text: "batch", column: 1, msg: `"batch" is not name=value`},
		{name: "no = before a comma", text: "a=1, batch, b=2", column: 6, msg: `"batch" is not name=value`},
		{name: "something else than =", text: "a=1 batch 8", column: 11, msg: `want = after batch, got "8"`},
		{name: "no name", text: "=3", column: 1, msg: `want a symbol name (a letter or _, then letters, digits, _ and .), got "="`},
		{name: "name starts with a digit", text: "2x=3", column: 1, msg: `want a symbol name`},
		{name: "nothing after =", text: "a=", column: 3, symbol: "a", msg: "want a number, a symbol or (, got the end"},
		{name: "nothing after +", text: "total=past+", column: 12, symbol: "total", msg: "want a number, a symbol or (, got the end"},
		{name: "two operators", text: "a=1+*2", column: 5, symbol: "a", msg: `want a number, a symbol or (, got "*"`},
		{name: "unclosed parenthesis", text: "a=(1+2", column: 7, symbol: "a", msg: "want ) to close the ( at column 3, got the end"},
		{name: "stray parenthesis", text: "a=1+2)", column: 6, msg: `want + - * or a comma after a=1+2, got ")"`},
		{name: "number then name", text: "a=2b", column: 3, symbol: "a", msg: `"2b" is neither a number nor a name`},
		{name: "a fraction", text: "batch=1.5", column: 7, symbol: "batch", msg: `"1.5" is neither a number nor a name`},
		{name: "division is not an operator", text: "a=4/2", column: 4, msg: `want + - * or a comma after a=4, got "/"`},
		{name: "==", text: "a==1", column: 3, symbol: "a", msg: `got "="`},
		{name: "nested too deep", text: "a=" + strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), column: 67, symbol: "a", msg: "nested more than 64 deep"},
		{name: "minus signs too deep", text: "a=" + strings.Repeat("-", 100) + "1", column: 67, symbol: "a", msg: "nested more than 64 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs, err := ParseSymbolDefs(tt.text)
			var got map[string]int64
			if err == nil {
				got, err = defs.Resolve(tt.fixed)
			}
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("%q: %v", tt.text, err)
				}
				if !maps.Equal(got, tt.want) {
					t.Fatalf("%q = %v, want %v", tt.text, got, tt.want)
				}
				return
			}
			var se *SymbolError
			if !errors.As(err, &se) {
				t.Fatalf("%q: got %v (%T), want a *SymbolError", tt.text, err, err)
			}
			if !strings.Contains(se.Error(), tt.msg) {
				t.Errorf("%q: error %q, want it to contain %q", tt.text, se.Error(), tt.msg)
			}
			if se.Column != tt.column || se.Symbol != tt.symbol || se.Unknown != tt.unknown || !slices.Equal(se.Cycle, tt.cycle) ||
				se.Overflow != tt.over || se.Negative != tt.neg {
				t.Errorf("%q: error fields column %d symbol %q unknown %q cycle %v overflow %v negative %v; want %d %q %q %v %v %v",
					tt.text, se.Column, se.Symbol, se.Unknown, se.Cycle, se.Overflow, se.Negative,
					tt.column, tt.symbol, tt.unknown, tt.cycle, tt.over, tt.neg)
			}
			if tt.column > 0 && !strings.HasPrefix(se.Error(), fmt.Sprintf("column %d: ", tt.column)) {
				t.Errorf("%q: error %q does not start with its column", tt.text, se.Error())
			}
		})
	}
}

// TestParseExpr: one expression alone, as a decoder's dim would be.
func TestParseExpr(t *testing.T) {
	vals := map[string]int64{"batch": 3, "sequence": 5}
	lookup := func(name string) (int64, error) {
		if v, ok := vals[name]; ok {
			return v, nil
		}
		return 0, fmt.Errorf("no %s", name)
	}
	tests := []struct {
		text   string
		want   int64
		names  []string
		column int // of a reading error; 0: reads
		err    string
	}{
		{text: "batch*sequence", want: 15, names: []string{"batch", "sequence"}},
		{text: " 7 * batch + batch ", want: 24, names: []string{"batch"}},
		{text: "sequence-batch*2", want: -1, names: []string{"sequence", "batch"}}, // negative is the caller's to refuse
		{text: "-(batch)", want: -3, names: []string{"batch"}},
		{text: "42", want: 42},
		{text: "batch sequence", column: 7, err: `want + - or * after the expression, got "sequence"`},
		{text: "", column: 1, err: "got the end"},
		{text: "batch*unknown", names: []string{"batch", "unknown"}, err: "no unknown"},
	}
	for _, tt := range tests {
		e, err := ParseExpr(tt.text)
		if tt.column > 0 {
			var se *SymbolError
			if !errors.As(err, &se) || se.Column != tt.column || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseExpr(%q): %v, want an error at column %d with %q", tt.text, err, tt.column, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", tt.text, err)
		}
		if e.String() != strings.TrimSpace(tt.text) || !slices.Equal(e.Names(), tt.names) {
			t.Errorf("ParseExpr(%q): text %q names %v, want %q %v", tt.text, e.String(), e.Names(), strings.TrimSpace(tt.text), tt.names)
		}
		got, err := e.Eval(lookup)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Eval(%q): %v, %v; want the lookup's error %q", tt.text, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Eval(%q) = %d, %v; want %d", tt.text, got, err, tt.want)
		}
	}
}

// TestSymbolDefsMergeAndFollowers: --set given again, the text written
// back, and which symbols follow which.
func TestSymbolDefsMergeAndFollowers(t *testing.T) {
	read := func(text string) SymbolDefs {
		t.Helper()
		d, err := ParseSymbolDefs(text)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := read("total = past + seq, past=1").Merge(read("past=4095 seq=1, extra=total*2"))
	if got, want := d.String(), "total=past + seq, past=4095, seq=1, extra=total*2"; got != want {
		t.Errorf("merged text %q, want %q", got, want)
	}
	again := read(d.String())
	if again.String() != d.String() {
		t.Errorf("the text does not read back: %q, then %q", d.String(), again.String())
	}
	vals, err := again.Resolve(nil)
	if err != nil || vals["total"] != 4096 || vals["extra"] != 8192 {
		t.Errorf("resolved %v, %v; want total 4096, extra 8192", vals, err)
	}
	for _, tt := range []struct {
		name      string
		follows   bool
		followers []string
	}{
		{"past", false, []string{"total", "extra"}},
		{"seq", false, []string{"total", "extra"}},
		{"total", true, []string{"extra"}},
		{"extra", true, nil},
		{"absent", false, nil},
	} {
		if got := d.Follows(tt.name); got != tt.follows {
			t.Errorf("Follows(%s) = %v, want %v", tt.name, got, tt.follows)
		}
		if got := d.Followers(tt.name); !slices.Equal(got, tt.followers) {
			t.Errorf("Followers(%s) = %v, want %v", tt.name, got, tt.followers)
		}
	}
	// A cycle follows itself without looping for ever.
	if got := read("a=b, b=a").Followers("a"); !slices.Equal(got, []string{"b"}) {
		t.Errorf("Followers(a) of a cycle = %v, want [b]", got)
	}
}

// FuzzSymbolDefs: any text reads or fails with a column inside it, never
// panics; what reads writes back to text that reads the same, and
// resolves to the same values or the same error.
func FuzzSymbolDefs(f *testing.F) {
	for _, s := range []string{"batch=8, seq=256", "total=past+seq past=4095 seq=1", "a=(1+2)*-3", "a=b+1, b=a",
		"a=9223372036854775807*2", "a=((((1))))", "x.1=2,_y=x.1", "a=1)", "=", "a=-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, err := ParseSymbolDefs(text)
		if err != nil {
			var se *SymbolError
			if !errors.As(err, &se) || se.Column < 1 || se.Column > len(text)+1 {
				t.Fatalf("%q: %v: want a *SymbolError with a column in the text", text, err)
			}
			return
		}
		again, err := ParseSymbolDefs(d.String())
		if err != nil || again.String() != d.String() {
			t.Fatalf("%q wrote %q, which reads as %q, %v", text, d.String(), again.String(), err)
		}
		v1, err1 := d.Resolve(nil)
		v2, err2 := again.Resolve(nil)
		if fmt.Sprint(err1) != fmt.Sprint(err2) || !maps.Equal(v1, v2) {
			t.Fatalf("%q resolves to %v, %v; written back, to %v, %v", text, v1, err1, v2, err2)
		}
		for k, v := range v1 {
			if v < 0 {
				t.Fatalf("%q: %s=%d resolved below 0", text, k, v)
			}
		}
	})
}
