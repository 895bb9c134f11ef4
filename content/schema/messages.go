package schema

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// plain is the message of a violation as an editor reads it: what the
// model wants, what the document has, what to do; the JSON Schema
// library's own words for the kinds it does not name.
func plain(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.MaxLength:
		return fmt.Sprintf("at most %d characters, this has %d: shorten it by %d", k.Want, k.Got, k.Got-k.Want)
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("at least %d characters, this has %d: lengthen it", k.Want, k.Got)
	case *kind.Pattern:
		return fmt.Sprintf("%q does not match the pattern %s the model sets", clip(k.Got), k.Want)
	case *kind.Maximum:
		return fmt.Sprintf("at most %s, this is %s", num(k.Want), num(k.Got))
	case *kind.Minimum:
		return fmt.Sprintf("at least %s, this is %s", num(k.Want), num(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("less than %s, this is %s", num(k.Want), num(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("more than %s, this is %s", num(k.Want), num(k.Got))
	case *kind.MaxItems:
		return fmt.Sprintf("at most %d entries, this has %d: remove %d", k.Want, k.Got, k.Got-k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("at least %d entries, this has %d: add %d", k.Want, k.Got, k.Want-k.Got)
	case *kind.Enum:
		vs := make([]string, 0, len(k.Want))
		for _, v := range k.Want {
			vs = append(vs, fmt.Sprint(v))
		}
		return fmt.Sprintf("%s is not one of the values allowed: %s", clip(fmt.Sprint(k.Got)), strings.Join(vs, ", "))
	}
	return k.LocalizedString(printer)
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

func num(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
