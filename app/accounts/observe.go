package accounts

import (
	"counsel/domain"
	"counsel/ports"
)

// unobserved is the observer of a service built without one.
type unobserved struct{}

func (unobserved) SignIn(string, string) {}
func (unobserved) Refresh(string)        {}
func (unobserved) Lockout()              {}

// outcome is what an AccountObserver hears of a sign-in's or refresh's
// result err; false for input refused before any credential was checked.
func outcome(err error) (string, bool) {
	switch domain.ErrorCode(err) {
	case "":
		return ports.OutcomeSuccess, true
	case domain.EUNAUTHORIZED:
		return ports.OutcomeFailure, true
	case domain.EINVALID:
		return "", false
	}
	return ports.OutcomeError, true
}

// observeSignIn reports a sign-in through method that ended with err.
func (s *Service) observeSignIn(method string, err error) {
	if o, ok := outcome(err); ok {
		s.d.Observer.SignIn(method, o)
	}
}

// observeRefresh reports a refresh that ended with err (reused: a
// rotated token was presented again).
func (s *Service) observeRefresh(err error, reused bool) {
	if reused {
		s.d.Observer.Refresh(ports.OutcomeReused)
	} else if o, ok := outcome(err); ok {
		s.d.Observer.Refresh(o)
	}
}
