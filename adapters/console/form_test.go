package console

import (
	"net/url"
	"testing"
)

// FuzzForms feeds arbitrary form bodies to every form reader: none may
// panic, and an error is always a field error.
func FuzzForms(f *testing.F) {
	for _, seed := range []string{
		"email=a%40b.c&firstName=A&billingRate=12.5&officeId=1&admissionDate=2020-01-01&roleIds=1&roleIds=2",
		"billingRate=1e999999&officeId=-1&admissionDate=2020-13-45&roleIds=x",
		"Search=%00&Active=maybe&OfficeId=99999999999999999999&Limit=-1&Offset=abc&Sort=desc",
		"fteLoad=0.33333&remunerationIncSuper=150000&billablePercentage=101&remunerationDate=2026-07-01&terminationDate=bad",
		"name=Leave&startDate=2020-01-01&endDate=2019-01-01",
		"address.suburb=" + url.QueryEscape("Zoë") + "&website=ftp://x&active=true",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		v, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		_, _ = userForm(v, true, true)
		_, _ = userForm(v, false, false)
		if uf, fe := filterForm(v); len(fe) == 0 && (uf.Limit < 1 || uf.Limit > 100 || uf.Offset < 0) {
			t.Fatalf("filter out of bounds: %+v", uf)
		}
		_ = officeForm(v)
		_, _ = remunerationForm(v, 1)
		_, _ = pqeForm(v, 1)
	})
}
