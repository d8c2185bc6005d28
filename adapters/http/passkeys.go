package http

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"counsel/domain"
	"counsel/domain/account"
)

// Passkeys (docs/decisions.md §20): registration and management for the
// signed-in caller, sign-in for anyone (the per-address limit applies),
// and another user's passkeys removed by an administrator (users.go).

// The API reference entries of the passkey routes (routes.go).
var (
	opBeginPasskeyRegistration = op{summary: "Start adding a passkey: a challenge id and the PublicKeyCredentialCreationOptions for navigator.credentials.create (resident key and user verification required, your passkeys excluded; the challenge is single use and lasts 5 minutes; 403 reauthentication-required without recent authentication)",
		tag: "account", resp: ref("PasskeyBeginDto"), headers: []string{"Cache-Control"}, errs: []int{403}}
	opFinishPasskeyRegistration = op{summary: "Add the passkey the browser created for the challenge (400 for an unknown, used or expired challenge or a credential that does not verify; 409 when it is registered already; 403 reauthentication-required without recent authentication)",
		tag: "account", body: ref("PasskeyRegisterInput"), ok: 201, resp: ref("PasskeyDto"), errs: []int{400, 403, 409}}
	opPasskeys      = op{summary: "Your passkeys, oldest first", tag: "account", resp: ref("PasskeyListDto")}
	opRenamePasskey = op{summary: "Rename one of your passkeys (404 for another's or an unknown id)", tag: "account", body: ref("PasskeyRenameInput"),
		resp: ref("PasskeyDto"), errs: []int{400, 404}}
	opRemovePasskey = op{summary: "Remove one of your passkeys (404 for another's or an unknown id; 403 reauthentication-required without recent authentication)",
		tag: "account", ok: 204, errs: []int{403, 404}}
	opBeginPasskeyLogin = op{summary: "Start signing in with a passkey: a challenge id and the PublicKeyCredentialRequestOptions for navigator.credentials.get (any discoverable credential, user verification required; single use, 5 minutes). The same challenge answers POST /api/account/reauthenticate",
		tag: "account", resp: ref("PasskeyBeginDto"), headers: []string{"Cache-Control"}}
	opPasskeyLogin = op{summary: "Sign in with a passkey's assertion: both factors, no one-time password. 401 with the body of every failed sign-in for an unknown, used or expired challenge, an unknown or removed credential, an assertion that does not verify (origin, relying party, user verification, signature), a signature counter that did not advance, an inactive or deleted user and a locked account; failures of a known passkey count toward the lockout",
		tag: "account", body: ref("PasskeyLoginInput"), resp: ref("TokenResultDto"), headers: []string{"Cache-Control"}, errs: []int{400, 401}}
	opRemoveUserPasskeys = op{summary: "Remove every passkey of another user (only a system administrator may remove another one's; your own id is a 403: use DELETE /api/account/passkeys/{id}; 204 also when there were none)",
		tag: "users", ok: 204, errs: []int{403, 404}}
)

// needPasskeys answers 501 when the service offers no passkeys.
func (s *server) needPasskeys(h http.HandlerFunc) http.Handler {
	return s.need(s.svc.Passkeys != nil, "passkeys are", h)
}

// webauthnJSON is a WebAuthn object passed through as JSON: the options
// a browser hands to navigator.credentials, and the credential it answers
// (PublicKeyCredential with base64url binary fields, as its toJSON makes).
type webauthnJSON = json.RawMessage

type passkeyBeginDTO struct {
	ChallengeID string       `json:"challengeId" doc:"names the ceremony in the finish call; single use, valid 5 minutes"`
	Options     webauthnJSON `json:"options" doc:"PublicKeyCredentialCreationOptions or PublicKeyCredentialRequestOptions as JSON (binary fields base64url)"`
}

type passkeyDTO struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CreatedAt  Time   `json:"createdAt"`
	LastUsedAt *Time  `json:"lastUsedAt" doc:"the last sign-in or re-authentication with it; null if never"`
}

