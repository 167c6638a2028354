package ir

import "fmt"

// DType is an element type. The zero value is invalid so that a missing
// dtype is caught rather than silently read as f32.
type DType uint8

// The numbering is internal, but new dtypes are appended so that a value
// kept anywhere keeps its meaning.
const (
	InvalidDType DType = iota
	F32
	F16
	BF16
	F64
	I64
	I32
	I16
	I8
	U8
	Bool
	U16
	U32
	U64
	// 4-bit types, packed two to a byte as ONNX stores them.
	I4
	U4
	F4E2M1
	// 8-bit floats (ONNX opsets 19 and 24).
	F8E4M3FN
	F8E4M3FNUZ
	F8E5M2
	F8E5M2FNUZ
	F8E8M0
)

var dtypeNames = [...]string{"invalid", "f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8", "u8", "bool",
	"u16", "u32", "u64", "i4", "u4", "f4e2m1", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz", "f8e8m0"}
var dtypeBits = [...]int64{0, 32, 16, 16, 64, 64, 32, 16, 8, 8, 8,
	16, 32, 64, 4, 4, 4, 8, 8, 8, 8, 8}

// DTypeNames lists the names accepted in files, in a fixed order.
func DTypeNames() []string { return append([]string(nil), dtypeNames[1:]...) }

// ParseDType returns the dtype with the given name.
func ParseDType(name string) (DType, bool) {
	for i, n := range dtypeNames {
		if i > 0 && n == name {
			return DType(i), true
		}
	}
	return InvalidDType, false
}

// Bits is the width of one element in bits, 0 for an invalid dtype. There
// is no per-element byte size on purpose: 4-bit types have none, and a
// tensor's bytes come from TensorBytes alone.
func (d DType) Bits() int64 {
	if int(d) < len(dtypeBits) {
		return dtypeBits[d]
	}
	return 0
}

// Valid reports whether d is a known dtype.
func (d DType) Valid() bool { return d.Bits() > 0 }

func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// MarshalText writes the dtype's name.
func (d DType) MarshalText() ([]byte, error) {
	if !d.Valid() {
		return nil, fmt.Errorf("invalid dtype %d", uint8(d))
	}
	return []byte(d.String()), nil
}

// UnmarshalText reads a dtype's name.
func (d *DType) UnmarshalText(b []byte) error {
	v, ok := ParseDType(string(b))
	if !ok {
		return fmt.Errorf("unknown dtype %q", b)
	}
	*d = v
	return nil
}
