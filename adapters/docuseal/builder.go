package docuseal

import (
	"context"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwt"

	"counsel/domain"
	"counsel/domain/signing"
)

// builderTokenTTL is the form-builder token's lifetime when the request
// gives no expiry.
const builderTokenTTL = time.Hour

// BuilderToken signs a token for DocuSeal's embedded form builder: a JWT
// (HS256 with the API key, as DocuSeal verifies it) with user_email (the
// DocuSeal user owning the key: in.UserEmail, else Config.UserEmail),
// integration_email, name, external_id, template_id (a number when numeric;
// left out when empty) and exp. Empty claims are left out. Without any
// user_email the builder cannot work: ENOTIMPLEMENTED.
func (c *Client) BuilderToken(_ context.Context, in signing.BuilderTokenRequest) (string, error) {
	userEmail := strings.TrimSpace(in.UserEmail)
	if userEmail == "" {
		userEmail = strings.TrimSpace(c.userEmail)
	}
	if userEmail == "" {
		return "", domain.Errorf(domain.ENOTIMPLEMENTED, "the DocuSeal form builder needs the email of the DocuSeal user owning the API key (COUNSEL_DOCUSEAL_USER_EMAIL)")
	}
	exp := in.ExpiresAt
	if exp.IsZero() {
		exp = c.now().Add(builderTokenTTL)
	}

	type claim struct {
		name  string
		value any
	}
	claims := []claim{
		{"user_email", userEmail},
		{"integration_email", strings.TrimSpace(in.IntegrationEmail)},
		{"name", in.Name},
		{"external_id", in.ExternalID},
		{jwt.ExpirationKey, exp.UTC()},
	}
	if id := strings.TrimSpace(in.TemplateID); id != "" {
		// DocuSeal documents template_id as a number.
		if n, ok := parseID(id); ok {
			claims = append(claims, claim{"template_id", n})
		} else {
			claims = append(claims, claim{"template_id", id})
		}
	}
	tok := jwt.New()
	for _, cl := range claims {
		if s, ok := cl.value.(string); ok && s == "" {
			continue
		}
		if err := tok.Set(cl.name, cl.value); err != nil {
			return "", &domain.Error{Code: domain.EINTERNAL, Message: "could not build the form-builder token", Err: err}
		}
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.HS256, []byte(c.apiKey)))
	if err != nil {
		return "", &domain.Error{Code: domain.EINTERNAL, Message: "could not sign the form-builder token", Err: err}
	}
	return string(signed), nil
}
