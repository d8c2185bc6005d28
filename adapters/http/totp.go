package http

import (
	"encoding/base64"
	"net/http"
)

// The API reference entries of the authenticator-app routes (routes.go).
var (
	opTOTPStatus = op{summary: "Whether your authenticator app is on, and your recovery codes left", tag: "account", resp: ref("TotpStatusDto")}
	opEnrollTOTP = op{summary: "Start enrolling an authenticator app: a new secret, its otpauth URL and QR code (replaces an unconfirmed one; 409 while one is on; 403 reauthentication-required without recent authentication)",
		tag: "account", resp: ref("TotpEnrolmentDto"), headers: []string{"Cache-Control"}, errs: []int{403, 409}}
	opConfirmTOTP = op{summary: "Turn the authenticator app on with its current code; answers the recovery codes once (400 for a wrong code, 409 with nothing pending; 403 reauthentication-required without recent authentication)",
		tag: "account", body: ref("TotpConfirmInput"), resp: ref("TotpRecoveryCodesDto"), headers: []string{"Cache-Control"}, errs: []int{400, 403, 409}}
	opDisableTOTP = op{summary: "Turn the authenticator app off with your password and a code; revokes your other sessions (400 for a wrong password or code, 409 when it is off; 403 reauthentication-required without recent authentication)",
		tag: "account", body: ref("TotpDisableInput"), ok: 204, errs: []int{400, 403, 409}}
)

// needTOTP answers 501 when the service has no authenticator apps.
func (s *server) needTOTP(h http.HandlerFunc) http.Handler {
	return s.need(s.svc.TOTP != nil, "authenticator apps are", h)
}

type totpStatusDTO struct {
	Enabled           bool  `json:"enabled" doc:"true once an enrolment is confirmed: login's otp is then a code from the app or a recovery code"`
	ConfirmedAt       *Time `json:"confirmedAt"`
	RecoveryCodesLeft int   `json:"recoveryCodesLeft" doc:"unused recovery codes; 0 when not enabled"`
}

type totpEnrolmentDTO struct {
	Secret     string `json:"secret" doc:"the secret in base32, for typing into the app; shown only now"`
	OTPAuthURL string `json:"otpauthUrl" doc:"otpauth://totp/... (SHA1, 6 digits, 30 s)"`
	QRCode     string `json:"qrCode" doc:"data:image/png;base64,... QR code of otpauthUrl"`
}

type totpConfirmIn struct {
	OTP string `json:"otp" required:"true" doc:"the app's current code for the pending secret"`
}

type totpRecoveryCodesDTO struct {
	RecoveryCodes []string `json:"recoveryCodes" doc:"10 codes of 10 characters, each usable once in place of an app code; shown only now"`
}

type totpDisableIn struct {
	Password string `json:"password" required:"true"`
	OTP      string `json:"otp" required:"true" doc:"a current app code or an unused recovery code"`
}

func (s *server) handleTOTPStatus() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		st, err := s.svc.TOTP.TOTPStatus(r.Context())
		s.reply(w, r, http.StatusOK, totpStatusDTO{Enabled: st.Enabled, ConfirmedAt: timePtr(st.ConfirmedAt), RecoveryCodesLeft: st.RecoveryCodesLeft}, err)
	}
}

func (s *server) handleEnrollTOTP() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e, err := s.svc.TOTP.EnrollTOTP(r.Context())
		if err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		encode(w, http.StatusOK, totpEnrolmentDTO{Secret: e.Secret, OTPAuthURL: e.OTPAuthURL,
			QRCode: "data:image/png;base64," + base64.StdEncoding.EncodeToString(e.QRCodePNG)})
	}
}

func (s *server) handleConfirmTOTP() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in totpConfirmIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		codes, err := s.svc.TOTP.ConfirmTOTP(r.Context(), in.OTP)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		encode(w, http.StatusOK, totpRecoveryCodesDTO{RecoveryCodes: codes})
	}
}

func (s *server) handleDisableTOTP() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in totpDisableIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		s.reply(w, r, http.StatusNoContent, nil, s.svc.TOTP.DisableTOTP(r.Context(), in.Password, in.OTP))
	}
}
