package docuseal

import (
	"context"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jws"
	"github.com/lestrrat-go/jwx/v2/jwt"
	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/signing"
)

func TestBuilderTokenClaims(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		cfgEmail string
		in       signing.BuilderTokenRequest
		want     map[string]any
		absent   []string
		wantExp  time.Time
	}{
		{
			name:     "digital contract",
			cfgEmail: "docuseal-admin@example.com",
			in: signing.BuilderTokenRequest{
				UserEmail: "owner@example.com", IntegrationEmail: "lawyer@example.com", Name: "Service agreement",
				ExternalID: "c248ffba-ef81-48b7-8e17-e3cecda1c1c5", TemplateID: "1001", ExpiresAt: now.Add(time.Hour),
			},
			want: map[string]any{
				"user_email": "owner@example.com", "integration_email": "lawyer@example.com", "name": "Service agreement",
				"external_id": "c248ffba-ef81-48b7-8e17-e3cecda1c1c5", "template_id": float64(1001),
			},
			wantExp: now.Add(time.Hour),
		},
		{
			name:     "no template yet, user from the config, default expiry",
			cfgEmail: "docuseal-admin@example.com",
			in:       signing.BuilderTokenRequest{IntegrationEmail: "lawyer@example.com", Name: "NDA", ExternalID: "e1"},
			want:     map[string]any{"user_email": "docuseal-admin@example.com", "integration_email": "lawyer@example.com", "name": "NDA", "external_id": "e1"},
			absent:   []string{"template_id"},
			wantExp:  now.Add(time.Hour),
		},
		{
			name:     "non-numeric template id stays a string",
			cfgEmail: "docuseal-admin@example.com",
			in:       signing.BuilderTokenRequest{TemplateID: "tpl-7", ExpiresAt: now.Add(time.Minute)},
			want:     map[string]any{"user_email": "docuseal-admin@example.com", "template_id": "tpl-7"},
			absent:   []string{"integration_email", "name", "external_id"},
			wantExp:  now.Add(time.Minute),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c, err := New(Config{BaseURL: "https://api.docuseal.com", APIKey: "api-key-123", WebhookSecret: "s", UserEmail: tt.cfgEmail, Now: func() time.Time { return now }})
			is.NoErr(err) // client
			tok, err := c.BuilderToken(context.Background(), tt.in)
			is.NoErr(err) // signed

			msg, err := jws.Parse([]byte(tok))
			is.NoErr(err)                                                           // a JWS
			is.Equal(msg.Signatures()[0].ProtectedHeaders().Algorithm(), jwa.HS256) // HS256

			parsed, err := jwt.Parse([]byte(tok), jwt.WithKey(jwa.HS256, []byte("api-key-123")), jwt.WithClock(jwt.ClockFunc(func() time.Time { return now })))
			is.NoErr(err)                             // verifies with the API key
			is.Equal(parsed.Expiration(), tt.wantExp) // exp
			claims := parsed.PrivateClaims()
			for k, v := range tt.want {
				is.Equal(claims[k], v) // claim
			}
			for _, k := range tt.absent {
				_, ok := claims[k]
				is.True(!ok) // left out
			}

			_, err = jwt.Parse([]byte(tok), jwt.WithKey(jwa.HS256, []byte("other-key")))
			is.True(err != nil) // no other key verifies it
		})
	}
}

func TestBuilderTokenNeedsAUser(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c, err := New(Config{BaseURL: "https://api.docuseal.com", APIKey: "k", WebhookSecret: "s"})
	is.NoErr(err) // client without a user email
	tok, err := c.BuilderToken(context.Background(), signing.BuilderTokenRequest{IntegrationEmail: "lawyer@example.com"})
	is.Equal(domain.ErrorCode(err), domain.ENOTIMPLEMENTED) // builder not available
	is.Equal(tok, "")                                       // no token
}
