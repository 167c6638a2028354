package ir

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCheckedByteArithmetic(t *testing.T) {
	const lim = ByteLimit
	tests := []struct {
		name     string
		got      func() (int64, error)
		want     int64
		overflow bool // the error wraps ErrOverflow
		fails    bool // any other error
	}{
		{"mul small", func() (int64, error) { return MulSize(3, 7) }, 21, false, false},
		{"mul just below", func() (int64, error) { return MulSize(lim/4-1, 4) }, lim - 4, false, false},
		{"mul at limit", func() (int64, error) { return MulSize(lim/4, 4) }, 0, true, false},
		{"mul wraps uint64", func() (int64, error) { return MulSize(math.MaxInt64, math.MaxInt64) }, 0, true, false},
		{"mul negative", func() (int64, error) { return MulSize(-1, 4) }, 0, false, true},
		{"add two halves", func() (int64, error) { return AddSize(lim/2, lim/2-1) }, lim - 1, false, false},
		{"add reaches limit", func() (int64, error) { return AddSize(lim/2, lim/2) }, 0, true, false},
		{"add near int64 max", func() (int64, error) { return AddSize(math.MaxInt64, 1) }, 0, true, false},
		{"add many", func() (int64, error) { return AddSize(1, 2, 3, 4) }, 10, false, false},
		{"add negative", func() (int64, error) { return AddSize(5, -1) }, 0, false, true},
		{"align up", func() (int64, error) { return AlignUp(65, 64) }, 128, false, false},
		{"align exact", func() (int64, error) { return AlignUp(128, 64) }, 128, false, false},
		{"align to 1", func() (int64, error) { return AlignUp(7, 1) }, 7, false, false},
		{"align past limit", func() (int64, error) { return AlignUp(lim-1, 64) }, 0, true, false},
		{"align not a power of two", func() (int64, error) { return AlignUp(5, 48) }, 0, false, true},
		{"align huge", func() (int64, error) { return AlignUp(5, lim) }, 0, false, true},
		{"elements with a zero dim", func() (int64, error) { return NumElements([]int64{1 << 40, 1 << 40, 0}) }, 0, false, false},
		{"elements negative dim", func() (int64, error) { return NumElements([]int64{2, -3}) }, 0, false, true},
		{"bytes 2^62 u8", func() (int64, error) { return Bytes([]int64{1 << 62}, 1) }, 0, true, false},
		{"bytes 2^61 f32", func() (int64, error) { return Bytes([]int64{1 << 61}, 4) }, 0, true, false},
		{"bytes fine", func() (int64, error) { return Bytes([]int64{8, 784}, 4) }, 25088, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			switch {
			case tc.overflow:
				if !errors.Is(err, ErrOverflow) {
					t.Fatalf("got %d, %v; want ErrOverflow", got, err)
				}
			case tc.fails:
				if err == nil || errors.Is(err, ErrOverflow) {
					t.Fatalf("got %d, %v; want a non-overflow error", got, err)
				}
			case err != nil || got != tc.want:
				t.Fatalf("got %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

// TestHugeNamesMakeShortErrors: a megabyte name is cut in messages.
func TestHugeNamesMakeShortErrors(t *testing.T) {
	name := strings.Repeat("n", 1<<20)
	node := `{"name":"` + name + `","op":"input","shape":[1],"dtype":"f32"}`
	tests := []struct{ name, in string }{
		{"duplicate", `{"format":"memplan.graph/v1","nodes":[` + node + `,` + node + `]}`},
		{"unknown input", `{"format":"memplan.graph/v1","nodes":[{"name":"y","op":"relu","inputs":["` + name + `"],"shape":[1],"dtype":"f32"}]}`},
		{"unknown symbol", `{"format":"memplan.graph/v1","nodes":[{"name":"y","op":"input","shape":["` + name + `"],"dtype":"f32"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeGraph("big.json", []byte(tc.in))
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); len(msg) > 1000 || !strings.Contains(msg, "(1048576 bytes)") {
				t.Fatalf("message of %d bytes, want a short one naming the length: %.300s", len(msg), msg)
			}
		})
	}
}
