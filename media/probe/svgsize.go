package probe

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// svgDimensions reads the root element only. width/height count when they
// are plain numbers or px; otherwise the viewBox gives the size, and a
// single given side is completed from the viewBox aspect ratio. An SVG
// without any size is 0×0, not an error: it scales to anything.
func svgDimensions(r io.Reader) (int, int, error) {
	d := xml.NewDecoder(r)
	d.Strict = true
	for {
		tok, err := d.RawToken()
		if err != nil {
			return 0, 0, fmt.Errorf("%w: svg: no root element: %v", ErrInvalid, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "svg" {
				return 0, 0, fmt.Errorf("%w: svg: root element is <%s>", ErrInvalid, t.Name.Local)
			}
			return svgRootSize(t.Attr)
		case xml.CharData:
			if strings.TrimSpace(string(t)) != "" {
				return 0, 0, fmt.Errorf("%w: svg: text before the root element", ErrInvalid)
			}
		case xml.Directive:
			if hasEntityDecl(t) {
				return 0, 0, fmt.Errorf("%w: svg: entity declarations are not allowed", ErrInvalid)
			}
		}
	}
}

func svgRootSize(attrs []xml.Attr) (int, int, error) {
	var wAttr, hAttr, vbAttr string
	for _, a := range attrs {
		if a.Name.Space != "" {
			continue
		}
		switch a.Name.Local {
		case "width":
			wAttr = a.Value
		case "height":
			hAttr = a.Value
		case "viewBox":
			vbAttr = a.Value
		}
	}
	w, wok := svgLength(wAttr)
	h, hok := svgLength(hAttr)
	vw, vh, vbok := viewBox(vbAttr)
	switch {
	case wok && hok:
	case wok && vbok:
		h = w * vh / vw
	case hok && vbok:
		w = h * vw / vh
	case vbok:
		w, h = vw, vh
	default:
		return 0, 0, nil
	}
	return clampDim(w), clampDim(h), nil
}

// svgLength parses "120", "120.5" or "120px"; units that need a context
// (%, em, cm…) are not a pixel size.
func svgLength(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "px")
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

func viewBox(s string) (w, h float64, ok bool) {
	f := strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
	if len(f) != 4 {
		return 0, 0, false
	}
	w, err1 := strconv.ParseFloat(f[2], 64)
	h, err2 := strconv.ParseFloat(f[3], 64)
	if err1 != nil || err2 != nil || !(w > 0) || !(h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		return 0, 0, false
	}
	return w, h, true
}

// clampDim rounds to whole pixels and keeps absurd declared sizes from
// overflowing int; the size of a vector image is advisory.
func clampDim(v float64) int {
	const maxDim = 1 << 20
	switch {
	case !(v > 0):
		return 0
	case v > maxDim:
		return maxDim
	case v < 1:
		return 1
	}
	return int(math.Round(v))
}
