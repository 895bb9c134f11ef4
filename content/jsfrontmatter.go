package content

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Eleventy's JavaScript front matter (---js … ---) is code. The common
// kind declares values, as eleventy-base-blog's pages do:
//
//	---js
//	const title = "This is a fifth post";
//	const draft = true;
//	const eleventyNavigation = { key: "About", order: 3 };
//	---
//
// (or is one object literal). folio reads such a front matter when it is
// nothing but declarations (const, let, var) of literal values: strings,
// numbers, true, false, null, and arrays and objects of them; anything
// else (a call, a variable, an expression) is code folio does not run,
// and the file is a problem.

// jsFrontMatter reads src, a JavaScript front matter; false when it is
// not made of declarations of literal values only.
func jsFrontMatter(src string) (map[string]any, bool) {
	p := &jsParser{s: src}
	p.space()
	if p.peek('{') { // one object literal
		v, ok := p.value(0)
		m, isMap := v.(map[string]any)
		p.space()
		p.eat(';')
		p.space()
		return m, ok && isMap && p.i == len(p.s)
	}
	out := map[string]any{}
	for {
		p.space()
		if p.i == len(p.s) {
			return out, true
		}
		p.word("export")
		p.space()
		if !p.word("const") && !p.word("let") && !p.word("var") {
			return nil, false
		}
		p.space()
		name := p.ident()
		if name == "" {
			return nil, false
		}
		if _, dup := out[name]; dup {
			return nil, false
		}
		p.space()
		if !p.eat('=') {
			return nil, false
		}
		v, ok := p.value(0)
		if !ok {
			return nil, false
		}
		out[name] = v
		p.space()
		p.eat(';')
	}
}

type jsParser struct {
	s string
	i int
}

func (p *jsParser) peek(c byte) bool { return p.i < len(p.s) && p.s[p.i] == c }

func (p *jsParser) eat(c byte) bool {
	if p.peek(c) {
		p.i++
		return true
	}
	return false
}

// space skips white space and comments.
func (p *jsParser) space() {
	for p.i < len(p.s) {
		switch {
		case p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "//"):
			if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
				p.i += j + 1
			} else {
				p.i = len(p.s)
			}
		case strings.HasPrefix(p.s[p.i:], "/*"):
			j := strings.Index(p.s[p.i+2:], "*/")
			if j < 0 {
				p.i = len(p.s)
				return
			}
			p.i += j + 4
		default:
			return
		}
	}
}

// word consumes the keyword w when it is there as a whole word.
func (p *jsParser) word(w string) bool {
	if !strings.HasPrefix(p.s[p.i:], w) {
		return false
	}
	if j := p.i + len(w); j < len(p.s) && isJSIdent(rune(p.s[j])) {
		return false
	}
	p.i += len(w)
	return true
}

func isJSIdent(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func (p *jsParser) ident() string {
	start := p.i
	for p.i < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		if !isJSIdent(r) || (p.i == start && unicode.IsDigit(r)) {
			break
		}
		p.i += n
	}
	return p.s[start:p.i]
}

// value reads a literal value at nesting depth.
func (p *jsParser) value(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	p.space()
	if p.i == len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '"' || c == '\'' || c == '`':
		return p.str()
	case c == '-' || c == '.' || '0' <= c && c <= '9':
		return p.number()
	case c == '[':
		p.i++
		list := []any{}
		for {
			p.space()
			if p.eat(']') {
				return list, true
			}
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			list = append(list, v)
			p.space()
			if !p.eat(',') && !p.peek(']') {
				return nil, false
			}
		}
	case c == '{':
		p.i++
		m := map[string]any{}
		for {
			p.space()
			if p.eat('}') {
				return m, true
			}
			var key string
			if p.peek('"') || p.peek('\'') {
				k, ok := p.str()
				if !ok {
					return nil, false
				}
				key = k.(string)
			} else if key = p.ident(); key == "" {
				return nil, false
			}
			if _, dup := m[key]; dup {
				return nil, false
			}
			p.space()
			if !p.eat(':') {
				return nil, false // a shorthand property names a variable
			}
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[key] = v
			p.space()
			if !p.eat(',') && !p.peek('}') {
				return nil, false
			}
		}
	}
	switch {
	case p.word("true"):
		return true, true
	case p.word("false"):
		return false, true
	case p.word("null"):
		return nil, true
	}
	return nil, false // a variable, a call, an expression
}

// str reads a quoted string; a template literal with a ${…} in it is
// code.
func (p *jsParser) str() (any, bool) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), true
		case c == '\n' && q != '`':
			return nil, false
		case c == '$' && q == '`' && strings.HasPrefix(p.s[p.i:], "${"):
			return nil, false
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return nil, false
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'u':
				if p.i+4 > len(p.s) {
					return nil, false
				}
				n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
				if err != nil {
					return nil, false
				}
				b.WriteRune(rune(n))
				p.i += 4
			case '\n':
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return nil, false
}

func (p *jsParser) number() (any, bool) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-.0123456789eE_", p.s[p.i]) >= 0 {
		p.i++
	}
	text := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(text, 64)
	return f, err == nil
}
