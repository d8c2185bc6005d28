package http

import (
	"context"
	"net/http"
	"strconv"

	"counsel/domain/account"
)

func accountSchemas() map[string]js {
	return map[string]js{
		"LoginRequest": object(js{"email": str(), "password": str(), "otp": strDesc("the code from get-otp")}, "email", "password", "otp"),
		"TokenResult": object(js{"userId": strDesc("the user's integer id as a string"), "accessToken": strDesc("EdDSA JWT, 15 minutes"),
			"refreshToken": strDesc("opaque; rotated on every refresh; 30 days from sign-in")}, "userId", "accessToken", "refreshToken"),
		"OtpRequest":      object(js{"email": str()}, "email"),
		"OtpResult":       object(js{"email": str(), "otp": strDesc("the code in response delivery mode, else empty"), "status": boolean()}, "email", "otp", "status"),
		"IdpLoginRequest": object(js{"idToken": strDesc("ID token issued by the identity provider"), "code": strDesc("authorization code, exchanged when a client secret is configured")}, "idToken"),
		"LogoutRequest":   object(js{"refreshToken": str()}, "refreshToken"),
		"RefreshRequest":  object(js{"accessToken": strDesc("may be expired"), "refreshToken": str()}, "accessToken", "refreshToken"),
	}
}

func (s *server) accountRoutes() []route {
	return []route{
		{method: "POST", path: "/api/account/login/get-otp", access: public, limited: true, handler: s.handleGetOTP(),
			op: op{summary: "Issue a one-time password for two-factor sign-in", tag: "account", body: ref("OtpRequest"), resp: ref("OtpResult"), headers: []string{"Cache-Control"}, errs: []int{400}}},
		{method: "POST", path: "/api/account/login", access: public, limited: true, handler: s.handleLogin(),
			op: op{summary: "Sign in with email, password and one-time password", tag: "account", body: ref("LoginRequest"), resp: ref("TokenResult"), headers: []string{"Cache-Control"}, errs: []int{400, 401}}},
		{method: "POST", path: "/api/account/login/idp", access: public, limited: true, handler: s.handleLoginIdP(),
			op: op{summary: "Sign in with an identity provider's ID token", tag: "account", body: ref("IdpLoginRequest"), resp: ref("TokenResult"), headers: []string{"Cache-Control"}, errs: []int{400, 401, 502}}},
		{method: "POST", path: "/api/account/refresh-token", access: public, limited: true, handler: s.handleRefresh(),
			op: op{summary: "Rotate the refresh token and get a new access token", tag: "account", body: ref("RefreshRequest"), resp: ref("TokenResult"), headers: []string{"Cache-Control"}, errs: []int{400, 401}}},
		{method: "POST", path: "/api/account/logout", access: authorized, handler: s.handleLogout(),
			op: op{summary: "Revoke the session of a refresh token", tag: "account", body: ref("LogoutRequest"), errs: []int{400}}},
	}
}

type tokenResult struct {
	UserID       string `json:"userId"`
	AccessToken  string `json:"accessToken"`
	RefreshToken string `json:"refreshToken"`
}

func writeTokens(w http.ResponseWriter, t account.Tokens) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	encode(w, http.StatusOK, tokenResult{UserID: strconv.FormatInt(t.UserID, 10), AccessToken: t.AccessToken, RefreshToken: t.RefreshToken})
}

func (s *server) handleGetOTP() http.HandlerFunc {
	type request struct {
		Email string `json:"email"`
	}
	type result struct {
		Email  string `json:"email"`
		OTP    string `json:"otp"`
		Status bool   `json:"status"`
	}
	return func(w http.ResponseWriter, r *http.Request) {
		var in request
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
		encode(w, http.StatusOK, result{Email: res.Email, OTP: res.OTP, Status: res.Status})
	}
}

func (s *server) handleLogin() http.HandlerFunc {
	type request struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		OTP      string `json:"otp"`
	}
	return tokenRoute(s, func(ctx context.Context, in request) (account.Tokens, error) {
		return s.svc.Accounts.Login(ctx, in.Email, in.Password, in.OTP)
	})
}

func (s *server) handleLoginIdP() http.HandlerFunc {
	type request struct {
		IDToken string `json:"idToken"`
		Code    string `json:"code"`
	}
	return tokenRoute(s, func(ctx context.Context, in request) (account.Tokens, error) {
		return s.svc.Accounts.LoginIdP(ctx, in.IDToken, in.Code)
	})
}

func (s *server) handleRefresh() http.HandlerFunc {
	type request struct {
		AccessToken  string `json:"accessToken"`
		RefreshToken string `json:"refreshToken"`
	}
	return tokenRoute(s, func(ctx context.Context, in request) (account.Tokens, error) {
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
	type request struct {
		RefreshToken string `json:"refreshToken"`
	}
	return func(w http.ResponseWriter, r *http.Request) {
		var in request
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
