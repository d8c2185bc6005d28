package console

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// HTMXVersion is the embedded htmx release (static/htmx-<version>.min.js).
const HTMXVersion = "2.0.11"

// staticHandler serves the embedded assets. Their names carry versions,
// so they may be cached for long.
func staticHandler() http.Handler {
	sub, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix("/console/static/", http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=86400")
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// page is what every template gets.
type page struct {
	Title     string
	Principal account.Principal
	Me        user.User // the signed-in user (name in the header)
	CSRF      string
	Flash     string
	Error     string              // a banner above the form
	Errors    map[string][]string // field errors, by input name
	Form      url.Values          // what the form shows (refilled after an error)
	Data      any
	RequestID string
	DevOTP    string // the code shown under the development warning
	Status    int
}

// Can reports whether the signed-in user holds the named permission.
func (p *page) Can(name string) bool {
	perm, ok := account.ParsePermission(name)
	return ok && p.Principal.Can(perm)
}

// SignedIn reports whether the page is for a signed-in user.
func (p *page) SignedIn() bool { return p.Principal.SessionID != "" }

// V is the form's value of name.
func (p *page) V(name string) string { return p.Form.Get(name) }

// Checked reports whether a checkbox of the form is on.
func (p *page) Checked(name string) bool { return p.Form.Get(name) == "true" }

// Has reports whether a multi-valued field (checkbox group) holds v.
func (p *page) Has(name, v string) bool {
	for _, x := range p.Form[name] {
		if x == v {
			return true
		}
	}
	return false
}

// Err is the field's error text.
func (p *page) Err(name string) string { return strings.Join(p.Errors[name], "; ") }

// fieldData is one labelled input.
type fieldData struct {
	Name, Label, Type, Value, Error, Auto, Hint string
	Required                                    bool
}

type templates map[string]func() *template.Template

var funcs = template.FuncMap{
	// field renders a labelled input: name, label, type, then options
	// "required", "auto=..." and "hint=...".
	"field": func(p *page, name, label, typ string, opts ...string) fieldData {
		f := fieldData{Name: name, Label: label, Type: typ, Value: p.V(name), Error: p.Err(name)}
		if typ == "checkbox" && !p.Checked(name) {
			f.Value = ""
		}
		for _, o := range opts {
			switch {
			case o == "required":
				f.Required = true
			case strings.HasPrefix(o, "auto="):
				f.Auto = o[5:]
			case strings.HasPrefix(o, "hint="):
				f.Hint = o[5:]
			}
		}
		return f
	},
	"money": money,
	"plain": func(d decimal.Decimal) string { return d.String() },
	"years": func(d *decimal.Decimal) string {
		if d == nil {
			return "—"
		}
		return d.String()
	},
	"date": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			if v.IsZero() {
				return ""
			}
			return v.UTC().Format("2006-01-02")
		case *time.Time:
			if v == nil || v.IsZero() {
				return ""
			}
			return v.UTC().Format("2006-01-02")
		}
		return ""
	},
	"yesno": func(b bool) string {
		if b {
			return "Yes"
		}
		return "No"
	},
	"itoa":       func(n int64) string { return strconv.FormatInt(n, 10) },
	"methodName": methodName,
	"details":    details,
	"amount": func(d *decimal.Decimal) string {
		if d == nil {
			return "—"
		}
		return money(*d)
	},
	"when": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			if !v.IsZero() {
				return v.UTC().Format("2006-01-02 15:04 UTC")
			}
		case *time.Time:
			if v != nil && !v.IsZero() {
				return v.UTC().Format("2006-01-02 15:04 UTC")
			}
		}
		return ""
	},
	"optid": func(n *int64) string {
		if n == nil {
			return "—"
		}
		return strconv.FormatInt(*n, 10)
	},
	"kb":    func(n int64) string { return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KB" },
	"inc":   func(n int) int { return n + 1 },
	"human": humanEnum,
	"add":   func(a, b int64) int64 { return a + b },
}

// parseTemplates parses the layout now and each page with it on the
// page's first use: every page holds a copy of the layout, and an idle
// console need not hold twenty (about 2.5 MB). The templates are embedded
// and every page is rendered by the tests, so a late parse cannot fail in
// a build that passed them.
func parseTemplates() templates {
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html"))
	names, _ := fs.Glob(templateFS, "templates/*.html")
	t := templates{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || name == "partials" {
			continue
		}
		t[name] = sync.OnceValue(func() *template.Template {
			return template.Must(template.Must(base.Clone()).ParseFS(templateFS, n))
		})
	}
	return t
}

