package http

import (
	"net/http"
	"strings"
)

// Framing (docs/decisions.md §12). A page inside another site's frame can be
// dressed up to make its user click (clickjacking), so no answer may be
// framed by another site, with one exception: the embedded signer's pages
// and their documents may be framed by the firm's own sites listed in
// COUNSEL_FRAME_ANCESTORS.

// FrameGuard makes every answer of next refuse framing: it adds
// frame-ancestors 'none' to the answer's Content-Security-Policy (or
// sends one) and X-Frame-Options: DENY, unless the handler set its own
// frame-ancestors and X-Frame-Options. It is applied to every answer,
// not only text/html ones, so a page added later, a sniffed error body,
// or another adapter's page cannot forget it. Applying it twice is
// harmless: the inner one sees the outer's writer and adds nothing.
func FrameGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(*frameWriter); ok {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&frameWriter{ResponseWriter: w}, r)
	})
}

// frameWriter completes the framing headers when the headers are written.
type frameWriter struct {
	http.ResponseWriter
	done bool
}

func (w *frameWriter) guard() {
	if w.done {
		return
	}
	w.done = true
	h := w.Header()
	// Canonical keys, read and written directly: this runs on every answer.
	switch csp := h["Content-Security-Policy"]; {
	case len(csp) == 0 || csp[0] == "":
		h["Content-Security-Policy"] = frameNone
	case !strings.Contains(csp[0], "frame-ancestors"):
		h["Content-Security-Policy"] = []string{csp[0] + "; frame-ancestors 'none'"}
	}
	if x := h["X-Frame-Options"]; len(x) == 0 || x[0] == "" {
		h["X-Frame-Options"] = deny
	}
}

// The framing headers' usual values, shared: header values are never
// changed in place.
var (
	frameNone = []string{"frame-ancestors 'none'"}
	deny      = []string{"DENY"}
)

func (w *frameWriter) WriteHeader(code int) {
	w.guard()
	w.ResponseWriter.WriteHeader(code)
}

func (w *frameWriter) Write(b []byte) (int, error) {
	w.guard()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *frameWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
