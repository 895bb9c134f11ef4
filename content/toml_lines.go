package content

import "strings"

// tomlLines is the line of each table and key of a TOML document, by
// LinePath (see Doc.Lines), as far as a scan of its lines tells: table
// headers ([languages.fr], [[menu.main]] by the array's name) and
// "key = value" lines, dotted and quoted keys included. Lines inside
// multi-line strings and arrays are skipped. The first line of a path
// wins. For problems only: a line it gets wrong is a wrong line number.
func tomlLines(src []byte) map[string]int {
	lines := map[string]int{}
	var table []string
	inString := "" // the delimiter of the multi-line string the scan is in
	depth := 0     // brackets of a multi-line array or inline table left open
	record := func(path []string, line int) {
		for n := 1; n <= len(path); n++ {
			k := LinePath(path[:n])
			if _, ok := lines[k]; !ok {
				lines[k] = line
			}
		}
	}
	for i, raw := range strings.Split(string(src), "\n") {
		line := i + 1
		s := strings.TrimSpace(raw)
		if inString != "" {
			if strings.Contains(s, inString) {
				inString = ""
			}
			continue
		}
		if depth > 0 {
			depth = max(depth+bracketDepth(s), 0)
			continue
		}
		if s == "" || s[0] == '#' {
			continue
		}
		if s[0] == '[' {
			header := strings.TrimPrefix(s, "[[")
			if len(header) == len(s) {
				header = s[1:]
			}
			if end := strings.IndexByte(header, ']'); end >= 0 {
				header = header[:end]
			}
			table = tomlKey(header)
			record(table, line)
			continue
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			continue
		}
		key := tomlKey(s[:eq])
		if len(key) == 0 {
			continue
		}
		record(append(append([]string{}, table...), key...), line)
		v := strings.TrimSpace(s[eq+1:])
		for _, q := range []string{`"""`, `'''`} {
			if strings.HasPrefix(v, q) && !strings.Contains(v[3:], q) {
				inString = q
			}
		}
		if inString == "" {
			depth = max(bracketDepth(v), 0)
		}
	}
	return lines
}

// tomlKey splits a (dotted, maybe quoted) TOML key into its parts.
func tomlKey(s string) []string {
	var out []string
	for _, part := range strings.Split(strings.TrimSpace(s), ".") {
		part = strings.TrimSpace(part)
		part = strings.Trim(part, `"'`)
		if part == "" {
			return nil
		}
		out = append(out, part)
	}
	return out
}

// bracketDepth is the brackets and braces s opens less those it closes,
// outside strings and comments.
func bracketDepth(s string) int {
	d := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return d
		case c == '[' || c == '{':
			d++
		case c == ']' || c == '}':
			d--
		}
	}
	return d
}
