package ir

import "testing"

func TestDisplayAndEscape(t *testing.T) {
	tests := []struct{ in, display, escape string }{
		{"l0.gelu", "l0.gelu", "l0.gelu"},
		{"a b/c:d", "a b/c:d", "a b/c:d"},
		{"héllo→", "héllo→", "héllo→"},
		{"x\n0 999999 forged", `"x\n0 999999 forged"`, `x\n0 999999 forged`},
		{"\x1b[31mred\x1b[0m", `"\x1b[31mred\x1b[0m"`, `\x1b[31mred\x1b[0m`},
		{"tab\there", `"tab\there"`, `tab\there`},
		{"bidi\u202eevil", `"bidi\u202eevil"`, `bidi\u202eevil`},
		{"bad\xffbyte", `"bad\xffbyte"`, `bad\xffbyte`},
		{`"quoted"`, `"\"quoted\""`, `"quoted"`},
		{`back\slash`, `"back\\slash"`, `back\slash`},
		{"", "", ""},
	}
	for _, tc := range tests {
		if got := Display(tc.in); got != tc.display {
			t.Errorf("Display(%q) = %s, want %s", tc.in, got, tc.display)
		}
		if got := Escape(tc.in); got != tc.escape {
			t.Errorf("Escape(%q) = %s, want %s", tc.in, got, tc.escape)
		}
	}
}