type passkeyListDTO struct {
	Items []passkeyDTO `json:"items"`
}

type passkeyRegisterIn struct {
	ChallengeID string       `json:"challengeId" required:"true"`
	Name        string       `json:"name" required:"true" doc:"1 to 100 characters, one line, to tell your passkeys apart"`
	Credential  webauthnJSON `json:"credential" required:"true" doc:"the PublicKeyCredential from navigator.credentials.create, as JSON"`
}

type passkeyRenameIn struct {
	Name string `json:"name" required:"true" doc:"1 to 100 characters, one line"`
}

type passkeyLoginIn struct {
	ChallengeID string       `json:"challengeId" required:"true"`
	Credential  webauthnJSON `json:"credential" required:"true" doc:"the PublicKeyCredential from navigator.credentials.get, as JSON"`
}

func toPasskeyDTO(p account.Passkey) passkeyDTO {
	return passkeyDTO{ID: p.ID, Name: p.Name, CreatedAt: Time(p.CreatedAt), LastUsedAt: timePtr(p.LastUsedAt)}
}

func writeBegin(w http.ResponseWriter, b account.PasskeyBegin) {
	w.Header().Set("Cache-Control", "no-store")
	encode(w, http.StatusOK, passkeyBeginDTO{ChallengeID: b.ChallengeID, Options: b.Options})
}

func (s *server) handleBeginPasskeyRegistration() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := s.svc.Passkeys.BeginPasskeyRegistration(r.Context())
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeBegin(w, b)
	}
}

func (s *server) handleFinishPasskeyRegistration() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in passkeyRegisterIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		p, err := s.svc.Passkeys.FinishPasskeyRegistration(r.Context(), in.ChallengeID, in.Name, in.Credential)
		if err == nil {
			w.Header().Set("Location", fmt.Sprintf("/api/account/passkeys/%d", p.ID))
		}
		s.reply(w, r, http.StatusCreated, toPasskeyDTO(p), err)
	}
}

func (s *server) handlePasskeys() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ps, err := s.svc.Passkeys.Passkeys(r.Context())
		out := passkeyListDTO{Items: []passkeyDTO{}}
		for _, p := range ps {
			out.Items = append(out.Items, toPasskeyDTO(p))
		}
		s.reply(w, r, http.StatusOK, out, err)
	}
}

func (s *server) handleRenamePasskey() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var in passkeyRenameIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		p, err := s.svc.Passkeys.RenamePasskey(r.Context(), id, in.Name)
		s.reply(w, r, http.StatusOK, toPasskeyDTO(p), err)
	}
}

func (s *server) handleRemovePasskey() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.Passkeys.RemovePasskey(r.Context(), id)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}

func (s *server) handleRemoveUserPasskeys() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.Users.RemovePasskeys(r.Context(), id)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}

func (s *server) handleBeginPasskeyLogin() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := s.svc.Passkeys.BeginPasskeyLogin(r.Context())
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeBegin(w, b)
	}
}

func (s *server) handlePasskeyLogin() http.HandlerFunc {
	return tokenRoute(s, func(ctx context.Context, in passkeyLoginIn) (account.Tokens, error) {
		return s.svc.Passkeys.PasskeyLogin(ctx, in.ChallengeID, in.Credential)
	})
}

// reauthenticatePasskey is the passkey form of POST
// /api/account/reauthenticate (docs/decisions.md §21).
func (s *server) reauthenticatePasskey(ctx context.Context, in reauthenticateIn) (account.Reauthentication, error) {
	if s.svc.Passkeys == nil {
		return account.Reauthentication{}, domain.Errorf(domain.ENOTIMPLEMENTED, "passkeys are not available in this configuration")
	}
	return s.svc.Passkeys.ReauthenticatePasskey(ctx, in.ChallengeID, in.Credential)
}
