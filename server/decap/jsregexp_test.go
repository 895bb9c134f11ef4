package decap

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/folio-cms/folio/content/schema"
)

// TestJSPattern runs each pattern as Decap does (new RegExp(p).test(v),
// in node) and as folio does (Go's regexp), on the same strings: they
// agree, or the pattern is left out (ok false).
func TestJSPattern(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node to run JavaScript")
	}
	inputs := []string{"", "abc", "ABC", "aBc", "abc-12", "ABC-12", "AB-1", "x\ny", "hello world", "héllo", "Ünïcode", "😀", "a😀b",
		"2024-01-02", "1999-13-01", "a/b", "a.b", "a+b", "[x]", "tab\there", "-", "^$", "foo_bar", "   ", "#fff", "#FFF", "#12345g"}
	patterns := []string{`^[A-Z]{3}-\d+$`, `(?i)^abc$`, `^\w+$`, `^\s*$`, `[^a-z]`, `^[^a]+$`, `\bworld\b`, `^(?:foo|bar)_`, `^a.b$`, `^a[\s\S]b$`,
		`^\d{4}-(0[1-9]|1[0-2])-\d{2}$`, `é`, `^.{1,3}$`, `a+?b`, `^[\^$.|?*+()\[\]{}/-]+$`, `(?i)ünï`, `^#(?:[0-9a-fA-F]{3}){1,2}$`, `^(?P<y>\d{4})`, `\Aabc\z`,
		`x*`, `^$`, `(?s)x.y`, `^[a-z]+(?:-[a-z0-9]+)*$`}
	type pair struct {
		P  string   `json:"p"`
		In []string `json:"in"`
	}
	var cases []pair
	var goRes [][]bool
	for _, p := range patterns {
		js, ok := jsPattern(p)
		if !ok {
			t.Logf("%s: left out", p)
			continue
		}
		re := regexp.MustCompile(p)
		var rs []bool
		for _, in := range inputs {
			rs = append(rs, re.MatchString(in))
		}
		cases, goRes = append(cases, pair{js, inputs}), append(goRes, rs)
	}
	for _, p := range []string{`(?m)^a$`, `\x{1F600}`, `\p{Greek}`} {
		if js, ok := jsPattern(p); ok {
			// Allowed only when it is exactly right; checked below.
			re := regexp.MustCompile(p)
			var rs []bool
			for _, in := range inputs {
				rs = append(rs, re.MatchString(in))
			}
			cases, goRes = append(cases, pair{js, inputs}), append(goRes, rs)
		}
	}
	// Lengths as folio counts them (code points).
	for _, lim := range [][2]int{{0, 3}, {2, 5}, {1, -1}} {
		lp := lengthPattern(lim[0], lim[1])
		var rs []bool
		for _, in := range inputs {
			n := utf8.RuneCountInString(in)
			rs = append(rs, n >= lim[0] && (lim[1] < 0 || n <= lim[1]))
		}
		cases, goRes = append(cases, pair{lp, inputs}), append(goRes, rs)
	}
	// A length and a pattern together (textPattern).
	two, three := 2, 5
	for _, f := range []*schema.Field{{Kind: "string", MinLength: &two, MaxLength: &three, Pattern: `[a-z]`}, {Kind: "string", MaxLength: &three, Pattern: `^\d`}} {
		p := textPattern(f)
		re := regexp.MustCompile(f.Pattern)
		var rs []bool
		for _, in := range inputs {
			n := utf8.RuneCountInString(in)
			rs = append(rs, (f.MinLength == nil || n >= *f.MinLength) && n <= *f.MaxLength && re.MatchString(in))
		}
		cases, goRes = append(cases, pair{p[0], inputs}), append(goRes, rs)
	}
	in, _ := json.Marshal(cases)
	cmd := exec.Command(node, "-e", `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{
const cs=JSON.parse(s);console.log(JSON.stringify(cs.map(c=>c.in.map(v=>RegExp(c.p).test(v)))))})`)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var jsRes [][]bool
	if err := json.Unmarshal(out, &jsRes); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for i, c := range cases {
		for j, v := range c.In {
			if jsRes[i][j] != goRes[i][j] {
				t.Errorf("JavaScript %s on %q: %v, Go: %v", c.P, v, jsRes[i][j], goRes[i][j])
			}
		}
	}
}
