package planner

import (
	"math"
	"testing"
)

func TestGroupDigitsAndCountBytes(t *testing.T) {
	for _, c := range []struct {
		n              int64
		grouped, count string
	}{
		{0, "0", "0 bytes"},
		{1, "1", "1 byte"},
		{-1, "-1", "-1 byte"},
		{999, "999", "999 bytes"},
		{1000, "1,000", "1,000 bytes"},
		{78472, "78,472", "78,472 bytes"},
		{134217729, "134,217,729", "134,217,729 bytes"},
		{-1234567, "-1,234,567", "-1,234,567 bytes"},
		{math.MaxInt64, "9,223,372,036,854,775,807", "9,223,372,036,854,775,807 bytes"},
		{math.MinInt64, "-9,223,372,036,854,775,808", "-9,223,372,036,854,775,808 bytes"},
	} {
		if got := GroupDigits(c.n); got != c.grouped {
			t.Errorf("GroupDigits(%d) = %q, want %q", c.n, got, c.grouped)
		}
		if got := CountBytes(c.n); got != c.count {
			t.Errorf("CountBytes(%d) = %q, want %q", c.n, got, c.count)
		}
	}
}

func TestExactBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1 KiB (1,024 B)"},
		{78472, "76.63 KiB (78,472 B)"},
		{134217729, "134,217,729 B"}, // FormatBytes gives the bytes already
		{-2048, "-2 KiB (-2,048 B)"},
	} {
		if got := ExactBytes(c.n); got != c.want {
			t.Errorf("ExactBytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
