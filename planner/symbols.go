package planner

import "memplan/ir"

// ParseSymbols reads symbol values written as the command line's --set
// and the page's symbols field take them, "batch=8, seq=256" or
// "total=past+seq, past=4095, seq=1", and resolves them into whole
// numbers of 0 or more (ir.ParseSymbolDefs, ir.SymbolDefs.Resolve), read
// exactly (a page's JavaScript numbers would round past 2^53). An error
// is an *ir.SymbolError; the caller names the flag or field it came from.
func ParseSymbols(text string) (map[string]int64, error) {
	defs, err := ir.ParseSymbolDefs(text)
	if err != nil {
		return nil, err
	}
	return defs.Resolve(nil)
}
