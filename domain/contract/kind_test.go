package contract

import (
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
)

func TestDocumentRemovable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind string
		ok   bool
	}{{"", true}, {KindOriginal, true}, {KindSigned, false}, {KindAudit, false}} {
		t.Run(tc.kind, func(t *testing.T) {
			is := is.New(t)
			err := Document{ID: 3, Kind: tc.kind}.Removable()
			is.Equal(err == nil, tc.ok)
			if !tc.ok {
				is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // evidence stays
			}
		})
	}
}
