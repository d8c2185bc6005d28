package http

import (
	"net/http"

	"counsel/domain/account"
)

// sessionIDPath matches a session id (128 random bits in hex; anything
// else is simply not found).
const sessionIDPath = "{sid:[0-9A-Za-z_-]+}"

// The API reference entries of the session routes (routes.go).
var (
	opMySessions      = op{summary: "Your live sessions (API and console), newest first; current marks the one of this request", tag: "account", resp: ref("SessionListDto")}
	opRevokeMySession = op{summary: "Sign one of your sessions out (this one too); its access tokens are refused at once on every instance (404 when it is not a live session of yours)",
		tag: "account", ok: 204, errs: []int{404}}
	opRevokeOtherSessions = op{summary: "Sign every session of yours out but this one", tag: "account", ok: 204}
	opUserSessions        = op{summary: "Another user's live sessions, newest first (only a system administrator may see a system administrator's)",
		tag: "users", resp: ref("SessionListDto"), errs: []int{403, 404}}
	opRevokeUserSessions = op{summary: "Sign every session of a user out (only a system administrator may sign a system administrator out)",
		tag: "users", ok: 204, errs: []int{403, 404}}
)

type sessionDTO struct {
	ID         string `json:"id"`
	Method     string `json:"method" enum:"password,authenticator,recoveryCode,idp,passkey" doc:"how the session signed in: password and emailed code, password and authenticator code, password and recovery code, the identity provider, or a passkey"`
	IP         string `json:"ip" doc:"the client's address at sign-in (X-Forwarded-For believed only from COUNSEL_TRUSTED_PROXIES)"`
	UserAgent  string `json:"userAgent" doc:"the browser or client at sign-in (at most 512 bytes)"`
	CreatedAt  Time   `json:"createdAt"`
	LastSeenAt Time   `json:"lastSeenAt" doc:"the last use, recorded at most once a minute"`
	Current    bool   `json:"current" doc:"true for the session of this request"`
}

type sessionListDTO struct {
	Items []sessionDTO `json:"items"`
}

func sessionList(ss []account.Session, current string) sessionListDTO {
	out := sessionListDTO{Items: make([]sessionDTO, len(ss))}
	for i, v := range ss {
		out.Items[i] = sessionDTO{ID: v.ID, Method: v.Method, IP: v.IP, UserAgent: v.UserAgent,
			CreatedAt: Time(v.CreatedAt), LastSeenAt: Time(v.LastSeen), Current: v.ID == current}
	}
	return out
}

func (s *server) handleMySessions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ss, err := s.svc.Sessions.MySessions(r.Context())
		p, _ := account.FromContext(r.Context())
		s.reply(w, r, http.StatusOK, sessionList(ss, p.SessionID), err)
	}
}

func (s *server) handleRevokeMySession() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := s.svc.Sessions.RevokeMySession(r.Context(), muxVars(r)["sid"])
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}

func (s *server) handleRevokeOtherSessions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.reply(w, r, http.StatusNoContent, nil, s.svc.Sessions.RevokeMyOtherSessions(r.Context()))
	}
}

func (s *server) handleUserSessions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		var ss []account.Session
		if err == nil {
			ss, err = s.svc.Users.UserSessions(r.Context(), id)
		}
		s.reply(w, r, http.StatusOK, sessionList(ss, ""), err)
	}
}

func (s *server) handleRevokeUserSessions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.Users.RevokeUserSessions(r.Context(), id)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}
