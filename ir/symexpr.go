package ir

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Symbol values as people write them: "batch=8, seq=256", and symbols
// bound to expressions of others, "total=past+seq", in the command line's
// --set, the page's Symbols field, a link and <memplan-plan symbols>. An
// expression is whole numbers and symbol names joined by + - * (and a
// leading minus) with parentheses, evaluated in int64 with every step
// checked. SymbolDefs.Resolve evaluates every definition once into the
// whole numbers a decoder and the planner bind, so that nothing after it
// (a plan record included) sees an expression.

// SymbolError is symbols text that does not read, or definitions that do
// not resolve. Fields that do not apply are zero. Its message does not
// name where the text came from: each front end adds its flag, field or
// attribute.
type SymbolError struct {
	// Column is the 1-based byte column in the text where reading
	// stopped, for text that does not read; 0 for one that does.
	Column int
	// Symbol is the symbol whose definition is wrong, when there is one.
	Symbol string
	// Unknown is a name Symbol's expression uses that has no value.
	Unknown string
	// Cycle are symbols whose definitions use each other, in order, the
	// first again at the end ([a b a] for a=b+1, b=a).
	Cycle []string
	// Overflow: a step of Symbol's expression is past int64.
	// Negative: its value is below 0.
	Overflow, Negative bool
	Msg                string
}

func (e *SymbolError) Error() string {
	if e.Column > 0 {
		return "column " + strconv.Itoa(e.Column) + ": " + e.Msg
	}
	return e.Msg
}

// Expr is an integer expression of symbols, parsed.
type Expr struct {
	text string  // as written, without the spaces around it
	code []instr // in postfix order: Eval runs it on a stack, without recursion
}

// instr is one step of an expression: push a number or a symbol's value,
// or apply an operator to the values on top of the stack.
type instr struct {
	op   byte // 'n' number, 's' symbol, '+', '-', '*', '~' (negate)
	val  int64
	name string
}

// maxExprDepth bounds the nesting of parentheses and minus signs, so that
// hostile text cannot exhaust the stack; no real expression comes near.
const maxExprDepth = 64

// ParseExpr reads one expression: whole numbers, symbol names (a letter
// or _ then letters, digits, _ and .), + - *, a leading minus and
// parentheses, with * binding tighter than + and -, and spaces anywhere
// between. An error is a *SymbolError with the column where reading
// stopped.
func ParseExpr(text string) (*Expr, error) {
	p := exprParser{s: text}
	start := p.skip()
	if err := p.expr(); err != nil {
		return nil, err
	}
	if p.skip() < len(text) {
		return nil, p.errorAt(p.pos, "want + - or * after the expression, got "+p.describe())
	}
	return &Expr{text: trimBlanks(text[start:]), code: p.code}, nil
}

// String is the expression as written.
func (e *Expr) String() string { return e.text }

