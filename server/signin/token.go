package signin

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// A token is a cookie's value: base64url(JSON) "." base64url(HMAC-SHA256
// of purpose and the JSON under the session secret). Every box holding
// the secret checks it; none stores anything.

var errToken = errors.New("not a token of this site")

func mac(secret []byte, purpose, payload string) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write([]byte(payload))
	return h.Sum(nil)
}

// seal signs v for purpose.
func seal(secret []byte, purpose string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	p := base64.RawURLEncoding.EncodeToString(b)
	return p + "." + base64.RawURLEncoding.EncodeToString(mac(secret, purpose, p)), nil
}

// open checks tok's signature for purpose and reads it into v.
func open(secret []byte, purpose, tok string, v any) error {
	if len(tok) > 4096 {
		return errToken
	}
	p, sig, ok := strings.Cut(tok, ".")
	if !ok {
		return errToken
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(secret, purpose, p)) {
		return errToken
	}
	b, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return errToken
	}
	if json.Unmarshal(b, v) != nil {
		return errToken
	}
	return nil
}

// csrfToken is the token a session's state-changing requests carry in
// X-CSRF-Token: bound to the session, unknown to another site's pages.
func csrfToken(secret []byte, sid string) string {
	return base64.RawURLEncoding.EncodeToString(mac(secret, "csrf", sid)[:24])
}
