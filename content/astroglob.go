package content

import (
	"path"
	"regexp"
	"strings"
)

// An Astro content collection whose glob() loader reads a folder outside
// src/content/ (AstroWind's post collection: loader: glob({ pattern:
// ['*.md', '*.mdx'], base: 'src/data/post' })) is read as the type named
// by the collection, its documents as if they were content/<name>/…, as
// the folder collections of a Decap config are (decapdirs.go). folio runs
// no JavaScript: it reads the content config (src/content.config.ts, or
// the older src/content/config.ts) with a bounded reader that knows one
// shape, `const x = defineCollection({ loader: glob({ … base: '…' }) })`
// (or the defineCollection( … ) written in place) named in `export const
// collections = { name: x, … }`, base a string literal; a config it
// cannot read that way reads nothing, and folio check still names the
// documents it does not serve (MisreadAstroSite).

// astroConfigPaths are the places of an Astro site's content config, in
// the order Astro looks for them.
var astroConfigPaths = []string{"src/content.config.ts", "src/content.config.mjs", "src/content.config.js", "src/content.config.mts", "src/content/config.ts", "src/content/config.mjs", "src/content/config.js"}

// AstroConfigFile tells whether p may be an Astro site's content config
// (a loader reads it with the ones LocaleConfigFile names, for
// ContentDirs).
func AstroConfigFile(p string) bool {
	if !strings.HasPrefix(p, "src/content") {
		return false
	}
	for _, c := range astroConfigPaths {
		if p == c {
			return true
		}
	}
	return false
}

var (
	astroCollectionsRe = regexp.MustCompile(`export\s+const\s+collections\s*=\s*\{`)
	astroPatternRe     = regexp.MustCompile(`\bpattern\s*:\s*(\[[^\]]*\]|["'` + "`" + `][^"'` + "`" + `]*["'` + "`" + `])`)
	astroIdentRe       = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
)

// parseAstroConfig reads a content config's glob() collections into a
// Doc: collections: {name: {base: folder, deep: bool}}, deep false when
// the loader's pattern reads the base folder's own files only
// ('*.md'). Collections it cannot read are left out.
func parseAstroConfig(src string) *Doc {
	cols := map[string]any{}
	if loc := astroCollectionsRe.FindStringIndex(src); loc != nil {
		body, ok := balanced(src[loc[1]-1:], '{', '}')
		if ok {
			for _, entry := range splitTop(body) {
				name, val, found := strings.Cut(entry, ":")
				name = strings.Trim(strings.TrimSpace(name), `"'`)
				val = strings.TrimSpace(val)
				if !found {
					val = name // { post } shorthand
				}
				if !ValidType(name) {
					continue
				}
				def := val
				if astroIdentRe.MatchString(val) {
					def = astroDefinition(src, val)
				}
				if c := astroGlob(def); c != nil {
					cols[name] = c
				}
			}
		}
	}
	return NewDoc(map[string]any{"collections": cols})
}

// astroDefinition is the text of `const ident = defineCollection(…)`,
// "" when there is none.
func astroDefinition(src, ident string) string {
	re := regexp.MustCompile(`\bconst\s+` + regexp.QuoteMeta(ident) + `\s*=\s*defineCollection\(`)
	loc := re.FindStringIndex(src)
	if loc == nil {
		return ""
	}
	body, _ := balanced(src[loc[1]-1:], '(', ')')
	return body
}

// astroGlob reads the glob() loader of a collection's definition: its
// base, cleaned, and whether its pattern reads subfolders; nil when it
// has none folio can read, or its base is in src/content/ or outside
// the site.
func astroGlob(def string) map[string]any {
	i := strings.Index(def, "glob(")
	if i < 0 {
		return nil
	}
	args, ok := balanced(def[i+len("glob"):], '(', ')')
	if !ok {
		return nil
	}
	m := astroGlobBase.FindStringSubmatch("glob(" + args + ")")
	if m == nil {
		return nil
	}
	base := path.Clean(strings.TrimPrefix(m[1], "./"))
	if base == "." || strings.HasPrefix(base, "..") || strings.HasPrefix(base, "/") || base == "src/content" || strings.HasPrefix(base, "src/content/") || !safeDir(base) {
		return nil
	}
	deep := true
	if p := astroPatternRe.FindStringSubmatch(args); p != nil {
		deep = strings.Contains(p[1], "**")
	}
	return map[string]any{"base": base, "deep": deep}
}

// balanced is the text between s's first byte (open) and the close that
// matches it, strings skipped; false when it is not closed.
func balanced(s string, open, close byte) (string, bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == open:
			depth++
		case c == close:
			depth--
			if depth == 0 {
				return s[1:i], true
			}
		}
	}
	return "", false
}

// splitTop splits s at its commas outside brackets and strings, each
// part trimmed, empty ones left out.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i <= len(s); i++ {
		if i == len(s) || (quote == 0 && depth == 0 && s[i] == ',') {
			if part := strings.TrimSpace(s[start:i]); part != "" {
				out = append(out, part)
			}
			start = i + 1
			continue
		}
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '(' || c == '{' || c == '[':
			depth++
		case c == ')' || c == '}' || c == ']':
			depth--
		}
	}
	return out
}

// astroGlobFolder is one collection's folder.
type astroGlobFolder struct {
	name, base string
	deep       bool
}

// astroGlobFolders are the glob() folders of the content config among
// files (the first of astroConfigPaths there, read); nil when none.
func astroGlobFolders(files []File) []astroGlobFolder {
	for _, c := range astroConfigPaths {
		for _, f := range files {
			if f.Path != c || f.Doc == nil {
				continue
			}
			cols, _ := f.Doc.Get("collections").(map[string]any)
			var out []astroGlobFolder
			for name, v := range cols {
				m, _ := v.(map[string]any)
				base, _ := m["base"].(string)
				deep, _ := m["deep"].(bool)
				if base != "" {
					out = append(out, astroGlobFolder{name: name, base: base, deep: deep})
				}
			}
			return out
		}
	}
	return nil
}

// virt is the path a collection's file p is read at, and whether it is
// one of the collection's.
func (g astroGlobFolder) virt(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, g.base+"/")
	if !ok || (!g.deep && strings.Contains(rest, "/")) || !inContentDir(rest) {
		return "", false
	}
	return "content/" + g.name + "/" + rest, true
}