// Names are the symbols the expression uses, each once, in order.
func (e *Expr) Names() []string {
	var out []string
	for _, in := range e.code {
		if in.op == 's' && !containsString(out, in.name) {
			out = append(out, in.name)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Eval evaluates the expression, asking value for each symbol it uses;
// value's error is returned as it is. A step past int64 is a
// *SymbolError with Overflow, saying which. The value may be negative:
// whether it may is the caller's rule.
func (e *Expr) Eval(value func(name string) (int64, error)) (int64, error) {
	stack := make([]int64, 0, 8)
	for _, in := range e.code {
		switch in.op {
		case 'n':
			stack = append(stack, in.val)
			continue
		case 's':
			v, err := value(in.name)
			if err != nil {
				return 0, err
			}
			stack = append(stack, v)
			continue
		case '~':
			a := stack[len(stack)-1]
			if a == math.MinInt64 {
				return 0, &SymbolError{Overflow: true, Msg: "-(" + strconv.FormatInt(a, 10) + ") is past int64"}
			}
			stack[len(stack)-1] = -a
			continue
		}
		a, b := stack[len(stack)-2], stack[len(stack)-1]
		r, ok := apply(in.op, a, b)
		if !ok {
			return 0, &SymbolError{Overflow: true, Msg: strconv.FormatInt(a, 10) + " " + string(in.op) + " " + strconv.FormatInt(b, 10) + " is past int64"}
		}
		stack = append(stack[:len(stack)-2], r)
	}
	return stack[0], nil
}

// apply is a op b, and false when the result is past int64.
func apply(op byte, a, b int64) (int64, bool) {
	switch op {
	case '+':
		if b > 0 && a > math.MaxInt64-b || b < 0 && a < math.MinInt64-b {
			return 0, false
		}
		return a + b, true
	case '-':
		if b < 0 && a > math.MaxInt64+b || b > 0 && a < math.MinInt64+b {
			return 0, false
		}
		return a - b, true
	}
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if r/b != a || a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64 {
		return 0, false
	}
	return r, true
}

// exprParser reads expressions (and, for ParseSymbolDefs, definitions)
// from s: recursive descent, one level per precedence.
type exprParser struct {
	s     string
	pos   int
	depth int
	code  []instr
}

func (p *exprParser) errorAt(pos int, msg string) *SymbolError {
	return &SymbolError{Column: pos + 1, Msg: msg}
}

// skip moves past spaces and returns the position reached.
func (p *exprParser) skip() int {
	for p.pos < len(p.s) && isSpace(p.s[p.pos]) {
		p.pos++
	}
	return p.pos
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimBlanks cuts the spaces the reader skips (isSpace) from both ends;
// others, as any rune past ASCII, may be part of a name.
func trimBlanks(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// describe is what is at the position, for an error: a token, quoted, or
// "the end".
func (p *exprParser) describe() string {
	if p.pos >= len(p.s) {
		return "the end"
	}
	if n := p.wordEnd(p.pos); n > p.pos {
		return Quote(p.s[p.pos:n])
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.pos:])
	return Quote(string(r))
}

// wordEnd is where the run of name characters (letters, digits, _ and .)
// that starts at i ends.
func (p *exprParser) wordEnd(i int) int {
	for i < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[i:])
		if !isNameRune(r) {
			break
		}
		i += n
	}
	return i
}

// isNameRune: ASCII letters, digits, _ and ., and every rune past ASCII
// (names in other scripts), without Unicode's letter tables, which the
// wasm programs would otherwise carry for this alone.
func isNameRune(r rune) bool {
	return r == '_' || r == '.' || isNameStart(r) || '0' <= r && r <= '9'
}

// isNameStart: what a name starts with, a letter or _ (any rune past
// ASCII counts as a letter).
func isNameStart(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= utf8.RuneSelf && r != utf8.RuneError
}

// name reads a symbol name at the position, if one starts there.
func (p *exprParser) name() (string, bool) {
	r, _ := utf8.DecodeRuneInString(p.s[p.pos:])
	if p.pos >= len(p.s) || !isNameStart(r) {
		return "", false
	}
	end := p.wordEnd(p.pos)
	name := p.s[p.pos:end]
	p.pos = end
	return name, true
}

// expr: term { (+|-) term }.
func (p *exprParser) expr() error {
	if err := p.term(); err != nil {
		return err
	}
	for p.skip() < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
		op := p.s[p.pos]
		p.pos++
		if err := p.term(); err != nil {
			return err
		}
		p.code = append(p.code, instr{op: op})
	}
	return nil
}

// term: unary { * unary }.
func (p *exprParser) term() error {
	if err := p.unary(); err != nil {
		return err
	}
	for p.skip() < len(p.s) && p.s[p.pos] == '*' {
		p.pos++
		if err := p.unary(); err != nil {
			return err
		}
		p.code = append(p.code, instr{op: '*'})
	}
	return nil
}

// unary: - unary | ( expr ) | operand.
func (p *exprParser) unary() error {
	if p.skip() >= len(p.s) || p.s[p.pos] != '-' && p.s[p.pos] != '(' {
		return p.operand()
	}
	if p.depth >= maxExprDepth {
		return p.errorAt(p.pos, "nested more than "+strconv.Itoa(maxExprDepth)+" deep")
	}
	p.depth++
	open := p.pos
	p.pos++
	var err error
	if p.s[open] == '-' {
		if err = p.unary(); err == nil {
			p.code = append(p.code, instr{op: '~'})
		}
	} else if err = p.expr(); err == nil {
		if p.skip() >= len(p.s) || p.s[p.pos] != ')' {
			err = p.errorAt(p.pos, "want ) to close the ( at column "+strconv.Itoa(open+1)+", got "+p.describe())
		}
		p.pos++
	}
	p.depth--
	return err
}

// operand: number | name.
func (p *exprParser) operand() error {
	start := p.pos
	if p.pos < len(p.s) && '0' <= p.s[p.pos] && p.s[p.pos] <= '9' {
		end := p.wordEnd(p.pos)
		digits := p.s[p.pos:end]
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			for _, c := range []byte(digits) {
				if c < '0' || c > '9' {
					return p.errorAt(start, Quote(digits)+" is neither a number nor a name (a name starts with a letter or _)")
				}
			}
			return &SymbolError{Column: start + 1, Overflow: true, Msg: digits + " is past int64"}
		}
		p.pos = end
		p.code = append(p.code, instr{op: 'n', val: n})
		return nil
	}
	if name, ok := p.name(); ok {
		p.code = append(p.code, instr{op: 's', name: name})
		return nil
	}
	return p.errorAt(start, "want a number, a symbol or (, got "+p.describe())
}

