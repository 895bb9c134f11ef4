package content

import (
	"reflect"
	"testing"
)

// Parsing with the front matter handed over alone (fmEnd) gives what
// parsing the whole file gives, for every opener and awkward layout.
func TestParse_FrontMatterFastPath(t *testing.T) {
	inputs := []string{
		"---\ntitle: x\n---\nbody\n",
		"---\ntitle: x\n---",
		"---\ntitle: x\n---\n",
		"\n\n---\ntitle: x\n---\n\nbody\n",
		"---  \r\ntitle: x\r\n---  \r\nbody\r\n",
		"---yaml\na: 1\n---\nb\n",
		"---toml\na = 1\n---\nb\n",
		"---json\n{\"a\": 1}\n---\nb\n",
		"+++\na = 1\n+++\nb\n",
		";;;\n{\"a\": 1}\n;;;\nb\n",
		"{\n\"a\": 1\n}\n\nbody\n",
		"---\na: |\n  x\n---\nnot the end\n---\nbody\n",
		"---\na: 1\n+++\nb\n---\nc\n",
		"---\na: 1\n",
		"---\n---\n",
		"---\n---\n---\n",
		"--- \n- a\n---\n",
		"---\ntitle: [unclosed\n---\nb\n",
		"# just markdown\n\n---\n\nmore\n",
		"",
		"---\ntitle: x\n---\n" + "> > > deep\n",
	}
	for _, in := range inputs {
		fast, fastErr := parseFile("a.md", []byte(in), true, nil)
		slow, slowErr := parseFile("a.md", []byte(in), false, nil)
		if !reflect.DeepEqual(fastErr, slowErr) {
			t.Errorf("%q: error %v, want %v", in, fastErr, slowErr)
			continue
		}
		if fast == nil || slow == nil {
			continue
		}
		if !reflect.DeepEqual(fast.Meta(), slow.Meta()) || fast.Body.Source() != slow.Body.Source() ||
			fast.HasBody != slow.HasBody || fast.Line != slow.Line || !reflect.DeepEqual(fast.KeyLines(), slow.KeyLines()) {
			t.Errorf("%q: fast %+v (body %q), whole %+v (body %q)", in, fast, fast.Body.Source(), slow, slow.Body.Source())
		}
	}
}
