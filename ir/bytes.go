package ir

import (
	"math/bits"
	"strconv"
)

// FormatBytes writes a byte count for people, in the largest binary unit
// that keeps it at least 1. A size the unit holds exactly is written
// short ("128 MiB", "1.5 KiB", "64 B"), any other with two decimals
// ("1.56 MiB"). Decimals never round a size onto one they would seem to
// state exactly: 134,217,729 bytes would read "128.00 MiB", WebGPU's
// binding limit, which it exceeds. Such a size gets a third or a fourth
// decimal when that tells it apart ("12.004 MiB"), else it is written in
// bytes ("134,217,729 B"). Every report, message, label and page of
// memplan writes sizes with it.
func FormatBytes(n int64) string {
	if n < 0 {
		return "-" + formatBytes(uint64(-(n+1))+1) // -MinInt64, in uint64
	}
	return formatBytes(uint64(n))
}

func formatBytes(n uint64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatUint(n, 10) + " B"
	}
	u, unit := 0, uint64(1024)
	for u+1 < len(units) && n/unit >= 1024 {
		u, unit = u+1, unit*1024
	}
	name := " " + units[u:u+1] + "iB"
	for d, scale := 2, uint64(100); d <= 4; d, scale = d+1, scale*10 {
		// q is n in units/scale, rounded half up. n < 1024·unit, so
		// n·scale's high word is below unit, as Div64 wants.
		hi, lo := bits.Mul64(n, scale)
		q, r := bits.Div64(hi, lo, unit)
		if r >= unit-r {
			q++
		}
		if r == 0 {
			return decimals(q, scale, true) + name
		}
		// Are q units/scale a whole number of bytes, a size other than n
		// that the text would state? (q·unit mod scale, from the factors'
		// residues: the product can overflow.)
		if (q%scale)*(unit%scale)%scale != 0 {
			return decimals(q, scale, false) + name
		}
	}
	return groupDigits(n) + " B"
}

// decimals writes q/scale (scale a power of ten) with all its decimals,
// or with trailing zeros and a bare point trimmed.
func decimals(q, scale uint64, trim bool) string {
	s := strconv.FormatUint(q/scale, 10)
	frac := strconv.FormatUint(scale+q%scale, 10)[1:] // zero-padded
	if trim {
		for len(frac) > 0 && frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
	}
	if frac == "" {
		return s
	}
	return s + "." + frac
}

// groupDigits writes n with a comma every three digits: 134,217,729.
func groupDigits(n uint64) string {
	s := strconv.FormatUint(n, 10)
	b := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}
