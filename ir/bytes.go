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
func FormatBytes(b int64) string {
	// One function writing into one buffer: it is called from everywhere,
	// and in wasm every call costs code.
	var buf [40]byte
	out, n := buf[:0], uint64(b)
	if b < 0 {
		out, n = append(out, '-'), -n // -MinInt64 too: 1<<63
	}
	const units = " KMGTPE"
	u, shift := 0, uint(0) // the unit is 1<<shift bytes
	for u+1 < len(units) && n>>shift >= 1024 {
		u, shift = u+1, shift+10
	}
	unit := uint64(1) << shift
	for d, scale := 2, uint64(100); u > 0 && d <= 4; d, scale = d+1, scale*10 {
		// q is n in units/scale, rounded half up: n·scale, 78 bits at
		// most, shifted down by the unit's 10·k (< 64) bits.
		hi, lo := bits.Mul64(n, scale)
		q, r := hi<<(64-shift)|lo>>shift, lo&(unit-1)
		if r >= unit-r {
			q++
		}
		// Exact, or not a whole number of bytes: then the text states no
		// size but n. (q·unit mod scale, from the factors' residues: the
		// product can overflow.)
		if r != 0 && (q%scale)*(unit%scale)%scale == 0 {
			continue // q units/scale are another size, that the text would state
		}
		frac := q % scale
		if r == 0 { // exact: as short as it goes
			for d > 0 && frac%10 == 0 {
				d, frac = d-1, frac/10
			}
		}
		out = strconv.AppendUint(out, q/scale, 10)
		if d > 0 {
			out = append(out, '.')
			for p := d - 1; p >= 0; p-- {
				digit := frac
				for range p {
					digit /= 10
				}
				out = append(out, byte('0'+digit%10))
			}
		}
		return string(append(out, ' ', units[u], 'i', 'B'))
	}
	// n in bytes, a comma every three digits from 1024 up: 134,217,729 B.
	var tmp [20]byte
	digits := strconv.AppendUint(tmp[:0], n, 10)
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 && u > 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	return string(append(out, " B"...))
}
