package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"counsel/domain"
)

// errBodyTooLarge marks a body cut off by the size limit.
var errBodyTooLarge = &domain.Error{Code: domain.ETOOLARGE, Message: "the request body is too large"}

// bufPool holds encoding buffers: the hot reads (GET /api/me) then
// allocate no buffer per answer.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, contentType string, v any) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 64<<10 { // a large answer's buffer is left to the GC
			bufPool.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	b := buf.Bytes()
	if err != nil {
		status, contentType = http.StatusInternalServerError, "application/problem+json"
		b = []byte(`{"type":"/problems/internal","title":"Internal Server Error","status":500,"detail":"an internal error occurred"}` + "\n")
	}
	h := w.Header()
	h["Content-Type"] = []string{contentType} // canonical keys: no Set needed
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	w.Write(b)
}

// encode writes v as an application/json response.
func encode(w http.ResponseWriter, status int, v any) {
	writeJSON(w, status, "application/json", v)
}

// decode reads a JSON object body into v. Field names match
// case-insensitively and unknown fields are ignored (encoding/json's
// defaults, as docs/decisions.md §1 asks). Errors are EINVALID with a detail
// that says what is wrong, or ETOOLARGE past the body limit.
func decode(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errBodyTooLarge
		}
		return domain.Errorf(domain.EINVALID, "the request body could not be read")
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return domain.Errorf(domain.EINVALID, "a JSON request body is required")
	}
	if body[0] != '{' {
		return domain.Errorf(domain.EINVALID, "the request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return domain.Errorf(domain.EINVALID, "the request body has data after the JSON object")
	}
	return nil
}

// jsonError turns a decoding error into a client-facing EINVALID error.
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var fe *fieldError
	switch {
	case errors.As(err, &fe):
		return domain.Invalid(map[string][]string{fe.field: {fe.msg}})
	case errors.As(err, &se):
		return domain.Errorf(domain.EINVALID, "malformed JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "body"
		}
		return domain.Invalid(map[string][]string{field: {fmt.Sprintf("must be %s, not a JSON %s", jsonKind(te.Type.Kind().String()), te.Value)}})
	case errors.Is(err, io.ErrUnexpectedEOF):
		return domain.Errorf(domain.EINVALID, "malformed JSON: unexpected end of input")
	}
	return domain.Errorf(domain.EINVALID, "malformed JSON")
}

func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "an integer"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "bool":
		return "a boolean"
	case k == "string":
		return "a string"
	case k == "slice", k == "array":
		return "an array"
	case k == "struct", k == "map", k == "ptr":
		return "an object"
	}
	return "of another type"
}

// fieldError is returned by custom UnmarshalJSON methods to name the
// field and say what is wrong with its value.
type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

// Time is a date-time on the wire: written as RFC 3339 UTC with Z; read as
// RFC 3339 with any offset, a date-time without zone (UTC), or a plain date
// (midnight UTC).
type Time time.Time

// inputLayouts are the accepted forms, tried in order.
var inputLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

// parseTime parses one of the accepted date-time forms.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range inputLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date-time or a yyyy-mm-dd date", s)
}

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(time.RFC3339) + `"`), nil
}

// String is the time as pages print it: RFC 3339 UTC, as on the wire.
func (t Time) String() string { return time.Time(t).UTC().Format(time.RFC3339) }

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("must be a date-time string")
	}
	v, err := parseTime(s)
	if err != nil {
		return err
	}
	*t = Time(v)
	return nil
}

// timePtr converts an optional time for output.
func timePtr(t *time.Time) *Time {
	if t == nil || t.IsZero() {
		return nil
	}
	v := Time(*t)
	return &v
}

// Paging defaults and bounds (docs/decisions.md §1).
const (
	defaultLimit = 20
	maxLimit     = 100
)

// page is the paged list envelope.
type page[T any] struct {
	Items   []T   `json:"items"`
	Count   int64 `json:"count"`
	HasNext bool  `json:"hasNext"`
}

func newPage[T any](items []T, count int64, offset int64) page[T] {
	if items == nil {
		items = []T{}
	}
	return page[T]{Items: items, Count: count, HasNext: offset+int64(len(items)) < count}
}

// reply answers err as a problem, or v with status (no body for 204 or a
// nil v).
func (s *server) reply(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if status == http.StatusNoContent || v == nil {
		w.WriteHeader(status)
		return
	}
	encode(w, status, v)
}
