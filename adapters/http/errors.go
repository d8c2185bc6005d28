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
	Type   string              `json:"type" ref:"ProblemType"`
	Title  string              `json:"title"`
	Status int                 `json:"status"`
	Detail string              `json:"detail"`
	Errors map[string][]string `json:"errors,omitempty" doc:"messages per field, for validation problems"`
}

// problemTypes is the problem type of each status: one type per status,
// so a client can switch on either.
var problemTypes = map[int]string{
	http.StatusBadRequest:            "/problems/validation",
	http.StatusUnauthorized:          "/problems/unauthorized",
	http.StatusForbidden:             "/problems/forbidden",
	http.StatusNotFound:              "/problems/not-found",
	http.StatusMethodNotAllowed:      "/problems/method-not-allowed",
	http.StatusConflict:              "/problems/conflict",
	http.StatusRequestEntityTooLarge: "/problems/payload-too-large",
	http.StatusUnsupportedMediaType:  "/problems/unsupported-media-type",
	http.StatusTooManyRequests:       "/problems/rate-limited",
	http.StatusInternalServerError:   "/problems/internal",
	http.StatusNotImplemented:        "/problems/not-implemented",
	http.StatusBadGateway:            "/problems/upstream",
	http.StatusServiceUnavailable:    "/problems/unavailable",
}

// reauthRequired is the type of the one 403 a client can cure itself:
// re-authenticate (POST /api/account/reauthenticate), then retry.
const reauthRequired = "/problems/reauthentication-required"

// codes maps each domain error code to its status: the one place where
// application errors become HTTP.
var codes = map[string]int{
	domain.EINVALID:        http.StatusBadRequest,
	domain.EUNAUTHORIZED:   http.StatusUnauthorized,
	domain.EFORBIDDEN:      http.StatusForbidden,
	domain.EREAUTH:         http.StatusForbidden,
	domain.ENOTFOUND:       http.StatusNotFound,
	domain.ECONFLICT:       http.StatusConflict,
	domain.ETOOLARGE:       http.StatusRequestEntityTooLarge,
	domain.EUNSUPPORTED:    http.StatusUnsupportedMediaType,
	domain.ERATELIMITED:    http.StatusTooManyRequests,
	domain.EUPSTREAM:       http.StatusBadGateway,
	domain.ENOTIMPLEMENTED: http.StatusNotImplemented,
	domain.EINTERNAL:       http.StatusInternalServerError,
}

// writeProblem writes a problem document with the given status; its type
// is the status's.
func writeProblem(w http.ResponseWriter, p problem) {
	if p.Type == "" {
		p.Type = problemTypes[p.Status]
	}
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
	status, ok := codes[code]
	if !ok {
		code, status = domain.EINTERNAL, http.StatusInternalServerError
	}
	p := problem{Status: status, Detail: domain.ErrorMessage(err)}
	if code == domain.EREAUTH {
		p.Type = reauthRequired
	}
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
