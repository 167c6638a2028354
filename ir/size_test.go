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
		{"bytes 2^62 u8", func() (int64, error) { return TensorBytes([]int64{1 << 62}, U8) }, 0, true, false},
		{"bytes 2^61 f32", func() (int64, error) { return TensorBytes([]int64{1 << 61}, F32) }, 0, true, false},
		{"bytes fine", func() (int64, error) { return TensorBytes([]int64{8, 784}, F32) }, 25088, false, false},
		{"bytes just below limit i4", func() (int64, error) { return TensorBytes([]int64{1<<62 - 1}, I4) }, 1 << 61, false, false},
		{"bytes elements overflow i4", func() (int64, error) { return TensorBytes([]int64{1 << 62}, I4) }, 0, true, false},
		{"bytes invalid dtype", func() (int64, error) { return TensorBytes([]int64{2}, InvalidDType) }, 0, false, true},
		{"bytes unknown dtype", func() (int64, error) { return TensorBytes([]int64{2}, DType(200)) }, 0, false, true},
		{"bytes negative dim", func() (int64, error) { return TensorBytes([]int64{-2}, U4) }, 0, false, true},
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

// TestTensorBytes: bits per element, 4-bit types packed two to a byte
// with the last one rounded up, as ONNX stores them.
func TestTensorBytes(t *testing.T) {
	tests := []struct {
		dims []int64
		dt   DType
		want int64
	}{
		{[]int64{4, 4}, F32, 64},
		{[]int64{3}, F64, 24},
		{[]int64{3}, U64, 24},
		{[]int64{3}, U32, 12},
		{[]int64{3}, U16, 6},
		{[]int64{3}, BF16, 6},
		{[]int64{3}, Bool, 3},
		{[]int64{}, F32, 4}, // a scalar is one element
		{[]int64{}, I4, 1},
		{[]int64{0, 7}, I4, 0},
		{[]int64{1}, I4, 1},
		{[]int64{2}, U4, 1},
		{[]int64{3}, F4E2M1, 2},
		{[]int64{3, 3}, I4, 5},
		{[]int64{5}, F8E4M3FN, 5},
		{[]int64{5}, F8E4M3FNUZ, 5},
		{[]int64{5}, F8E5M2, 5},
		{[]int64{5}, F8E5M2FNUZ, 5},
		{[]int64{5}, F8E8M0, 5},
	}
	for _, tc := range tests {
		got, err := TensorBytes(tc.dims, tc.dt)
		if err != nil || got != tc.want {
			t.Errorf("TensorBytes(%v, %s) = %d, %v; want %d", tc.dims, tc.dt, got, err, tc.want)
		}
	}
}

func TestNarrowOffset(t *testing.T) {
	tests := []struct {
		dims  []int64
		dt    DType
		start int64
		want  int64
		fails string // part of the error, when it fails
	}{
		{[]int64{6, 3}, F32, 2, 24, ""},
		{[]int64{6, 3}, F32, 0, 0, ""},
		{[]int64{6}, U8, 5, 5, ""},
		{[]int64{6, 4}, I4, 3, 6, ""}, // 12 elements: 6 bytes
		{[]int64{6, 3}, U4, 2, 3, ""}, // 6 elements: 3 bytes
		{[]int64{6, 3}, U4, 1, 0, "inside a byte of packed u4"},
		{[]int64{9}, F4E2M1, 3, 0, "inside a byte"},
		{[]int64{}, F32, 0, 0, "scalar"},
		{[]int64{4}, InvalidDType, 0, 0, "invalid dtype"},
	}
	for _, tc := range tests {
		got, err := NarrowOffset(tc.dims, tc.dt, tc.start)
		switch {
		case tc.fails != "":
			if err == nil || !strings.Contains(err.Error(), tc.fails) {
				t.Errorf("NarrowOffset(%v, %s, %d) = %d, %v; want an error with %q", tc.dims, tc.dt, tc.start, got, err, tc.fails)
			}
		case err != nil || got != tc.want:
			t.Errorf("NarrowOffset(%v, %s, %d) = %d, %v; want %d", tc.dims, tc.dt, tc.start, got, err, tc.want)
		}
	}
}
