package http

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"

	"counsel/domain"
)

// metricsGuard lets through only requests carrying
// Authorization: Bearer <Options.MetricsToken>; the comparison takes the
// same time whatever the token sent (both are hashed first, so not even
// its length shows).
func (s *server) metricsGuard(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.opts.MetricsToken))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, _ := bearer(r)
		got := sha256.Sum256([]byte(tok))
		if tok == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			s.fail(w, r, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "metrics require Authorization: Bearer <COUNSEL_METRICS_TOKEN>"})
			return
		}
		next.ServeHTTP(w, r)
	})
}
