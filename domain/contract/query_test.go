package contract_test

import (
	"errors"
	"net/url"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/contract"
)

func TestParseFilter(t *testing.T) {
	day := func(s string) *time.Time { d, _ := time.Parse("2006-01-02", s); return &d }
	yes, no := true, false
	seven := int64(7)
	for _, tt := range []struct {
		query string
		want  contract.Filter
		bad   []string
	}{
		{query: "", want: contract.Filter{SortDesc: true, Limit: 20}},
		{query: "search=%20lease%20&LIMIT=5", want: contract.Filter{Search: "lease", SortDesc: true, Limit: 5}},
		{query: "Status=Draft,signed&status=2", want: contract.Filter{Statuses: []contract.Status{contract.Draft, contract.Signed, 2}, SortDesc: true, Limit: 20}},
		{query: "ContractType=1&contracttype=LicenseAgreement", want: contract.Filter{Types: []contract.Type{1, contract.AllTypes()[4]}, SortDesc: true, Limit: 20}},
		{query: "IsSigned=1&isDigital=false&MatterId=7&SortBy=contract_name&SortDesc=false&Limit=500&Offset=3",
			want: contract.Filter{IsSigned: &yes, IsDigital: &no, MatterID: &seven, SortBy: contract.SortContractName, Limit: 100, Offset: 3}},
		{query: "RelatedEntityType=matter&RelatedEntityId=7&StartDateFrom=2025-01-01",
			want: contract.Filter{Related: contract.RelatedMatter, RelatedID: &seven, StartFrom: day("2025-01-01"), SortDesc: true, Limit: 20}},
		{query: "ownerid=7&NoticeDateFrom=2025-01-01&noticedateto=2025-03-01T12:00:00Z",
			want: contract.Filter{OwnerID: &seven, NoticeFrom: day("2025-01-01"), NoticeTo: func() *time.Time { t := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC); return &t }(), SortDesc: true, Limit: 20}},
		{query: "NoticeDateFrom=2025-02-01&NoticeDateTo=2025-01-01", bad: []string{"NoticeDateTo"}},
		{query: "OwnerId=x&NoticeDateFrom=soon", bad: []string{"NoticeDateFrom", "OwnerId"}},
		{query: "Status=Lost&IsSigned=perhaps", bad: []string{"IsSigned", "Status"}},
		{query: "EndDateFrom=2025-02-01&EndDateTo=2025-01-01", bad: []string{"EndDateTo"}},
		{query: "Limit=-2&Offset=-1&ClientId=1.5", bad: []string{"ClientId", "Limit", "Offset"}},
	} {
		t.Run(tt.query, func(t *testing.T) {
			is := is.New(t)
			q, err := url.ParseQuery(tt.query)
			is.NoErr(err) // the test's query
			f, err := contract.ParseFilter(q)
			if tt.bad != nil {
				var de *domain.Error
				is.True(errors.As(err, &de)) // a domain error
				is.Equal(de.Code, domain.EINVALID)
				var fields []string
				for k := range de.Fields {
					fields = append(fields, k)
				}
				slices.Sort(fields)
				is.Equal(fields, tt.bad) // the parameters named
				return
			}
			is.NoErr(err)
			is.Equal(f, tt.want)
		})
	}
}

// FuzzParseFilter: any query is read or refused as EINVALID, never
// anything else, and what is read validates.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"", "Status=Draft,1&ContractType=2", "Limit=99999999999999999999", "StartDateFrom=2025-01-01T10:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := url.ParseQuery(s)
		if err != nil {
			return
		}
		fl, err := contract.ParseFilter(q)
		if err != nil {
			if domain.ErrorCode(err) != domain.EINVALID {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if err := fl.Validate(); err != nil || fl.Limit > contract.MaxLimit {
			t.Fatalf("%q: read %+v, which does not validate: %v", s, fl, err)
		}
	})
}

// TestFilterConditions: every filtering field of Filter, set alone, is
// the one condition Conditions reports, so a fast path stated with Within
// never takes a filter on a field added after it.
func TestFilterConditions(t *testing.T) {
	is := is.New(t)
	is.Equal(contract.Filter{Search: "  ", SortBy: contract.SortAmount, SortDesc: true, Limit: 5, Offset: 9}.Conditions(), []string(nil)) // order and page only
	ft := reflect.TypeOf(contract.Filter{})
	seen := 0
	for i := 0; i < ft.NumField(); i++ {
		name := ft.Field(i).Name
		if name == "SortBy" || name == "SortDesc" || name == "Limit" || name == "Offset" {
			continue
		}
		var f contract.Filter
		v := reflect.ValueOf(&f).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
		case reflect.Int, reflect.Int64:
			v.SetInt(1)
		default:
			t.Fatalf("field %s: kind %s unknown to this test", name, v.Kind())
		}
		is.Equal(f.Conditions(), []string{name}) // set alone, it is the condition
		is.True(f.Within(contract.Fields(name))) // a path knowing it takes it
		is.True(!f.Within(contract.Fields()))    // a path knowing nothing does not
		seen++
	}
	is.True(seen >= 13) // every filtering field
}
