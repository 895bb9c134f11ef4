package content

import (
	"strings"
	"testing"
)

// nestedDetails is levels {{< details >}} around payload.
func nestedDetails(levels int, payload string) string {
	return strings.Repeat("{{< details >}}\n", levels) + payload + strings.Repeat("{{< /details >}}\n", levels)
}

// A component's inner content is parsed again at every level it nests
// in: a render parses at most nestFactor times its body plus nestFloor
// of it, the rest is escaped text, in the HTML and the tree alike.
func TestNestedSourceBudget(t *testing.T) {
	small := nestedDetails(10, "x\n")
	m := NewMarkdown(small)
	h, err := m.Render()
	if err != nil || strings.Contains(h, "{{&lt;") || strings.Count(h, "<details>") != 10 {
		t.Fatalf("10 small levels: %v %q", err, h)
	}
	checkRoundTrip(t, NewMarkdown(small))

	// 10 levels of 300 KB are 3 MB parsed again: past 4 × 300 KB + 1 MiB.
	big := nestedDetails(10, strings.Repeat("word ", 60_000)+"\n")
	m = NewMarkdown(big)
	h, err = m.Render()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(h, "<details>"); n >= 10 || n < 3 || !strings.Contains(h, "{{&lt; details &gt;}}") {
		t.Fatalf("10 levels of 300 KB: %d rendered levels, escaped rest %v", n, strings.Contains(h, "{{&lt; details &gt;}}"))
	}
	checkRoundTrip(t, NewMarkdown(big))
	checkRoundTrip(t, NewMDX(big))
}
