// Package domain holds Counsel's pure business types and rules. It imports
// only the standard library: no SQL, no HTTP, no JSON tags, and no clock or
// randomness of its own (callers pass the time and random sources in).
//
// Errors that cross a port or a use case are *Error values carrying a Code;
// the HTTP adapter maps each code to one status in one place. Anything that
// is not an *Error is internal and its text never reaches a client.
package domain

import (
	"errors"
	"fmt"
	"time"
)

// Error codes shared by every module. Each maps to one HTTP status.
const (
	EINVALID        = "invalid"                   // 400: malformed or invalid input
	EUNAUTHORIZED   = "unauthorized"              // 401: missing or bad credentials
	EFORBIDDEN      = "forbidden"                 // 403: authenticated but not permitted
	EREAUTH         = "reauthentication_required" // 403: the session must authenticate again first
	ENOTFOUND       = "not_found"                 // 404: unknown id
	ECONFLICT       = "conflict"                  // 409: clashes with the current state
	ETOOLARGE       = "too_large"                 // 413: body or file too large
	EUNSUPPORTED    = "unsupported"               // 415: media type not accepted
	ERATELIMITED    = "rate_limited"              // 429: too many requests
	EINTERNAL       = "internal"                  // 500: a bug or an unexpected failure
	ENOTIMPLEMENTED = "not_implemented"           // 501: not offered by this configuration
	EUPSTREAM       = "upstream"                  // 502: the signing or identity provider failed
)

// Error is an application error with a code that clients may act on and a
// message that is safe to show them.
type Error struct {
	Code    string
	Message string
	// Fields holds per-field validation messages (EINVALID only).
	Fields map[string][]string
	// RetryAfter tells a rate-limited client when to come back (ERATELIMITED).
	RetryAfter time.Duration
	// Err is an underlying cause for the server log; never shown to clients.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf is a helper that returns an *Error with a formatted message.
func Errorf(code string, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an EINVALID error with per-field messages. It returns nil
// when fields is empty, so validators can end with `return domain.Invalid(f)`.
func Invalid(fields map[string][]string) error {
	if len(fields) == 0 {
		return nil
	}
	return &Error{Code: EINVALID, Message: "the request has invalid fields", Fields: fields}
}

// ErrorCode returns the code of the first *Error in err's chain, "" for nil
// and EINTERNAL for any other error.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the client-safe message of err. Errors that are not
// *Error values give a generic text so internal details never leak.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "an internal error occurred"
}

// FieldErrors collects validation messages by field name.
type FieldErrors map[string][]string

// Add records msg for field.
func (f FieldErrors) Add(field, msg string) { f[field] = append(f[field], msg) }

// Err returns the collected errors as an EINVALID *Error, or nil if none.
func (f FieldErrors) Err() error { return Invalid(f) }
