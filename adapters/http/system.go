package http

import (
	"net/http"
)

// The API reference entries of the system routes (routes.go).
var (
	opHealth  = op{summary: "Liveness: 200 while the process is up", tag: "system", resp: object(js{"status": str()})}
	opReady   = op{summary: "Readiness: 200 when the database answers", tag: "system", resp: object(js{"status": str()}), errs: []int{503}}
	opJWKS    = op{summary: "Public keys of access tokens (JWK set)", tag: "system", resp: object(js{"keys": arrayOf(js{"type": "object"})}), headers: []string{"Cache-Control"}}
	opOpenAPI = op{summary: "This API's OpenAPI 3.1 document", tag: "system", resp: js{"type": "object"}}
)

func (s *server) handleHealth() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		encode(w, http.StatusOK, map[string]string{"status": "ok"})
	}
}

func (s *server) handleReady() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.svc.Ready != nil {
			if err := s.svc.Ready(r.Context()); err != nil {
				s.log.WarnContext(r.Context(), "not ready", "err", err)
				writeProblem(w, problem{Status: http.StatusServiceUnavailable, Detail: "the database does not answer"})
				return
			}
		}
		encode(w, http.StatusOK, map[string]string{"status": "ready"})
	}
}

func (s *server) handleJWKS() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Write(s.svc.Accounts.JWKS())
	}
}

func (s *server) handleOpenAPI() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(s.doc())
	}
}