// render writes a page with status (200 when 0). Rendering into a buffer
// first means a template failure still gets a clean error page.
func (c *console) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	if p.Flash == "" {
		p.Flash = c.takeFlash(w, r)
	}
	if status == 0 {
		status = http.StatusOK
	}
	p.Status = status
	t, ok := c.tmpl[name]
	var buf bytes.Buffer
	if !ok {
		c.internal(w, r, errors.New("no template "+name))
		return
	}
	if err := t().ExecuteTemplate(&buf, "layout.html", p); err != nil {
		c.internal(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// requestID is the id the HTTP adapter gave the request (its X-Request-Id
// answer header), or a new one when the console runs on its own.
func requestID(w http.ResponseWriter) string {
	if id := w.Header().Get("X-Request-Id"); id != "" {
		return id
	}
	id := randomString()[:16]
	w.Header().Set("X-Request-Id", id)
	return id
}

// listPage renders a list page of what its loader returned, or the page
// for the loader's error.
func (c *console) listPage(w http.ResponseWriter, r *http.Request, p *page, tmpl, title string, data any, err error) {
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	p.Title = title
	p.Data = data
	c.render(w, r, 0, tmpl, p)
}

// errorPage shows a plain page with a title and a sentence.
func (c *console) errorPage(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	p := &page{Title: title, Error: msg, Form: url.Values{}, RequestID: requestID(w)}
	if pr, ok := account.FromContext(r.Context()); ok {
		p.Principal = pr
		p.CSRF = c.sessionToken(pr.SessionID)
	}
	c.render(w, r, status, "error", p)
}

// internal logs err with the request id and shows the 500 page, which
// carries only that id.
func (c *console) internal(w http.ResponseWriter, r *http.Request, err error) {
	id := requestID(w)
	c.log.ErrorContext(r.Context(), "console: internal error", "request_id", id, "path", r.URL.Path, "err", err)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_ = c.tmpl["500"]().ExecuteTemplate(w, "layout.html", &page{Title: "Something went wrong", RequestID: id, Form: url.Values{}})
}

// errorPages is the status and title of the page showing each domain
// error code; a code not listed is an internal error.
var errorPages = map[string]struct {
	status int
	title  string
}{
	domain.EINVALID:      {http.StatusBadRequest, "Bad request"},
	domain.EUNAUTHORIZED: {http.StatusUnauthorized, ""},
	domain.EFORBIDDEN:    {http.StatusForbidden, "Not permitted"},
	domain.ENOTFOUND:     {http.StatusNotFound, "Not found"},
	domain.ECONFLICT:     {http.StatusConflict, "Not possible"},
	domain.ERATELIMITED:  {http.StatusTooManyRequests, "Too many requests"},
	domain.EUPSTREAM:     {http.StatusBadGateway, "Provider unavailable"},
	domain.ETOOLARGE:     {http.StatusRequestEntityTooLarge, "Too large"},
	domain.EUNSUPPORTED:  {http.StatusUnsupportedMediaType, "Not supported"},
}

// statusOf maps a domain error code to the status of the page showing it.
func statusOf(code string) int {
	if e, ok := errorPages[code]; ok {
		return e.status
	}
	return http.StatusInternalServerError
}

// fail shows the page for a use case's error.
func (c *console) fail(w http.ResponseWriter, r *http.Request, p *page, err error) {
	code := domain.ErrorCode(err)
	switch code {
	case domain.EINTERNAL, domain.ENOTIMPLEMENTED:
		c.internal(w, r, err)
		return
	case domain.EUNAUTHORIZED:
		c.clearCookie(w, sessionCookie)
		http.Redirect(w, r, "/console/login", http.StatusSeeOther)
		return
	case domain.EREAUTH:
		c.confirmRedirect(w, r)
		return
	}
	setRetry(w, err)
	c.errorPage(w, r, statusOf(code), errorPages[code].title, domain.ErrorMessage(err))
}

func setRetry(w http.ResponseWriter, err error) {
	var de *domain.Error
	if errors.As(err, &de) && de.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((de.RetryAfter+time.Second-1)/time.Second)))
	}
}

// formFail shows the form tmpl again with the error: field errors next to
// their fields, anything else the use case says as a banner. Internal
// errors and ended sessions go to fail.
func (c *console) formFail(w http.ResponseWriter, r *http.Request, p *page, tmpl string, err error) {
	code := domain.ErrorCode(err)
	switch code {
	case domain.EINTERNAL, domain.ENOTIMPLEMENTED, domain.EUNAUTHORIZED, domain.EREAUTH:
		c.fail(w, r, p, err)
		return
	}
	var de *domain.Error
	if errors.As(err, &de) && len(de.Fields) > 0 {
		for k, v := range de.Fields {
			p.Errors[k] = append(p.Errors[k], v...)
		}
		p.Error = "Please correct the fields marked below."
	} else {
		p.Error = domain.ErrorMessage(err)
	}
	setRetry(w, err)
	c.render(w, r, statusOf(code), tmpl, p)
}

// loadMe fills the header's user.
func (c *console) loadMe(ctx context.Context, p *page) error {
	u, err := c.svc.Users.MeFormatted(ctx)
	if err != nil {
		return err
	}
	p.Me = u
	return nil
}

// pathID is the {id} of the route (the router admits only digits).
func pathID(r *http.Request) int64 {
	n, _ := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	return n
}

// money writes an amount with cents and thousands separators: 150,000.00.
func money(d decimal.Decimal) string {
	s := d.StringFixed(remuneration.MoneyPlaces)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, ch := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	out := b.String() + "." + frac
	if neg {
		out = "-" + out
	}
	return out
}

// methodName is how a session signed in, in words.
func methodName(m string) string {
	switch m {
	case account.MethodPassword:
		return "Password and emailed code"
	case account.MethodAuthenticator:
		return "Password and authenticator app"
	case account.MethodRecoveryCode:
		return "Password and recovery code"
	case account.MethodIdP:
		return "Identity provider"
	case account.MethodPasskey:
		return "Passkey"
	}
	return m
}

// details writes an event's details as "name: value; ..." in name order.
func details(d map[string]any) string {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := d[k]
		if l, ok := v.([]any); ok {
			s := make([]string, len(l))
			for j, x := range l {
				s[j] = fmt.Sprint(x)
			}
			v = strings.Join(s, ", ")
		}
		parts[i] = fmt.Sprintf("%s: %v", k, v)
	}
	return strings.Join(parts, "; ")
}
