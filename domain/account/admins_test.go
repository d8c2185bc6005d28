package account_test

import (
	"testing"

	"counsel/domain"
	"counsel/domain/account"

	"github.com/matryer/is"
)

func TestKeepAnAdmin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		count account.AdminCount
		want  string
	}{
		{"one stays", account.AdminCount{Before: 1, After: 1}, ""},
		{"one of two goes", account.AdminCount{Before: 2, After: 1}, ""},
		{"one is added", account.AdminCount{Before: 1, After: 2}, ""},
		{"the last goes", account.AdminCount{Before: 1, After: 0}, domain.ECONFLICT},
		{"the last two go", account.AdminCount{Before: 2, After: 0}, domain.ECONFLICT},
		{"none before", account.AdminCount{Before: 0, After: 0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := account.KeepAnAdmin(account.LastAdminRole)(tt.count)
			is.Equal(domain.ErrorCode(err), tt.want)
			if tt.want != "" {
				is.Equal(domain.ErrorMessage(err), account.LastAdminRole)
			}
		})
	}
}
