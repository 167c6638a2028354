package ir

import (
	"fmt"
	"strings"
	"unicode"
)

// Names that look alike. Tensor names are compared byte for byte, so
// "a" and "A" are two tensors, and so are "é" (U+00E9) and "e" followed
// by a combining acute (U+0301), which print the same. A report or a table
// that shows such names shows rows that look like one tensor twice; the
// note says which names they are. Without Unicode's decomposition tables
// the check is what can be told cheaply: names equal but for case, and
// names holding a combining mark or an invisible character (a name that
// may print as another one).

// lookAlikeNote describes the graph's look-alike names, or is "" for none.
func lookAlikeNote(g *Graph) string {
	const shown = 3
	var cases, marks []string
	casesN, marksN := 0, 0
	byFold := map[string]string{}
	for i := range g.Nodes {
		for _, t := range g.Nodes[i].Outputs {
			folded := strings.ToLower(t.Name)
			if first, ok := byFold[folded]; ok && first != t.Name {
				if casesN++; len(cases) < shown {
					cases = append(cases, Quote(first)+" and "+Quote(t.Name))
				}
			} else if !ok {
				byFold[folded] = t.Name
			}
			if r, ok := hiddenRune(t.Name); ok {
				if marksN++; len(marks) < shown {
					marks = append(marks, fmt.Sprintf("%s (U+%04X)", Quote(t.Name), r))
				}
			}
		}
	}
	var parts []string
	if casesN > 0 {
		parts = append(parts, "tensors that differ only in case: "+list(cases, casesN))
	}
	if marksN > 0 {
		parts = append(parts, "tensors whose names hold a combining mark or an invisible character, which may print as another name: "+list(marks, marksN))
	}
	if len(parts) == 0 {
		return ""
	}
	return "names that look alike are distinct tensors: " + strings.Join(parts, "; ")
}

// hiddenRune is a name's first combining mark or invisible (format)
// character.
func hiddenRune(name string) (rune, bool) {
	for _, r := range name {
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r) {
			return r, true
		}
	}
	return 0, false
}

func list(items []string, total int) string {
	s := strings.Join(items, ", ")
	if total > len(items) {
		s += fmt.Sprintf(" and %d more", total-len(items))
	}
	return s
}
