package contract

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
)

// Page sizes of a list read from a query: DefaultLimit when Limit is
// absent, MaxLimit at most (a larger Limit, however large, is clamped).
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// ParseFilter reads a list filter from query parameters, the one reader
// of the JSON API's list and the console's (docs/architecture.md, "Contract lists").
// Names are matched without regard to case. Status and ContractType may
// repeat and each value may be a comma-separated list (any of them);
// every other parameter is read once (its first value). Booleans are
// true or false (also 1 and 0), ids integers, dates RFC 3339 date-times
// or yyyy-mm-dd dates (UTC). Empty values do not filter. SortDesc
// defaults to true, Limit to DefaultLimit. Errors are one EINVALID whose
// fields are the parameters' names, then Validate's.
func ParseFilter(q url.Values) (Filter, error) {
	p := queryReader{q: map[string][]string{}, e: domain.FieldErrors{}}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys) // names differing only in case, in one order every time
	for _, k := range keys {
		l := strings.ToLower(k)
		p.q[l] = append(p.q[l], q[k]...)
	}
	f := Filter{SortDesc: true, Limit: DefaultLimit}
	f.Search = strings.TrimSpace(p.get("Search"))
	f.Statuses = queryEnum(p, "Status", AllStatuses(), ParseStatus)
	f.Types = queryEnum(p, "ContractType", AllTypes(), ParseType)
	f.IsSigned = p.bool("IsSigned")
	f.IsDigital = p.bool("IsDigital")
	f.MatterID = p.int("MatterId")
	f.ClientID = p.int("ClientId")
	f.ProjectID = p.int("ProjectId")
	if v := p.get("RelatedEntityType"); strings.TrimSpace(v) != "" {
		rel, err := ParseRelatedEntity(v)
		if err != nil {
			p.e.Add("RelatedEntityType", domain.ErrorMessage(err))
		}
		f.Related = rel
	}
	f.RelatedID = p.int("RelatedEntityId")
	f.StartFrom, f.StartTo = p.time("StartDateFrom"), p.time("StartDateTo")
	f.EndFrom, f.EndTo = p.time("EndDateFrom"), p.time("EndDateTo")
	f.OwnerID = p.int("OwnerId")
	f.NoticeFrom, f.NoticeTo = p.time("NoticeDateFrom"), p.time("NoticeDateTo")
	if v := p.get("SortBy"); v != "" {
		sortBy, err := ParseSortField(v)
		if err != nil {
			p.e.Add("SortBy", domain.ErrorMessage(err))
		}
		f.SortBy = sortBy
	}
	if d := p.bool("SortDesc"); d != nil {
		f.SortDesc = *d
	}
	f.Limit, f.Offset = p.paging()
	if err := p.e.Err(); err != nil {
		return f, err
	}
	return f, f.Validate()
}

// queryReader reads parameters by lower-cased name, collecting errors.
type queryReader struct {
	q map[string][]string
	e domain.FieldErrors
}

func (p queryReader) get(name string) string {
	if vs := p.q[strings.ToLower(name)]; len(vs) > 0 {
		return strings.TrimSpace(vs[0])
	}
	return ""
}

func (p queryReader) bool(name string) *bool {
	v := p.get(name)
	if v == "" {
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.e.Add(name, name+" must be true or false")
		return nil
	}
	return &b
}

func (p queryReader) int(name string) *int64 {
	v := p.get(name)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		p.e.Add(name, name+" must be an integer")
		return nil
	}
	return &n
}

// timeLayouts are the accepted date forms, tried in order.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

func (p queryReader) time(name string) *time.Time {
	v := p.get(name)
	if v == "" {
		return nil
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, v); err == nil {
			t = t.UTC()
			return &t
		}
	}
	p.e.Add(name, name+" must be an RFC 3339 date-time or a yyyy-mm-dd date")
	return nil
}

// paging reads Limit and Offset: a negative or non-integer value is an
// error; a Limit above MaxLimit, however large, is MaxLimit.
func (p queryReader) paging() (limit, offset int64) {
	limit = DefaultLimit
	if v := p.get("Limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-"):
			limit = MaxLimit
		case err != nil || n < 0:
			p.e.Add("Limit", "Limit must be a non-negative integer")
		default:
			limit = min(n, MaxLimit)
		}
	}
	if v := p.get("Offset"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			p.e.Add("Offset", "Offset must be a non-negative integer")
		} else {
			offset = n
		}
	}
	return limit, offset
}

// queryEnum reads every value of a repeatable enumeration, each value a
// comma-separated list; an unknown one is an error naming the accepted
// values.
func queryEnum[T interface {
	~int
	String() string
}](p queryReader, name string, all []T, parse func(string) (T, error)) []T {
	var out []T
	for _, v := range p.q[strings.ToLower(name)] {
		for _, part := range strings.Split(v, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			x, err := parse(part)
			if err != nil {
				var de *domain.Error
				msg := name + " is invalid"
				if errors.As(enumError(name, all), &de) {
					msg = de.Message
				}
				p.e.Add(name, msg)
				return nil
			}
			out = append(out, x)
		}
	}
	return out
}