// SymbolDef binds a symbol to an expression.
type SymbolDef struct {
	Name string
	Expr *Expr
}

// String is the definition as the symbols text writes it: name=expression.
func (d SymbolDef) String() string { return d.Name + "=" + d.Expr.String() }

// SymbolDefs are symbol definitions, in the order they were written.
type SymbolDefs []SymbolDef

// ParseSymbolDefs reads symbols text: definitions name=expression (spaces
// around = allowed), separated by commas or spaces, as in "batch=8,
// seq=256" or "total = past + seq  past=4095 seq=1". A symbol defined
// twice is an error. Reading checks only the text: whether every name
// has a value is Resolve's question.
func ParseSymbolDefs(text string) (SymbolDefs, error) {
	p := exprParser{s: text}
	var defs SymbolDefs
	seen := map[string]bool{}
	for {
		sep := p.pos
		for p.pos < len(p.s) && (isSpace(p.s[p.pos]) || p.s[p.pos] == ',') {
			p.pos++
		}
		if p.pos >= len(p.s) {
			return defs, nil
		}
		if len(defs) > 0 && p.pos == sep && !isSpace(p.s[sep-1]) {
			// An expression ended at something that is not an operator and
			// not a separator: "a=1)" or "a=2b".
			return nil, p.errorAt(p.pos, "want + - * or a comma after "+defs[len(defs)-1].String()+", got "+p.describe())
		}
		start := p.pos
		name, ok := p.name()
		p.skip()
		if !ok || p.pos >= len(p.s) || p.s[p.pos] != '=' {
			// The part as written, up to the next separator.
			end := start
			for end < len(p.s) && !isSpace(p.s[end]) && p.s[end] != ',' {
				end++
			}
			part := p.s[start:end]
			switch {
			case ok && p.pos < len(p.s) && p.pos > start+len(name):
				return nil, p.errorAt(p.pos, "want = after "+name+", got "+p.describe())
			case ok || !strings.Contains(part, "="):
				return nil, p.errorAt(start, Quote(part)+" is not name=value (e.g. batch=8, or total=past+seq)")
			}
			return nil, p.errorAt(start, "want a symbol name (a letter or _, then letters, digits, _ and .), got "+p.describe())
		}
		if seen[name] {
			return nil, &SymbolError{Column: start + 1, Symbol: name, Msg: name + " is given twice"}
		}
		seen[name] = true
		p.pos++ // =
		p.code = nil
		from := p.skip()
		if err := p.expr(); err != nil {
			if se, ok := err.(*SymbolError); ok {
				se.Symbol = name
			}
			return nil, err
		}
		defs = append(defs, SymbolDef{Name: name, Expr: &Expr{text: trimBlanks(p.s[from:p.pos]), code: p.code}})
	}
}

// String writes the definitions as ParseSymbolDefs reads them: "a=1,
// total=past+seq".
func (d SymbolDefs) String() string {
	parts := make([]string, len(d))
	for i, def := range d {
		parts[i] = def.String()
	}
	return strings.Join(parts, ", ")
}

// Lookup is the definition of name.
func (d SymbolDefs) Lookup(name string) (SymbolDef, bool) {
	for _, def := range d {
		if def.Name == name {
			return def, true
		}
	}
	return SymbolDef{}, false
}

