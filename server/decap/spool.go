package decap

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/folio-cms/folio/content/fault"
)

// An RPC body is read as a stream (issue 29): persistMedia and
// persistEntry carry files as base64 strings of up to the upload limit,
// which decoding whole would hold several times over (the body, the
// params, the string). bodyReader passes the JSON text to the decoder,
// but for the value of a "content" key (an asset's base64) of a
// persistMedia or persistEntry call longer than SpoolAt bytes: that
// string goes to a temporary file of the media library as it arrives,
// and the decoder reads a placeholder string instead, which upload
// resolves to the file and decodes as a stream. Everything else the
// decoder reads is bounded by TextLimit. The reader also reads the
// action before the params: a persistMedia by a caller without
// media:write is refused there, before its params are read.

// Defaults of the body reader's limits.
const (
	// SpoolAt is the length from which an asset's content is spooled.
	SpoolAt = 64 << 10
	// TextLimit bounds what an RPC body holds beyond its spooled assets:
	// the entries' text (JSON-escaped, two locales' files of
	// content.MaxFileSize), the JSON around it.
	TextLimit = 8 << 20
	// HeavyText is the text from which a body is heavy (CallStream).
	HeavyText = 256 << 10
)

// maxActionBytes bounds the strings the reader keeps (keys, the action).
const maxActionBytes = 64

// spool holds the asset contents a body spooled, each a temporary file
// of the JSON string's text (still escaped).
type spool struct {
	nonce string
	files []*os.File
}

// placeholder is the string the decoder reads for spooled file i.
func (sp *spool) placeholder(i int) string {
	return "\x00folio-spool-" + sp.nonce + "-" + strconv.Itoa(i)
}

// file is the spooled file a placeholder names, or nil.
func (sp *spool) file(s string) *os.File {
	if sp == nil || len(s) == 0 || s[0] != 0 {
		return nil
	}
	for i, f := range sp.files {
		if s == sp.placeholder(i) {
			return f
		}
	}
	return nil
}

// close removes the spooled files.
func (sp *spool) close() {
	if sp == nil {
		return
	}
	for _, f := range sp.files {
		f.Close()
		os.Remove(f.Name())
	}
	sp.files = nil
}

// bodyReader is the lexer that streams an RPC body to the decoder (see
// above). It tracks only what it needs: whether it is in a string, the
// nesting depth, the last key and the top-level action.
type bodyReader struct {
	src *bufio.Reader
	// newFile makes a spool file; nil: nothing is spooled (no media
	// library), a long content is text like any other.
	newFile func() (*os.File, error)
	// canMedia tells whether the caller may upload media.
	canMedia bool
	// allow, if not nil, checks the caller's scopes for the top-level
	// action when its params begin (when the action came first), so a
	// refused call is answered before its params are read.
	allow func(action string) error
	// heavy, if not nil, is called once when the text passes HeavyText
	// (CallStream's heavy).
	heavy func() error
	spool *spool

	out, buf []byte
	err      error
	text     int // bytes passed to the decoder

	inString, escaped bool
	str               []byte // the current string's first bytes
	strLong           bool   // longer than str holds
	afterString       bool   // the last token was a string (a key if ':' follows)
	key               string // the last key read, if short
	value             bool   // after a ':' : a value of key comes
	depth             int
	action            string // the top-level action, once read
	actionValue       bool   // the string being read is the top-level action
}

func newBodyReader(r io.Reader, newFile func() (*os.File, error), canMedia bool) (*bodyReader, error) {
	nonce := make([]byte, 12)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return &bodyReader{src: bufio.NewReaderSize(r, 64<<10), newFile: newFile, canMedia: canMedia,
		spool: &spool{nonce: hex.EncodeToString(nonce)}}, nil
}

func (b *bodyReader) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.step()
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

// spools tells whether the action read so far sends files.
func (b *bodyReader) spools() bool {
	return b.newFile != nil && sendsAssets(b.action)
}

// step lexes up to 32 KB of the body into b.out.
func (b *bodyReader) step() {
	b.buf = b.buf[:0]
	for len(b.buf) < 32<<10 && b.err == nil {
		c, err := b.src.ReadByte()
		if err != nil {
			b.err = err
			break
		}
		if b.inString {
			b.buf = append(b.buf, c)
			b.stringByte(c)
			continue
		}
		if c == '"' && b.value && b.key == "content" && b.depth > 1 && b.spools() {
			b.value = false
			b.content()
			continue
		}
		b.buf = append(b.buf, c)
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			b.inString, b.str, b.strLong = true, b.str[:0], false
			b.actionValue = b.value && b.depth == 1 && b.key == "action"
			b.value = false
			continue
		case ':':
			b.value = b.afterString
			if b.value && b.depth == 1 && b.key == "params" && b.action == "persistMedia" && !b.canMedia {
				b.err = fault.New(fault.Forbidden, "uploading media needs the scope media:write")
			} else if b.value && b.depth == 1 && b.key == "params" && b.action != "" && b.allow != nil {
				if err := b.allow(b.action); err != nil {
					b.err = err
				}
			}
		case '{', '[':
			b.depth++
			b.value = false
		case '}', ']':
			b.depth--
			b.value = false
		default:
			b.value = false
		}
		b.afterString = false
	}
	b.text += len(b.buf)
	if b.text > TextLimit && (b.err == nil || b.err == io.EOF) {
		b.err = fault.New(fault.TooLarge, "RPC body: over %d bytes besides the assets' content", TextLimit)
	}
	if b.text >= HeavyText && b.heavy != nil && b.err == nil {
		// A long entry: decoded whole (several copies), so only a few
		// at once.
		heavy := b.heavy
		b.heavy = nil
		b.err = heavy()
	}
	b.out = b.buf
}

