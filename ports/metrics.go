package ports

import "time"

// RequestObserver hears every HTTP request once it is answered. route is
// the route template that matched ("/api/users/{id}"), never the raw
// path, or "unmatched" for any path no route knows; method is the
// request's method, status the answer's. It runs on every request, so an
// implementation must be cheap and safe for concurrent use; it never
// fails.
type RequestObserver interface {
	ObserveRequest(route, method string, status int, d time.Duration)
}

// Outcomes an AccountObserver hears.
const (
	// OutcomeSuccess: the sign-in or refresh was granted.
	OutcomeSuccess = "success"
	// OutcomeFailure: refused for the caller's credentials (wrong,
	// expired, locked, inactive user).
	OutcomeFailure = "failure"
	// OutcomeReused: a refresh token was presented again after its
	// rotation; its session was revoked.
	OutcomeReused = "reused"
	// OutcomeError: the service itself failed (the database, the
	// identity provider); the caller may try again.
	OutcomeError = "error"
)

// AccountObserver hears the sign-in use case's decisions, for
// monitoring. method is a session method (account.MethodPassword,
// account.MethodIdP, ...) and outcome one of the Outcome constants.
// Requests refused before any credential was checked (missing fields)
// are not heard. Implementations are safe for concurrent use and never
// fail.
type AccountObserver interface {
	SignIn(method, outcome string)
	Refresh(outcome string)
	// Lockout is called once each time an account becomes locked.
	Lockout()
}