// Merge is d with later's definitions over it: one of a symbol d defines
// takes its place, a new one goes at the end (the command line's --set
// given again).
func (d SymbolDefs) Merge(later SymbolDefs) SymbolDefs {
	out := append(SymbolDefs(nil), d...)
	for _, def := range later {
		i := 0
		for i < len(out) && out[i].Name != def.Name {
			i++
		}
		if i < len(out) {
			out[i] = def
		} else {
			out = append(out, def)
		}
	}
	return out
}

// Follows reports whether name is bound to an expression of other
// symbols, so that its value follows theirs.
func (d SymbolDefs) Follows(name string) bool {
	def, ok := d.Lookup(name)
	return ok && len(def.Expr.Names()) > 0
}

// Followers are the symbols whose values follow name's: those whose
// expressions use it, directly or through other symbols, in the order
// they are defined.
func (d SymbolDefs) Followers(name string) []string {
	users := map[string][]int{} // symbol → the definitions that use it
	for i, def := range d {
		for _, n := range def.Expr.Names() {
			users[n] = append(users[n], i)
		}
	}
	follows := make([]bool, len(d))
	queue := []string{name}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, i := range users[n] {
			if !follows[i] && d[i].Name != name {
				follows[i] = true
				queue = append(queue, d[i].Name)
			}
		}
	}
	var out []string
	for i, f := range follows {
		if f {
			out = append(out, d[i].Name)
		}
	}
	return out
}

// Resolve evaluates every definition into a value: fixed values first,
// over any definition of the same symbol (a search trying values of one
// symbol), then each definition, evaluating the symbols its expression
// uses first. The result holds fixed and every defined symbol. A name
// that is neither fixed nor defined, definitions that use each other, a
// step past int64 and a value below 0 are each a *SymbolError naming the
// symbol.
func (d SymbolDefs) Resolve(fixed map[string]int64) (map[string]int64, error) {
	out := make(map[string]int64, len(d)+len(fixed))
	for k, v := range fixed {
		out[k] = v
	}
	index := make(map[string]int, len(d))
	for i, def := range d {
		index[def.Name] = i
	}
	const (
		todo = iota
		onPath
		done
	)
	state := make([]uint8, len(d))
	var path []int // the definitions being evaluated, each using the next
	var visit func(i int) error
	visit = func(i int) error {
		def := d[i]
		if _, ok := fixed[def.Name]; ok || state[i] == done {
			return nil
		}
		state[i] = onPath
		path = append(path, i)
		v, err := def.Expr.Eval(func(name string) (int64, error) {
			if v, ok := fixed[name]; ok {
				return v, nil
			}
			j, ok := index[name]
			switch {
			case !ok:
				return 0, &SymbolError{Symbol: def.Name, Unknown: name, Msg: def.String() + " uses " + name + ", which has no value"}
			case state[j] == onPath:
				return 0, cycleError(d, path, j)
			}
			if err := visit(j); err != nil {
				return 0, err
			}
			return out[name], nil
		})
		if se, ok := err.(*SymbolError); ok && se.Overflow && se.Symbol == "" {
			se.Symbol, se.Msg = def.Name, def.String()+" overflows: "+se.Msg
		}
		if err != nil {
			return err
		}
		if v < 0 {
			return &SymbolError{Symbol: def.Name, Negative: true,
				Msg: def.String() + " is " + strconv.FormatInt(v, 10) + ": a symbol's value is a whole number of 0 or more"}
		}
		out[def.Name], state[i] = v, done
		path = path[:len(path)-1]
		return nil
	}
	for i := range d {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// cycleError says which definitions use each other: those on the path
// from definition j, which uses the last, back to j.
func cycleError(d SymbolDefs, path []int, j int) *SymbolError {
	k := len(path) - 1
	for path[k] != j {
		k--
	}
	var names, defs []string
	for _, i := range path[k:] {
		names = append(names, d[i].Name)
		defs = append(defs, d[i].String())
	}
	names = append(names, d[j].Name)
	msg := defs[0] + " uses itself"
	if len(defs) > 1 {
		msg = "symbols defined by each other: " + strings.Join(defs, ", ")
	}
	return &SymbolError{Symbol: d[j].Name, Cycle: names, Msg: msg}
}
