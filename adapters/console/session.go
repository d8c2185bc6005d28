package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
)

// Cookie names. counsel_session carries the console session; counsel_pre
// binds the sign-in form's CSRF token before there is a session;
// counsel_flash carries a one-line message across a redirect;
// counsel_idp holds the identity-provider flow's state, nonce and PKCE
// verifier between the redirect and the callback.
const (
	sessionCookie = "counsel_session"
	preCookie     = "counsel_pre"
	flashCookie   = "counsel_flash"
	idpCookie     = "counsel_idp"
)

func (c *console) setCookie(w http.ResponseWriter, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: c.secure, SameSite: http.SameSiteLaxMode})
}

func (c *console) clearCookie(w http.ResponseWriter, name string) { c.setCookie(w, name, "", -1) }

// session returns the caller of the request's session cookie: false
// without a live session, an error only when it could not be checked.
func (c *console) session(r *http.Request) (account.Principal, bool, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return account.Principal{}, false, nil
	}
	p, err := c.svc.Accounts.ConsoleAuthenticate(r.Context(), ck.Value)
	if domain.ErrorCode(err) == domain.EUNAUTHORIZED {
		return account.Principal{}, false, nil
	} else if err != nil {
		return account.Principal{}, false, err
	}
	return p, true, nil
}

func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// mac is the console's keyed hash of a purpose and a value.
func (c *console) mac(purpose, v string) string {
	m := hmac.New(sha256.New, c.opts.Key)
	m.Write([]byte(purpose + "\x00" + v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// sessionToken is the CSRF token of a signed-in session.
func (c *console) sessionToken(sessionID string) string { return c.mac("csrf-session", sessionID) }

// preToken is the CSRF token of the sign-in forms, bound to the
// counsel_pre cookie (set here when absent).
func (c *console) preToken(w http.ResponseWriter, r *http.Request) string {
	v := ""
	if ck, err := r.Cookie(preCookie); err == nil && len(ck.Value) >= 32 {
		v = ck.Value
	} else {
		v = randomString()
		c.setCookie(w, preCookie, v, 0)
	}
	return c.mac("csrf-pre", v)
}

// validCSRF compares the form's token with the expected one in constant
// time. On the sign-in forms the expected one comes from counsel_pre as
// sent by the browser (not one set just now).
func (c *console) validCSRF(r *http.Request, p *page) bool {
	got := r.PostForm.Get("csrf")
	want := ""
	if p.Principal.SessionID != "" {
		want = p.CSRF
	} else if ck, err := r.Cookie(preCookie); err == nil && ck.Value != "" {
		want = c.mac("csrf-pre", ck.Value)
	}
	return want != "" && hmac.Equal([]byte(got), []byte(want))
}

// setFlash stores a message for the next page, signed so that only the
// console's own messages are shown.
func (c *console) setFlash(w http.ResponseWriter, msg string) {
	v := base64.RawURLEncoding.EncodeToString([]byte(msg))
	c.setCookie(w, flashCookie, v+"."+c.mac("flash", v), 60)
}

// takeFlash returns and clears the message left by the previous answer.
func (c *console) takeFlash(w http.ResponseWriter, r *http.Request) string {
	ck, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	c.clearCookie(w, flashCookie)
	v, sig, ok := strings.Cut(ck.Value, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(c.mac("flash", v))) {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return ""
	}
	return string(b)
}
