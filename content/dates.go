package content

import (
	"fmt"
	"strings"
	"time"
)

// dateLayouts are tried in order. Layouts without a zone are read as UTC.
// The last ones cover the YAML timestamp forms Jekyll writes
// ("2016-03-22 12:00:00 -0500") and lower-case "t" separators.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 -0700 MST",
	"2006-01-02T15:04:05-0700",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
}

// parseDate reads a front matter date: a string in one of dateLayouts (or
// a time.Time). Fractional seconds are accepted in every layout. The result
// is in UTC.
func parseDate(v any) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC(), nil
	case string:
		s := strings.TrimSpace(x)
		if len(s) > 10 && s[10] == 't' {
			s = s[:10] + "T" + s[11:]
		}
		if strings.HasSuffix(s, "z") {
			s = s[:len(s)-1] + "Z"
		}
		for _, l := range dateLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return t.UTC(), nil
			}
		}
		return time.Time{}, fmt.Errorf("bad date %q: use RFC 3339 (2006-01-02T15:04:05Z07:00), 2006-01-02 or 2006-01-02 15:04:05", x)
	}
	return time.Time{}, fmt.Errorf("bad date %v: want a date string", v)
}

// ParseDate reads a date as front matter dates are read: a string in
// RFC 3339 or one of the shorter forms docs/content.md "Dates" lists. The result
// is in UTC.
func ParseDate(v any) (time.Time, error) { return parseDate(v) }
