package http

import (
	"context"
	"net/http"
	"strconv"

	"counsel/domain/account"
)

// The API reference entries of the account routes (routes.go).
var (
	opGetOTP         = op{summary: "Issue a one-time password for two-factor sign-in", tag: "account", body: ref("OtpInput"), resp: ref("OtpResultDto"), headers: []string{"Cache-Control"}, errs: []int{400}}
	opLogin          = op{summary: "Sign in with email, password and one-time password", tag: "account", body: ref("LoginInput"), resp: ref("TokenResultDto"), headers: []string{"Cache-Control"}, errs: []int{400, 401}}
	opLoginIdP       = op{summary: "Sign in with an identity provider's ID token", tag: "account", body: ref("IdpLoginInput"), resp: ref("TokenResultDto"), headers: []string{"Cache-Control"}, errs: []int{400, 401, 502}}
	opRefresh        = op{summary: "Rotate the refresh token and get a new access token", tag: "account", body: ref("RefreshInput"), resp: ref("TokenResultDto"), headers: []string{"Cache-Control"}, errs: []int{400, 401}}
	opLogout         = op{summary: "Revoke the session of a refresh token", tag: "account", body: ref("LogoutInput"), errs: []int{400}}
	opReauthenticate = op{summary: "Confirm it's you: renew this session's recent authentication with your password and second factor (an emailed code from get-otp, the app's code or a recovery code), or with one of your passkeys (challengeId and credential); factor changes need it within COUNSEL_REAUTH_WINDOW (401 for wrong credentials, counted toward the lockout)",
		tag: "account", body: ref("ReauthenticateInput"), resp: ref("ReauthenticationDto"), headers: []string{"Cache-Control"}, errs: []int{400, 401, 403}}
)

// reauthenticateIn is either the password and second factor, or a
// passkey's assertion (challengeId from POST
// /api/account/login/passkey/begin, and credential).
type reauthenticateIn struct {
	Password    string       `json:"password" doc:"with otp; required unless a passkey answers (challengeId and credential)"`
	OTP         string       `json:"otp" doc:"the second factor: a code from get-otp, or with an authenticator app on, the app's current code or an unused recovery code"`
	ChallengeID string       `json:"challengeId" doc:"a passkey instead: the challenge of POST /api/account/login/passkey/begin"`
	Credential  webauthnJSON `json:"credential,omitempty" doc:"with challengeId: the PublicKeyCredential from navigator.credentials.get, of one of your passkeys"`
}

type reauthenticationDTO struct {
	AuthenticatedAt Time `json:"authenticatedAt" doc:"when this session authenticated (now)"`
	ValidUntil      Time `json:"validUntil" doc:"until when this session may change how you sign in (password, authenticator app, passkeys, API keys)"`
}

func (s *server) handleReauthenticate() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in reauthenticateIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		var res account.Reauthentication
		var err error
		if in.ChallengeID != "" || len(in.Credential) > 0 {
			res, err = s.reauthenticatePasskey(r.Context(), in)
		} else {
			res, err = s.svc.Reauth.Reauthenticate(r.Context(), in.Password, in.OTP)
		}
		if err == nil {
			w.Header().Set("Cache-Control", "no-store")
		}
		s.reply(w, r, http.StatusOK, reauthenticationDTO{AuthenticatedAt: Time(res.AuthenticatedAt), ValidUntil: Time(res.ValidUntil)}, err)
	}
}

type tokenResult struct {
	UserID       string `json:"userId" doc:"the user's integer id as a string"`
	AccessToken  string `json:"accessToken" doc:"EdDSA JWT, 15 minutes"`
	RefreshToken string `json:"refreshToken" doc:"opaque; rotated on every refresh; 30 days from sign-in"`
}

type otpIn struct {
	Email string `json:"email" required:"true"`
}

type otpResult struct {
	Email  string `json:"email"`
	OTP    string `json:"otp" doc:"the code in response delivery mode, else empty"`
	Status bool   `json:"status"`
}

type loginIn struct {
	Email    string `json:"email" required:"true"`
	Password string `json:"password" required:"true"`
	OTP      string `json:"otp" required:"true" doc:"the code from get-otp; with an authenticator app on, the app's current code or an unused recovery code"`
}

type idpLoginIn struct {
	IDToken string `json:"idToken" required:"true" doc:"ID token issued by the identity provider"`
	Code    string `json:"code" doc:"authorization code, exchanged when a client secret is configured"`
}

type refreshIn struct {
	AccessToken  string `json:"accessToken" required:"true" doc:"may be expired"`
	RefreshToken string `json:"refreshToken" required:"true"`
}

type logoutIn struct {
	RefreshToken string `json:"refreshToken" required:"true"`
}

func writeTokens(w http.ResponseWriter, t account.Tokens) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	encode(w, http.StatusOK, tokenResult{UserID: strconv.FormatInt(t.UserID, 10), AccessToken: t.AccessToken, RefreshToken: t.RefreshToken})
}

func (s *server) handleGetOTP() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in otpIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		res, err := s.svc.Accounts.RequestOTP(r.Context(), in.Email)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		encode(w, http.StatusOK, otpResult{Email: res.Email, OTP: res.OTP, Status: res.Status})
	}
}

func (s *server) handleLogin() http.HandlerFunc {
	return tokenRoute(s, func(ctx context.Context, in loginIn) (account.Tokens, error) {
		return s.svc.Accounts.Login(ctx, in.Email, in.Password, in.OTP)
	})
}

func (s *server) handleLoginIdP() http.HandlerFunc {
	return tokenRoute(s, func(ctx context.Context, in idpLoginIn) (account.Tokens, error) {
		return s.svc.Accounts.LoginIdP(ctx, in.IDToken, in.Code)
	})
}

func (s *server) handleRefresh() http.HandlerFunc {
	return tokenRoute(s, func(ctx context.Context, in refreshIn) (account.Tokens, error) {
		return s.svc.Accounts.Refresh(ctx, in.AccessToken, in.RefreshToken)
	})
}

// tokenRoute is a sign-in or refresh handler: decode a body of type T,
// call, and answer the token result.
func tokenRoute[T any](s *server, call func(context.Context, T) (account.Tokens, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in, err := decodeAs(r, func(in T) (T, error) { return in, nil })
		if err != nil {
			s.fail(w, r, err)
			return
		}
		t, err := call(r.Context(), in)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeTokens(w, t)
	}
}

func (s *server) handleLogout() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in logoutIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		if err := s.svc.Accounts.Logout(r.Context(), in.RefreshToken); err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
	}
}
