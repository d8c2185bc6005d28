package oidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/lestrrat-go/jwx/v2/jwt"

	"counsel/domain/account"
)

// googleBareIssuer is the iss Google documents as an alternative to
// https://accounts.google.com in its ID tokens.
const (
	googleIssuer     = "https://accounts.google.com"
	googleBareIssuer = "accounts.google.com"
)

// verifyToken checks one ID token and returns what it says about its
// subject. Errors are EUNAUTHORIZED, or EUPSTREAM when keys are out of
// reach; their text never quotes the token.
func (p *Provider) verifyToken(ctx context.Context, raw string) (account.ExternalIdentity, error) {
	var none account.ExternalIdentity
	if raw == "" {
		return none, unauthorized(errors.New("empty id token"))
	}
	if len(raw) > maxTokenBytes {
		return none, unauthorized(fmt.Errorf("id token longer than %d bytes", maxTokenBytes))
	}
	// Compact serialization only: the JSON serializations could carry
	// several signatures and unprotected headers.
	if strings.Count(raw, ".") != 2 || strings.ContainsAny(raw, "{} \t\r\n") {
		return none, unauthorized(errors.New("id token is not a compact JWS"))
	}

	kp := &keyProvider{p: p, ctx: ctx}
	tok, err := jwt.ParseString(raw,
		jwt.WithKeyProvider(kp),
		jwt.WithValidate(true),
		jwt.WithClock(jwt.ClockFunc(p.now)),
		jwt.WithAcceptableSkew(skew),
		jwt.WithRequiredClaim(jwt.ExpirationKey),
		jwt.WithRequiredClaim(jwt.SubjectKey),
		jwt.WithAudience(p.clientID),
	)
	if kp.err != nil {
		return none, kp.err // the key provider's own verdict, EUPSTREAM included
	}
	if err != nil {
		return none, unauthorized(fmt.Errorf("id token: %w", err))
	}
	if err := p.checkClaims(tok); err != nil {
		return none, unauthorized(err)
	}
	return p.identity(tok)
}

// checkClaims adds the OpenID Connect rules jwx does not know.
func (p *Provider) checkClaims(tok jwt.Token) error {
	iss := tok.Issuer()
	if iss != p.issuer && (p.issuer != googleIssuer || iss != googleBareIssuer) {
		return fmt.Errorf("issuer %q is not %q", iss, p.issuer)
	}
	// jwx skips exp when it is the Unix epoch; a token that old is expired.
	if tok.Expiration().Unix() <= 0 {
		return errors.New(`"exp" not satisfied`)
	}
	if tok.Subject() == "" {
		return errors.New("empty subject")
	}
	if aud := tok.Audience(); len(aud) > 1 {
		azp, _ := claimString(tok, "azp")
		if azp != p.clientID {
			return fmt.Errorf("several audiences and azp %q is not the client id", azp)
		}
	}
	return nil
}

// identity reads the subject's email and names. An email must be present
// and email_verified not false; a missing email_verified counts as not
// false (Microsoft sends none), and "true"/"false" strings count as the
// booleans because some providers send them so.
func (p *Provider) identity(tok jwt.Token) (account.ExternalIdentity, error) {
	var none account.ExternalIdentity
	email, err := claimString(tok, "email")
	if err != nil {
		return none, unauthorized(err)
	}
	if strings.TrimSpace(email) == "" {
		return none, unauthorized(errors.New("no email claim"))
	}
	verified := true
	if v, ok := tok.Get("email_verified"); ok {
		switch v := v.(type) {
		case bool:
			verified = v
		case string:
			switch strings.ToLower(v) {
			case "true":
				verified = true
			case "false":
				verified = false
			default:
				return none, unauthorized(fmt.Errorf("email_verified is %q", v))
			}
		default:
			return none, unauthorized(fmt.Errorf("email_verified is a %T", v))
		}
	}
	if !verified {
		return none, unauthorized(errors.New("email is not verified"))
	}
	id := account.ExternalIdentity{
		// The configured issuer, not the token's spelling of it: accounts
		// are linked by (issuer, subject), and Google's tokens spell it two
		// ways.
		Issuer:        p.issuer,
		Subject:       tok.Subject(),
		Email:         email,
		EmailVerified: verified,
	}
	names := []struct {
		claim string
		dst   *string
	}{{"name", &id.Name}, {"given_name", &id.GivenName}, {"family_name", &id.FamilyName}, {"nonce", &id.Nonce}}
	for _, n := range names {
		v, err := claimString(tok, n.claim)
		if err != nil {
			return none, unauthorized(err)
		}
		*n.dst = strings.TrimSpace(v)
	}
	if id.Name == "" {
		id.Name = strings.TrimSpace(id.GivenName + " " + id.FamilyName)
	}
	return id, nil
}

// claimString returns a string claim, "" when absent.
func claimString(tok jwt.Token, name string) (string, error) {
	v, ok := tok.Get(name)
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("claim %s is a %T, not a string", name, v)
	}
	return s, nil
}

// exchange redeems code at the token endpoint (client_secret_post) and
// returns the ID token it answers with. The provider refusing the code
// (4xx) is EUNAUTHORIZED; not reaching it, or a 5xx, is EUPSTREAM.
func (p *Provider) exchange(ctx context.Context, code, verifier, redirectURI string) (string, error) {
	d, err := p.discover(ctx)
	if err != nil {
		return "", err
	}
	if d.TokenEndpoint == "" {
		return "", upstream(errors.New("discovery: no token_endpoint"))
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"client_id":     {p.clientID},
		"client_secret": {p.clientSecret},
	}
	if redirectURI == "" {
		redirectURI = p.redirectURI
	}
	if redirectURI != "" {
		form.Set("redirect_uri", redirectURI)
	}
	if verifier != "" {
		form.Set("code_verifier", verifier)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", upstream(fmt.Errorf("token request: %w", err))
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	res, err := p.do(req)
	if err != nil {
		return "", upstream(fmt.Errorf("code exchange: %w", err))
	}
	var body struct {
		IDToken string `json:"id_token"`
		Error   string `json:"error"`
	}
	decodeErr := json.Unmarshal(res.body, &body)
	switch {
	case res.status >= 400 && res.status < 500:
		// Only the OAuth error code goes to the log: the description could
		// echo the request.
		return "", unauthorized(fmt.Errorf("code exchange refused: status %d, error %q", res.status, short(body.Error)))
	case res.status != http.StatusOK:
		return "", upstream(fmt.Errorf("code exchange: status %d", res.status))
	case decodeErr != nil:
		return "", upstream(fmt.Errorf("code exchange: decode: %w", decodeErr))
	case body.IDToken == "":
		return "", upstream(errors.New("code exchange: no id_token in the answer"))
	}
	return body.IDToken, nil
}

// short keeps a provider-supplied string fit for one log line.
func short(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
