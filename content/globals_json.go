package content

import "encoding/json"

// MarshalJSON serves the settings' known fields and, beside them, every
// other top-level key of globals.yaml; a known field wins over an extra key
// of the same name.
func (g Globals) MarshalJSON() ([]byte, error) {
	type plain Globals
	known, err := json.Marshal(plain(g))
	if err != nil || len(g.Extra) == 0 {
		return known, err
	}
	var merged map[string]json.RawMessage
	if err := json.Unmarshal(known, &merged); err != nil {
		return nil, err
	}
	for k, v := range g.Extra {
		if _, taken := merged[k]; taken {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		merged[k] = b
	}
	return json.Marshal(merged)
}
