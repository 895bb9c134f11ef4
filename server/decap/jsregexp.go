package decap

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
)

// jsPattern writes a Go regular expression (the model's pattern, RE2
// syntax) as a JavaScript one that matches the same strings, for Decap's
// pattern check (RegExp(pattern) without flags, tested unanchored as Go's
// is); ok is false for what it cannot write without flags (a class or
// letter outside the Basic Multilingual Plane, a multi-line ^ or $):
// folio's check on save is then the only one.
func jsPattern(re string) (string, bool) {
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !writeJS(&b, t) {
		return "", false
	}
	return b.String(), true
}

func writeJS(b *strings.Builder, t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpNoMatch:
		b.WriteString("[^\\s\\S]")
	case syntax.OpEmptyMatch:
		b.WriteString("(?:)")
	case syntax.OpLiteral:
		for _, r := range t.Rune {
			if r > 0xFFFF {
				return false
			}
			if t.Flags&syntax.FoldCase != 0 && unicode.SimpleFold(r) != r {
				// (?i): each letter as the class of its cases.
				b.WriteByte('[')
				for f := r; ; {
					b.WriteString(jsRune(f))
					if f = unicode.SimpleFold(f); f == r {
						break
					}
				}
				b.WriteByte(']')
				continue
			}
			b.WriteString(jsRune(r))
		}
	case syntax.OpCharClass:
		return writeClass(b, t.Rune)
	case syntax.OpAnyCharNotNL:
		return writeClass(b, []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune})
	case syntax.OpAnyChar:
		return writeClass(b, []rune{0, unicode.MaxRune})
	case syntax.OpBeginText:
		b.WriteString("^")
	case syntax.OpEndText:
		b.WriteString("$")
	case syntax.OpBeginLine, syntax.OpEndLine:
		return false // (?m): JavaScript needs its m flag
	case syntax.OpWordBoundary:
		b.WriteString("\\b")
	case syntax.OpNoWordBoundary:
		b.WriteString("\\B")
	case syntax.OpCapture:
		b.WriteString("(")
		if !writeJS(b, t.Sub[0]) {
			return false
		}
		b.WriteString(")")
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		if !writeGroup(b, t.Sub[0]) {
			return false
		}
		switch t.Op {
		case syntax.OpStar:
			b.WriteString("*")
		case syntax.OpPlus:
			b.WriteString("+")
		case syntax.OpQuest:
			b.WriteString("?")
		default:
			switch {
			case t.Max == -1:
				fmt.Fprintf(b, "{%d,}", t.Min)
			case t.Min == t.Max:
				fmt.Fprintf(b, "{%d}", t.Min)
			default:
				fmt.Fprintf(b, "{%d,%d}", t.Min, t.Max)
			}
		}
		if t.Flags&syntax.NonGreedy != 0 {
			b.WriteString("?")
		}
	case syntax.OpConcat:
		for _, s := range t.Sub {
			if s.Op == syntax.OpAlternate {
				if !writeGroup(b, s) {
					return false
				}
			} else if !writeJS(b, s) {
				return false
			}
		}
	case syntax.OpAlternate:
		for i, s := range t.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			if !writeJS(b, s) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// writeClass writes a class of ranges (lo, hi pairs, sorted). Without
// its u flag JavaScript sees a letter past the Basic Multilingual Plane
// as two code units (a surrogate pair): a class that holds every such
// letter is written as the pair or one of its other letters; one that
// holds some of them is not written.
func writeClass(b *strings.Builder, rs []rune) bool {
	if len(rs) == 0 {
		b.WriteString("[^\\s\\S]")
		return true
	}
	astral := false
	var bmp []rune
	for i := 0; i < len(rs); i += 2 {
		lo, hi := rs[i], rs[i+1]
		if hi > 0xFFFF {
			if lo > 0x10000 || hi < unicode.MaxRune {
				return false
			}
			astral, hi = true, 0xFFFF
		}
		// Lone surrogates are no letter of a string folio reads.
		if lo < 0xD800 {
			bmp = append(bmp, lo, min(hi, 0xD7FF))
		}
		if hi > 0xDFFF {
			bmp = append(bmp, max(lo, 0xE000), hi)
		}
	}
	if astral {
		b.WriteString(`(?:[\uD800-\uDBFF][\uDC00-\uDFFF]|`)
	}
	b.WriteByte('[')
	for i := 0; i+1 < len(bmp); i += 2 {
		b.WriteString(jsRune(bmp[i]))
		if bmp[i+1] > bmp[i] {
			b.WriteByte('-')
			b.WriteString(jsRune(bmp[i+1]))
		}
	}
	if len(bmp) == 0 {
		b.WriteString("^\\s\\S")
	}
	b.WriteByte(']')
	if astral {
		b.WriteByte(')')
	}
	return true
}

// writeGroup writes t as one atom (for a repeat or inside a concat).
func writeGroup(b *strings.Builder, t *syntax.Regexp) bool {
	atom := t.Op == syntax.OpCharClass || t.Op == syntax.OpAnyChar || t.Op == syntax.OpAnyCharNotNL || t.Op == syntax.OpCapture ||
		t.Op == syntax.OpLiteral && len(t.Rune) == 1
	if atom {
		return writeJS(b, t)
	}
	b.WriteString("(?:")
	if !writeJS(b, t) {
		return false
	}
	b.WriteString(")")
	return true
}

// jsRune writes one code point of the Basic Multilingual Plane, escaped
// where JavaScript's syntax needs it (in a class or out of one).
func jsRune(r rune) string {
	switch {
	case r < 0x20 || r > 0x7e:
		return fmt.Sprintf(`\u%04X`, r)
	case strings.ContainsRune(`\^$.|?*+()[]{}/-`, r):
		return `\` + string(r)
	}
	return string(r)
}

// jsChar is one character as JavaScript counts them without the u flag
// (a surrogate pair is one).
const jsChar = `(?:[\uD800-\uDBFF][\uDC00-\uDFFF]|[^\uD800-\uDFFF])`

// lengthPattern is the pattern of a string of min to max characters
// (max < 0: no bound), as the model counts them (code points).
func lengthPattern(min, max int) string {
	if max < 0 {
		return fmt.Sprintf("^%s{%d,}$", jsChar, min)
	}
	return fmt.Sprintf("^%s{%d,%d}$", jsChar, min, max)
}
