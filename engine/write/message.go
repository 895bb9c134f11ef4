package write

import (
	"strings"

	"github.com/folio-cms/folio/content/fault"
)

// MaxMessage bounds a commit message a client gives.
const MaxMessage = 4096

// reservedTrailers are the commit message trailer keys folio reads back
// as data (Repo.Trailers): Decap's status of an unpublished entry and its
// notes. Only folio writes them (AddTrailer, Options.Trailers); a line of
// a client's message that would read as one of them is dropped, so that
// a commit message cannot set a status or rewrite a note.
var reservedTrailers = []string{"decap-status", "decap-note"}

// TrailerLine is a trailer of a commit folio writes itself
// (Options.Trailers).
type TrailerLine struct {
	Key, Value string
}

// clientMessage checks a message a client gave (Options.Message and the
// like): at most MaxMessage bytes, no NUL (git cannot store it), and the
// lines that git would read as a reserved trailer dropped.
func clientMessage(msg string) (string, error) {
	if len(msg) > MaxMessage {
		return "", fault.New(fault.Invalid, "message: at most %d bytes", MaxMessage)
	}
	if strings.IndexByte(msg, 0) >= 0 {
		return "", fault.New(fault.Invalid, "message: a NUL byte cannot be in a commit message")
	}
	if !mentionsReserved(msg) {
		return msg, nil
	}
	lines := strings.Split(msg, "\n")
	keep := lines[:0]
	for _, l := range lines {
		if !reservedLine(l) {
			keep = append(keep, l)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n")), nil
}

// mentionsReserved is a cheap test before the line by line one.
func mentionsReserved(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "decap-")
}

// reservedLine tells whether git could read line as a reserved trailer
// ("Decap-Note: …", any case, spaces around the key, as git's trailer
// parser takes them).
func reservedLine(line string) bool {
	key, _, ok := strings.Cut(strings.TrimSpace(line), ":")
	if !ok {
		return false
	}
	key = strings.ToLower(strings.TrimSpace(key))
	for _, r := range reservedTrailers {
		if key == r {
			return true
		}
	}
	return false
}

// withTrailers is msg with folio's own trailers as its last paragraph.
func withTrailers(msg string, ts []TrailerLine) string {
	if len(ts) == 0 {
		return msg
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(msg, "\n"))
	b.WriteString("\n\n")
	for _, t := range ts {
		b.WriteString(t.Key + ": " + t.Value + "\n")
	}
	return b.String()
}

// checkMessage makes o.Message a client's message (clientMessage) and
// checks o.Trailers.
func (o *Options) checkMessage() error {
	msg, err := clientMessage(o.Message)
	if err != nil {
		return err
	}
	o.Message = msg
	for _, t := range o.Trailers {
		if err := checkTrailer(t.Key, t.Value); err != nil {
			return err
		}
	}
	return nil
}

// checkTrailer checks a trailer folio writes: a token key, a one-line
// value.
func checkTrailer(key, value string) error {
	if key == "" || strings.ContainsFunc(key, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-')
	}) {
		return fault.New(fault.Invalid, "invalid trailer key %q", key)
	}
	if value == "" || len(value) > MaxTrailerValue || strings.ContainsFunc(value, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fault.New(fault.Invalid, "a trailer value is one line of 1 to %d bytes", MaxTrailerValue)
	}
	return nil
}
