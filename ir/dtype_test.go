package ir

import "testing"

// TestDTypeNames: every name parses to a dtype that prints, marshals and
// unmarshals as itself, with a width; the numbering of the first ten is
// the one they always had.
func TestDTypeNames(t *testing.T) {
	for _, name := range DTypeNames() {
		dt, ok := ParseDType(name)
		if !ok || dt.String() != name || !dt.Valid() {
			t.Errorf("%s: parsed as %v, %v (valid %v)", name, dt, ok, dt.Valid())
			continue
		}
		b, err := dt.MarshalText()
		var back DType
		if err != nil || back.UnmarshalText(b) != nil || back != dt {
			t.Errorf("%s: text round trip gave %v (%v)", name, back, err)
		}
		if bits := dt.Bits(); bits != 4 && bits%8 != 0 {
			t.Errorf("%s: %d bits", name, bits)
		}
	}
	for _, tc := range []struct {
		dt   DType
		num  uint8
		bits int64
	}{
		{F32, 1, 32}, {BF16, 3, 16}, {Bool, 10, 8}, {U16, 11, 16}, {U64, 13, 64},
		{I4, 14, 4}, {F4E2M1, 16, 4}, {F8E4M3FN, 17, 8}, {F8E8M0, 21, 8},
	} {
		if uint8(tc.dt) != tc.num || tc.dt.Bits() != tc.bits {
			t.Errorf("%s is %d with %d bits, want %d with %d", tc.dt, uint8(tc.dt), tc.dt.Bits(), tc.num, tc.bits)
		}
	}
	for _, bad := range []DType{InvalidDType, DType(len(dtypeNames)), 255} {
		if bad.Valid() || bad.Bits() != 0 {
			t.Errorf("%v is valid", bad)
		}
		if _, err := bad.MarshalText(); err == nil {
			t.Errorf("%v marshals", bad)
		}
	}
	if _, ok := ParseDType("int4"); ok {
		t.Error("ONNX's name int4 parses; the graph format's is i4")
	}
}
