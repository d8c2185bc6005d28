package account_test

import (
	"testing"

	"counsel/domain"
	"counsel/domain/account"

	"github.com/matryer/is"
)

func TestCheckRelink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		deleted bool
		code    string
		message string
	}{
		{"a link to a deleted user moves", true, "", ""},
		{"a link to an undeleted user stays", false, domain.ECONFLICT, "the identity is already linked to a user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := account.CheckRelink(7, tt.deleted)
			is.Equal(domain.ErrorCode(err), tt.code)
			if tt.message != "" {
				is.Equal(domain.ErrorMessage(err), tt.message)
			}
		})
	}
}
