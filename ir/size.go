package ir

import (
	"errors"
	"fmt"
	"math/bits"
)

// ByteLimit bounds every byte count memplan computes: a tensor's size, a
// guard, an offset, an arena, and any sum of them, such as the bytes of
// all buffers together or an offset plus a size plus a guard. Staying
// below 2^62 (4 EiB, far beyond any device) leaves headroom in int64, so
// code that adds two checked values can never wrap around.
const ByteLimit int64 = 1 << 62

// ErrOverflow reports a byte count that reaches ByteLimit. Callers wrap it
// with the tensor and file it concerns; errors.Is finds it.
var ErrOverflow = errors.New("exceeds memplan's limit of 2^62 bytes (4 EiB)")

// CheckSize reports whether v is a byte count in [0, ByteLimit).
func CheckSize(v int64) error {
	switch {
	case v < 0:
		return fmt.Errorf("negative byte count %d", v)
	case v >= ByteLimit:
		return fmt.Errorf("%d bytes %w", v, ErrOverflow)
	}
	return nil
}

// MulSize multiplies two non-negative counts, failing when the product
// reaches ByteLimit.
func MulSize(a, b int64) (int64, error) {
	if a < 0 || b < 0 {
		return 0, fmt.Errorf("negative factor in %d × %d", a, b)
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo >= uint64(ByteLimit) {
		return 0, ErrOverflow
	}
	return int64(lo), nil
}

// AddSize adds non-negative counts, failing when the sum reaches ByteLimit.
func AddSize(vs ...int64) (int64, error) {
	var sum int64
	for _, v := range vs {
		if v < 0 {
			return 0, fmt.Errorf("negative byte count %d", v)
		}
		// Both operands are below 2^62 here, so the sum cannot wrap.
		if v >= ByteLimit || sum+v >= ByteLimit {
			return 0, ErrOverflow
		}
		sum += v
	}
	return sum, nil
}

// AlignUp rounds v up to a multiple of align, a power of two, failing
// when the result reaches ByteLimit.
func AlignUp(v, align int64) (int64, error) {
	if err := CheckSize(v); err != nil {
		return 0, err
	}
	if align <= 1 {
		return v, nil
	}
	if align >= ByteLimit || align&(align-1) != 0 {
		return 0, fmt.Errorf("alignment %d is not a power of two below 2^62", align)
	}
	r := (v + align - 1) &^ (align - 1) // v, align < 2^62: no wrap
	if r >= ByteLimit {
		return 0, ErrOverflow
	}
	return r, nil
}

// NumElements multiplies dims, checking for negative dims and for counts
// that reach ByteLimit.
func NumElements(dims []int64) (int64, error) {
	n := int64(1)
	for _, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d", d)
		}
		if d == 0 {
			n = 0 // a zero dim makes the tensor empty, however large the others
		}
	}
	if n == 0 {
		return 0, nil
	}
	for _, d := range dims {
		var err error
		if n, err = MulSize(n, d); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// TensorBytes is the size in bytes of a dense tensor of dims and dtype
// dt, checked against ByteLimit: prod(dims) elements of dt.Bits() bits,
// rounded up to a whole byte, so 4-bit types take two elements a byte as
// ONNX stores them. Every tensor size memplan computes comes from here.
func TensorBytes(dims []int64, dt DType) (int64, error) {
	bits := dt.Bits()
	if bits <= 0 {
		return 0, fmt.Errorf("invalid dtype %s", dt)
	}
	n, err := NumElements(dims)
	if err != nil {
		return 0, err
	}
	return elemBytes(n, bits)
}

// elemBytes is the bytes of n elements of the given width: whole bytes
// each, or several to a byte with the last byte rounded up. Widths are a
// multiple of 8 or divide it; n < ByteLimit, so nothing here wraps.
func elemBytes(n, bits int64) (int64, error) {
	if bits%8 == 0 {
		return MulSize(n, bits/8)
	}
	per := 8 / bits
	return n/per + min(n%per, 1), nil
}

// NarrowOffset is the byte offset of row start of axis 0 of a tensor of
// dims and dtype dt: the bytes of the rows before it. A packed 4-bit
// tensor whose rows before start end inside a byte has no such offset,
// and the error says so: a view cannot start there.
func NarrowOffset(dims []int64, dt DType, start int64) (int64, error) {
	if len(dims) == 0 {
		return 0, errors.New("a scalar has no axis 0")
	}
	bits := dt.Bits()
	if bits <= 0 {
		return 0, fmt.Errorf("invalid dtype %s", dt)
	}
	n, err := NumElements(append([]int64{start}, dims[1:]...))
	if err != nil {
		return 0, err
	}
	if bits%8 != 0 && n%(8/bits) != 0 {
		return 0, fmt.Errorf("the %d elements before row %d end inside a byte of packed %s", n, start, dt)
	}
	return elemBytes(n, bits)
}
