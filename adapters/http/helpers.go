package http

// Helpers shared by the handlers: problem details from field errors,
// the 501 of an unwired module, and how numbers are written.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"counsel/domain"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
)

// enumNames lists the values of an enumeration with their codes, for
// schemas and messages: "Draft (1), ContractDesign (2), ...".
func enumNames[T interface {
	~int
	String() string
}](values []T) (names []string, described string) {
	parts := make([]string, len(values))
	for i, v := range values {
		names = append(names, v.String())
		parts[i] = fmt.Sprintf("%s (%d)", v, int(v))
	}
	return names, strings.Join(parts, ", ")
}

// need answers 501 in place of h when a module is not wired, so its
// routes (and the API reference) exist in every configuration.
func (s *server) need(available bool, what string, h http.HandlerFunc) http.Handler {
	if available {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.failf(w, r, domain.ENOTIMPLEMENTED, "%s not available in this configuration", what)
	})
}

// nonEmpty writes "" as null.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// detailed gives a validation error from the domain the detail of its
// field messages, like invalid.
func detailed(err error) error {
	var de *domain.Error
	if errors.As(err, &de) && de.Code == domain.EINVALID && len(de.Fields) > 0 {
		return invalid(de.Fields)
	}
	return err
}

// invalid is the 400 of field errors found by the adapter, whose detail
// repeats the messages so a client that reads only detail learns what is
// wrong (for instance which values an enumeration accepts).
func invalid(e domain.FieldErrors) error {
	if len(e) == 0 {
		return nil
	}
	names := make([]string, 0, len(e))
	for k := range e {
		names = append(names, k)
	}
	sort.Strings(names)
	var msgs []string
	for _, k := range names {
		msgs = append(msgs, e[k]...)
	}
	return &domain.Error{Code: domain.EINVALID, Message: strings.Join(msgs, "; "), Fields: e}
}

// money writes an amount with two places: 150000.00.
func money(d decimal.Decimal) json.Number {
	return json.Number(d.StringFixed(remuneration.MoneyPlaces))
}

// plain writes a ratio without trailing zeros: 0.75, 1, 85.5.
func plain(d decimal.Decimal) json.Number { return json.Number(d.String()) }

// years writes post-qualification years with two places, null when unknown.
func years(d *decimal.Decimal) *json.Number {
	if d == nil {
		return nil
	}
	v := json.Number(d.StringFixed(remuneration.PQYPlaces))
	return &v
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
