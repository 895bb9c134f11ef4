package probe

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// ErrUnsafeSVG is returned by SanitizeSVG for files it refuses outright:
// not well-formed, root not <svg>, entity declarations, too large or deep.
var ErrUnsafeSVG = errors.New("probe: svg refused")

// MaxSVGDepth bounds element nesting in SanitizeSVG.
const MaxSVGDepth = 256

const (
	nsSVG   = "http://www.w3.org/2000/svg"
	nsXLink = "http://www.w3.org/1999/xlink"
	nsXML   = "http://www.w3.org/XML/1998/namespace"
)

// droppedElements are removed with their whole subtree: they run script,
// embed other documents or carry HTML (compared in lower case).
var droppedElements = map[string]bool{
	"script": true, "foreignobject": true, "handler": true, "listener": true,
	"iframe": true, "embed": true, "object": true, "audio": true, "video": true,
}

// safeDataImage matches the only data: URIs an href may hold: raster images
// that cannot carry script (no svg+xml, no text/html).
var safeDataImage = regexp.MustCompile(`(?i)^data:image/(png|jpeg|gif|webp)[;,]`)

// SanitizeSVG parses data as XML and re-emits it without what makes an SVG
// active or leaky when served from our origin: script and foreignObject
// elements, event-handler (on*) attributes, links that are not local
// fragments or raster data: URIs, CSS that imports or loads external URLs,
// elements and attributes of foreign namespaces (XHTML, editor metadata),
// processing instructions (xml-stylesheet), comments and the doctype.
//
// It refuses (ErrUnsafeSVG) input that is not well-formed, whose root is not
// <svg>, that declares entities, or that exceeds MaxSVGBytes or
// MaxSVGDepth. The output is UTF-8 and never contains a DOCTYPE.
func SanitizeSVG(data []byte) ([]byte, error) {
	if len(data) > MaxSVGBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrUnsafeSVG, MaxSVGBytes)
	}
	s := &svgSanitizer{out: bytes.NewBuffer(make([]byte, 0, len(data)))}
	if err := s.run(data); err != nil {
		return nil, err
	}
	return s.out.Bytes(), nil
}

type svgFrame struct {
	name string            // prefix:local as written, for matching the end tag
	ns   map[string]string // prefix → namespace declared on this element
	drop bool              // this element and its subtree are not emitted
}

type svgSanitizer struct {
	out      *bytes.Buffer
	stack    []svgFrame
	rootSeen bool
	rootDone bool
	pending  bool // a start tag is open: ">" or "/>" still to write
	style    *bytes.Buffer
}

func (s *svgSanitizer) run(data []byte) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: not well-formed: %v", ErrUnsafeSVG, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := s.start(t); err != nil {
				return err
			}
		case xml.EndElement:
			if err := s.end(t); err != nil {
				return err
			}
		case xml.CharData:
			if len(s.stack) == 0 {
				if len(bytes.TrimSpace(t)) != 0 {
					return fmt.Errorf("%w: text outside the root element", ErrUnsafeSVG)
				}
				continue
			}
			s.text(t)
		case xml.Directive:
			if hasEntityDecl(t) {
				return fmt.Errorf("%w: entity declarations are not allowed", ErrUnsafeSVG)
			}
			if s.rootSeen {
				return fmt.Errorf("%w: declaration inside the document", ErrUnsafeSVG)
			}
			// A plain doctype is dropped: nothing in it is needed to render.
		case xml.ProcInst, xml.Comment:
			// Dropped: xml-stylesheet may load external CSS; comments are
			// noise and a hiding place.
		}
	}
	if !s.rootDone || len(s.stack) != 0 {
		return fmt.Errorf("%w: not well-formed: unexpected end of document", ErrUnsafeSVG)
	}
	return nil
}

func (s *svgSanitizer) dropping() bool {
	return len(s.stack) > 0 && s.stack[len(s.stack)-1].drop
}

