package planner

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"memplan/ir"
)

var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1}, {"", 1},
}

// ParseSize reads a byte count such as "134217728", "128MiB", "1.5GiB" or
// "512MB" (SI). Results are rounded down to whole bytes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	for _, u := range sizeUnits {
		if !strings.HasSuffix(t, u.suffix) {
			continue
		}
		num := strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
		if num == "" {
			break
		}
		if v, err := strconv.ParseInt(num, 10, 64); err == nil && u.mult == 1 {
			if v < 0 {
				break
			}
			if err := ir.CheckSize(v); err != nil {
				return 0, err
			}
			return v, nil
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || f < 0 || math.IsNaN(f) {
			break
		}
		if v := f * u.mult; v < float64(ir.ByteLimit) {
			return int64(v), nil
		}
		return 0, fmt.Errorf("size %q %w", s, ir.ErrOverflow)
	}
	return 0, fmt.Errorf("bad size %q (want bytes or a number with KiB, MiB, GiB, TiB, KB, MB, GB or TB)", s)
}

// FormatBytes writes a byte count for people (ir.FormatBytes): short
// when exact ("128 MiB"), two decimals when not, and in bytes where two
// decimals would round it onto an exact-looking size.
func FormatBytes(b int64) string { return ir.FormatBytes(b) }

// GroupDigits writes n with commas between thousands, as the pages show
// offsets and exact sizes: 134,217,729.
func GroupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	digits := strings.TrimPrefix(s, "-")
	var b strings.Builder
	if len(digits) < len(s) {
		b.WriteByte('-')
	}
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}

// CountBytes writes n as a count of bytes in words, every digit shown:
// "78,472 bytes", "1 byte". The lessons say sizes so, where the exact
// number is the point.
func CountBytes(n int64) string {
	if n == 1 || n == -1 {
		return GroupDigits(n) + " byte"
	}
	return GroupDigits(n) + " bytes"
}

// ExactBytes writes a size short, then to the byte where the short form
// is in a larger unit: "76.63 KiB (78,472 B)", "134,217,729 B". The
// pages' rows say sizes so.
func ExactBytes(n int64) string {
	s := FormatBytes(n)
	if !strings.HasSuffix(s, " B") {
		s += " (" + GroupDigits(n) + " B)"
	}
	return s
}
