package write

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yamlValue is the yaml.Node of a value the API gave (JSON's shapes:
// maps of strings, lists, strings, float64, bool, nil), built directly:
// the same node yaml.Node.Encode makes, which marshals the value to YAML
// text and parses that back. That text indents every line by its depth,
// so a deep or wide value cost seconds and hundreds of megabytes before
// the capped encoder could refuse it (issue 29); this costs a few
// allocations a value. Other types go through yaml.Node.Encode.
func yamlValue(v any) (*yaml.Node, error) {
	switch v := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if len(v) == 0 {
			n.Style = yaml.FlowStyle
			return n, nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, yamlKeyCompare)
		n.Content = make([]*yaml.Node, 0, 2*len(keys))
		for _, k := range keys {
			kn, err := yamlValue(k)
			if err != nil {
				return nil, err
			}
			vn, err := yamlValue(v[k])
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, kn, vn)
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if len(v) == 0 {
			n.Style = yaml.FlowStyle
			return n, nil
		}
		n.Content = make([]*yaml.Node, 0, len(v))
		for _, e := range v {
			en, err := yamlValue(e)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, en)
		}
		return n, nil
	case string:
		if !utf8.ValidString(v) {
			break
		}
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		// As yaml.v3's encoder writes a string: a literal block when it
		// has lines, quoted when YAML 1.1 would read it as a number or a
		// bool; the encoder quotes the rest that YAML 1.2 would not read
		// as a string (the tag asks for one).
		switch {
		case strings.Contains(v, "\n"):
			n.Style = yaml.LiteralStyle
		case isBase60Float(v) || isOldBool(v):
			n.Style = yaml.DoubleQuotedStyle
		}
		return n, nil
	case float64:
		s := strconv.FormatFloat(v, 'g', -1, 64)
		tag := "!!float"
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		default:
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				tag = "!!int"
			}
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return &n, nil
}

// isBase60Float and isOldBool are yaml.v3's (encode.go): the strings its
// encoder quotes for YAML 1.1 readers.
func isBase60Float(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c == '+' || c == '-' || c >= '0' && c <= '9') || strings.IndexByte(s, ':') < 0 {
		return false
	}
	return base60float.MatchString(s)
}

var base60float = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)

func isOldBool(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON",
		"n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return true
	}
	return false
}

// yamlKeyCompare orders string keys as yaml.v3's encoder does (sorter.go,
// keyList.Less): letters by code point, runs of digits by their number.
func yamlKeyCompare(a, b string) int {
	switch {
	case a == b:
		return 0
	case yamlKeyLess(a, b):
		return -1
	}
	return 1
}

func yamlKeyLess(a, b string) bool {
	ar, br := []rune(a), []rune(b)
	digits := false
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			digits = unicode.IsDigit(ar[i])
			continue
		}
		al := unicode.IsLetter(ar[i])
		bl := unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			if digits {
				return al
			}
			return bl
		}
		var ai, bi int
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an = 1
					bn = 1
					break
				}
			}
		}
		for ai = i; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for bi = i; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}
