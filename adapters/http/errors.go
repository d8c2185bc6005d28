package http

import (
	"errors"
	"math"
	"net/http"
	"strconv"

	"counsel/domain"
)

// problem is an RFC 9457 problem document.
type problem struct {
	Type   string              `json:"type"`
	Title  string              `json:"title"`
	Status int                 `json:"status"`
	Detail string              `json:"detail"`
	Errors map[string][]string `json:"errors,omitempty"`
}

// codes maps each domain error code to its status and problem type: the
// one place where application errors become HTTP.
var codes = map[string]struct {
	status int
	typ    string
}{
	domain.EINVALID:        {http.StatusBadRequest, "/problems/validation"},
	domain.EUNAUTHORIZED:   {http.StatusUnauthorized, "/problems/unauthorized"},
	domain.EFORBIDDEN:      {http.StatusForbidden, "/problems/forbidden"},
	domain.ENOTFOUND:       {http.StatusNotFound, "/problems/not-found"},
	domain.ECONFLICT:       {http.StatusConflict, "/problems/conflict"},
	domain.ETOOLARGE:       {http.StatusRequestEntityTooLarge, "/problems/payload-too-large"},
	domain.EUNSUPPORTED:    {http.StatusUnsupportedMediaType, "/problems/unsupported-media-type"},
	domain.ERATELIMITED:    {http.StatusTooManyRequests, "/problems/rate-limited"},
	domain.EUPSTREAM:       {http.StatusBadGateway, "/problems/upstream"},
	domain.ENOTIMPLEMENTED: {http.StatusNotImplemented, "/problems/upstream"},
	domain.EINTERNAL:       {http.StatusInternalServerError, "/problems/internal"},
}

// writeProblem writes a problem document with the given status.
func writeProblem(w http.ResponseWriter, p problem) {
	if p.Title == "" {
		p.Title = http.StatusText(p.Status)
	}
	if p.Status == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	writeJSON(w, p.Status, "application/problem+json", p)
}

// fail answers err as a problem. Internal errors are logged with the
// request id and answered with a generic detail.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := domain.ErrorCode(err)
	if errors.Is(err, errBodyTooLarge) {
		code = domain.ETOOLARGE
	}
	c, ok := codes[code]
	if !ok {
		c = codes[domain.EINTERNAL]
	}
	p := problem{Type: c.typ, Status: c.status, Detail: domain.ErrorMessage(err)}
	var de *domain.Error
	if errors.As(err, &de) {
		p.Errors = de.Fields
		if de.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(de.RetryAfter.Seconds()))))
		}
	}
	if code == domain.EINTERNAL {
		s.log.ErrorContext(r.Context(), "internal error", "request_id", requestID(r.Context()), "err", err)
		p.Detail = "an internal error occurred; the request id is " + requestID(r.Context())
	} else if code == domain.EUPSTREAM && de != nil && de.Err != nil {
		s.log.WarnContext(r.Context(), "provider failure", "request_id", requestID(r.Context()), "err", de.Err)
	}
	if code == domain.EUNAUTHORIZED && r.Header.Get("Authorization") != "" {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
	if code == domain.ERATELIMITED && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	if code == domain.ETOOLARGE && p.Detail == domain.ErrorMessage(errors.New("")) {
		p.Detail = "the request body is too large"
	}
	writeProblem(w, p)
}

// failf answers a problem for a code with a message.
func (s *server) failf(w http.ResponseWriter, r *http.Request, code, format string, args ...any) {
	s.fail(w, r, domain.Errorf(code, format, args...))
}
