package ir

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// Sizes near a WebGPU limit never read as the limit: exact sizes are
// short, others keep two decimals, and one that two decimals would round
// onto an exact-looking size gets a third or fourth decimal, or its bytes.
func TestFormatBytes(t *testing.T) {
	const (
		KiB = 1 << 10
		MiB = 1 << 20
		GiB = 1 << 30
	)
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1, "1 B"},
		{64, "64 B"},
		{1023, "1023 B"},
		{KiB, "1 KiB"},
		{1536, "1.5 KiB"},
		{1280, "1.25 KiB"},
		{1152, "1.13 KiB"}, // 1.125: not exact in two decimals, and 1.13 KiB is no whole byte count
		{1100, "1.07 KiB"},
		{1025, "1.001 KiB"},     // 1.00 KiB would state 1024
		{1536 + 1, "1.501 KiB"}, // 1.50 KiB would state 1536
		{592261, "578.38 KiB"},
		{64*MiB + 3, "67,108,867 B"},

		// WebGPU's limits: at, just under, just over.
		{128*MiB - 1, "134,217,727 B"},
		{128 * MiB, "128 MiB"},
		{128*MiB + 1, "134,217,729 B"},
		{128*MiB + 5242, "128.005 MiB"}, // 128.00 would state the limit; three decimals do not
		{128*MiB + 11*KiB, "128.01 MiB"},
		{256*MiB - 1, "268,435,455 B"},
		{256 * MiB, "256 MiB"},
		{256*MiB + 1, "268,435,457 B"},
		{GiB - 1, "1,073,741,823 B"}, // 1024.00 MiB would state 1 GiB
		{GiB, "1 GiB"},
		{GiB + 1, "1,073,741,825 B"},
		{GiB + GiB/2, "1.5 GiB"},

		{1640832, "1.56 MiB"},
		{12587008, "12.004 MiB"},
		{58731069, "56.01 MiB"},

		// Deltas.
		{-1, "-1 B"},
		{-1536, "-1.5 KiB"},
		{-(128*MiB + 1), "-134,217,729 B"},
		{-6 * MiB, "-6 MiB"},
		{-592261, "-578.38 KiB"},

		// The ends of int64.
		{1 << 62, "4 EiB"},
		{math.MaxInt64, "9,223,372,036,854,775,807 B"}, // 8.0000 EiB would state 2^63
		{math.MinInt64, "-8 EiB"},
	}
	for _, tt := range tests {
		if got := FormatBytes(tt.n); got != tt.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// No size is written as another that its text states exactly: read as a
// fraction of its unit, the text is n, or no whole number of bytes. Near
// every power of two, where limits are, and at random.
func TestFormatBytesNeverStatesAnotherSize(t *testing.T) {
	units := map[string]uint64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50, "EiB": 1 << 60}
	check := func(n int64) {
		s := FormatBytes(n)
		num, unit, ok := strings.Cut(s, " ")
		mult, known := units[unit]
		if !ok || !known {
			t.Fatalf("FormatBytes(%d) = %q: not a number and a unit", n, s)
		}
		num = strings.ReplaceAll(strings.TrimPrefix(num, "-"), ",", "")
		whole, frac, _ := strings.Cut(num, ".")
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
		q, ok := new(big.Int).SetString(whole+frac, 10)
		if !ok {
			t.Fatalf("FormatBytes(%d) = %q: not a number", n, s)
		}
		bytes := new(big.Int).Mul(q, new(big.Int).SetUint64(mult))
		rem := new(big.Int).Mod(bytes, scale)
		abs := new(big.Int).Abs(big.NewInt(n))
		if rem.Sign() == 0 && new(big.Int).Div(bytes, scale).Cmp(abs) != 0 {
			t.Errorf("FormatBytes(%d) = %q, which states %v bytes", n, s, new(big.Int).Div(bytes, scale))
		}
	}
	for k := 10; k < 63; k++ {
		for d := int64(-1100); d <= 1100; d++ {
			check(1<<k + d)
		}
		check(-(1<<k + 1))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		check(r.Int64N(1 << uint(10+r.IntN(52))))
	}
}
