package ir

import "fmt"

// DType is an element type. The zero value is invalid so that a missing
// dtype is caught rather than silently read as f32.
type DType uint8

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
)

var dtypeNames = [...]string{"invalid", "f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8", "u8", "bool"}
var dtypeBytes = [...]int64{0, 4, 2, 2, 8, 8, 4, 2, 1, 1, 1}

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

// Size is the number of bytes of one element.
func (d DType) Size() int64 {
	if int(d) < len(dtypeBytes) {
		return dtypeBytes[d]
	}
	return 0
}

func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// MarshalText writes the dtype's name.
func (d DType) MarshalText() ([]byte, error) {
	if d == InvalidDType || int(d) >= len(dtypeNames) {
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
