package http

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"counsel/domain"

	"github.com/matryer/is"
)

// TestContractInReportsEveryField checks that the typed contract body
// reports each wrong field, not only the first, and tells absent from
// null.
func TestContractInReportsEveryField(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	read := func(body string) (domain.FieldErrors, error) {
		_, err := decodeAs(httptest.NewRequest("PUT", "/", strings.NewReader(body)), contractIn.edit)
		var de *domain.Error
		if err != nil && !asDomain(err, &de) {
			return nil, err
		}
		if de == nil {
			return nil, nil
		}
		return de.Fields, nil
	}
	f, err := read(`{"contractName": 1, "amount": "x", "matterId": "7", "startDate": 3, "contractType": null, "STATUS": "nope"}`)
	is.NoErr(err)
	for _, name := range []string{"contractName", "amount", "matterId", "startDate", "contractType", "status"} {
		is.True(len(f[name]) > 0) // each wrong field is named
	}
	f, err = read(`{"contractName": null, "amount": null, "matterId": null, "startDate": null, "endDate": "2026-01-02"}`)
	is.NoErr(err)
	is.Equal(len(f), 0) // null clears the nullable fields

	in, err := decodeAs(httptest.NewRequest("PUT", "/", strings.NewReader(`{"comments": null, "amount": " 12.5 "}`)), contractIn.edit)
	is.NoErr(err)
	is.True(in.Name == nil)                                             // absent: unchanged
	is.True(in.Comments != nil && *in.Comments == "")                   // null: cleared
	is.True(in.Amount.Set && in.Amount.Value.StringFixed(2) == "12.50") // a numeric string
}

func asDomain(err error, de **domain.Error) bool {
	e, ok := err.(*domain.Error)
	*de = e
	return ok
}

// FuzzContractBodies throws arbitrary bodies at the contract decoders:
// they answer a value or a client error, never a panic or another error.
func FuzzContractBodies(f *testing.F) {
	for _, seed := range []string{
		`{"contractName":"a","amount":"1.5","startDate":"2026-01-01","matterId":3,"contractType":"other"}`,
		`{"contractName":null,"status":3}`, `{"ids":[1,2],"status":"Signed"}`, `{"ids":null}`, `{`, `[]`, `null`, ``,
		`{"amount":1e400}`, `{"matterId":99999999999999999999}`, `{"status":"\u0000"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req := func() *http.Request { return httptest.NewRequest("POST", "/", strings.NewReader(body)) }
		_, err1 := decodeAs(req(), contractIn.contract)
		_, err2 := decodeAs(req(), contractIn.edit)
		_, err3 := decodeAs(req(), statusChangeIn.statusChange)
		for _, err := range []error{err1, err2, err3} {
			if err != nil && domain.ErrorCode(err) != domain.EINVALID {
				t.Fatalf("%q: %v (%s)", body, err, domain.ErrorCode(err))
			}
		}
	})
}
