package probe

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const svgOpen = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">`

func TestSanitizeSVG(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		keep    []string // substrings the output must contain
		dropped []string // substrings (case-insensitive) it must not
	}{
		{
			name: "plain shapes survive",
			in:   svgOpen + `<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient></defs><rect width="10" height="10" fill="url(#g)"/><text x="1" y="5">a &lt; b &amp; c</text></svg>`,
			keep: []string{`<rect width="10" height="10" fill="url(#g)"/>`, `a &lt; b &amp; c`, `<stop offset="0" stop-color="#f00"/>`},
		},
		{
			name:    "script element",
			in:      svgOpen + `<script>alert(1)</script><script type="text/javascript"><![CDATA[alert(2)]]></script><circle r="1"/></svg>`,
			keep:    []string{`<circle r="1"/>`},
			dropped: []string{"script", "alert"},
		},
		{
			name:    "xhtml script by prefix",
			in:      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(1)</h:script><h:iframe src="https://evil"/></svg>`,
			dropped: []string{"script", "alert", "iframe", "evil"},
		},
		{
			name:    "event handlers",
			in:      `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect ONCLICK="x()" onmouseover="y()" width="1"/></svg>`,
			keep:    []string{`<rect width="1"/>`},
			dropped: []string{"onload", "onclick", "onmouseover", "alert"},
		},
		{
			name:    "foreignObject",
			in:      svgOpen + `<foreignObject width="10" height="10"><body xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert(1)"/></body></foreignObject></svg>`,
			dropped: []string{"foreignobject", "body", "onerror", "alert"},
		},
		{
			name:    "external hrefs",
			in:      svgOpen + `<a href="javascript:alert(1)"><use xlink:href="https://evil.example/sprite.svg#x"/></a><image href=" JaVaScRiPt:alert(2)"/><image href="data:image/svg+xml;base64,PHN2Zz4="/><use href="#local"/><image xlink:href="data:image/png;base64,iVBORw0KGgo="/></svg>`,
			keep:    []string{`<use href="#local"/>`, `xlink:href="data:image/png;base64,iVBORw0KGgo="`},
			dropped: []string{"javascript", "evil.example", "svg+xml"},
		},
		{
			name:    "entity-encoded javascript href",
			in:      svgOpen + `<a href="&#106;avascript:alert(1)"><rect/></a></svg>`,
			dropped: []string{"javascript", "href"},
		},
		{
			name:    "style importing or loading",
			in:      svgOpen + `<style>@import url("https://evil/x.css");</style><style>rect { fill: url(https://evil/track.png) }</style><style>circle { fill: url(#g) }</style><rect style="background: url('//evil/t')"/></svg>`,
			keep:    []string{`circle { fill: url(#g) }`},
			dropped: []string{"@import", "evil"},
		},
		{
			name:    "css escapes",
			in:      svgOpen + `<style>rect { fill: u\72l(https://evil/x) }</style></svg>`,
			dropped: []string{"evil"},
		},
		{
			name:    "animation rewriting href",
			in:      svgOpen + `<a><set attributeName="xlink:href" to="javascript:alert(1)"/><animate attributeName="href" values="javascript:alert(1)"/><animate attributeName="opacity" from="0" to="1"/><rect/></a></svg>`,
			keep:    []string{`<animate attributeName="opacity" from="0" to="1"/>`},
			dropped: []string{"javascript", "<set"},
		},
		{
			name:    "processing instructions, comments, doctype",
			in:      `<?xml version="1.0"?><?xml-stylesheet href="https://evil/x.css"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><!-- hi --><svg xmlns="http://www.w3.org/2000/svg"/>`,
			keep:    []string{`<svg xmlns="http://www.w3.org/2000/svg"/>`},
			dropped: []string{"evil", "doctype", "<!--", "<?"},
		},
		{
			name:    "xml:base and editor namespaces",
			in:      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xml:base="https://evil/" xml:space="preserve" inkscape:version="1"><inkscape:thing/><g inkscape:label="x"/></svg>`,
			keep:    []string{`xml:space="preserve"`, `<g/>`},
			dropped: []string{"evil", "inkscape"},
		},
		{
			name: "attribute escaping round trips",
			in:   svgOpen + `<text data-x="a&quot;b&lt;c&#10;d">x</text></svg>`,
			keep: []string{`data-x="a&quot;b&lt;c&#xA;d"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := SanitizeSVG([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			s := string(out)
			for _, k := range tt.keep {
				if !strings.Contains(s, k) {
					t.Errorf("output lacks %q:\n%s", k, s)
				}
			}
			for _, d := range tt.dropped {
				if strings.Contains(strings.ToLower(s), strings.ToLower(d)) {
					t.Errorf("output still has %q:\n%s", d, s)
				}
			}
			// The output must itself be accepted, unchanged.
			again, err := SanitizeSVG(out)
			if err != nil {
				t.Fatalf("output refused: %v\n%s", err, s)
			}
			if !bytes.Equal(again, out) {
				t.Errorf("not idempotent:\n%s\n%s", out, again)
			}
			if m, ok := Sniff(out); !ok || m != SVG {
				t.Errorf("output sniffs as %q, %v", m, ok)
			}
		})
	}
}

func TestSanitizeSVG_Refused(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"not xml", "hello"},
		{"html root", `<html><body/></html>`},
		{"xhtml svg", `<svg xmlns="http://www.w3.org/1999/xhtml"/>`},
		{"unclosed", svgOpen + `<g>`},
		{"mismatched", svgOpen + `<g></rect></svg>`},
		{"two roots", `<svg/><svg/>`},
		{"text outside root", `<svg/>trailing`},
		{"internal entity", `<!DOCTYPE svg [<!ENTITY lol "lol">]><svg>&lol;</svg>`},
		{"billion laughs", `<!DOCTYPE svg [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg>&b;</svg>`},
		{"external entity", `<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><svg>&xxe;</svg>`},
		{"undeclared entity", `<svg>&nope;</svg>`},
		{"latin1 declared", `<?xml version="1.0" encoding="ISO-8859-1"?><svg/>`},
		{"too deep", `<svg>` + strings.Repeat("<g>", MaxSVGDepth+1) + strings.Repeat("</g>", MaxSVGDepth+1) + `</svg>`},
		{"too large", `<svg>` + strings.Repeat(" ", MaxSVGBytes) + `</svg>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := SanitizeSVG([]byte(tt.in))
			if !errors.Is(err, ErrUnsafeSVG) {
				t.Fatalf("err = %v, output %q; want ErrUnsafeSVG", err, out)
			}
		})
	}
}

func BenchmarkSanitizeSVG(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(svgOpen)
	for i := range 2000 {
		sb.WriteString(`<path d="M0 0L10 10" fill="url(#g)" stroke="#000" onclick="x()" id="p`)
		sb.WriteString(strings.Repeat("1", i%7))
		sb.WriteString(`"/>`)
	}
	sb.WriteString(`</svg>`)
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SanitizeSVG(in); err != nil {
			b.Fatal(err)
		}
	}
}
