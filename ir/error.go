package ir

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a decoding or validation error with its location. Fields that do
// not apply are zero. Callers can inspect it with errors.As.
type Error struct {
	File      string // file name, if known
	Line      int    // 1-based line (JSON syntax, CSV row), 0 if not applicable
	Column    int    // 1-based column, 0 if not applicable
	Offset    int64  // byte offset in a binary file, when HasOffset
	HasOffset bool
	Path      string // JSON path such as `nodes[3].shape[1]`, or an ONNX path
	Node      string // node name, if the error concerns one
	Msg       string
	// Need, when set, names what the user can supply to get past the
	// error (NeedSymbols, NeedIfBranch). The message does not say how:
	// each front end adds its own words (the CLI a flag, the page a field).
	Need string
	// Symbols, with NeedSymbols, are the symbols that need values, sorted.
	Symbols []string
}

// Values of Error.Need.
const (
	NeedSymbols  = "symbols"   // values for the unbound symbols the message names
	NeedIfBranch = "if-branch" // which branch of an If to size its outputs by
)

func (e *Error) Error() string {
	var parts []string
	loc := e.File
	if e.Line > 0 {
		loc += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			loc += fmt.Sprintf(":%d", e.Column)
		}
	}
	if loc != "" {
		parts = append(parts, loc)
	}
	if e.HasOffset {
		parts = append(parts, fmt.Sprintf("byte %d", e.Offset))
	}
	if e.Path != "" {
		parts = append(parts, e.Path)
	}
	if e.Node != "" {
		parts = append(parts, "node "+Quote(e.Node))
	}
	parts = append(parts, e.Msg)
	return strings.Join(parts, ": ")
}

// quoteLimit is how many bytes of a name an error message shows: enough
// to recognise it, never a megabyte of text.
const quoteLimit = 80

// Quote quotes a name for an error message like %q does, cut to its
// first 80 bytes (at a rune boundary) with the full length noted, so a
// hostile name cannot make a huge message: "abc"… (1048576 bytes).
func Quote(name string) string {
	head, cut := cutName(name)
	if !cut {
		return strconv.Quote(name)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(head), len(name))
}

// Display is a name as a report, a table or a picture shows it: as it is
// when every rune is printable (spaces included), it has no backslash and
// does not start with a double quote; else quoted in Go's syntax. Names
// are data: one with a line break could otherwise forge a report's row,
// and one with an escape sequence recolour a terminal. The two forms
// cannot be confused, since a name shown as it is never starts with a
// quote. Unlike Quote it keeps the whole name.
func Display(name string) string {
	if strings.HasPrefix(name, `"`) || strings.ContainsRune(name, '\\') || !utf8.ValidString(name) {
		return strconv.Quote(name)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return strconv.Quote(name)
		}
	}
	return name
}

// Escape writes each rune of s that does not print (a line break, an
// escape sequence's ESC, a bidi control, a byte that is not UTF-8) as Go
// escapes it in a string, and the rest as it is: free text such as a note
// or a message, which may quote names, stays on its line and cannot
// reach the terminal's controls.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !unicode.IsPrint(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unicode.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Clip shortens a name as Quote does, without quoting it.
func Clip(name string) string {
	head, cut := cutName(name)
	if !cut {
		return name
	}
	return fmt.Sprintf("%s… (%d bytes)", head, len(name))
}

func cutName(s string) (string, bool) {
	if len(s) <= quoteLimit {
		return s, false
	}
	cut := quoteLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}
