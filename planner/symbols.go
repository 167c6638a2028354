package planner

import (
	"fmt"
	"strconv"
	"strings"

	"memplan/ir"
)

// ParseSymbols reads symbol values written as the command line's --set
// and the page's symbols field take them: "batch=8, seq=256", pairs
// separated by commas or spaces. Values are whole numbers of 0 or more,
// read exactly (a page's JavaScript numbers would round past 2^53).
func ParseSymbols(text string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		name, val, ok := strings.Cut(part, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("symbols: %s is not name=value (e.g. batch=8)", ir.Quote(part))
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("symbols: %s wants a whole number of 0 or more, got %s", ir.Quote(name), ir.Quote(val))
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("symbols: %s is given twice", ir.Quote(name))
		}
		out[name] = n
	}
	return out, nil
}
