package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/audit"
)

// auditPageSize is the events a page of the Audit page shows.
const auditPageSize = 50

// auditData is the Audit page: the filter as typed, the events, paging.
type auditData struct {
	Actions     []string
	TargetTypes []string
	Action      string
	TargetType  string
	TargetID    string
	From, To    string
	Items       []audit.Event
	Count       int64
	From1, To1  int64 // the rows shown, 1-based
	Prev, Next  string
	Export      string // the export link of this filter (JSON lines)
}

// auditList is the security events' page (AuditView): a GET form of the
// API's filters, 50 events a page, newest first, and the export link.
func (c *console) auditList(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.Audit == nil {
		c.fail(w, r, p, domain.Errorf(domain.ENOTFOUND, "security events are not available"))
		return
	}
	q := r.URL.Query()
	d := auditData{Actions: audit.Actions(), TargetTypes: []string{audit.TargetUser, audit.TargetRole, audit.TargetOffice, audit.TargetDatabase}, Action: q.Get("Action"), TargetType: q.Get("TargetType"), TargetID: q.Get("TargetId"),
		From: q.Get("From"), To: q.Get("To")}
	f := audit.Filter{Limit: auditPageSize, TargetType: strings.TrimSpace(d.TargetType), TargetID: strings.TrimSpace(d.TargetID)}
	if d.Action != "" {
		f.Actions = []string{d.Action}
	}
	for _, v := range []struct {
		name, value string
		dst         **time.Time
	}{{"From", d.From, &f.From}, {"To", d.To, &f.To}} {
		if v.value == "" {
			continue
		}
		t, err := time.Parse("2006-01-02", v.value)
		if err != nil {
			p.Errors[v.name] = []string{"a date, yyyy-mm-dd"}
			continue
		}
		if v.name == "To" {
			t = t.Add(24*time.Hour - time.Millisecond) // the whole day
		}
		*v.dst = &t
	}
	off, _ := strconv.Atoi(q.Get("Offset"))
	f.Offset = max(off, 0)
	p.Title = "Audit"
	if len(p.Errors) > 0 {
		p.Error = "Please correct the fields marked below."
		p.Data = d
		c.render(w, r, http.StatusBadRequest, "audit", p)
		return
	}
	items, n, err := c.svc.Audit.Events(r.Context(), f)
	if err != nil {
		c.formFail(w, r, p, "audit", err)
		return
	}
	d.Items, d.Count = items, n
	d.From1, d.To1 = int64(f.Offset)+1, int64(f.Offset+len(items))
	link := func(offset int) string {
		v := url.Values{}
		for _, kv := range [][2]string{{"Action", d.Action}, {"TargetType", d.TargetType}, {"TargetId", d.TargetID}, {"From", d.From}, {"To", d.To}} {
			if kv[1] != "" {
				v.Set(kv[0], kv[1])
			}
		}
		if offset > 0 {
			v.Set("Offset", strconv.Itoa(offset))
		}
		return "/console/audit?" + v.Encode()
	}
	if f.Offset > 0 {
		d.Prev = link(max(f.Offset-auditPageSize, 0))
	}
	if int64(f.Offset+len(items)) < n {
		d.Next = link(f.Offset + auditPageSize)
	}
	ev := url.Values{"format": {"jsonl"}}
	if d.Action != "" {
		ev.Set("Action", d.Action)
	}
	d.Export = "/api/audit/events/export?" + ev.Encode()
	p.Data = d
	c.render(w, r, 0, "audit", p)
}
