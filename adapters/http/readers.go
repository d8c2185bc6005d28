package http

// Readers of requests shared by the handlers: optional body fields
// (Opt, numberIn, dateIn), query parameters, path ids, and decodeAs.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/decimal"
)

// numberIn is a JSON number field kept as written and parsed afterwards,
// so that a wrong value is a 400 naming the field. A string holding a
// number ("150000.00") is accepted too.
type numberIn struct {
	set, null bool
	raw       string
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *numberIn) UnmarshalJSON(b []byte) error {
	n.set = true
	switch {
	case string(b) == "null":
		n.null = true
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &n.raw); err != nil {
			n.raw = string(b)
		}
	default:
		n.raw = string(b)
	}
	return nil
}

// value parses the number; on failure it records a field error.
func (n numberIn) value(field string, f domain.FieldErrors) (decimal.Decimal, bool) {
	d, err := decimal.Parse(strings.TrimSpace(n.raw))
	if err != nil {
		f.Add(field, field+" must be a number")
		return decimal.Decimal{}, false
	}
	return d, true
}

// optional returns the number when given, nil when absent; null is an
// error since these numbers have no "unknown" value.
func (n numberIn) optional(field string, f domain.FieldErrors) *decimal.Decimal {
	if !n.set {
		return nil
	}
	if n.null {
		f.Add(field, field+" must be a number, not null")
		return nil
	}
	if d, ok := n.value(field, f); ok {
		return &d
	}
	return nil
}

// required returns the number, recording "field is required" when it is
// absent or null.
func (n numberIn) required(field string, f domain.FieldErrors) decimal.Decimal {
	if !n.set || n.null {
		f.Add(field, field+" is required")
		return decimal.Decimal{}
	}
	d, _ := n.value(field, f)
	return d
}

// dateIn is a date-time field parsed afterwards so that a wrong value is a
// 400 naming the field.
type dateIn struct {
	set, null bool
	raw       string
	notString bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *dateIn) UnmarshalJSON(b []byte) error {
	d.set = true
	switch {
	case string(b) == "null":
		d.null = true
	case len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &d.raw) == nil:
	default:
		d.notString = true
	}
	return nil
}

// value parses the date-time: the zero time when absent or null.
func (d dateIn) value(field string, f domain.FieldErrors) time.Time {
	if !d.set || d.null {
		return time.Time{}
	}
	t, err := parseTime(d.raw)
	if d.notString || err != nil {
		f.Add(field, field+" must be an RFC 3339 date-time or a yyyy-mm-dd date")
		return time.Time{}
	}
	return t
}

// optional returns nil when absent, a pointer to the zero time when null
// (which removes the value), and the parsed time otherwise.
func (d dateIn) optional(field string, f domain.FieldErrors) *time.Time {
	if !d.set {
		return nil
	}
	t := d.value(field, f)
	return &t
}

func optString(o Opt[string]) *string {
	if !o.Set {
		return nil
	}
	return &o.V // null gives "": the field is cleared
}

func optBool(o Opt[bool], field string, f domain.FieldErrors) *bool {
	if !o.Set {
		return nil
	}
	if o.Null {
		f.Add(field, field+" must be true or false, not null")
		return nil
	}
	return &o.V
}

// Opt is an optional request field that tells absent (Set false) from
// null (Set true, Null true), for updates where absent means unchanged.
type Opt[T any] struct {
	Set  bool
	Null bool
	V    T
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.V)
}

// query returns r's query parameters with lower-cased names, since
// parameter names match case-insensitively.
func query(r *http.Request) url.Values {
	q := url.Values{}
	for k, vs := range r.URL.Query() {
		k = strings.ToLower(k)
		q[k] = append(q[k], vs...)
	}
	return q
}

// paging reads Limit and Offset. A negative or non-integer value is an
// error; a Limit above 100, however large, is clamped to 100.
func paging(q url.Values, f domain.FieldErrors) (limit, offset int64) {
	limit, offset = defaultLimit, 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-"):
			limit = maxLimit
		case err != nil:
			f.Add("Limit", "Limit must be a non-negative integer")
		case n < 0:
			f.Add("Limit", "Limit must be a non-negative integer")
		default:
			limit = min(n, maxLimit)
		}
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			f.Add("Offset", "Offset must be a non-negative integer")
		} else {
			offset = n
		}
	}
	return limit, offset
}

// queryBool reads an optional boolean parameter.
func queryBool(q url.Values, name, display string, f domain.FieldErrors) *bool {
	v := q.Get(strings.ToLower(name))
	if v == "" {
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		f.Add(display, display+" must be true or false")
		return nil
	}
	return &b
}

// queryInt reads an optional integer parameter.
func queryInt(q url.Values, name, display string, f domain.FieldErrors) *int64 {
	v := q.Get(strings.ToLower(name))
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		f.Add(display, display+" must be an integer")
		return nil
	}
	return &n
}

// pathID reads a positive integer path variable; anything else is a 404,
// since no resource has such an id.
func pathID(r *http.Request, name string) (int64, error) {
	v := muxVars(r)[name]
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, domain.Errorf(domain.ENOTFOUND, "no resource has id %q", v)
	}
	return n, nil
}

// pathIDs reads two ids of the path, the first one first: a bad first id
// is the error whatever the second.
func pathIDs(r *http.Request, first, second string) (int64, int64, error) {
	a, err := pathID(r, first)
	if err != nil {
		return 0, 0, err
	}
	b, err := pathID(r, second)
	return a, b, err
}

// decodePermissionNames reads a permission set given as a JSON array of
// names or as {"permissions": [...]}.
func decodePermissionNames(r *http.Request) ([]string, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errBodyTooLarge
		}
		return nil, domain.Errorf(domain.EINVALID, "the request body could not be read")
	}
	body = bytes.TrimSpace(body)
	var names []string
	if len(body) > 0 && body[0] == '[' {
		if err := json.Unmarshal(body, &names); err != nil {
			return nil, domain.Invalid(map[string][]string{"permissions": {"must be an array of permission names"}})
		}
		return names, nil
	}
	var in struct {
		Permissions []string `json:"permissions"`
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	if in.Permissions == nil {
		return nil, domain.Invalid(map[string][]string{"permissions": {"permissions is required"}})
	}
	return in.Permissions, nil
}

// decodeAs decodes a JSON body of type B and converts it with conv, for
// handlers whose wire shape differs from the use case's input.
func decodeAs[B, V any](r *http.Request, conv func(B) (V, error)) (V, error) {
	var b B
	if err := decode(r, &b); err != nil {
		var zero V
		return zero, err
	}
	return conv(b)
}