// lookup resolves a prefix against the declarations in scope.
func (s *svgSanitizer) lookup(prefix string) (string, bool) {
	switch prefix {
	case "xml":
		return nsXML, true
	case "xmlns":
		return "xmlns", true
	}
	for i := len(s.stack) - 1; i >= 0; i-- {
		if ns, ok := s.stack[i].ns[prefix]; ok {
			return ns, true
		}
	}
	if prefix == "" {
		// No default namespace declared: treat as SVG, as browsers do for
		// inline SVG. A stranger default namespace is honoured above.
		return nsSVG, true
	}
	return "", false
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

func (s *svgSanitizer) start(t xml.StartElement) error {
	if s.rootDone {
		return fmt.Errorf("%w: more than one root element", ErrUnsafeSVG)
	}
	if len(s.stack) >= MaxSVGDepth {
		return fmt.Errorf("%w: nested deeper than %d", ErrUnsafeSVG, MaxSVGDepth)
	}
	f := svgFrame{name: qname(t.Name)}
	for _, a := range t.Attr {
		switch {
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			f.ns = setNS(f.ns, "", a.Value)
		case a.Name.Space == "xmlns":
			f.ns = setNS(f.ns, a.Name.Local, a.Value)
		}
	}
	parentDrop := s.dropping()
	s.stack = append(s.stack, f)
	top := &s.stack[len(s.stack)-1]
	ns, known := s.lookup(t.Name.Space)
	if !s.rootSeen {
		s.rootSeen = true
		if t.Name.Local != "svg" || ns != nsSVG {
			return fmt.Errorf("%w: root element is not <svg>", ErrUnsafeSVG)
		}
	}
	local := strings.ToLower(t.Name.Local)
	top.drop = parentDrop || !known || ns != nsSVG || droppedElements[local] ||
		s.style != nil || (isAnimation(local) && animatesUnsafe(t.Attr))
	if top.drop {
		return nil
	}
	s.closePending()
	s.out.WriteByte('<')
	s.out.WriteString(top.name)
	for _, a := range t.Attr {
		if s.keepAttr(a) {
			s.out.WriteByte(' ')
			s.out.WriteString(qname(a.Name))
			s.out.WriteString(`="`)
			escapeAttr(s.out, a.Value)
			s.out.WriteByte('"')
		}
	}
	s.pending = true
	if local == "style" {
		s.style = new(bytes.Buffer)
	}
	return nil
}

func setNS(m map[string]string, prefix, ns string) map[string]string {
	if m == nil {
		m = make(map[string]string, 2)
	}
	m[prefix] = ns
	return m
}

func (s *svgSanitizer) end(t xml.EndElement) error {
	if len(s.stack) == 0 {
		return fmt.Errorf("%w: not well-formed: unexpected </%s>", ErrUnsafeSVG, qname(t.Name))
	}
	top := s.stack[len(s.stack)-1]
	if top.name != qname(t.Name) {
		return fmt.Errorf("%w: not well-formed: </%s> closes <%s>", ErrUnsafeSVG, qname(t.Name), top.name)
	}
	s.stack = s.stack[:len(s.stack)-1]
	if len(s.stack) == 0 {
		s.rootDone = true
	}
	if top.drop {
		return nil
	}
	if s.style != nil {
		css := s.style.Bytes()
		s.style = nil
		if !safeCSS(string(css)) {
			// The element is already open; emit it empty rather than with
			// rules that load from elsewhere.
			css = nil
		}
		if len(css) > 0 {
			s.closePending()
			escapeText(s.out, css)
		}
	}
	if s.pending {
		s.out.WriteString("/>")
		s.pending = false
		return nil
	}
	s.out.WriteString("</")
	s.out.WriteString(top.name)
	s.out.WriteByte('>')
	return nil
}

func (s *svgSanitizer) text(t xml.CharData) {
	if s.dropping() {
		return
	}
	if s.style != nil {
		s.style.Write(t)
		return
	}
	s.closePending()
	escapeText(s.out, t)
}

func (s *svgSanitizer) closePending() {
	if s.pending {
		s.out.WriteByte('>')
		s.pending = false
	}
}

// keepAttr decides one attribute of a kept element.
func (s *svgSanitizer) keepAttr(a xml.Attr) bool {
	local := strings.ToLower(a.Name.Local)
	switch a.Name.Space {
	case "":
		if local == "xmlns" {
			return a.Value == nsSVG
		}
	case "xmlns":
		return a.Value == nsSVG || a.Value == nsXLink
	default:
		ns, _ := s.lookup(a.Name.Space)
		switch ns {
		case nsXLink:
			if local != "href" && local != "title" {
				return false
			}
		case nsXML:
			// xml:base would make every relative reference external.
			return local == "space" || local == "lang"
		default:
			return false // editor metadata and unknown namespaces
		}
	}
	if strings.HasPrefix(local, "on") {
		return false
	}
	if local == "href" || local == "src" {
		return safeRef(a.Value)
	}
	return safeCSS(a.Value)
}

// safeRef allows a same-document fragment or a raster data: URI.
func safeRef(v string) bool {
	v = strings.Trim(v, " \t\r\n\f")
	return strings.HasPrefix(v, "#") || safeDataImage.MatchString(v)
}

var cssURL = regexp.MustCompile(`(?i)url\s*\(\s*['"]?\s*([^'"\s)]*)`)

// safeCSS accepts a style sheet or attribute value unless it imports, loads
// from a non-fragment URL, runs script or hides any of that behind CSS
// escapes (which is why a backslash alone refuses it).
func safeCSS(v string) bool {
	l := strings.ToLower(v)
	if strings.Contains(l, "@import") || strings.Contains(l, "javascript:") ||
		strings.Contains(l, "expression(") || strings.Contains(l, "\\") ||
		strings.Contains(l, "-moz-binding") || strings.Contains(l, "behavior:") {
		return false
	}
	// Every "url(" matches the pattern, since all after it is optional.
	for _, m := range cssURL.FindAllStringSubmatch(v, -1) {
		if !strings.HasPrefix(m[1], "#") {
			return false
		}
	}
	return true
}

func isAnimation(local string) bool {
	switch local {
	case "animate", "set", "animatetransform", "animatemotion", "animatecolor":
		return true
	}
	return false
}

// animatesUnsafe reports an animation that rewrites a link or a handler,
// the classic way round attribute filtering (<set attributeName="href"
// to="javascript:…">).
func animatesUnsafe(attrs []xml.Attr) bool {
	for _, a := range attrs {
		if strings.ToLower(a.Name.Local) != "attributename" {
			continue
		}
		v := strings.ToLower(strings.TrimSpace(a.Value))
		if i := strings.IndexByte(v, ':'); i >= 0 {
			v = v[i+1:]
		}
		if v == "href" || v == "src" || strings.HasPrefix(v, "on") || v == "style" {
			return true
		}
	}
	return false
}

func hasEntityDecl(d xml.Directive) bool {
	// Any mention refuses: a false positive costs a re-export, a miss an
	// entity expansion or an external fetch.
	return bytes.Contains(bytes.ToUpper(d), []byte("ENTITY"))
}

func escapeText(b *bytes.Buffer, t []byte) {
	for _, c := range t {
		switch c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteByte(c)
		}
	}
}

func escapeAttr(b *bytes.Buffer, v string) {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '"':
			b.WriteString("&quot;")
		case '\t':
			b.WriteString("&#x9;")
		case '\n':
			b.WriteString("&#xA;")
		case '\r':
			b.WriteString("&#xD;")
		default:
			b.WriteByte(c)
		}
	}
}