// stringByte reads byte c of a string (the opening quote read).
func (b *bodyReader) stringByte(c byte) {
	switch {
	case b.escaped:
		b.escaped = false
	case c == '\\':
		b.escaped = true
	case c == '"':
		b.inString = false
		b.afterString = true
		s := string(b.str)
		if b.strLong {
			s = ""
		}
		if b.actionValue {
			b.action, b.actionValue = s, false
		}
		b.key = s
		return
	}
	if len(b.str) < maxActionBytes {
		b.str = append(b.str, c)
	} else {
		b.strLong = true
	}
}

// content reads the string value of a "content" key (its opening quote
// read): kept as text when short, else spooled.
func (b *bodyReader) content() {
	var head []byte
	var f *os.File
	trail := 0 // backslashes ending what was read
	for {
		chunk, err := b.src.ReadSlice('"')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			b.err = err
			if errors.Is(err, io.EOF) {
				b.err = io.ErrUnexpectedEOF
			}
			return
		}
		closed := err == nil
		body := chunk
		if closed {
			body = chunk[:len(chunk)-1]
		}
		trail = trailing(body, trail)
		if closed && trail%2 == 1 {
			// An escaped quote: part of the string.
			closed, body, trail = false, chunk, 0
		}
		if f == nil {
			head = append(head, body...)
			if len(head) > SpoolAt {
				if f, b.err = b.startSpool(head); b.err != nil {
					return
				}
				head = nil
			}
		} else if _, werr := f.Write(body); werr != nil {
			b.err = fmt.Errorf("spooling an asset: %w", werr)
			return
		}
		if closed {
			break
		}
	}
	b.buf = append(b.buf, '"')
	if f != nil {
		b.buf = append(b.buf, `\u0000`...)
		b.buf = append(b.buf, b.spool.placeholder(len(b.spool.files) - 1)[1:]...)
	} else {
		b.buf = append(b.buf, head...)
	}
	b.buf = append(b.buf, '"')
	b.afterString = true
	b.key = ""
}

// startSpool makes the spool file of a content, with its first bytes.
func (b *bodyReader) startSpool(head []byte) (*os.File, error) {
	if !b.canMedia {
		return nil, fault.New(fault.Forbidden, "uploading media needs the scope media:write")
	}
	f, err := b.newFile()
	if err != nil {
		return nil, fmt.Errorf("spooling an asset: %w", err)
	}
	b.spool.files = append(b.spool.files, f)
	if _, err := f.Write(head); err != nil {
		return nil, fmt.Errorf("spooling an asset: %w", err)
	}
	return f, nil
}

// trailing counts the backslashes that end what was read, after body.
func trailing(body []byte, before int) int {
	n := len(body) - len(bytes.TrimRight(body, `\`))
	if n == len(body) {
		return before + n
	}
	return n
}

// unescaper reads a spooled JSON string's text as the string's bytes.
// A bad escape reads as base64.CorruptInputError: the text of an asset
// is base64, and upload says so.
type unescaper struct {
	r       *bufio.Reader
	pending []byte
}

func (u *unescaper) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(u.pending) > 0 {
			c := copy(p[n:], u.pending)
			u.pending = u.pending[c:]
			n += c
			continue
		}
		c, err := u.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if c != '\\' {
			p[n] = c
			n++
			continue
		}
		e, err := u.r.ReadByte()
		if err != nil {
			return n, base64.CorruptInputError(0)
		}
		switch e {
		case '"', '\\', '/':
			p[n] = e
		case 'b':
			p[n] = '\b'
		case 'f':
			p[n] = '\f'
		case 'n':
			p[n] = '\n'
		case 'r':
			p[n] = '\r'
		case 't':
			p[n] = '\t'
		case 'u':
			var hx [4]byte
			if _, err := io.ReadFull(u.r, hx[:]); err != nil {
				return n, base64.CorruptInputError(0)
			}
			v, err := strconv.ParseUint(string(hx[:]), 16, 32)
			if err != nil {
				return n, base64.CorruptInputError(0)
			}
			u.pending = utf8.AppendRune(u.pending[:0], rune(v))
			continue
		default:
			return n, base64.CorruptInputError(0)
		}
		n++
	}
	return n, nil
}

// contentReader is the bytes of an asset's content: its spooled file
// decoded as a stream, or its string.
func (sp *spool) contentReader(a asset) (io.Reader, error) {
	f := sp.file(a.Content)
	if f == nil {
		return base64.NewDecoder(base64.StdEncoding, strings.NewReader(a.Content)), nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return base64.NewDecoder(base64.StdEncoding, &unescaper{r: bufio.NewReaderSize(f, 64<<10)}), nil
}
